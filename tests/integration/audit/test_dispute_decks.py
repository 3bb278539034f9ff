"""R17 + R20 on SQLite and PostgreSQL: opening a dispute holds every deck that dealt one of its
rounds, in the dispute's own transaction (all or nothing); a retired deck is held, an already held
one is noted and left as it is, a destroyed one is noted; the audit checks that a deck dealt in a
disputed round is held from the dispute's opening."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from eventlog.system_events import SYSTEM_STREAM, DisputeOpened
from service_layer.deck_custody import deck_record
from service_layer.dispute_decks import table_state
from service_layer.disputes import Request, open_dispute
from service_layer.service import TableService
from service_layer.system_stream import SystemStream
from table_core import commands as c
from table_core.events import Actor

from . import test_custody
from .test_custody import FLOOR, Opened, audit, record

opened = test_custody.opened  # the fixture: a SQLite or PostgreSQL store, as the custody tests

AUDITOR = Actor(id="auditor-5", role="auditor")
NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def dispute(store: Any, rounds: list[int], actor: Actor = AUDITOR) -> dict[str, Any]:
    return open_dispute(store, Request("PG-1", "banker's hand misread", rounds=rounds), actor, NOW)


def test_opening_a_dispute_holds_its_decks_in_the_same_transaction(opened: Opened) -> None:
    """Round 1 was dealt before custody (no deck), rounds 2 and 3 from D-1 (retired since),
    round 4 from D-2 (in use): both decks are held, once each, naming the dispute."""
    store = opened.store
    record(store)
    before = store.read_all()[-1].position
    opening = dispute(store, [1, 3, 4])
    assert opening["decks"] == [
        {"deck_id": "D-1", "hold": "held", "note": None},
        {"deck_id": "D-2", "hold": "held", "note": None},
    ]
    written = store.read_all(before)
    assert [(e.stream_id, e.type, e.payload.get("deck_id")) for e in written] == [
        ("PG-1", "deck_held", "D-1"),
        ("PG-1", "deck_held", "D-2"),
        (SYSTEM_STREAM, "dispute_opened", None),
    ]
    assert {e.payload["dispute_id"] for e in written} == {opening["dispute_id"]}
    assert (written[0].actor.id, written[0].actor.role) == ("auditor-5", "auditor")
    assert written[0].payload["reason"] == f"dispute {opening['dispute_id']}: banker's hand misread"
    assert store.checkpoints()[-1].position == written[-1].position  # sealed together
    decks = {d.deck_id: deck_record(d) for d in table_state(store, "PG-1").decks.values()}
    assert [(d["held"], d["dispute_id"], d["status"]) for d in decks.values()] == [
        (True, opening["dispute_id"], "retired"),
        (True, opening["dispute_id"], "in_use"),
    ]
    report = audit(opened)
    assert report.ok, [str(f) for f in report.findings]


def test_held_and_destroyed_decks_are_noted_not_held_again(opened: Opened) -> None:
    store = opened.store
    record(store)
    first = dispute(store, [4])
    destroy = c.RetireDeck(deck_id="D-1", reason="shredded", destroyed=True, actor=FLOOR, at=NOW)
    TableService(store).execute("PG-1", destroy, "D-1-shred")
    before = store.read_all()[-1].position
    second = dispute(store, [2, 4], FLOOR)
    assert second["decks"] == [
        {"deck_id": "D-1", "hold": "destroyed", "note": "shredded"},
        {"deck_id": "D-2", "hold": "already_held", "note": f"dispute {first['dispute_id']}"},
    ]
    assert [e.type for e in store.read_all(before)] == ["dispute_opened"]  # no hold to write
    assert audit(opened).ok


def test_nothing_is_written_when_the_transaction_fails(opened: Opened) -> None:
    store = opened.store
    record(store)
    before = ([e.position for e in store.read_all()], len(store.checkpoints()))

    def fail() -> None:
        raise RuntimeError("the disk filled up")

    store.faults["before_commit"] = fail
    with pytest.raises(RuntimeError):
        dispute(store, [2])
    store.faults.clear()
    assert ([e.position for e in store.read_all()], len(store.checkpoints())) == before
    assert not any(d.held for d in table_state(store, "PG-1").decks.values())


def test_a_dispute_whose_decks_were_not_held_is_a_finding(opened: Opened) -> None:
    """A dispute recorded without its holds (written past ``open_dispute``): the audit names the
    dispute, the round and the deck, at the dispute's position."""
    store = opened.store
    record(store)
    bare = DisputeOpened(
        at=NOW,
        actor_id="auditor-5",
        actor_role="auditor",
        dispute_id="D-bare",
        table_id="PG-1",
        reason="x",
        player=None,
        rounds=[3],
        from_time=None,
        to_time=None,
        surveillance=[],
    )
    (recorded,) = SystemStream(store).append([bare])
    report = audit(opened)
    assert [(f.kind, f.clause, f.message, f.position) for f in report.findings] == [
        (
            "procedure",
            "R20",
            "dispute D-bare: round 3 of table PG-1 was dealt from deck D-1, which is not held "
            "from the dispute's opening",
            recorded.position,
        )
    ]
