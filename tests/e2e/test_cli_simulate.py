"""``paigow simulate`` from the command line: a persisted session whose summary the events prove.

Every figure the command prints is recomputed here from the events in the database file it wrote
(read back with ``open_store`` and ``table_events``) and from the core's own fold of them; a seed
makes two runs write the very same events.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.projections.books import percent
from adapters.store import open_store
from service_layer.held_tables import table_events
from table_core.events import (
    BankAccepted,
    CommissionTaken,
    EnvyPaid,
    RoundClosed,
    RoundSettled,
    RoundVoided,
    SideBetSettled,
)
from table_core.table import fold
from tests.e2e.conftest import Run


def _simulate(paigow: Run, *args: str) -> dict[str, Any]:
    done = paigow("simulate", "--format", "json", *args)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no log line per command, no progress bar off a terminal
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def _recorded(db: Path, table_id: str) -> list[Any]:
    store = open_store(f"sqlite:///{db}")
    try:
        return store.read_stream(table_id)
    finally:
        store.close()


def _recomputed(recorded: list[Any]) -> dict[str, Any]:
    """The summary's figures, from the table's events alone (docs/simulate.md's definitions)."""
    events = table_events(recorded)
    wagers = {"win": 0, "push": 0, "loss": 0}
    house = commission = main = side = banks = closed = voided = 0
    for e in events:
        if isinstance(e, RoundSettled):
            house += e.banker.house_share
            for r in e.results:
                if r.player_id is None:  # the house hand against a player-banker
                    house += r.net
                else:
                    wagers[r.result] += 1
                    main += r.wager
        elif isinstance(e, SideBetSettled):
            house -= e.payout
            side += e.amount
        elif isinstance(e, EnvyPaid):
            house -= e.amount
        elif isinstance(e, CommissionTaken):
            commission += e.amount
        elif isinstance(e, BankAccepted):
            banks += 1
        elif isinstance(e, RoundClosed):
            closed += 1
        elif isinstance(e, RoundVoided):
            voided += 1
    state = fold(events)  # the core's own books agree with the sums above
    assert (state.house_result, state.commission) == (house, commission)
    return {
        "rounds": closed,
        "voided_rounds": voided,
        "events": len(recorded),
        "house_win": house + commission,  # the house's whole result, as the report's total win
        "total_win": house + commission,
        "commission": commission,
        "handle": main,  # the report's handle: the players' main wagers (issue 18)
        "main_handle": main,
        "side_handle": side,
        "player_wagers": wagers,
        "player_banks": banks,
    }


def test_simulate_persists_a_session_whose_summary_the_events_prove(
    paigow: Run, tmp_path: Path
) -> None:
    figures = _simulate(paigow, "--rounds", "50", "--players", "6", "--seed", "1")

    assert figures["table_id"] == "SIM-1" and figures["rounds"] == 50
    recorded = _recorded(tmp_path / "paigow.db", "SIM-1")
    expected = _recomputed(recorded)
    assert {key: figures[key] for key in expected} == expected
    assert sum(expected["player_wagers"].values()) == 50 * 6
    # hold % = inventory win / drop (issue 18): every buy-in recorded, so the inventory win is
    # the game win, and the drop is the six buy-ins the count found.
    assert figures["drop"] == figures["drop_counted"] == figures["cash"] + figures["markers"]
    assert figures["inventory_win"] == figures["game_win"] == expected["total_win"]
    assert figures["hold_pct"] == percent(expected["total_win"], figures["drop"])
    # One batch a round: every event of a round in one transaction, one checkpoint at its end.
    store = open_store(f"sqlite:///{tmp_path / 'paigow.db'}")
    try:
        assert store.verify().ok
        closes = [e.position for e in recorded if e.type == "round_closed"]
        signed = [c.position for c in store.checkpoints()]
        assert [p for p in signed if p in set(closes)] == closes
        assert recorded[-1].type == "drop_counted"  # the gaming day closed and counted
        # ... and every event after the last round is sealed too, up to the service's stop, the
        # log's last event (issue 17).
        last = store.raw_log()[0][-1]  # type: ignore[union-attr]
        assert last[3] == "service_stopped" and signed[-1] == last[0]
    finally:
        store.close()
    checked = paigow("db", "verify")
    assert checked.returncode == 0 and checked.stdout.startswith("ok:"), checked.stderr


def test_a_seed_makes_two_runs_identical_and_a_second_run_opens_a_new_table(
    paigow: Run, tmp_path: Path
) -> None:
    first = _simulate(paigow, "--rounds", "30", "--seed", "7", "--db", "sqlite:///one.db")
    second = _simulate(paigow, "--rounds", "30", "--seed", "7", "--db", "sqlite:///two.db")
    moving = ("database", "seconds", "rounds_per_s")
    assert {k: v for k, v in first.items() if k not in moving} == {
        k: v for k, v in second.items() if k not in moving
    }
    one = _recorded(tmp_path / "one.db", "SIM-1")
    two = _recorded(tmp_path / "two.db", "SIM-1")
    assert [e.hash for e in one] == [e.hash for e in two]  # the same bytes, event for event

    again = _simulate(paigow, "--rounds", "10", "--seed", "7", "--db", "sqlite:///one.db")
    assert again["table_id"] == "SIM-2"  # the casino's log goes on at a fresh table
    assert _recorded(tmp_path / "one.db", "SIM-1") == one
    assert again["events"] == len(_recorded(tmp_path / "one.db", "SIM-2"))


def test_rotating_bank_with_fortune_and_envy_adds_up_too(paigow: Run, tmp_path: Path) -> None:
    figures = _simulate(
        paigow,
        "--rounds", "60", "--players", "4", "--banking", "rotating", "--fortune",
        "--seed", "3", "--player-strategy", "foxwoods",
    )  # fmt: skip

    recorded = _recorded(tmp_path / "paigow.db", "SIM-1")
    expected = _recomputed(recorded)
    assert {key: figures[key] for key in expected} == expected
    assert figures["player_banks"] > 0 and figures["side_handle"] > 0
    types = {e.type for e in recorded}
    assert {"bank_offered", "side_bet_placed", "side_bet_settled"} <= types
    hands = [e.payload for e in recorded if e.type == "hand_set" and e.payload["seat"]]
    assert hands and all(h["by"] == "player" and h["reason"] == "player_set" for h in hands)


def test_simulate_refuses_what_it_cannot_play(paigow: Run) -> None:
    done = paigow("simulate", "--rounds", "5", "--house-way", "nowhere")
    assert done.returncode == 2
    assert done.stderr.startswith("paigow:") and "nowhere" in done.stderr


@pytest.mark.parametrize("option", ["--wager", "--side-wager"])
def test_a_wager_of_nothing_is_refused_before_any_database(
    paigow: Run, tmp_path: Path, option: str
) -> None:
    done = paigow("simulate", "--rounds", "2", option, "0")
    assert (done.returncode, done.stderr) == (
        2,
        f"paigow simulate: {option}: 0 is below 1; see --help\n",
    )
    assert list(tmp_path.iterdir()) == []


def test_a_fortune_wager_above_the_default_limit_plays_at_a_table_that_takes_it(
    paigow: Run, tmp_path: Path
) -> None:
    _simulate(paigow, "--rounds", "3", "--seed", "5", "--fortune", "--side-wager", "20000")
    fortune = [
        e.payload for e in _recorded(tmp_path / "paigow.db", "SIM-1") if e.type == "side_bet_placed"
    ]
    assert len(fortune) == 3 * 6 and {f["amount"] for f in fortune} == {20_000}
    audit = paigow("audit", "verify")
    assert audit.returncode == 0, audit.stdout + audit.stderr


def test_a_newcomers_first_commands_simulate_report_and_audit_all_succeed(paigow: Run) -> None:
    """The README's first command: play, then the books, then the proof, on one fresh file."""
    _simulate(paigow, "--rounds", "20", "--seed", "2")
    report = paigow("report")
    assert report.returncode == 0, report.stderr
    assert "SIM-1" in report.stdout
    audit = paigow("audit", "verify")
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "20 rounds re-derived" in audit.stdout


def test_rounds_committed_seven_at_a_time_are_the_same_rounds_with_books_and_proof(
    paigow: Run, tmp_path: Path
) -> None:
    grouped = _simulate(paigow, "--commit-rounds", "7", "--rounds", "20", "--seed", "4")
    single = _simulate(
        paigow, "--commit-rounds", "1", "--rounds", "20", "--seed", "4", "--db", "sqlite:///one.db"
    )
    moving = ("database", "seconds", "rounds_per_s")
    assert {k: v for k, v in grouped.items() if k not in moving} == {
        k: v for k, v in single.items() if k not in moving
    }
    recorded = _recorded(tmp_path / "paigow.db", "SIM-1")
    assert [e.hash for e in recorded] == [e.hash for e in _recorded(tmp_path / "one.db", "SIM-1")]
    # Three transactions (7 + 7 + 6 rounds), still a signed checkpoint at every round's end.
    store = open_store(f"sqlite:///{tmp_path / 'paigow.db'}")
    try:
        closes = [e.position for e in recorded if e.type == "round_closed"]
        assert len(closes) == 20
        # ... and the service's start and stop (issue 17: every event sealed).
        signed = [c.position for c in store.checkpoints()]
        assert signed == [2, *closes, store.raw_log()[0][-1][0]]  # type: ignore[union-attr]
    finally:
        store.close()
    audit = paigow("audit", "verify")
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "20 rounds re-derived" in audit.stdout
    report = paigow("report")
    assert report.returncode == 0, report.stderr
    assert "SIM-1" in report.stdout


def test_commit_rounds_takes_one_round_or_more(paigow: Run) -> None:
    done = paigow("simulate", "--rounds", "5", "--commit-rounds", "0")
    assert done.returncode == 2
    assert "--commit-rounds" in done.stderr and "below 1" in done.stderr


def test_a_database_created_by_db_upgrade_gets_its_signing_key_on_first_use(
    paigow: Run, tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'casino.db'}"
    upgraded = paigow("db", "upgrade", "--db", db)
    assert upgraded.returncode == 0, upgraded.stderr
    played = paigow("simulate", "--db", db, "--rounds", "3", "--players", "2", "--seed", "4")
    assert played.returncode == 0, played.stderr
    assert (tmp_path / "casino.db.signing-key").exists()
    assert (tmp_path / "casino.db.signing-key.pub").exists()
    verified = paigow("db", "verify", "--db", db)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_simulate_and_report_give_the_same_books_in_the_same_words(paigow: Run) -> None:
    """Issue 18: the summary's figures are the report's, key for key, for the same session; the
    gaming day is opened, filled, closed and counted; the human summary uses the report's
    headers."""
    figures = _simulate(paigow, "--rounds", "120", "--fortune", "--seed", "1")
    report = paigow("report", "--day", figures["gaming_day"], "--format", "json")
    assert report.returncode == 0, report.stderr
    (row,) = json.loads(report.stdout)["accounting"]
    shared = [
        "handle", "drop", "main_result", "commission", "win", "hold_pct", "side_bets",
        "side_handle", "side_result", "envy_paid", "side_win", "side_hold_pct", "total_win",
        "hands", "pushes", "push_rate_pct", "opener", "fills", "credits", "closer",
        "closer_variance", "drop_recorded", "drop_counted", "cash", "markers", "inventory_win",
        "game_win", "win_variance", "main_win", "game_hold_pct",
    ]  # fmt: skip
    assert {k: figures[k] for k in shared} == {k: row[k] for k in shared}
    assert (row["rounds_played"], row["books"]) == (figures["rounds"], "counted")
    assert figures["fills"] > 0 and figures["credits"] > 0  # the tray kept between its marks
    assert figures["win_variance"] == 0 and figures["closer_variance"] == 0
    human = paigow("simulate", "--rounds", "5", "--seed", "5", "--db", "sqlite:///h.db")
    words = [line.split("  ")[0] for line in human.stdout.splitlines()]
    for header in (
        "handle",
        "drop",
        "commission",
        "main win",
        "side handle",
        "side win",
        "game win",
        "game hold %",
        "opener",
        "fills",
        "credits",
        "closer",
        "inventory win",
        "hold %",
    ):
        assert header in words, header  # fmt: skip
    # One word a figure: no bare "win" or "total win" beside the hold (docs/projections.md).
    assert "win" not in words and "total win" not in words
    lines = dict(line.split("  ", 1) for line in human.stdout.splitlines())
    assert lines["main win"].strip().endswith("+ commission)")
    assert lines["game win"].strip().endswith("(main win + side win)")
    assert lines["hold %"].strip().endswith("(inventory win / drop)")
    assert "= game win)" in lines["inventory win"]  # a counted day: no variance to explain
    assert figures["house_result"] == figures["game_win"] - figures["commission"]
    assert "house win (main + side)" not in human.stdout
    rated = paigow("ratings", "--player", "ana-SIM-1", "--day", figures["gaming_day"],
                   "--format", "json")  # fmt: skip
    assert rated.returncode == 0, rated.stderr
    (rating,) = json.loads(rated.stdout)["ratings"]
    assert (rating["rounds"], rating["average_bet"], rating["status"]) == (120, 1_000, "closed")
    assert rating["cash"] == 900_000 and rating["theo_win"] > 0
    assert paigow("ratings", "--day", "someday").returncode == 2
