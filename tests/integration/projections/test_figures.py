"""After the scripted evening of ``session.py``, every projection holds exactly the figures a
floor supervisor works out by hand, on every store (the in-memory fake, SQLite, PostgreSQL)."""

from __future__ import annotations

from datetime import date

from adapters.projections import ProjectionRunner, recall
from eventlog.envelope import NewEvent
from table_core.ports import Actor

from . import session as s
from .conftest import Opener
from .support import report


def test_every_projection_equals_the_figures_worked_out_by_hand(any_opener: Opener) -> None:
    store = any_opener()
    s.play_evening(s.Session(store))
    figures = report(ProjectionRunner(store), date(2026, 3, 14))
    assert figures["accounting"] == [s.ACCOUNTING]
    assert figures["side_bets"] == s.SIDE_BETS
    assert figures["players"] == s.PLAYERS
    assert figures["house"] == [s.HOUSE]
    assert figures["rotation"] == [s.ROTATION]
    assert figures["eligibility"] == s.ELIGIBILITY
    offers = [
        (o["round"], o["seat"], o["player_id"], o["eligible"], o["reason"], o["outcome"])
        for o in figures["offers"]
    ]
    assert offers == s.OFFERS


def test_money_is_conserved_in_the_bankroll(any_opener: Opener) -> None:
    """Players' chips + chips on the layout + chips cashed out + the house's result (commission
    included) = chips bought in (docs/table.md, money)."""
    store = any_opener()
    s.play_evening(s.Session(store))
    figures = report(ProjectionRunner(store), None)
    players = figures["players"]
    on_table = sum(p["balance"] + p["in_play"] + p["cashed_out"] for p in players)
    assert on_table + figures["house"][0]["total_result"] == sum(s.BUY_INS.values())
    for p in players:
        assert p["balance"] + p["in_play"] + p["cashed_out"] == p["bought_in"] + p["net_result"]


def test_an_idle_gaming_day_reports_zeros_and_no_hold(
    local_opener: Opener,
) -> None:
    store = local_opener()
    s.play_evening(s.Session(store))
    idle = report(ProjectionRunner(store), date(2026, 3, 15))["accounting"]
    assert len(idle) == 1
    assert idle[0]["rounds_played"] == idle[0]["handle"] == idle[0]["win"] == 0
    assert idle[0]["hold_pct"] is None and idle[0]["push_rate_pct"] is None


def test_the_recall_of_a_dealer_banked_round_has_what_a_regulator_needs(
    local_opener: Opener,
) -> None:
    store = local_opener()
    s.play_evening(s.Session(store))
    (one,) = recall(store, s.TABLE, round=1)
    r = one.record
    assert (one.round, one.status, one.banker_seat, one.banker_player_id) == (
        1,
        "closed",
        None,
        None,
    )
    deck = s.deck_for(s.ROUND_1)
    assert r["deal"] == {
        "source": "live",
        "deck": deck,
        "stacks": [deck[i : i + 7] for i in range(0, 49, 7)],
        "unused": deck[49:],
    }
    assert r["dice"] == {"faces": [2, 3, 5], "total": 10, "first_position": 3}
    by_position = s.stack_cards(s.ROUND_1)
    stacks = [
        (a["position"], a["stack"], a["seat"], a["player_id"], a["holder"]) for a in r["stacks"]
    ]
    assert stacks == [
        (1, 6, None, None, "banker"),
        (2, 7, 1, "ana", "player"),
        (3, 1, 2, "bruno", "player"),
        (4, 2, 3, "chloe", "player"),
        (5, 3, 4, None, "dead"),
        (6, 4, 5, None, "dead"),
        (7, 5, 6, None, "dead"),
    ]
    assert {a["position"]: a["cards"] for a in r["stacks"]} == by_position
    assert r["banker_hand"] == {
        "seat": None,
        "player_id": None,
        "position": 1,
        "back": ["Kd", "5c", "4d", "3s", "2h"],
        "front": ["Ts", "8h"],
        "house_way": "fr",
        "rule": "fr.no_pair.default",
    }
    hands = [(h["seat"], h["back"], h["front"], h["by"], h["reason"]) for h in r["hands"]]
    assert hands == [
        (1, ["Ad", "Ac", "6d", "6c", "2c"], ["Qs", "Jh"], "player", "player_set"),
        (2, ["9s", "9h", "9d", "9c", "3h"], ["Kc", "Qc"], "player", "player_set"),
        (3, ["Ah", "Th", "7s", "7d", "7c"], ["4h", "2s"], "player", "player_set"),
    ]
    results = [
        (x["seat"], x["back"], x["front"], x["result"], x["payout"], x["commission"], x["net"])
        for x in r["settlement"]["results"]
    ]
    assert results == [
        (1, "win", "win", "win", 5_000, 250, 4_750),
        (2, "win", "win", "win", 2_000, 100, 1_900),
        (3, "win", "loss", "push", 0, 0, 0),
    ]
    assert r["settlement"]["banker"]["house_share"] == -7_000
    assert [(c["player_id"], c["amount"], c["clause"]) for c in r["commission"]] == [
        ("ana", 250, "R-PAY-2"),
        ("bruno", 100, "R-PAY-2"),
    ]
    (fortune,) = r["side_bets"]
    assert (fortune["line"], fortune["pays"], fortune["payout"], fortune["status"]) == (
        "three_of_a_kind",
        3,
        1_500,
        "settled",
    )
    assert r["envy"] == [
        {
            "seat": 3,
            "player_id": "chloe",
            "from_seat": 2,
            "from_player_id": "bruno",
            "line": "four_of_a_kind",
            "amount": 500,
        }
    ]
    assert [o["outcome"] for o in r["bank"]["offers"]] == ["passed", "passed", "passed"]


