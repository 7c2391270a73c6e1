"""The store: runs, review items and assignments, labels, the inbox and adjudications.

`backend.StoreBackend` is the interface, `rows` its typed rows, and `sqlite.Store` the SQLite
backend (schema, connection and one module per domain; every SQL statement of the project lives
in this package). Import `Store` from `qaeval_tui.core.store.sqlite`, as every caller does.
"""
