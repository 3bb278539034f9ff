"""Fuzzing the verifier: any single change to a valid log is reported, at the event it touched.

Logs are built by the in-memory store (the same row building as SQLite and PostgreSQL), then one
mutation is applied to the stored rows: a changed byte in any column, a removed event, two events
swapped, an event duplicated, a column replaced by garbage of another type.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.store.memory import InMemoryEventStore
from adapters.store.signing import Signer
from eventlog.canonical import canonical_json, event_hash
from eventlog.envelope import NewEvent
from eventlog.query import ROW_COLUMNS
from eventlog.verifier import verify
from tests.integration.store.conftest import DEALER, OPENED, PIT_BOSS

SIGNER = Signer.generate()  # one key for the module: key generation is not what is tested
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63) + 1, max_value=2**63 - 1),
    st.text(max_size=8),
)
payloads = st.dictionaries(
    st.text(max_size=6),
    st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=3), max_leaves=6),
    max_size=4,
)
commands = st.lists(
    st.tuples(
        st.sampled_from(["table-1", "table-2", "system"]),
        st.lists(st.tuples(st.sampled_from(["wager_placed", "dice_rolled"]), payloads),
                 min_size=1, max_size=3),
        st.booleans(),
    ),
    min_size=1,
    max_size=6,
)  # fmt: skip


def build_log(plan: list[Any]) -> InMemoryEventStore:
    store = InMemoryEventStore(SIGNER)
    for number, (stream, events, end_of_round) in enumerate(plan):
        actor = PIT_BOSS if stream == "system" else DEALER
        batch = [
            NewEvent(kind, 1, payload, actor, OPENED + timedelta(seconds=number))
            for kind, payload in events
        ]
        store.append(
            stream, store.stream_version(stream), batch, f"cmd-{number}", checkpoint=end_of_round
        )
    # Every log ends on a signed checkpoint, so even its last event is protected.
    store.checkpoint(OPENED + timedelta(hours=1))
    return store


def changed(value: Any, seed: int) -> Any:
    """A different value of the same type: one character or one unit changed."""
    if isinstance(value, int):
        return value + 1 + seed % 3
    if not value:
        return "x"
    index = seed % len(value)
    replacement = "0" if value[index] != "0" else "1"
    return value[:index] + replacement + value[index + 1 :]


def report_of(store: InMemoryEventStore) -> Any:
    return verify(store.rows, store.checkpoint_rows, SIGNER.public_raw)


@FUZZ
@given(commands)
def test_every_valid_log_verifies(plan: list[Any]) -> None:
    store = build_log(plan)
    report = report_of(store)
    assert report.ok, report.first_bad
    assert report.events == len(store.rows)
    assert report.checkpoints == len(store.checkpoint_rows)


@FUZZ
@given(commands, st.data())
def test_a_changed_byte_in_any_column_is_found_at_its_event(plan: list[Any], data: Any) -> None:
    store = build_log(plan)
    index = data.draw(st.integers(0, len(store.rows) - 1), label="event")
    column = data.draw(st.integers(0, len(ROW_COLUMNS) - 1), label="column")
    seed = data.draw(st.integers(0, 1000), label="seed")
    row = list(store.rows[index])
    row[column] = changed(row[column], seed)
    store.rows[index] = tuple(row)

    report = report_of(store)
    assert report.first_bad is not None, ROW_COLUMNS[column]
    assert report.first_bad.position == index + 1, (ROW_COLUMNS[column], report.first_bad)


@FUZZ
@given(commands, st.data())
def test_a_removed_event_is_found_where_it_was(plan: list[Any], data: Any) -> None:
    store = build_log(plan)
    index = data.draw(st.integers(0, len(store.rows) - 1), label="event")
    del store.rows[index]
    report = report_of(store)
    assert report.first_bad is not None
    assert report.first_bad.position == index + 1
    assert report.first_bad.problem in ("sequence", "checkpoint")


@FUZZ
@given(commands, st.data())
def test_swapped_or_duplicated_events_are_found_at_the_first_out_of_place(
    plan: list[Any], data: Any
) -> None:
    store = build_log(plan)
    index = data.draw(st.integers(0, len(store.rows) - 1), label="event")
    if index + 1 < len(store.rows) and data.draw(st.booleans(), label="swap"):
        store.rows[index], store.rows[index + 1] = store.rows[index + 1], store.rows[index]
        expected = index + 1
    else:
        store.rows.insert(index + 1, store.rows[index])
        expected = index + 2
    report = report_of(store)
    assert report.first_bad is not None
    assert report.first_bad.position == expected


@FUZZ
@given(commands, st.data())
def test_garbage_in_any_column_is_reported_not_raised(plan: list[Any], data: Any) -> None:
    store = build_log(plan)
    index = data.draw(st.integers(0, len(store.rows) - 1), label="event")
    column = data.draw(st.integers(0, len(ROW_COLUMNS) - 1), label="column")
    garbage = data.draw(
        st.one_of(st.none(), st.floats(), st.binary(max_size=4), st.lists(st.integers())),
        label="garbage",
    )
    row = list(store.rows[index])
    row[column] = garbage
    store.rows[index] = tuple(row)
    report = report_of(store)
    assert report.first_bad is not None
    assert report.first_bad.position == index + 1


@FUZZ
@given(commands, st.data())
def test_a_changed_checkpoint_is_found(plan: list[Any], data: Any) -> None:
    store = build_log(plan)
    index = data.draw(st.integers(0, len(store.checkpoint_rows) - 1), label="checkpoint")
    column = data.draw(st.integers(1, 4), label="column")  # hash, time, key id, signature
    checkpoint = list(store.checkpoint_rows[index])
    checkpoint[column] = changed(checkpoint[column], data.draw(st.integers(0, 99)))
    store.checkpoint_rows[index] = tuple(checkpoint)
    report = report_of(store)
    assert report.first_bad is not None
    assert report.first_bad.problem == "checkpoint"
    assert report.first_bad.position == checkpoint[0]


def test_a_checkpoint_signed_by_another_key_is_refused() -> None:
    store = build_log([("table-1", [("wager_placed", {"main": 100})], True)])
    report = verify(store.rows, store.checkpoint_rows, Signer.generate().public_raw)
    assert report.first_bad is not None
    assert report.first_bad.problem == "checkpoint"
    assert "signed by key" in report.first_bad.detail


def test_without_a_public_key_the_chain_is_checked_but_not_signatures() -> None:
    store = build_log([("table-1", [("wager_placed", {"main": 100})], True)])
    report = verify(store.rows, store.checkpoint_rows)
    assert report.ok and not report.signatures_checked


@given(
    st.text(max_size=12),
    st.text(max_size=12),
    st.integers(0, 10**9),
    st.text(max_size=12),
    payloads,
)
def test_the_fast_event_hash_is_the_documented_json_array(
    stream: str, actor: str, version: int, kind: str, payload: dict[str, Any]
) -> None:
    import hashlib

    text = canonical_json(payload)
    header = json.dumps(
        ["paigow-event-v1", "a" * 64, stream, version, kind, 3, "2025-03-14T20:00:00.000000Z",
         actor, "dealer", "cmd"],
        separators=(",", ":"),
    )  # fmt: skip
    expected = hashlib.sha256(f"{header}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()
    assert (
        event_hash("a" * 64, stream, version, kind, 3, "2025-03-14T20:00:00.000000Z", actor,
                   "dealer", "cmd", text)
        == expected
    )  # fmt: skip
