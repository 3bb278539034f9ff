"""R5/R19: a start under another software version than the last start needs the floor's
authorisation of exactly that version (``software_version_authorised``, with a reason), recorded
before it; the start then records ``software_version_changed`` (old, new, the authorisation's
position and reason) before anything else of that start. Without one the start is refused and
nothing is written. On every store (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from adapters.clock import SteppingClock
from adapters.service import TableService
from adapters.software_versions import (
    VersionAuthorisationError,
    VersionNotAuthorised,
    authorise,
)
from eventlog.system_events import SYSTEM_STREAM
from table_core.ports import Actor

START = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
FLOOR = Actor("floor-3", "floor")


def service(store: Any, version: str) -> TableService:
    return TableService(
        store, clock=SteppingClock(START, timedelta(seconds=1)), software_version=version
    )


def start(store: Any, version: str) -> None:
    service(store, version).start()


def system(store: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(e.type, dict(e.payload)) for e in store.read_stream(SYSTEM_STREAM)]


def test_an_authorised_version_is_recorded_first_and_once(
    store_factory: Callable[[], Any],
) -> None:
    start(store_factory(), "1.4.0")  # the first start of a new database: nothing to authorise
    start(store_factory(), "1.4.0")  # the same version: no change
    granted = authorise(store_factory(), "1.5.0", "ticket CHG-881: fix", FLOOR, START)
    start(store_factory(), "1.5.0")
    start(store_factory(), "1.5.0")
    store = store_factory()
    kinds = [kind for kind, _ in system(store)]
    assert kinds == ["service_started", "store_opened"] * 2 + [
        "software_version_authorised",
        "software_version_changed",
        "service_started",
        "store_opened",
        "service_started",
        "store_opened",
    ]
    (authorised,) = [p for kind, p in system(store) if kind == "software_version_authorised"]
    assert (authorised["version"], authorised["reason"]) == ("1.5.0", "ticket CHG-881: fix")
    assert (authorised["actor_id"], authorised["actor_role"]) == ("floor-3", "floor")
    (change,) = [p for kind, p in system(store) if kind == "software_version_changed"]
    assert (change["old_version"], change["new_version"]) == ("1.4.0", "1.5.0")
    assert (change["authorisation"], change["reason"]) == (
        granted["position"],
        "ticket CHG-881: fix",
    )
    assert (change["actor_id"], change["actor_role"]) == ("paigow", "system")
    assert store.verify().ok
    assert store.checkpoints()[-1].position == store.read_all()[-1].position  # sealed


def test_an_unauthorised_version_is_refused_and_nothing_is_written(
    store_factory: Callable[[], Any],
) -> None:
    start(store_factory(), "1.4.0")
    store = store_factory()
    before = [e.position for e in store.read_all()]
    checkpoints = len(store.checkpoints())
    authorise(store, "1.6.0", "another version", FLOOR, START)  # not the one started
    with pytest.raises(VersionNotAuthorised) as refused:
        start(store_factory(), "1.5.0")
    assert str(refused.value) == (
        "software version 1.5.0 is not authorised (the log last ran 1.4.0): a floor supervisor "
        "authorises it first with `paigow service authorise-version 1.5.0 --reason TEXT "
        "--key-file FLOOR-KEY` (R5/R19); nothing was written"
    )
    after = store_factory()
    assert [e.position for e in after.read_all()] == [*before, before[-1] + 1]
    assert len(after.checkpoints()) == checkpoints + 1  # the authorisation's seal, no more


def test_each_change_consumes_its_authorisation_and_restarts_consume_none(
    store_factory: Callable[[], Any],
) -> None:
    start(store_factory(), "1.0")
    authorise(store_factory(), "2.0", "upgrade", FLOOR, START)
    start(store_factory(), "1.0")  # a restart of the running version: 2.0's still waits
    start(store_factory(), "2.0")
    with pytest.raises(VersionNotAuthorised):  # a rollback is a change of its own
        start(store_factory(), "1.0")
    authorise(store_factory(), "1.0", "rollback: CHG-2 failed", FLOOR, START)
    start(store_factory(), "1.0")
    with pytest.raises(VersionNotAuthorised):  # 2.0's first authorisation was used up
        start(store_factory(), "2.0")
    changes = [p for kind, p in system(store_factory()) if kind == "software_version_changed"]
    assert [(p["old_version"], p["new_version"], p["reason"]) for p in changes] == [
        ("1.0", "2.0", "upgrade"),
        ("2.0", "1.0", "rollback: CHG-2 failed"),
    ]


@pytest.mark.parametrize(
    ("version", "reason", "actor", "message", "status"),
    [
        ("2.0", "  ", FLOOR, "a software version's authorisation needs a reason", 422),
        ("", "why", FLOOR, "a software version's authorisation needs a version", 422),
        (
            "2.0",
            "why",
            Actor("dealer-1", "dealer"),
            "the dealer role may not authorise a software version: it is the floor's",
            403,
        ),
        (
            "1.0",
            "why",
            FLOOR,
            "software version 1.0 is the one the log runs (its last start): nothing to authorise",
            409,
        ),
    ],
)
def test_a_bad_authorisation_is_refused_and_writes_nothing(
    store_factory: Callable[[], Any],
    version: str,
    reason: str,
    actor: Actor,
    message: str,
    status: int,
) -> None:
    start(store_factory(), "1.0")
    store = store_factory()
    before = store.stream_version(SYSTEM_STREAM)
    with pytest.raises(VersionAuthorisationError) as refused:
        authorise(store, version, reason, actor, START)
    assert (str(refused.value), refused.value.status) == (message, status)
    assert store_factory().stream_version(SYSTEM_STREAM) == before


def test_the_last_start_is_found_behind_many_other_system_events(
    store_factory: Callable[[], Any],
) -> None:
    """Past the stream's last 256 events (the first place looked), the whole stream is read."""
    store = store_factory()
    start(store, "2.0.0")
    authorise(store, "2.1.0", "upgrade", FLOOR, START)
    stopping = service(store, "2.0.0")
    for _ in range(300):
        stopping.stop()
    start(store_factory(), "2.1.0")
    changes = [p for kind, p in system(store_factory()) if kind == "software_version_changed"]
    assert [(p["old_version"], p["new_version"]) for p in changes] == [("2.0.0", "2.1.0")]


def test_workers_starting_together_record_the_change_once(
    store_factory: Callable[[], Any],
) -> None:
    start(store_factory(), "3.0.0")
    authorise(store_factory(), "3.1.0", "upgrade", FLOOR, START)
    services = [service(store_factory(), "3.1.0") for _ in range(3)]
    threads = [threading.Thread(target=s.start) for s in services]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    kinds = [kind for kind, _ in system(store_factory())]
    assert kinds.count("software_version_changed") == 1
    assert kinds.count("service_started") == 4
    assert kinds[3] == "software_version_changed"  # right after the authorisation
