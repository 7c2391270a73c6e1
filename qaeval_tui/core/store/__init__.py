"""The store: runs, review items and assignments, labels, the inbox and adjudications.

`backend.StoreBackend` is the interface, `rows` its typed rows, and two backends offer it: a SQLite
file (`sqlite.Store`, one module per domain) and a PostgreSQL database (`postgres.store.PgStore`);
`codec` holds the rows and checks both share, `schema` the migrations of both. Every SQL statement
of the project lives in this package. Open a store with `opening.open_store(path or URL)`, as every
caller outside this package does; nothing there knows which backend it got.
"""
