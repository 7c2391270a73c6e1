"""Integer limits the store, the config and every reader of labels share."""

SQLITE_MAX_INTEGER = 2**63 - 1  # the store's INTEGER columns hold signed 64-bit values
MAX_SEED = SQLITE_MAX_INTEGER
"""Largest seed a config or `--seed` takes: the store records the review seed."""
MAX_REVISION = 2**53
"""Largest label revision a file may carry: far below SQLite's limit, so the next revision always
fits, and exact as a JSON number in any reader (a double holds every integer up to 2^53)."""
MAX_NOTE_CHARS = 20_000
"""Longest note a label may carry (characters): a reviewer's remark, not a document. Label files,
the review screen and the store's checks refuse a longer one."""
