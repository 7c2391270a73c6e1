"""A store's URL: is it PostgreSQL's, and how it may be shown (every credential masked).

Apart from `opening`, so that the PostgreSQL backend names its store without importing the
function that opens it (which imports the backend).

The URL is read the way libpq reads it (`conninfo_uri_parse`), not as a web URL: the user part runs
from the scheme to the first `@` before any `/`, so a password may hold an unencoded `#` or `?`
(which `urllib` takes for a fragment or a query, showing the rest of the password). Where libpq and
a reader could disagree (a second `@`, an unclosed `[`, a control character), nothing after the
scheme is shown at all: when in doubt, no credentials.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from qaeval_tui.core.errors import UsageError

URL_SCHEMES = ("postgresql://", "postgres://")
HIDDEN = "(credentials hidden)"
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)(.*)$", re.DOTALL)


def is_postgres_url(location: object) -> bool:
    return isinstance(location, str) and location.startswith(URL_SCHEMES)


def libpq_split(url: str) -> tuple[str, str | None, str] | None:
    """(scheme, user part or None, the rest) as libpq splits a URI; None when it is no URI."""
    match = _SCHEME.match(url)
    if match is None:
        return None
    scheme, after = match.groups()
    end = next((i for i, char in enumerate(after) if char in "@/"), len(after))
    if end < len(after) and after[end] == "@":
        return scheme, after[:end], after[end + 1 :]
    return scheme, None, after


def _doubtful(rest: str) -> bool:
    """A remainder libpq and a reader might split differently: show none of it."""
    netloc = re.split(r"[/?]", rest, maxsplit=1)[0]
    unclosed = netloc.count("[") != netloc.count("]")
    return "@" in rest or unclosed or any(ord(char) < 0x20 or ord(char) == 0x7F for char in rest)


def redacted(url: str) -> str:
    """The URL as it may be shown: the password of its user part and any `...password=` parameter
    masked; nothing after the scheme when libpq might read it otherwise than this does."""
    parts = libpq_split(url)
    if parts is None:
        return HIDDEN
    scheme, user, rest = parts
    if _doubtful(rest) or (user is not None and _doubtful(user.partition(":")[0])):
        return f"{scheme}{HIDDEN}"
    shown = "" if user is None else user.split(":", 1)[0] + (":***" if ":" in user else "") + "@"
    location, question, query = rest.partition("?")
    if question:
        query = "&".join(_masked(item) for item in query.split("&"))
    return f"{scheme}{shown}{location}{question}{query}"


def _masked(item: str) -> str:
    """One `key=value` of a URL's query, its value masked when the key names a secret (`password`,
    `sslpassword`: libpq's two; any `...password`, should another come)."""
    key, eq, _ = item.partition("=")
    return f"{key}=***" if eq and unquote(key).strip().lower().endswith("password") else item


def secrets(url: str) -> list[str]:
    """Every credential the URL holds, as written and decoded, longest first (to scrub a message)."""
    parts = libpq_split(url)
    if parts is None:
        return [url] if url else []
    _, user, rest = parts
    found: list[str] = []
    if user is not None and ":" in user:
        found.append(user.split(":", 1)[1])
    for item in rest.partition("?")[2].split("&"):
        key, eq, value = item.partition("=")
        if eq and unquote(key).strip().lower().endswith("password"):
            found.append(value)
    found += [unquote(text) for text in found]
    return sorted({text for text in found if text}, key=len, reverse=True)


WITHHELD = "the driver's reason is withheld: it could show a credential (check the URL's brackets, `@` and encoding)"


def scrubbed(text: str, url: str) -> str:
    """`text` (a driver's message) with the URL shown as `redacted` shows it and no credential of it left.

    When the URL is one `redacted` shows nothing of, or a credential is too short to replace without
    mangling the message (and appears in it), the message is withheld whole."""
    if redacted(url).endswith(HIDDEN):
        return WITHHELD
    text = text.replace(url, redacted(url))
    for secret in secrets(url):
        if secret not in text:
            continue
        if len(secret) < 4:
            return WITHHELD
        text = text.replace(secret, "***")
    return text


SERVER_OPTIONS = ("options",)
"""URL parameters refused: `options=-c...` sets server settings (a search_path that hides the store's
tables, a role) under every statement qaeval sends."""


def refuse_server_options(url: str) -> None:
    """A UsageError (exit 2, one line) when the URL carries libpq's `options` parameter."""
    parts = libpq_split(url)
    query = "" if parts is None else parts[2].partition("?")[2]
    keys = {unquote(item.partition("=")[0]).strip().lower() for item in query.split("&")}
    for key in SERVER_OPTIONS:
        if key in keys:
            raise UsageError(
                f"{redacted(url)}: the store URL's `{key}` parameter is refused: server settings given there "
                "(a search_path, a role) would move the store's tables out from under qaeval; drop it"
            )
