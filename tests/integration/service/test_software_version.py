"""R5/R19: a start under another software version than the last start records
``software_version_changed`` (old, new) before anything else of that start, on every store."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from adapters import service as service_module
from adapters.clock import SteppingClock
from adapters.service import TableService
from eventlog.system_events import SYSTEM_STREAM

START = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


def start(store: Any, version: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service_module, "software_version", lambda: version)
    TableService(store, clock=SteppingClock(START, timedelta(seconds=1))).start()


def system(store: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(e.type, dict(e.payload)) for e in store.read_stream(SYSTEM_STREAM)]


def test_a_new_version_is_recorded_first_and_once(
    store_factory: Callable[[], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    start(store_factory(), "1.4.0", monkeypatch)  # the first start: nothing to compare with
    start(store_factory(), "1.4.0", monkeypatch)  # the same version: no change
    start(store_factory(), "1.5.0", monkeypatch)
    start(store_factory(), "1.5.0", monkeypatch)
    store = store_factory()
    kinds = [kind for kind, _ in system(store)]
    assert kinds == ["service_started", "store_opened"] * 2 + [
        "software_version_changed",
        "service_started",
        "store_opened",
        "service_started",
        "store_opened",
    ]
    (change,) = [p for kind, p in system(store) if kind == "software_version_changed"]
    assert (change["old_version"], change["new_version"]) == ("1.4.0", "1.5.0")
    assert (change["actor_id"], change["actor_role"]) == ("paigow", "system")
    assert store.verify().ok


def test_the_last_start_is_found_behind_many_other_system_events(
    store_factory: Callable[[], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the stream's last 256 events (the first place looked), the whole stream is read."""
    store = store_factory()
    start(store, "2.0.0", monkeypatch)
    service = TableService(store, clock=SteppingClock(START, timedelta(seconds=1)))
    for _ in range(300):
        service.stop()
    start(store_factory(), "2.1.0", monkeypatch)
    changes = [p for kind, p in system(store_factory()) if kind == "software_version_changed"]
    assert [(p["old_version"], p["new_version"]) for p in changes] == [("2.0.0", "2.1.0")]


def test_workers_starting_together_record_the_change_once(
    store_factory: Callable[[], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    start(store_factory(), "3.0.0", monkeypatch)
    monkeypatch.setattr(service_module, "software_version", lambda: "3.1.0")
    services = [
        TableService(store_factory(), clock=SteppingClock(START, timedelta(seconds=1)))
        for _ in range(3)
    ]
    threads = [threading.Thread(target=s.start) for s in services]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    kinds = [kind for kind, _ in system(store_factory())]
    assert kinds.count("software_version_changed") == 1
    assert kinds.count("service_started") == 4
    assert kinds[2] == "software_version_changed"  # right after the first start's two events
