"""Who may open an app in a browser (`qaeval serve`), decided without a web framework.

`tokens`: per-person sign-in tokens for a SQLite store, kept hashed beside it. `people`: checking a
sign-in (a token against the roster, or a team login by connecting as it) and what the app process
of that person is given. `limits`: the failed sign-in limit per name and per address. `sessions`:
signed-in sessions, their expiry and their CSRF tokens.
"""
