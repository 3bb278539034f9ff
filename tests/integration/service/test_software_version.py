"""R5/R19: a start under code whose digest differs from the last start's needs the floor's
authorisation of exactly that digest (``software_version_authorised``, with a reason), recorded
before it; the start then records ``software_version_changed`` (old and new digest, the
authorisation's position and reason) before anything else of that start. Without one the start is
refused and nothing is written. On every store (memory, SQLite, PostgreSQL).

Each release here is named by a label and stands for the digest of its code (``D("1.4.0")``): the
tests act an upgrade by naming the digest the service records, as a new checkout would compute it.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.clock import SteppingClock
from audit.sources import open_database
from audit.verify import verify_log
from eventlog.envelope import NewEvent
from eventlog.system_events import SYSTEM_STREAM, ServiceStarted, SoftwareVersionAuthorised
from service_layer.change_control import authorise
from service_layer.service import TableService
from service_layer.software_versions import VersionAuthorisationError, VersionNotAuthorised
from service_layer.system_stream import SystemStream
from table_core.ports import Actor
from tests.integration.backends import Opener, open_backend

START = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
FLOOR = Actor("floor-3", "floor")


def D(label: str) -> str:  # a release's digest, by its label
    return hashlib.sha256(label.encode()).hexdigest()


def service(store: Any, version: str) -> TableService:
    return TableService(
        store,
        clock=SteppingClock(START, timedelta(seconds=1)),
        software_version=version,
        code_digest=D(version),
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
    granted = authorise(store_factory(), D("1.5.0"), "ticket CHG-881: fix", FLOOR, START)
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
    assert (authorised["digest"], authorised["reason"]) == (D("1.5.0"), "ticket CHG-881: fix")
    assert authorised["version"] == D("1.5.0")
    assert (authorised["actor_id"], authorised["actor_role"]) == ("floor-3", "floor")
    (change,) = [p for kind, p in system(store) if kind == "software_version_changed"]
    assert (change["old_version"], change["new_version"]) == ("1.4.0", "1.5.0")
    assert (change["old_digest"], change["new_digest"]) == (D("1.4.0"), D("1.5.0"))
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
    authorise(store, D("1.6.0"), "another version", FLOOR, START)  # not the one started
    with pytest.raises(VersionNotAuthorised) as refused:
        start(store_factory(), "1.5.0")
    assert str(refused.value) == (
        f"the running code (digest {D('1.5.0')}) is not authorised (the log last ran "
        f"{D('1.4.0')}): a floor supervisor authorises it first with `paigow service "
        f"authorise-version {D('1.5.0')} --reason TEXT --key-file FLOOR-KEY` (R5/R19); nothing "
        "was written"
    )
    after = store_factory()
    assert [e.position for e in after.read_all()] == [*before, before[-1] + 1]
    assert len(after.checkpoints()) == checkpoints + 1  # the authorisation's seal, no more


def test_each_change_consumes_its_authorisation_and_restarts_consume_none(
    store_factory: Callable[[], Any],
) -> None:
    start(store_factory(), "1.0")
    authorise(store_factory(), D("2.0"), "upgrade", FLOOR, START)
    start(store_factory(), "1.0")  # a restart of the running code: 2.0's still waits
    start(store_factory(), "2.0")
    with pytest.raises(VersionNotAuthorised):  # a rollback is a change of its own
        start(store_factory(), "1.0")
    authorise(store_factory(), D("1.0"), "rollback: CHG-2 failed", FLOOR, START)
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
        (D("2.0"), "  ", FLOOR, "a software version's authorisation needs a reason", 422),
        (
            "2.0",
            "why",
            FLOOR,
            "a software version is authorised by its code's digest (64 hex digits), not '2.0': "
            "`paigow service identity --from DIR` prints a release's digest from its checkout, "
            "`paigow service identity` the running code's",
            422,
        ),
        (
            D("2.0"),
            "why",
            Actor("dealer-1", "dealer"),
            "the dealer role may not authorise a software version: it is the floor's",
            403,
        ),
        (
            D("1.0"),
            "why",
            FLOOR,
            f"the code of digest {D('1.0')} is the one the log runs (its last start): nothing "
            "to authorise",
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
    authorise(store, D("2.1.0"), "upgrade", FLOOR, START)
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
    authorise(store_factory(), D("3.1.0"), "upgrade", FLOOR, START)
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


def test_the_same_version_label_under_other_code_is_a_change(
    store_factory: Callable[[], Any],
) -> None:
    """The label is the distribution's (``0.1.0`` since the first commit): the digest decides."""
    clock = SteppingClock(START, timedelta(seconds=1))
    TableService(store_factory(), clock=clock, code_digest=D("release")).start()
    before = store_factory().stream_version(SYSTEM_STREAM)
    changed = TableService(store_factory(), clock=clock, code_digest=D("commission +1 %"))
    with pytest.raises(VersionNotAuthorised, match="is not authorised"):
        changed.start()
    assert store_factory().stream_version(SYSTEM_STREAM) == before
    (started,) = [p for kind, p in system(store_factory()) if kind == "service_started"]
    assert (started["schema_version"], started["digest"]) == (2, D("release"))
    assert started["software_version"] == changed.software_version  # the same label


