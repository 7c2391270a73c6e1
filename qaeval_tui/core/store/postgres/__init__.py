"""The PostgreSQL store backend (psycopg 3): the same tables, columns and behaviour as the SQLite one.

`connection` opens a store by URL, migrates it and groups writes into transactions; `runs`,
`review`, `labels` and `curation` add each domain's statements; `store.PgStore` assembles them.
Rows are built and checked by `core.store.codec`, shared with the SQLite backend.
"""
