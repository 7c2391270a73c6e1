"""Integer limits the store, the config and every reader of labels share."""

SQLITE_MAX_INTEGER = 2**63 - 1  # the store's INTEGER columns hold signed 64-bit values
MAX_SEED = SQLITE_MAX_INTEGER
"""Largest seed a config or `--seed` takes: the store records the review seed."""
MAX_REVISION = 2**53
"""Largest label revision a file may carry: far below SQLite's limit, so the next revision always
fits, and exact as a JSON number in any reader (a double holds every integer up to 2^53)."""

# What the team store's database accepts in a label (schema migration 9): the tools read back
# whatever it holds, so a reviewer's login cannot write what would stop them.
MAX_NOTE_CHARS = 10_000
"""Longest note (and not-blind reason) a label may carry, in characters: a reviewer's remark, not a
document. Label files, the review screen, the store's checks and the team store's database refuse a longer one."""
MAX_NAME_CHARS = 200
"""Longest item id, case id, rubric version or origin a label carries, in characters."""
MAX_AXES = 64
"""Most axes a scores document names."""
MAX_AXIS_NAME_CHARS = 100
"""Longest axis name in a scores document, in characters."""
MAX_SCORES_BYTES = 8_192
"""Largest scores document, in bytes."""
MAX_SCORE_MAGNITUDE = 9_999
"""A stored score is a whole number within +-this (every rubric scale fits), or null."""
