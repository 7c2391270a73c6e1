"""A store's URL: is it PostgreSQL's, and how it may be shown (every password masked).

Apart from `opening`, so that the PostgreSQL backend names its store without importing the
function that opens it (which imports the backend).
"""

from __future__ import annotations

from urllib.parse import unquote, urlsplit, urlunsplit

URL_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(URL_SCHEMES)


def redacted(url: str) -> str:
    """The URL as it may be shown: any password (in the user part or a `password=` parameter) masked."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url.split("://", 1)[0] + "://***"
    who, at, where = parts.netloc.rpartition("@")
    if ":" in who:
        who = who.split(":", 1)[0] + ":***"
    query = "&".join(_masked(item) for item in parts.query.split("&"))
    return urlunsplit((parts.scheme, who + at + where, parts.path, query, parts.fragment))


def _masked(item: str) -> str:
    """One `key=value` of a URL's query, its value masked when the key names a secret (`password`,
    `sslpassword`: libpq's two; any `...password`, should another come)."""
    key, eq, _ = item.partition("=")
    return f"{key}=***" if eq and unquote(key).lower().endswith("password") else item
