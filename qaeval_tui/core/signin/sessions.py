"""Signed-in sessions of `qaeval serve`: held in the server's memory only, each with an expiry.

A session id and its CSRF token are 32 random bytes each. A session ends at sign-out, at its
expiry, or when the server stops (nothing about a session, a password least of all, is written
anywhere): after a restart everyone signs in again and their app resumes from the store.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from qaeval_tui.core.review.views import Role


@dataclass(frozen=True)
class Session:
    """One signed-in person: who, in which app, since when (UTC, for people), until when (clock seconds).

    `environment` is what their app process is given beyond the server's own (their store and
    name); on a team store it holds their login's URL, password included, so it never leaves memory."""

    id: str
    csrf: str
    name: str
    role: Role
    environment: Mapping[str, str] = field(repr=False)
    signed_in_at: str
    expires_at: float


@dataclass
class SessionBook:
    """The server's sessions, by id."""

    lifetime_s: float = 8 * 3600
    clock: Callable[[], float] = time.monotonic
    _sessions: dict[str, Session] = field(default_factory=dict)

    def open(self, name: str, role: Role, environment: Mapping[str, str]) -> Session:
        session = Session(
            id=secrets.token_urlsafe(32),
            csrf=secrets.token_urlsafe(32),
            name=name,
            role=role,
            environment=dict(environment),
            signed_in_at=datetime.now(UTC).isoformat(timespec="seconds"),
            expires_at=self.clock() + self.lifetime_s,
        )
        self._sessions[session.id] = session
        return session

    def get(self, session_id: str | None) -> Session | None:
        """The live session with this id; an expired one is ended and None returned."""
        session = self._sessions.get(session_id or "")
        if session is None:
            return None
        if self.clock() >= session.expires_at:
            del self._sessions[session.id]
            return None
        return session

    def end(self, session_id: str) -> Session | None:
        return self._sessions.pop(session_id, None)

    def expired(self) -> list[Session]:
        """End and return every session past its expiry (the server stops their apps)."""
        now = self.clock()
        gone = [session for session in self._sessions.values() if now >= session.expires_at]
        for session in gone:
            del self._sessions[session.id]
        return gone

    def signed_in(self) -> list[Session]:
        """Live sessions, earliest first (the curators' status page)."""
        now = self.clock()
        return sorted((s for s in self._sessions.values() if now < s.expires_at), key=lambda s: s.signed_in_at)


def same_token(expected: str, offered: str | None) -> bool:
    """A CSRF token check in constant time."""
    return offered is not None and hmac.compare_digest(expected.encode(), offered.encode())
