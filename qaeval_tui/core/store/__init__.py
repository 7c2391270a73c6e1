"""The store: runs, review items and assignments, labels, the inbox and adjudications, kept in SQLite
(`store.sqlite`, where every SQL statement of the project lives)."""
