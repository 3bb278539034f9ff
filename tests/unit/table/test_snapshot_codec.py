"""A table's state to JSON values and back (issue 22: what a snapshot stores).

Every state a random session passes through (every phase, rotating bank, side bets, the books,
deck custody, ratings) survives the JSON text round trip equal, writes the same bytes twice, and
decides the next command exactly as the state it came from; a value that does not fit is refused.
"""

from __future__ import annotations

import json
import random

import pytest

from adapters.house_way_files import built_in_text
from table_core import commands as c
from table_core.errors import DomainError
from table_core.rules import TableRules
from table_core.table import TableState, decide
from table_core.table.house_way_install import text_digest
from table_core.table.snapshot import SnapshotFormatError, state_from_dict, state_to_dict

from .books_support import COUNT, DAY, credit, fill, finish_round, open_day, play_round
from .support import AT, CAGE, DEALER, FLOOR, TABLE, TEST_WAY, Script
from .test_deck_custody import ready
from .test_properties import NAMES, SIDE_BETS, Session, side_bet_rules

D = {"actor": DEALER, "at": AT}


def text(state: TableState) -> str:
    return json.dumps(state_to_dict(state), sort_keys=True, separators=(",", ":"))


def round_trip(state: TableState) -> TableState:
    return state_from_dict(json.loads(text(state)))


def _rotating_session(seed: int) -> Session:
    rules = TableRules.model_validate(
        {
            "hand": {"house_way": TEST_WAY, "foul_policy": ("reset", "forfeit")[seed % 2]},
            "banking": "rotating",
            "co_bank": True,
            "limits": {"min_bet": 500, "max_bet": 50_000},
            "side_bets": side_bet_rules(set(SIDE_BETS)),
        }
    )
    return _open(Session(random.Random(seed)), rules)


def _open(session: Session, rules: TableRules) -> Session:
    session(c.OpenTable(table_id=TABLE, rules=rules, actor=FLOOR, at=AT))
    for seat, name in enumerate(NAMES[:5], start=1):
        session(c.SeatPlayer(seat=seat, player_id=name, **D))
        session(c.BuyIn(player_id=name, amount=30_000, actor=CAGE, at=AT))
    return session


@pytest.mark.parametrize("seed", range(4))
def test_every_state_of_a_random_session_round_trips_and_decides_alike(seed: int) -> None:
    session = _rotating_session(seed)
    phases = set()
    for _ in range(150):
        session.step()
        state = session.state
        again = round_trip(state)
        assert again == state
        assert text(again) == text(state)
        phases.add(state.phase)
    assert {"open_for_bets", "dealt", "settled", "closed"} <= phases
    # The next command is decided alike, refusals included.
    for command in (c.StartRound(**D), c.CloseBets(**D), c.SetBankerHand(**D), c.Settle(**D)):
        assert _outcome(session.state, command) == _outcome(round_trip(session.state), command)


def _outcome(state: TableState, command: c.Command) -> object:
    try:
        return decide(state, command)
    except DomainError as refusal:
        return ("refused", refusal.message)


def _books_table(rng: random.Random, rounds: int) -> Script:
    script = Script()
    open_day(script)
    ready(script)
    for seat, name in enumerate(("ana", "bruno"), start=1):
        script(c.SeatPlayer(seat=seat, player_id=name, card=f"club-{seat}", **D))
        script(c.BuyIn(player_id=name, amount=20_000, medium="cash", actor=CAGE, at=AT))
    script(fill("S-1", {2_500: 50_000}))
    for _ in range(rounds):
        play_round(script, {"ana": 2_000, "bruno": 3_000}, rng)
        finish_round(script)
    script(credit("S-2", {2_500: 25_000}))
    return script


def test_the_books_custody_and_ratings_round_trip() -> None:
    state = _books_table(random.Random(7), rounds=2).state
    assert state.books == "open" and state.slips == {"S-1", "S-2"} and state.ratings
    assert state.decks["D-1"].rounds == (1, 2) and state.last_round == 2
    assert round_trip(state) == state
    script = _books_table(random.Random(7), rounds=0)  # a tray in whole chips: closed and counted
    script(c.CloseGamingDay(closer={2_500: script.state.tray}, dealer=DEALER, actor=FLOOR, at=AT))
    assert script.state.uncounted == (DAY,) and round_trip(script.state) == script.state
    script(c.CountDrop(gaming_day=DAY, cash=40_000, markers=0, actor=COUNT, at=AT))
    assert script.state.books == "closed" and round_trip(script.state) == script.state


def test_the_house_way_files_installed_round_trip() -> None:
    text = built_in_text("es")
    script = Script()
    script(c.OpenTable(table_id="PG-9", rules=TableRules.model_validate({}), actor=FLOOR, at=AT))
    script(
        c.InstallHouseWay(
            text=text,
            digest=text_digest(text),
            certificate_digest="c" * 64,
            reason="new sign",
            actor=FLOOR,
            at=AT,
        )
    )
    assert script.state.house_ways and round_trip(script.state) == script.state


def test_the_empty_state_round_trips() -> None:
    assert state_to_dict(TableState()) == state_to_dict(round_trip(TableState()))
    assert round_trip(TableState()) == TableState()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format=2), "snapshot format 2, this code reads 3"),
        (lambda d: d["state"].pop("balances"), "the fields of TableState"),
        (lambda d: d["state"].update(extra=1), "the fields of TableState"),
        (lambda d: d["state"].update(version="12"), "state.version: '12' is not a <class 'int'>"),
        (lambda d: d["state"].update(books="lost"), "state.books: 'lost' is not one of"),
        (lambda d: d["state"].update(gaming_day="yesterday"), "not an ISO date"),
        (lambda d: d["state"].update(balances=[["ana", 1], ["ana", 2]]), "appears twice"),
        (lambda d: d["state"].update(seats={"1": "ana"}), "expected a list"),
        (lambda d: d["state"]["rules"].update(banking="nobody"), "state.rules: Input should be"),
    ],
)
def test_a_value_that_does_not_fit_is_refused(change: object, message: str) -> None:
    session = _open(Session(random.Random(3)), TableRules.model_validate({}))
    data = json.loads(text(session.state))
    change(data)  # type: ignore[operator]
    with pytest.raises(SnapshotFormatError, match=message.replace("(", r"\(")):
        state_from_dict(data)
    with pytest.raises(SnapshotFormatError):
        state_from_dict([1, 2])
