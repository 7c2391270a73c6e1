"""The store: runs, review items and assignments, labels, the inbox and adjudications.

`backend.StoreBackend` is the interface, `rows` its typed rows. Each domain's module (`runs`,
`review`, `labels`, `inbox`, ...; gathered in `domains`) writes its statements once over the
dialect seam (`seam.Driver`), and two drivers run them: a SQLite file (`sqlite.Store`) and a
PostgreSQL database (`postgres.store.PgStore`); `codec` holds the rows and checks both share,
`schema` the migrations of both. Every SQL statement of the project lives in this package. Open a
store with `opening.open_store(location)` (a path or a URL), as every caller outside this package
does; nothing there knows which backend it got.
"""
