"""The floor pages' session: a signed cookie, its CSRF token and the rules of who sees what.

Sign-in takes an API key once (a form field, never a URL); the key is looked up as the API does
and the session cookie then carries the key's id, actor and role, an expiry and a random nonce,
signed with HMAC-SHA256 under a server-side secret (``PAIGOW_FLOOR_SESSION_SECRET``, else random
at each start). The cookie is HttpOnly, SameSite=Strict and Path=/floor; the token itself is never
stored anywhere. A visitor who has not signed in gets an anonymous session (a nonce only) so that
the sign-in form has a CSRF token too.

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
    key_id: str | None = None
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

    def __init__(self, secret: str | None, minutes: int) -> None:
        self._secret = (secret or secrets.token_urlsafe(48)).encode("utf-8")
        self.seconds = minutes * 60

    def _mac(self, data: bytes) -> str:
        digest = hmac.new(self._secret, data, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")

    def anonymous(self) -> Session:
        return Session(nonce=secrets.token_urlsafe(16), expires=int(time.time()) + 3600)

    def signed_in(self, key_id: str, actor: str, role: str) -> Session:
        return Session(
            nonce=secrets.token_urlsafe(16),
            expires=int(time.time()) + self.seconds,
            key_id=key_id,
            actor=actor,
            role=role,
        )

    def encode(self, session: Session) -> str:
        body: dict[str, Any] = {"n": session.nonce, "e": session.expires}
        if session.signed_in:
            body.update(k=session.key_id, a=session.actor, r=session.role)
        data = base64.urlsafe_b64encode(json.dumps(body, sort_keys=True).encode("utf-8"))
        text = data.decode("ascii").rstrip("=")
        return f"{text}.{self._mac(text.encode('ascii'))}"

    def decode(self, cookie: str | None) -> Session | None:
        """The cookie's session; ``None`` for no cookie, a bad signature or an expired one."""
        if not cookie or "." not in cookie:
            return None
        text, mac = cookie.rsplit(".", 1)
        if not hmac.compare_digest(mac, self._mac(text.encode("ascii", "replace"))):
            return None
        try:
            body = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
            session = Session(
                nonce=str(body["n"]),
                expires=int(body["e"]),
                key_id=body.get("k"),
                actor=body.get("a"),
                role=body.get("r"),
            )
        except (ValueError, KeyError, TypeError):
            return None
        return session if session.expires > time.time() else None

    def csrf(self, session: Session) -> str:
        return self._mac(b"csrf|" + session.nonce.encode("ascii"))

    def csrf_ok(self, session: Session, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(str(token), self.csrf(session))
