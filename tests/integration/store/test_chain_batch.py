"""``core.chain_batch`` (the SQLite append's one pass) writes byte for byte what the three
functions it stands for write: ``build_batch_rows`` (events and the stream chain), ``sequence``
(the global chain) and ``EventReader.appended`` (the recorded events answered); and every store
builds each row once (its canonical bytes and its hash: ``core.stream_rows``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.store import core
from adapters.store.core import EventReader, build_batch_rows, chain_batch, sequence
from eventlog.canonical import GENESIS_HASH
from eventlog.envelope import NewEvent
from table_core.ports import Actor

DEALER = Actor("dealer-ann", "dealer")
CAGE = Actor("cage-élodie", "cage")  # non-ASCII: the canonical bytes' slow path
START = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)

texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=8)
payloads = st.dictionaries(
    st.sampled_from(["player_id", "amount", "note", "cards", "seat"]),
    st.one_of(
        st.integers(-(2**63) + 1, 2**63 - 1), texts, st.lists(st.integers(0, 52), max_size=7)
    ),
    max_size=5,
)
an_event = st.builds(
    lambda payload, actor, minute, serialized: NewEvent(
        "wager_placed", 1, payload, actor, START + timedelta(minutes=minute), serialized=serialized
    ),
    payloads,
    st.sampled_from([DEALER, CAGE]),
    st.integers(0, 3),
    st.booleans(),
)
a_batch = st.lists(st.lists(an_event, min_size=1, max_size=4), min_size=1, max_size=4)


@settings(max_examples=200)
@given(a_batch, st.integers(0, 50), st.integers(0, 500))
def test_the_fused_pass_equals_the_three_functions(
    events: list[list[NewEvent]], head_version: int, head_position: int
) -> None:
    commands = [(f"cmd-{i}", command) for i, command in enumerate(events)]
    stream_head, global_head = "a" * 64, ("b" * 64 if head_position else GENESIS_HASH)
    rows, log, recorded, new_head = chain_batch(
        "PG-1", head_version, stream_head, commands, head_position, global_head, EventReader(None)
    )
    expected_rows = build_batch_rows("PG-1", head_version, stream_head, commands)
    positions = list(range(head_position + 1, head_position + len(expected_rows) + 1))
    expected_log = sequence(
        ((p, row[10]) for p, row in zip(positions, expected_rows, strict=True)),
        head_position,
        global_head,
    )
    assert rows == [value for p, row in zip(positions, expected_rows, strict=True)
                    for value in (p, *row)]  # fmt: skip
    assert log == [value for entry in expected_log for value in entry]
    assert recorded == EventReader(None).appended(positions, expected_rows, commands)
    assert new_head == expected_log[-1][3]


def test_every_store_builds_each_row_once(store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"bytes": 0, "hash": 0}
    dumps, link = core.FAST_DUMPS, core.event_link
    assert dumps is not None

    def counted_dumps(*args: Any, **kwargs: Any) -> Any:
        calls["bytes"] += 1
        return dumps(*args, **kwargs)

    def counted_link(*args: Any) -> str:
        calls["hash"] += 1
        return link(*args)

    monkeypatch.setattr(core, "FAST_DUMPS", counted_dumps)
    monkeypatch.setattr(core, "event_link", counted_link)
    bets = [NewEvent("wager_placed", 1, {"seat": seat, "main": 2_500}, DEALER, START)
            for seat in (1, 2, 3)]  # fmt: skip
    recorded = store.append_batch("PG-1", 0, [("cmd-1", bets[:2]), ("cmd-2", bets[2:])])
    assert [[e.version for e in command] for command in recorded] == [[1, 2], [3]]
    assert calls == {"bytes": 3, "hash": 3}