def test_the_recall_shows_the_player_bank_fouls_voids_and_the_round_in_progress(
    local_opener: Opener,
) -> None:
    store = local_opener()
    s.play_evening(s.Session(store))
    rounds = recall(store, s.TABLE, last=10)
    assert [(r.round, r.status) for r in rounds] == [
        (1, "closed"),
        (2, "closed"),
        (3, "closed"),
        (4, "voided"),
        (5, "in_progress"),
    ]
    two, three, four, five = (r.record for r in rounds[1:])
    assert (rounds[1].banker_seat, rounds[1].banker_player_id) == (2, "bruno")
    assert two["bank"]["co_bank"] is True
    house_hand = next(h for h in two["hands"] if h["seat"] is None)
    assert (house_hand["position"], house_hand["reason"], house_hand["rule"]) == (
        6,
        "house_hand",
        "fr.no_pair.default",
    )
    assert two["settlement"]["banker"] == {
        "seat": 2,
        "player_id": "bruno",
        "result": 1_999,
        "co_bank": True,
        "house_share": 1_000,
        "player_share": 999,
        "commission": 50,
        "net": 949,
    }
    foul, unset = three["hands"]
    assert foul == {
        "seat": 3,
        "position": 4,
        "back": ["8h", "8c", "6s", "4c", "3h"],
        "front": ["Kd", "Jd"],
        "by": "house_way",
        "reason": "foul_reset",
        "rule": "fr.one_pair.default",
        "player_back": ["Kd", "Jd", "6s", "4c", "3h"],
        "player_front": ["8h", "8c"],
        "forfeited": False,
        "clause": "R-SET-2",
    }
    assert (unset["seat"], unset["reason"], unset["rule"]) == (1, "not_set", "fr.no_pair.default")
    assert four["void"] == {
        "reason": "card exposed",
        "returned": [
            {"seat": 1, "player_id": "ana", "amount": 2_000, "kind": "main", "bet": None},
            {"seat": 2, "player_id": "bruno", "amount": 1_500, "kind": "main", "bet": None},
        ],
    }
    assert [w["status"] for w in four["wagers"]] == ["returned", "returned"]
    assert four["deal"] is None and four["settlement"] is None
    assert rounds[4].in_progress and five["ended_at"] is None
    assert five["bank"]["banker_player_id"] == "ana" and five["phase"] == "open_for_bets"
    assert five["wagers"] == [
        {"seat": 3, "player_id": "chloe", "position": 3, "amount": 1_000, "status": "in_action"}
    ]


def test_recall_by_seat_by_player_and_the_last_rounds(any_opener: Opener) -> None:
    store = any_opener()
    s.play_evening(s.Session(store))
    assert [r.round for r in recall(store, s.TABLE, seat=2)] == [1, 2, 4]  # bet, bank, bet
    assert [r.round for r in recall(store, s.TABLE, player_id="ana", last=2)] == [4, 5]
    assert [r.round for r in recall(store, s.TABLE, last=2)] == [4, 5]
    assert recall(store, s.TABLE, round=99) == []
    assert recall(store, "PG-unknown") == []


def test_a_round_event_of_a_newer_type_is_kept_in_the_recall_and_moves_no_figure(
    local_opener: Opener,
) -> None:
    """A table may record facts this code does not know yet (a newer event type): the round
    history keeps them whole, the other projections pass them over, nothing fails."""
    store = local_opener()
    s.play_evening(s.Session(store))
    runner = ProjectionRunner(store)
    before = report(runner, date(2026, 3, 14))
    note = {
        "type": "surveillance_reviewed",
        "schema_version": 1,
        "table_id": s.TABLE,
        "round": 5,
        "actor": {"id": "surveillance-3", "role": "floor"},
        "at": "2026-03-14T20:05:00Z",
        "camera": "PG-7-east",
        "amount": 1_000_000,
    }
    store.append(
        s.TABLE,
        store.stream_version(s.TABLE),
        [NewEvent("surveillance_reviewed", 1, note, Actor("surveillance-3", "floor"), s.START)],
        "surveillance:1",
    )
    after = report(runner, date(2026, 3, 14))
    assert {k: v for k, v in after.items() if k != "position"} == {
        k: v for k, v in before.items() if k != "position"
    }
    assert after["position"] == before["position"] + 1
    (five,) = recall(store, s.TABLE, round=5)
    assert five.record["other"] == [
        {"type": "surveillance_reviewed", "position": after["position"], "payload": note}
    ]
