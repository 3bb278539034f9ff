"""The keys as the log records them (R5/R19): what an API key may do is read from the system
stream, never from the ``api_keys`` table alone.

Each key's creation is an ``api_key_created`` event carrying its token's SHA-256 (``key_hash``),
sealed by a checkpoint in its own transaction; ``api_key_role_changed`` and ``api_key_revoked``
follow it. :class:`KeyLedger` folds those events, in stream order, into each key's actor, role and
state, and it takes only events the store itself appended:

- with the signing key (every writing process): the same check as a table's catch-up, an event
  after the last checkpoint that holds must carry a valid append tag (``store.verify_tags``); the
  first one that does not stops the fold there (nothing after it is taken) and is reported;
- without it (``paigow serve --read-only``): only events up to the newest checkpoint whose
  signature the store's public key verifies (a SQLite file's ``.pub`` beside it, else the
  ``public_key`` setting, ``PAIGOW_PUBLIC_KEY``); with neither, no key is trusted.

So an ``api_keys`` row INSERTed or edited behind the store's back (a token hash of the insider's
choosing, a dealer made floor, a revoked key revived) authenticates nothing, and neither does an
``api_key_created`` INSERTed by the published hash recipe. An edit of a sealed event's payload is
the audit's finding (``chain.hash``); see docs/audit.md's threat model.

Keys recorded before the event carried ``key_hash`` are listed, never trusted: create new ones.

:meth:`KeyLedger.lookup` is what every request runs: the system stream's version is read (one
query) and its new events folded only when it moved, so a key revoked or re-roled by any process
(``paigow keys revoke`` included) is refused from the next request on; the answer for each active
key's token hash is built once, when the keys change, not per request.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from adapters.logging import get_logger
from eventlog.canonical import checkpoint_message, format_time
from eventlog.keys import signature_holds
from eventlog.system_events import SYSTEM_STREAM
from service_layer.operators.rights import Role
from table_core.ports import EventStore, RecordedEvent, UntaggedEvents

log = get_logger(component="keys")

KEY_EVENTS = frozenset({"api_key_created", "api_key_revoked", "api_key_role_changed"})


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A key as the log records it: never the token itself."""

    key_id: str
    actor_id: str
    role: Role
    created_at: str
    revoked_at: str | None = None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class LoggedKey:
    """A key as the log records it."""

    key_id: str
    actor_id: str
    role: Role
    key_hash: str | None  # None: recorded before the log bound keys to their token
    created_at: str
    position: int
    revoked_at: str | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None and self.key_hash is not None

    def api_key(self) -> ApiKey:
        return ApiKey(self.key_id, self.actor_id, self.role, self.created_at, self.revoked_at)


