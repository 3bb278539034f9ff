"""The event store contract, run against the in-memory fake, SQLite and PostgreSQL alike."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from eventlog.envelope import NewEvent
from eventlog.verifier import verify
from table_core.ports import (
    Actor,
    CommandIdConflict,
    CommandsPartlyRecorded,
    ConcurrencyError,
    InvalidEvent,
    TamperDetected,
)
from tests.integration.store.conftest import DEALER, OPENED, PIT_BOSS, Backdoor, dice, wager


def test_append_then_read_back_a_round(store: Any) -> None:
    recorded = store.append("table-7", 0, [wager(2, 2500), wager(5, 10_000)], "cmd-bets")

    assert [(e.position, e.version) for e in recorded] == [(1, 1), (2, 2)]
    assert store.read_stream("table-7") == recorded
    first = recorded[0]
    assert first.stream_id == "table-7"
    assert first.type == "wager_placed"
    assert first.schema_version == 1
    assert first.payload == {"seat": 2, "main": 2500, "currency": "EUR"}
    assert first.actor == DEALER
    assert first.at == OPENED and first.at.tzinfo is not None
    assert first.command_id == "cmd-bets"
    assert first.prev_hash == "0" * 64
    assert recorded[1].prev_hash == first.hash
    assert store.stream_version("table-7") == 2
    assert store.stream_version("table-8") == 0
    assert store.read_stream("table-8") == []


def test_the_same_event_hashes_the_same_in_every_store(store: Any) -> None:
    # Pinned bytes and hash: the fake, SQLite and PostgreSQL all store exactly these, and an
    # auditor recomputes the hash from the documented recipe (eventlog/canonical.py).
    [recorded] = store.append("table-1", 0, [wager(1, 500)], "cmd-pinned")
    rows, _ = store.raw_log()
    payload = '{"currency":"EUR","main":500,"seat":1}'
    assert rows[0][5] == payload
    assert rows[0][6] == "2025-03-14T20:00:00.000000Z"
    header = json.dumps(
        ["paigow-event-v1", "0" * 64, "table-1", 1, "wager_placed", 1,
         "2025-03-14T20:00:00.000000Z", "dealer-ann", "dealer", "cmd-pinned"],
        separators=(",", ":"),
    )  # fmt: skip
    expected = hashlib.sha256(f"{header}\n{payload}".encode()).hexdigest()
    assert recorded.hash == expected
    assert expected == "cfd90c5594fba01dff937bd0b074027da7de63310b8bc959d416a9ec471fb7cf"


def test_times_in_any_zone_come_back_as_the_same_instant_in_utc(store: Any) -> None:
    paris = timezone(timedelta(hours=1))
    event = NewEvent("table_opened", 1, {}, PIT_BOSS, datetime(2025, 3, 14, 21, 0, 0, 1, paris))
    [recorded] = store.append("table-1", 0, [event], "cmd-open")
    assert recorded.at == datetime(2025, 3, 14, 20, 0, 0, 1, UTC)
    assert recorded.at.utcoffset() == timedelta(0)


def test_read_all_follows_the_global_position_across_tables(store: Any) -> None:
    store.append("table-1", 0, [wager(1, 100)], "c1")
    store.append("table-2", 0, [wager(1, 200), wager(2, 300)], "c2")
    store.append("table-1", 1, [dice([3, 4, 6])], "c3")

    everything = store.read_all()
    assert [(e.position, e.stream_id, e.version) for e in everything] == [
        (1, "table-1", 1),
        (2, "table-2", 1),
        (3, "table-2", 2),
        (4, "table-1", 2),
    ]
    assert [e.position for e in store.read_all(after_position=2)] == [3, 4]
    assert [e.position for e in store.read_all(after_position=1, limit=2)] == [2, 3]
    assert store.read_all(after_position=4) == []
    assert store.read_stream("table-1", after_version=1) == [everything[3]]


def test_a_stale_writer_gets_a_concurrency_error_and_writes_nothing(store: Any) -> None:
    store.append("table-3", 0, [wager(1, 100)], "dealer-a-1")
    store.append("table-3", 1, [wager(2, 100)], "dealer-b-1")

    with pytest.raises(ConcurrencyError) as refused:
        store.append("table-3", 1, [wager(3, 100), wager(4, 100)], "dealer-a-2")

    assert (refused.value.expected_version, refused.value.actual_version) == (1, 2)
    assert refused.value.stream_id == "table-3"
    assert store.stream_version("table-3") == 2
    assert [e.command_id for e in store.read_all()] == ["dealer-a-1", "dealer-b-1"]
    assert store.events_of_command("dealer-a-2") is None


def test_a_writer_ahead_of_the_stream_is_refused_too(store: Any) -> None:
    store.append("table-3", 0, [wager(1, 100)], "c1")
    with pytest.raises(ConcurrencyError) as refused:
        store.append("table-3", 5, [wager(2, 100)], "c2")
    assert refused.value.actual_version == 1
    with pytest.raises(ConcurrencyError):
        store.append("table-4", 1, [wager(2, 100)], "c3")  # a new table is at version 0
    assert len(store.read_all()) == 1


def test_a_retried_command_returns_its_first_events_and_writes_nothing(store: Any) -> None:
    first = store.append("table-5", 0, [wager(3, 2500), wager(4, 500)], "terminal-9:bet-17")
    store.append("table-5", 2, [dice([1, 2, 3])], "terminal-9:roll-1")

    # The dealer terminal timed out and sends the same bet again, with its old version.
    again = store.append("table-5", 0, [wager(3, 2500), wager(4, 500)], "terminal-9:bet-17")

    assert again == first
    assert store.stream_version("table-5") == 3
    assert len(store.read_all()) == 3
    assert store.events_of_command("terminal-9:bet-17") == first


def test_a_command_id_cannot_be_reused_on_another_table(store: Any) -> None:
    store.append("table-5", 0, [wager(3, 2500)], "terminal-9:bet-17")
    with pytest.raises(CommandIdConflict) as refused:
        store.append("table-6", 0, [wager(3, 2500)], "terminal-9:bet-17")
    assert refused.value.recorded_stream == "table-5"
    assert store.stream_version("table-6") == 0


def test_a_command_is_recorded_whole_or_not_at_all(store: Any) -> None:
    store.append("table-1", 0, [wager(1, 100)], "c1")

    def power_cut() -> None:
        raise RuntimeError("power cut after the inserts, before the commit")

    store.faults["before_commit"] = power_cut
    with pytest.raises(RuntimeError, match="power cut"):
        store.append("table-1", 1, [dice([2, 2, 2]), wager(2, 100), wager(3, 100)], "c2")
    del store.faults["before_commit"]

    assert store.stream_version("table-1") == 1
    assert len(store.read_all()) == 1
    assert store.events_of_command("c2") is None
    # The same command goes through afterwards, at the next dense position.
    recorded = store.append("table-1", 1, [dice([2, 2, 2]), wager(2, 100)], "c2")
    assert [e.position for e in recorded] == [2, 3]
    assert store.verify().ok


@pytest.mark.parametrize(
    ("stream", "expected", "events", "command", "message"),
    [
        ("", 0, "one", "c", "stream id"),
        ("t" * 201, 0, "one", "c", "stream id"),
        ("table-1", -1, "one", "c", "expected_version"),
        ("table-1", True, "one", "c", "expected_version"),
        ("table-1", 0, "none", "c", "at least one event"),
        ("table-1", 0, "one", "", "command id"),
        ("table-1", 0, "dict", "c", "NewEvent"),
    ],
)
def test_malformed_appends_are_refused_alike(
    store: Any, stream: str, expected: Any, events: str, command: str, message: str
) -> None:
    batch: Any = {"one": [wager(1, 1)], "none": [], "dict": [{"type": "wager_placed"}]}[events]
    with pytest.raises(InvalidEvent, match=message):
        store.append(stream, expected, batch, command)
    assert store.read_all() == []


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"main": 25.0}, "float"),
        ({"main": float("nan")}, "float"),
        ({"odds": [1, 2.5]}, "float"),
        ({1: "seat"}, "keys must be strings"),
        ({"chips": {5, 25}}, "not a JSON value"),
        ({"main": 2**63}, "64-bit"),
    ],
)
def test_envelopes_refuse_what_json_money_cannot_hold(payload: Any, message: str) -> None:
    with pytest.raises(InvalidEvent, match=message):
        NewEvent("wager_placed", 1, payload, DEALER, OPENED)


def test_envelopes_refuse_naive_times_and_bad_versions() -> None:
    with pytest.raises(InvalidEvent, match="timezone-aware"):
        NewEvent("wager_placed", 1, {}, DEALER, datetime(2025, 3, 14, 20, 0))
    with pytest.raises(InvalidEvent, match="schema_version"):
        NewEvent("wager_placed", 0, {}, DEALER, OPENED)
    with pytest.raises(InvalidEvent, match="actor"):
        Actor("", "dealer")


def test_the_database_refuses_update_and_delete(store: Any, backdoor: Backdoor) -> None:
    store.append("table-1", 0, [wager(1, 100)], "c1", checkpoint=True)
    if backdoor.kind == "memory":
        # The fake has no path at all that changes or removes an event.
        assert not [n for n in dir(store) if n.startswith(("update", "delete", "remove"))]
        return
    for sql in (
        "UPDATE events SET payload = '{}'",
        "DELETE FROM events",
        "UPDATE event_log SET hash = 'x'",
        "DELETE FROM event_log",
        "DELETE FROM commands",
        "UPDATE checkpoints SET signature = 'x'",
        "DELETE FROM checkpoints",
    ):
        with pytest.raises(Exception, match="append-only"):
            backdoor.raw(sql)
    if backdoor.kind == "postgresql":
        with pytest.raises(Exception, match="append-only"):
            backdoor.raw("TRUNCATE events CASCADE")
    assert store.verify().ok
    assert len(store.read_all()) == 1


def _casino_evening(store: Any) -> None:
    """Two tables, interleaved: table-1 versions 1..3 at positions 1, 2, 4; table-2 at 3, 5, 6."""
    store.append("table-1", 0, [wager(1, 2500), wager(2, 1000)], "t1-bets")
    store.append("table-2", 0, [wager(6, 500)], "t2-bets")
    store.append("table-1", 2, [dice([5, 5, 1])], "t1-roll")
    store.append("table-2", 1, [wager(3, 700), dice([1, 1, 2])], "t2-roll", checkpoint=True)


def test_an_untouched_chain_verifies_with_its_checkpoint(store: Any) -> None:
    _casino_evening(store)
    report = store.verify()
    assert report.ok
    assert (report.events, report.checkpoints, report.signatures_checked) == (6, 1, True)
    [checkpoint] = store.checkpoints()
    assert checkpoint.position == 6
    rows, _ = store.raw_log()
    assert checkpoint.hash == rows[-1][13]
    total = store.replay(lambda money, e: money + e.payload.get("main", 0), 0)
    assert total == 2500 + 1000 + 500 + 700


@pytest.mark.parametrize("position", [1, 4, 6])
def test_a_flipped_byte_is_found_at_its_position(
    store: Any, backdoor: Backdoor, position: int
) -> None:
    _casino_evening(store)
    backdoor.flip_payload_byte(position)
    report = store.verify()
    assert report.first_bad is not None
    assert (report.first_bad.position, report.first_bad.problem) == (position, "hash")
    with pytest.raises(TamperDetected):
        store.replay(lambda n, e: n + 1, 0)


@pytest.mark.parametrize("position", [2, 3])
def test_a_deleted_event_is_found_at_its_position(
    store: Any, backdoor: Backdoor, position: int
) -> None:
    _casino_evening(store)
    backdoor.delete(position)
    report = store.verify()
    assert report.first_bad is not None
    assert (report.first_bad.position, report.first_bad.problem) == (position, "sequence")


def test_removing_the_last_events_is_caught_by_the_checkpoint(
    store: Any, backdoor: Backdoor
) -> None:
    _casino_evening(store)
    backdoor.delete(6)
    report = store.verify()
    assert report.first_bad is not None
    assert (report.first_bad.position, report.first_bad.problem) == (6, "checkpoint")


@pytest.mark.parametrize("position", [1, 3])
def test_a_swapped_pair_is_found_at_the_first_of_the_two(
    store: Any, backdoor: Backdoor, position: int
) -> None:
    # Position 1 swaps two events of table-1 (a version out of order); position 3 swaps events
    # of two tables (each stream still in order, but the global chain no longer holds).
    _casino_evening(store)
    backdoor.swap(position)
    report = store.verify()
    assert report.first_bad is not None
    assert report.first_bad.position == position
    assert report.first_bad.problem in ("sequence", "hash")


def test_a_forged_checkpoint_signature_is_found(store: Any, backdoor: Backdoor) -> None:
    _casino_evening(store)
    backdoor.forge_checkpoint_signature()
    report = store.verify()
    assert report.first_bad is not None
    assert (report.first_bad.position, report.first_bad.problem) == (6, "checkpoint")
    assert "signature" in report.first_bad.detail


def test_checkpoints_sign_the_head_at_the_end_of_each_round(store: Any) -> None:
    store.append("table-1", 0, [wager(1, 100)], "r1", checkpoint=True)
    store.append("table-2", 0, [wager(1, 100)], "x")
    checkpoint = store.checkpoint(OPENED + timedelta(hours=1))
    assert [c.position for c in store.checkpoints()] == [1, 2]
    assert checkpoint.at == OPENED + timedelta(hours=1)
    assert len(checkpoint.signature) == 128
    assert store.verify().ok


# --- batches: several commands of one table in one transaction --------------------------------


def _round_batch(round_number: int) -> list[tuple[str, list[NewEvent]]]:
    """Three commands of a round, as the service batches them: each keeps its own id."""
    r = f"table-1:r{round_number}"
    return [
        (f"{r}:bet-ana", [wager(2, 2500, round_number)]),
        (f"{r}:bet-ben", [wager(5, 1000, round_number), wager(5, 500, round_number)]),
        (f"{r}:dice", [dice([2, 3, 3], round_number)]),
    ]


def test_a_batch_is_recorded_in_one_go_each_event_under_its_own_command(store: Any) -> None:
    recorded = store.append_batch("table-1", 0, _round_batch(1), checkpoint=True)

    assert [[(e.position, e.version, e.command_id) for e in command] for command in recorded] == [
        [(1, 1, "table-1:r1:bet-ana")],
        [(2, 2, "table-1:r1:bet-ben"), (3, 3, "table-1:r1:bet-ben")],
        [(4, 4, "table-1:r1:dice")],
    ]
    flat = [e for command in recorded for e in command]
    assert store.read_stream("table-1") == flat
    assert [e.prev_hash for e in flat[1:]] == [e.hash for e in flat[:-1]]
    assert store.events_of_command("table-1:r1:bet-ben") == recorded[1]
    assert [c.position for c in store.checkpoints()] == [4]
    assert store.verify().ok
    # The next batch chains on: versions and positions go on densely.
    again = store.append_batch("table-1", 4, _round_batch(2))
    assert [e.position for command in again for e in command] == [5, 6, 7, 8]


def test_a_batch_hashes_exactly_as_the_same_commands_appended_one_by_one(store: Any) -> None:
    batched = store.append_batch("table-1", 0, _round_batch(1))
    version = 0
    for command_id, events in _round_batch(1):
        one = store.append("table-2", version, events, command_id.replace("table-1", "table-2"))
        version += len(one)
    rows, _ = store.raw_log()
    # Same payload bytes; the hashes differ only by the stream and command ids they cover.
    assert [row[5] for row in rows[:4]] == [row[5] for row in rows[4:]]
    assert len({e.hash for command in batched for e in command}) == 4
    assert store.verify().ok


def test_a_batch_is_recorded_whole_or_not_at_all(store: Any) -> None:
    store.append("table-1", 0, [wager(1, 100)], "c1")

    def power_cut() -> None:
        raise RuntimeError("power cut after the inserts, before the commit")

    store.faults["before_commit"] = power_cut
    with pytest.raises(RuntimeError, match="power cut"):
        store.append_batch("table-1", 1, _round_batch(1))
    del store.faults["before_commit"]

    assert store.stream_version("table-1") == 1
    assert [store.events_of_command(i) for i, _ in _round_batch(1)] == [None, None, None]
    recorded = store.append_batch("table-1", 1, _round_batch(1))
    assert [e.position for command in recorded for e in command] == [2, 3, 4, 5]
    assert store.verify().ok


def test_a_retried_batch_returns_its_first_events_and_writes_nothing(store: Any) -> None:
    first = store.append_batch("table-1", 0, _round_batch(1))
    store.append("table-1", 4, [wager(3, 700)], "later")

    again = store.append_batch("table-1", 0, _round_batch(1))  # a stale version: still a retry

    assert again == first
    assert store.stream_version("table-1") == 5
    # Each command of the batch is idempotent on its own too.
    [bet_ben] = [events for command_id, events in _round_batch(1) if command_id.endswith("ben")]
    assert store.append("table-1", 0, bet_ben, "table-1:r1:bet-ben") == first[1]
    assert len(store.read_all()) == 5


def test_a_batch_mixing_recorded_and_new_commands_writes_nothing(store: Any) -> None:
    batch = _round_batch(1)
    store.append("table-1", 0, batch[0][1], batch[0][0])  # the first bet went through alone

    with pytest.raises(CommandsPartlyRecorded) as refused:
        store.append_batch("table-1", 1, batch)

    assert refused.value.recorded == ["table-1:r1:bet-ana"]
    assert refused.value.new == ["table-1:r1:bet-ben", "table-1:r1:dice"]
    assert store.stream_version("table-1") == 1
    recorded = store.append_batch("table-1", 1, batch[1:])  # only the new ones: accepted
    assert [e.version for command in recorded for e in command] == [2, 3, 4]


def test_a_batch_reusing_another_tables_command_id_is_refused(store: Any) -> None:
    store.append("table-2", 0, [wager(1, 100)], "table-1:r1:dice")
    with pytest.raises(CommandIdConflict) as refused:
        store.append_batch("table-1", 0, _round_batch(1))
    assert refused.value.recorded_stream == "table-2"
    assert store.stream_version("table-1") == 0


def test_a_stale_batch_gets_a_concurrency_error_and_writes_nothing(store: Any) -> None:
    store.append("table-1", 0, [wager(1, 100)], "c1")
    with pytest.raises(ConcurrencyError) as refused:
        store.append_batch("table-1", 0, _round_batch(1))
    assert (refused.value.expected_version, refused.value.actual_version) == (0, 1)
    assert len(store.read_all()) == 1


# --- group commit: several rounds in one batch, a signed checkpoint at each round's end --------


def _rounds_batch(*rounds: int) -> list[tuple[str, list[NewEvent]]]:
    return [command for number in rounds for command in _round_batch(number)]


def test_a_batch_of_three_rounds_signs_a_checkpoint_at_each_rounds_end(store: Any) -> None:
    store.append("table-2", 0, [wager(6, 500)], "t2-bet")  # the log does not start with ours
    # Each round is three commands of four events; its dice command ends it.
    recorded = store.append_batch("table-1", 0, _rounds_batch(1, 2, 3), checkpoint_after=[2, 5, 8])

    assert [e.position for command in recorded for e in command] == list(range(2, 14))
    rows, _ = store.raw_log()
    checkpoints = store.checkpoints()
    assert [(c.position, c.hash) for c in checkpoints] == [
        (5, rows[4][13]),
        (9, rows[8][13]),
        (13, rows[12][13]),
    ]
    # Signed at the time of the round's last event (the dice of round n, n minutes in).
    assert [c.at for c in checkpoints] == [OPENED + timedelta(minutes=n) for n in (1, 2, 3)]
    assert all(len(c.signature) == 128 for c in checkpoints)
    report = store.verify()
    assert report.ok
    assert (report.events, report.checkpoints, report.signatures_checked) == (13, 3, True)
    assert store.replay(lambda n, e: n + 1, 0) == 13


def test_checkpoint_true_and_checkpoint_after_sign_each_place_once(store: Any) -> None:
    store.append_batch("table-1", 0, _rounds_batch(1, 2), checkpoint=True, checkpoint_after=[5, 2])
    assert [c.position for c in store.checkpoints()] == [4, 8]
    assert store.verify().checkpoints == 2


def test_a_checkpoint_inside_a_batch_naming_another_head_is_found_at_its_round(store: Any) -> None:
    store.append_batch("table-1", 0, _rounds_batch(1, 2, 3), checkpoint_after=[2, 5, 8])
    rows, checkpoint_rows = store.raw_log()
    middle = list(checkpoint_rows[1])
    middle[1] = rows[6][13]  # at position 8 (round 2's end), but naming position 7's head
    report = verify(rows, [checkpoint_rows[0], tuple(middle), checkpoint_rows[2]], store.public_key)
    assert report.first_bad is not None
    assert (report.first_bad.position, report.first_bad.problem) == (8, "checkpoint")


@pytest.mark.parametrize("refusal", ["stale", "mixed", "retry", "power-cut", "bad-index"])
def test_a_refused_or_retried_batch_writes_no_checkpoint(store: Any, refusal: str) -> None:
    store.append_batch("table-1", 0, _round_batch(1), checkpoint=True)
    batch = _rounds_batch(2, 3)
    if refusal == "stale":
        with pytest.raises(ConcurrencyError):
            store.append_batch("table-1", 0, batch, checkpoint_after=[2, 5])
    elif refusal == "mixed":
        store.append("table-1", 4, batch[0][1], batch[0][0])
        with pytest.raises(CommandsPartlyRecorded):
            store.append_batch("table-1", 5, batch, checkpoint_after=[2, 5])
    elif refusal == "retry":
        again = store.append_batch("table-1", 4, _round_batch(1), checkpoint_after=[2])
        assert [e.position for command in again for e in command] == [1, 2, 3, 4]
    elif refusal == "power-cut":

        def power_cut() -> None:
            raise RuntimeError("power cut before the commit")

        store.faults["before_commit"] = power_cut
        with pytest.raises(RuntimeError, match="power cut"):
            store.append_batch("table-1", 4, batch, checkpoint_after=[2, 5])
        del store.faults["before_commit"]
    else:
        with pytest.raises(InvalidEvent, match="checkpoint_after"):
            store.append_batch("table-1", 4, batch, checkpoint_after=[2, 6])
    assert [c.position for c in store.checkpoints()] == [4]
    assert store.events_of_command(batch[-1][0]) is None
    assert store.verify().ok


@pytest.mark.parametrize("index", [3, -1, True, "0"])
def test_checkpoint_after_names_command_indices_of_the_batch_only(store: Any, index: Any) -> None:
    with pytest.raises(InvalidEvent, match="checkpoint_after"):
        store.append_batch("table-1", 0, _round_batch(1), checkpoint_after=[index])
    assert store.read_all() == [] and store.checkpoints() == []


def test_two_batches_racing_for_one_version_one_wins_whole(store: Any) -> None:
    """Writer B sends its batch while writer A's transaction is still open: B waits (SQLite's
    write lock, PostgreSQL's unique index, the fake's lock) and is refused once A commits."""
    outcome: list[object] = []

    def writer_b() -> None:
        try:
            store.append_batch("table-1", 0, [("b:bet", [wager(6, 900)]), ("b:dice", [dice([1])])])
            outcome.append("written")
        except ConcurrencyError as error:
            outcome.append(error)

    started: list[threading.Thread] = []

    def b_arrives() -> None:
        thread = threading.Thread(target=writer_b)
        thread.start()
        started.append(thread)
        time.sleep(0.3)  # B reaches its wait before A commits

    store.faults["before_commit"] = b_arrives
    recorded = store.append_batch("table-1", 0, _round_batch(1))
    del store.faults["before_commit"]
    started[0].join(timeout=30)

    assert isinstance(outcome[0], ConcurrencyError)
    assert [e.command_id for e in store.read_stream("table-1")] == [
        e.command_id for command in recorded for e in command
    ]
    assert store.events_of_command("b:bet") is None
    assert store.verify().ok


@pytest.mark.parametrize(
    ("batch", "message"),
    [
        ([], "at least one command"),
        ([("c1", [wager(1, 1)]), ("c1", [wager(2, 1)])], "twice"),
        ([("c1", [])], "at least one event"),
        ([("", [wager(1, 1)])], "command id"),
        (["c1"], "pairs"),
    ],
)
def test_malformed_batches_are_refused_alike(store: Any, batch: Any, message: str) -> None:
    with pytest.raises(InvalidEvent, match=message):
        store.append_batch("table-1", 0, batch)
    assert store.read_all() == []


@pytest.mark.parametrize(
    "payload",
    [{"main": 2**63}, {"results": [{"net": -(2**63)}]}, {"main": 10**30, "note": "x"}],
)
def test_serialized_envelopes_are_still_held_to_64_bit_integers(
    store: Any, payload: dict[str, Any]
) -> None:
    # ``serialized=True`` skips the envelope's walk; the store's scan of the bytes still refuses.
    event = NewEvent("wager_placed", 1, payload, DEALER, OPENED, serialized=True)
    with pytest.raises(InvalidEvent, match="64-bit"):
        store.append_batch("table-1", 0, [("c1", [wager(1, 1)]), ("c2", [event])])
    assert store.read_all() == []


def test_a_long_digit_run_in_a_text_is_no_integer(store: Any) -> None:
    ticket = {"ticket": "1234567890123456789012", "main": 2**63 - 1}
    event = NewEvent("wager_placed", 1, ticket, DEALER, OPENED, serialized=True)
    [[recorded]] = store.append_batch("table-1", 0, [("c1", [event])])
    assert recorded.payload == ticket


def test_a_recorded_payload_reads_back_equal_whatever_containers_were_given(store: Any) -> None:
    # A tuple is stored as a JSON list: the append answers the list, as a read does.
    event = NewEvent("dice_rolled", 1, {"dice": (2, 3, 3), "who": "ana"}, DEALER, OPENED)
    [[recorded]] = store.append_batch("table-1", 0, [("c1", [event])])
    assert recorded.payload == {"dice": [2, 3, 3], "who": "ana"}
    assert store.read_stream("table-1") == [recorded]


# --- replay: the restart path -----------------------------------------------------------------


def test_replay_folds_exactly_the_events_a_read_gives(store: Any) -> None:
    _casino_evening(store)
    store.append_batch("table-1", 3, _round_batch(1), checkpoint=True)
    replayed = store.replay(lambda seen, e: [*seen, e], [])
    assert replayed == store.read_all()


@pytest.mark.parametrize("tamper", ["flip-3", "delete-2", "swap-3", "forge", "truncate"])
def test_replay_names_the_same_first_bad_event_as_the_audit(
    store: Any, backdoor: Backdoor, tamper: str
) -> None:
    _casino_evening(store)
    if tamper == "flip-3":
        backdoor.flip_payload_byte(3)
    elif tamper == "delete-2":
        backdoor.delete(2)
    elif tamper == "swap-3":
        backdoor.swap(3)
    elif tamper == "forge":  # the newest checkpoint's signature: the replay checks that one
        backdoor.forge_checkpoint_signature()
    else:
        backdoor.delete(6)
    audit = store.verify().first_bad
    assert audit is not None
    with pytest.raises(TamperDetected) as refused:
        store.replay(lambda n, e: n + 1, 0)
    assert refused.value.finding == audit