def legacy_start(store: Any) -> None:
    """A ``service_started`` as the code before digests recorded it (schema 1: a label only)."""
    payload = {
        "schema_version": 1,
        "at": "2026-11-01T20:00:00Z",
        "actor_id": "paigow",
        "actor_role": "system",
        "type": "service_started",
        "software_version": "0.1.0",
        "store": "casino",
    }
    new = NewEvent(
        type="service_started",
        schema_version=1,
        payload=payload,
        actor=Actor("paigow", "system"),
        at=datetime(2026, 11, 1, 20, 0, tzinfo=UTC),
    )
    store.append(SYSTEM_STREAM, store.stream_version(SYSTEM_STREAM), [new], "legacy-start")


def test_a_start_after_one_recorded_before_digests_needs_an_authorisation(
    store_factory: Callable[[], Any],
) -> None:
    legacy_start(store_factory())
    with pytest.raises(VersionNotAuthorised, match=r"last ran version 0\.1\.0, no digest"):
        start(store_factory(), "1.0")
    granted = authorise(store_factory(), D("1.0"), "CHG-9: code identity", FLOOR, START)
    start(store_factory(), "1.0")
    (change,) = [p for kind, p in system(store_factory()) if kind == "software_version_changed"]
    assert (change["old_version"], change["old_digest"], change["new_digest"]) == (
        "0.1.0",
        None,
        D("1.0"),
    )
    assert change["authorisation"] == granted["position"]


# --- the audit, on the databases a regulator reads ------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    yield from open_backend(request.param, request, tmp_path)


def audit(store: Any) -> Any:
    source = open_database(store.engine.url.render_as_string(hide_password=False))
    source.public_key = store.public_key
    return verify_log(source)


def test_the_audit_accepts_authorised_changes_from_a_log_recorded_before_digests(
    database: Opener,
) -> None:
    legacy_start(database())
    # Authorised with the release before digests: its argument, the digest, kept as ``version``.
    older = SoftwareVersionAuthorised(
        at=START, actor_id="floor-3", actor_role="floor", version=D("1.0"), reason="CHG-9"
    )
    SystemStream(database()).append([older])
    start(database(), "1.0")
    start(database(), "1.0")
    authorise(database(), D("1.1"), "CHG-10", FLOOR, START)
    start(database(), "1.1")
    report = audit(database())
    assert [str(f) for f in report.findings] == []


def test_the_audit_names_every_start_under_an_unauthorised_digest(database: Opener) -> None:
    """Written behind the service's back (or by code that skipped the check): a
    ``service_started`` under a digest no authorised change made the log's."""
    start(database(), "1.0")
    store = database()
    forged = ServiceStarted(
        at=START, store="casino", software_version="1.0", digest=D("rng: unshuffled deck"),
        recipe="sha256sum-v1", parts={}, rng=None,
    )  # fmt: skip
    stream = SystemStream(store)
    first = stream.append([forged])[0].position
    second = stream.append([forged])[0].position
    # The service notices at its next start: the log last ran other code.
    with pytest.raises(VersionNotAuthorised, match=f"the log last ran {D('rng: unshuffled deck')}"):
        start(database(), "1.0")
    authorise(database(), D("1.0"), "back to the certified release", FLOOR, START)
    start(database(), "1.0")  # an authorised change: no finding
    report = audit(database())
    assert [(f.kind, f.clause, f.position) for f in report.findings] == [
        ("procedure", "R19", first),
        ("procedure", "R19", second),
    ]
    assert report.findings[0].message == (
        f"the service started under code digest {D('rng: unshuffled deck')}, which no "
        f"authorised change made the log's (it runs {D('1.0')})"
    )