class KeyLedger:
    """The keys of ``store``'s system stream, caught up on each :meth:`catch_up` (one read of the
    stream's version, and of its new events when there are any).

    ``on_untagged``: told when the system stream holds an event the store did not append (the
    service then records ``verification_failed`` and refuses commands)."""

    def __init__(
        self,
        store: EventStore,
        on_untagged: Callable[[UntaggedEvents], Any] | None = None,
        public_key: bytes | None = None,
    ) -> None:
        self.store = store
        self.on_untagged = on_untagged
        self.public_key = getattr(store, "public_key", None) or public_key
        self._version = 0
        self._keys: dict[str, LoggedKey] = {}  # by key id
        self._by_hash: dict[str, str] = {}  # token hash -> key id
        #: The answer of :meth:`lookup` by token hash: the active keys, built anew (and swapped in
        #: whole, for the request threads reading it) whenever a key event is folded.
        self._answers: dict[str, ApiKey] = {}
        self._lock = threading.Lock()
        self._reported = False

    def lookup(self, token: str) -> ApiKey | None:
        """The active key of ``token`` as the log records it now, or ``None``."""
        self.catch_up()
        return self._answers.get(token_hash(token))

    def catch_up(self) -> None:
        head = self.store.stream_version(SYSTEM_STREAM)
        if head <= self._version:
            return
        with self._lock:
            if head <= self._version:
                return
            events = self._trusted(self.store.read_stream(SYSTEM_STREAM, self._version))
            keyed = [event for event in events if event.type in KEY_EVENTS]
            for event in keyed:
                self._apply(event)
            if keyed:
                self._answers = {
                    digest: key.api_key()
                    for digest in self._by_hash
                    if (key := self.by_hash(digest)) is not None
                }
            if events:
                self._version = events[-1].version

    def by_hash(self, digest: str) -> LoggedKey | None:
        """The active key whose token has this SHA-256, or ``None``."""
        key_id = self._by_hash.get(digest)
        key = None if key_id is None else self._keys.get(key_id)
        return key if key is not None and key.active else None

    def by_id(self, key_id: str) -> LoggedKey | None:
        return self._keys.get(key_id)

    def recorded(self) -> list[LoggedKey]:
        """Every key the log records, in the order of their creation."""
        return sorted(self._keys.values(), key=lambda k: k.position)

    def active(self) -> list[LoggedKey]:
        return [k for k in self.recorded() if k.active]

    # --- folding ---------------------------------------------------------------------------

    def _apply(self, event: RecordedEvent) -> None:
        p = event.payload
        key_id = str(p["key_id"])
        if event.type == "api_key_created":
            digest = p.get("key_hash")
            self._keys[key_id] = LoggedKey(
                key_id=key_id,
                actor_id=str(p["key_actor"]),
                role=cast(Role, p["role"]),
                key_hash=None if digest is None else str(digest),
                created_at=event.at.isoformat(),
                position=event.position,
            )
            # A hash that does not begin with its key id was never this store's making.
            if digest is not None and str(digest).startswith(key_id):
                self._by_hash[str(digest)] = key_id
            else:
                self._keys[key_id] = replace(self._keys[key_id], key_hash=None)
            return
        known = self._keys.get(key_id)
        if known is None:
            return
        if event.type == "api_key_revoked":
            self._keys[key_id] = replace(known, revoked_at=event.at.isoformat())
        else:
            self._keys[key_id] = replace(known, role=cast(Role, p["new_role"]))

    # --- trust -----------------------------------------------------------------------------

    def _trusted(self, events: Sequence[RecordedEvent]) -> Sequence[RecordedEvent]:
        """The leading run of ``events`` the store appended itself (the module's rule)."""
        if not events:
            return events
        if getattr(self.store, "tagger", None) is not None:
            try:
                self.store.verify_tags(SYSTEM_STREAM, self._version)
            except UntaggedEvents as error:
                self._report(error)
                bad = getattr(error.finding, "version", None)
                if not isinstance(bad, int):
                    return []
                return [e for e in events if e.version < bad]
            return events
        sealed = self._sealed_position()
        taken: list[RecordedEvent] = []
        for event in events:
            if event.position > sealed:
                break
            taken.append(event)
        return taken

    def _sealed_position(self) -> int:
        """The newest checkpoint's position when the store's public key verifies its signature
        (a store without the signing key); 0 when there is none or no public key."""
        public = self.public_key
        last = getattr(self.store, "last_checkpoint", None)
        checkpoint = last() if callable(last) else None
        if public is None or checkpoint is None:
            return 0
        message = checkpoint_message(
            checkpoint.position, checkpoint.hash, format_time(checkpoint.at)
        )
        return checkpoint.position if signature_holds(public, checkpoint.signature, message) else 0

    def _report(self, error: UntaggedEvents) -> None:
        if self._reported:
            return
        self._reported = True
        if self.on_untagged is None:
            log.error("api_keys_untrusted", finding=str(error.finding))
        else:  # the caller records and logs it (the service: ``verification_failed``)
            self.on_untagged(error)
