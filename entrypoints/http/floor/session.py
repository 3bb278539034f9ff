"""The floor pages' session: a signed cookie, its CSRF token and the rules of who sees what.

Sign-in takes an API key once (a form field, never a URL); the key is looked up as the API does,
the server opens a session (``session_store``: a random id whose SHA-256, key id and expiry the
database keeps) and the cookie carries that id, an expiry and a random nonce, signed with
HMAC-SHA256 under a server-side secret (``PAIGOW_FLOOR_SESSION_SECRET``, else one derived from the
store's signing key, so every worker process reads every cookie; random at each start for a
server without a key). Each request reads the session's row: the actor and the role are the
key's as they are now, and a session signed out, expired or whose key was revoked is over at once.
The cookie is HttpOnly, SameSite=Strict and Path=/floor; the API key itself is never stored
anywhere. A visitor who has not signed in gets an anonymous session (a nonce only) so that the
sign-in form has a CSRF token too.

CSRF: every form that acts carries ``csrf`` = HMAC(secret, "csrf|" + nonce); a POST whose token is
missing or wrong is 403 and changes nothing (SameSite=Strict already keeps the cookie off other
sites' requests; the token is the second lock).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

COOKIE = "paigow_floor"
COOKIE_PATH = "/floor"
#: The roles that may sign in (the cage has no floor page).
FLOOR_ROLES = ("floor", "auditor", "dealer")


@dataclass(frozen=True, slots=True)
class Session:
    nonce: str
    expires: int
    session_id: str | None = None  # a signed-in session's id (its row in ``floor_sessions``)
    key_id: str | None = None  # the key's, as the session's row gives it at each request
    actor: str | None = None
    role: str | None = None

    @property
    def signed_in(self) -> bool:
        return self.role is not None

    @property
    def dealer_table(self) -> str | None:
        """A dealer key's own table: the part of its actor id after ``@`` (docs/floor.md,
        "Roles"): keys are not bound to tables, so the table is named where the key is made,
        ``paigow keys create --role dealer --actor ana@PG-7``. None: no table (no live view)."""
        if self.role != "dealer" or self.actor is None or "@" not in self.actor:
            return None
        return self.actor.rsplit("@", 1)[1] or None


class Sessions:
    """Makes and reads the signed cookies under one secret."""

    def __init__(self, secret: str | bytes | None, minutes: int) -> None:
        if isinstance(secret, str):
            secret = secret.encode("utf-8")
        self._secret = secret or secrets.token_bytes(48)
        self.seconds = minutes * 60

    def _mac(self, data: bytes) -> str:
        digest = hmac.new(self._secret, data, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")

    def anonymous(self) -> Session:
        return Session(nonce=secrets.token_urlsafe(16), expires=int(time.time()) + 3600)

    def signed_in(self, session_id: str, expires: int) -> Session:
        """A signed-in session's cookie content (the key comes from its row at each request)."""
        return Session(nonce=secrets.token_urlsafe(16), expires=expires, session_id=session_id)

    def expiry(self) -> int:
        return int(time.time()) + self.seconds

    def encode(self, session: Session) -> str:
        body: dict[str, Any] = {"n": session.nonce, "e": session.expires}
        if session.session_id is not None:
            body["s"] = session.session_id
        data = base64.urlsafe_b64encode(json.dumps(body, sort_keys=True).encode("utf-8"))
        text = data.decode("ascii").rstrip("=")
        return f"{text}.{self._mac(text.encode('ascii'))}"

    def decode(self, cookie: str | None) -> Session | None:
        """The cookie's session as it is signed (the key not yet looked up: ``pages.session_of``
        does); ``None`` for no cookie, a bad signature or an expired one."""
        if not cookie or "." not in cookie:
            return None
        text, mac = cookie.rsplit(".", 1)
        if not hmac.compare_digest(mac, self._mac(text.encode("ascii", "replace"))):
            return None
        try:
            body = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
            found = body.get("s")
            session = Session(
                nonce=str(body["n"]),
                expires=int(body["e"]),
                session_id=None if found is None else str(found),
            )
        except (ValueError, KeyError, TypeError):
            return None
        return session if session.expires > time.time() else None

    def csrf(self, session: Session) -> str:
        return self._mac(b"csrf|" + session.nonce.encode("ascii"))

    def csrf_ok(self, session: Session, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(str(token), self.csrf(session))
