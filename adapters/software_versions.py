"""R5/R19: software change control. A floor supervisor authorises a named software version, with a
reason, BEFORE it runs; a writer (``paigow serve``, ``paigow simulate``) that starts under a
version other than the last ``service_started`` refuses to start unless an authorisation of
exactly that version is waiting for it.

An authorisation is ``software_version_authorised`` on the system stream (version, reason, who),
hashed, chained and sealed like every system event. It is *waiting* from when it is recorded until
a ``software_version_changed`` into that version consumes it: each change is authorised once (a
rollback, or a return to a version that ran before, needs an authorisation of its own), while a
restart of the running version in between consumes nothing. The change then names the
authorisation it used (its global position and reason). The first start of a new database needs
none: there is no earlier version to change from. A read-only server writes nothing and needs none.

:func:`start_check` is the decision, pure over the stream's events; the audit
(``audit/system_duties.py``) walks the same stream with the same rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from eventlog.system_events import SYSTEM_STREAM, SoftwareVersionAuthorised
from table_core.ports import EventStore, StoreError

#: Who may authorise a software version: the role that changes a table's rules (R19).
AUTHORISING_ROLES = ("floor",)
_LIMITS = {"version": 100, "reason": 2000}


class VersionAuthorisationError(ValueError):
    """An authorisation refused (an empty reason, a role without the right): nothing written."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


class VersionNotAuthorised(StoreError):
    """A writer refuses to start: its version changes the log's and nothing authorises it."""


@dataclass(frozen=True)
class StartCheck:
    """What a start under ``version`` finds: ``last`` the version of the last start (``None``: a
    new database), ``authorisation`` the waiting authorisation it uses (``None``: no change)."""

    last: str | None
    authorisation: Mapping[str, Any] | None = None


def waiting(events: Iterable[tuple[int, str, Mapping[str, Any]]]) -> dict[str, dict[str, Any]]:
    """The authorisations still waiting, by version: the last recorded of each version that no
    ``software_version_changed`` into it consumed since. ``events``: (position, type, payload) of
    the system stream, in order."""
    found: dict[str, dict[str, Any]] = {}
    for position, kind, payload in events:
        if kind == "software_version_authorised":
            found[str(payload["version"])] = {**payload, "position": position}
        elif kind == "software_version_changed":
            found.pop(str(payload["new_version"]), None)
    return found


def start_check(events: Iterable[tuple[int, str, Mapping[str, Any]]], version: str) -> StartCheck:
    """The decision for a start under ``version`` over the system stream's ``events`` (position,
    type, payload, in order); raises :class:`VersionNotAuthorised` for an unauthorised change."""
    listed = list(events)
    last = last_started(listed)
    if last is None or last == version:
        return StartCheck(last)
    authorisation = waiting(listed).get(version)
    if authorisation is None:
        raise VersionNotAuthorised(
            f"software version {version} is not authorised (the log last ran {last}): a floor "
            f"supervisor authorises it first with `paigow service authorise-version {version} "
            "--reason TEXT --key-file FLOOR-KEY` (R5/R19); nothing was written"
        )
    return StartCheck(last, authorisation)


def system_events(store: EventStore) -> list[tuple[int, str, Mapping[str, Any]]]:
    """The system stream as :func:`start_check` reads it."""
    return [(e.position, e.type, e.payload) for e in store.read_stream(SYSTEM_STREAM)]


def require_authorised(store: EventStore, version: str) -> StartCheck:
    """Refuse (before anything is written) a start under ``version`` that nothing authorises."""
    return start_check(system_events(store), version)


def authorise(
    store: EventStore, version: str, reason: str, actor: Any, now: datetime
) -> dict[str, Any]:
    """Record ``software_version_authorised`` for ``version`` by ``actor`` (a floor supervisor);
    its record. Refused, nothing written: an empty version or reason, another role, or the
    version the log already runs."""
    from adapters.system_stream import SystemStream

    if actor.role not in AUTHORISING_ROLES:
        raise VersionAuthorisationError(
            f"the {actor.role} role may not authorise a software version: it is the floor's", 403
        )
    version = _text(version, "version")
    reason = _text(reason, "reason")
    events = system_events(store)
    last = last_started(events)
    if last == version:
        raise VersionAuthorisationError(
            f"software version {version} is the one the log runs (its last start): "
            "nothing to authorise",
            409,
        )
    event = SoftwareVersionAuthorised(
        at=now, actor_id=actor.id, actor_role=actor.role, version=version, reason=reason
    )
    (recorded,) = SystemStream(store).append([event])
    return record(recorded.position, recorded.payload)


def last_started(events: Iterable[tuple[int, str, Mapping[str, Any]]]) -> str | None:
    """The version of the last ``service_started`` (``None``: never started)."""
    last = None
    for _, kind, payload in events:
        if kind == "service_started":
            last = str(payload["software_version"])
    return last


def record(position: int, payload: Mapping[str, Any]) -> dict[str, Any]:
    """An authorisation as the CLI and HTTP answer it (stable keys)."""
    return {
        "position": position,
        "version": payload["version"],
        "reason": payload["reason"],
        "authorised_by": {"id": payload["actor_id"], "role": payload["actor_role"]},
        "at": payload["at"],
    }


def _text(value: str | None, what: str) -> str:
    text = (value or "").strip()
    if not text:
        raise VersionAuthorisationError(f"a software version's authorisation needs a {what}")
    if len(text) > _LIMITS[what] or not text.isprintable():
        raise VersionAuthorisationError(
            f"a software version's {what} is 1..{_LIMITS[what]} printable characters"
        )
    return text
