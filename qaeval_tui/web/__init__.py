"""`qaeval serve`: the reviewer and curator apps in a browser, one app process per signed-in person.

An aiohttp server of our own around textual-serve's pieces: its browser client (xterm.js and the
fonts it ships, served from here: no asset comes from another host) and its `AppService`, which
speaks Textual's web driver protocol with one app process. We add what textual-serve leaves out:
sign-in, sessions, the per-person command and environment, and the security headers. The apps run
as processes (`python -m qaeval_tui review|curate`), so this package imports neither the TUI nor
the CLI.
"""
