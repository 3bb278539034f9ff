"""R5/R19: software change control over the code's identity. A floor supervisor authorises the
digest of a release (``eventlog/code_identity.py``; ``paigow service identity --from DIR``
computes it from a checkout), with a reason, BEFORE it runs; a writer (``paigow serve``,
``paigow simulate``) whose running code's digest differs from the last ``service_started``'s
refuses to start unless an authorisation of exactly that digest is waiting for it.

An authorisation is ``software_version_authorised`` on the system stream (digest, reason, who),
hashed, chained and sealed like every system event. It is *waiting* from when it is recorded until
a ``software_version_changed`` into that digest consumes it: each change is authorised once (a
rollback, or a return to code that ran before, needs an authorisation of its own), while a
restart of the running code in between consumes nothing. The change then names the authorisation
it used (its global position and reason). The first start on a log (no ``service_started``
before it: a new database, or one only keys and CLI commands wrote to) needs none: there is no
earlier code to change from. A start after one recorded before digests (schema 1, no digest) is a
change, authorised like any other. A read-only server writes nothing and needs none.

:func:`start_check` is the decision, pure over the stream's events; the audit
(``audit/system_duties.py``) walks the same stream with the same rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from eventlog.code_identity import is_digest
from eventlog.system_events import SYSTEM_STREAM, upcast_system
from table_core.ports import EventStore, StoreError

#: Who may authorise a release's code: the role that changes a table's rules (R19).
AUTHORISING_ROLES = ("floor",)
_REASON_LIMIT = 2000
#: How to learn a digest, for the refusals that ask for one.
HOW_TO_DIGEST = (
    "`paigow service identity --from DIR` prints a release's digest from its checkout, "
    "`paigow service identity` the running code's"
)

Events = Iterable[tuple[int, str, Mapping[str, Any]]]


class VersionAuthorisationError(ValueError):
    """An authorisation refused (an empty reason, a role without the right): nothing written."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


class VersionNotAuthorised(StoreError):
    """A writer refuses to start: its code changes the log's and nothing authorises it."""


@dataclass(frozen=True)
class LastStart:
    """The last ``service_started``: its ``digest`` (``None``: recorded before digests) and its
    ``software_version`` label."""

    digest: str | None
    version: str

    def described(self) -> str:
        return self.digest or f"version {self.version}, no digest recorded"


@dataclass(frozen=True)
class StartCheck:
    """What a start under ``digest`` finds: ``last`` the last start (``None``: the log's first),
    ``authorisation`` the waiting authorisation it uses (``None``: no change)."""

    last: LastStart | None
    authorisation: Mapping[str, Any] | None = None


def waiting(events: Events) -> dict[str, dict[str, Any]]:
    """The authorisations still waiting, by digest: the last recorded of each digest that no
    ``software_version_changed`` into it consumed since. ``events``: (position, type, payload) of
    the system stream, in order (payloads upcast)."""
    found: dict[str, dict[str, Any]] = {}
    for position, kind, payload in events:
        digest = authorised_digest(payload) if kind == "software_version_authorised" else None
        if digest is not None:
            found[digest] = {**payload, "position": position}
        elif kind == "software_version_changed" and payload.get("new_digest"):
            found.pop(str(payload["new_digest"]), None)
    return found


def authorised_digest(payload: Mapping[str, Any]) -> str | None:
    """The digest a ``software_version_authorised`` authorises: its ``digest``; one recorded
    before that field (by a release before digests) authorises the digest its ``version`` names,
    if it names one, and no code otherwise (a version label)."""
    digest = payload.get("digest") or str(payload.get("version", "")).lower()
    return str(digest) if is_digest(str(digest)) else None


def start_check(events: Events, digest: str, store_url: str | None = None) -> StartCheck:
    """The decision for a start under ``digest`` over the system stream's ``events`` (position,
    type, payload, in order); raises :class:`VersionNotAuthorised` for an unauthorised change,
    naming the command that authorises it (on the database at ``store_url`` when given)."""
    listed = list(events)
    last = last_started(listed)
    if last is None or last.digest == digest:
        return StartCheck(last)
    authorisation = waiting(listed).get(digest)
    if authorisation is None:
        raise VersionNotAuthorised(
            f"the running code (digest {digest}) is not authorised (the log last ran "
            f"{last.described()}): a floor supervisor authorises it first with `paigow service "
            f"authorise-version {digest} --reason TEXT --key-file FLOOR-KEY{_on(store_url)}` "
            "(R5/R19); nothing was written"
        )
    return StartCheck(last, authorisation)


def system_events(store: EventStore) -> list[tuple[int, str, Mapping[str, Any]]]:
    """The system stream as :func:`start_check` reads it (payloads upcast)."""
    return [
        (e.position, e.type, upcast_system(e.type, e.schema_version, e.payload))
        for e in store.read_stream(SYSTEM_STREAM)
    ]


def require_authorised(store: EventStore, digest: str) -> StartCheck:
    """Refuse (before anything is written) a start under ``digest`` that nothing authorises."""
    from adapters.store.key_advice import store_url

    return start_check(system_events(store), digest, store_url(store))


def _on(store_url: str | None) -> str:
    """`` --db URL`` for a database (the suggested command then works whatever PAIGOW_DB is)."""
    named = store_url and "://" in store_url and not store_url.startswith("memory:")
    return f" --db {store_url}" if named else ""


def checked_digest(text: str | None) -> str:
    """``text`` as a digest (64 hex digits, either case); a version label or anything else is
    refused with how to get the digest."""
    digest = (text or "").strip().lower()
    if not is_digest(digest):
        shown = (text or "").strip()[:40] or "nothing"
        raise VersionAuthorisationError(
            "a software version is authorised by its code's digest (64 hex digits), not "
            f"{shown!r}: {HOW_TO_DIGEST}"
        )
    return digest


def last_started(events: Events) -> LastStart | None:
    """The last ``service_started`` (``None``: never started); payloads upcast."""
    last = None
    for _, kind, payload in events:
        if kind == "service_started":
            last = payload
    if last is None:
        return None
    return LastStart(last.get("digest"), str(last["software_version"]))


def record(position: int, payload: Mapping[str, Any]) -> dict[str, Any]:
    """An authorisation as the CLI and HTTP answer it (stable keys; ``digest`` added)."""
    return {
        "position": position,
        "version": payload["version"],
        "digest": payload.get("digest"),
        "reason": payload["reason"],
        "authorised_by": {"id": payload["actor_id"], "role": payload["actor_role"]},
        "at": payload["at"],
    }


def _reason(value: str | None) -> str:
    text = (value or "").strip()
    if not text:
        raise VersionAuthorisationError("a software version's authorisation needs a reason")
    if len(text) > _REASON_LIMIT or not text.isprintable():
        raise VersionAuthorisationError(
            f"a software version's reason is 1..{_REASON_LIMIT} printable characters"
        )
    return text
