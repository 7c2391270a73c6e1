"""The PostgreSQL driver (psycopg 3): the same tables, columns and behaviour as the SQLite one.

`connection.PgConnection` opens a store by URL, migrates it, groups writes into transactions, maps
the server's errors and implements the dialect seam's hooks (writer locks, the team store's
redacting reads); `bulk` moves whole tables with COPY; `store.PgStore` puts the domain modules'
statements over it.
"""
