"""Headless core, one package per domain: `golden` (the golden set), `running` (a suite through the
system and the judge), `gate`, `review`, `statistics`, `curation` and `store`; beside them the pieces
every domain shares (`config`, `rubric`, `limits`, `errors`, `text`, `jsonl`, `atomic_file`, `batch`), and
`usecases`, what the CLI and the TUI call.

Imports neither textual nor rich (a test checks this in a fresh interpreter).
"""
