"""``append_streams``: several streams' commands in ONE transaction, all or none (store/across.py),
on the in-memory fake, SQLite and PostgreSQL alike."""

from __future__ import annotations

from typing import Any

import pytest

from table_core.ports import CommandsPartlyRecorded, ConcurrencyError
from tests.integration.store.conftest import dice, wager


def snapshot(store: Any) -> tuple[list[int], int]:
    return [e.position for e in store.read_all()], len(store.checkpoints())


def test_two_streams_are_recorded_in_order_and_sealed_together(store: Any) -> None:
    store.append("system", 0, [dice([3])], "sys-1")
    table, system = store.append_streams(
        [
            ("table-1", 0, [("t-1", [wager(1, 500), wager(2, 700)])]),
            ("system", 1, [("sys-2", [dice([4], minute=1)])]),
        ],
        checkpoint=True,
    )
    recorded = [*table, *system]  # one list of recorded events per command
    assert [(e.stream_id, e.version, e.position) for e in recorded] == [
        ("table-1", 1, 2),
        ("table-1", 2, 3),
        ("system", 2, 4),
    ]
    assert store.read_stream("table-1") == recorded[:2]
    assert store.read_stream("system")[1] == recorded[2]
    assert store.checkpoints()[-1].position == 4
    assert store.verify().ok
    # A retry of the same command ids answers their events and writes nothing.
    again = store.append_streams(
        [
            ("table-1", 0, [("t-1", [wager(1, 500), wager(2, 700)])]),
            ("system", 1, [("sys-2", [dice([4], minute=1)])]),
        ],
        checkpoint=True,
    )
    assert again == [table, system]
    assert snapshot(store) == ([1, 2, 3, 4], 1)


def test_a_stale_part_writes_no_part(store: Any) -> None:
    store.append("system", 0, [dice([3])], "sys-1")
    before = snapshot(store)
    with pytest.raises(ConcurrencyError) as refused:
        store.append_streams(
            [("table-1", 0, [("t-1", [wager(1, 500)])]), ("system", 0, [("sys-2", [dice([4])])])],
            checkpoint=True,
        )
    assert (refused.value.stream_id, refused.value.actual_version) == ("system", 1)
    assert snapshot(store) == before
    assert store.stream_version("table-1") == 0


def test_a_part_already_recorded_with_a_new_one_writes_nothing(store: Any) -> None:
    store.append("table-1", 0, [wager(1, 500)], "t-1")
    before = snapshot(store)
    with pytest.raises(CommandsPartlyRecorded):
        store.append_streams(
            [("table-1", 0, [("t-1", [wager(1, 500)])]), ("system", 0, [("sys-2", [dice([4])])])]
        )
    assert snapshot(store) == before


def test_a_failure_before_the_commit_writes_no_part(store: Any) -> None:
    store.append("system", 0, [dice([3])], "sys-1")
    before = snapshot(store)

    def fail() -> None:
        raise RuntimeError("the disk filled up")

    store.faults["before_commit"] = fail
    with pytest.raises(RuntimeError):
        store.append_streams(
            [("table-1", 0, [("t-1", [wager(1, 500)])]), ("system", 1, [("sys-2", [dice([4])])])],
            checkpoint=True,
        )
    store.faults.clear()
    assert snapshot(store) == before
    assert store.stream_version("table-1") == 0
    recorded = store.append_streams(
        [("table-1", 0, [("t-1", [wager(1, 500)])]), ("system", 1, [("sys-2", [dice([4])])])]
    )
    assert [[e.position for e in part] for part in recorded] == [[2], [3]]
    assert store.verify().ok
