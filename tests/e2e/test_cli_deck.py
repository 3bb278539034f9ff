"""``paigow deck``: the floor records a deck's chain of custody (R20) from the command line; bad
input is one line on standard error, exit status 2, nothing written; the audit then checks every
round dealt after custody began, and reports the rounds dealt before it without failing. A new
table refuses a physical deal until ``paigow deck`` has put a deck in use."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx

from table_core.cards import FULL_DECK, card_text
from tests.e2e.conftest import Run, operator_keys
from tests.e2e.serving import serving

DB = "sqlite:///casino.db"
#: The floor supervisor's API key, made once the simulation played (keys.key beside the file).
FLOOR = ("--key-file", "floor.key", "--actor", "floor-2")


def _keys(tmp_path: Path) -> None:
    operator_keys(DB, tmp_path, ("security", "floor"), floor="floor-2")


def _deck(paigow: Run, *args: str) -> dict[str, object]:
    done = paigow("deck", *args, "--db", DB, "--table", "SIM-1", *FLOOR)
    assert done.returncode == 0, done.stderr
    line: dict[str, object] = json.loads(done.stdout)
    return line


def test_the_floor_records_a_deck_and_the_audit_checks_it(paigow: Run, tmp_path: Path) -> None:
    made = paigow("simulate", "--db", DB, "--rounds", "2", "--players", "1", "--seed", "4")
    assert made.returncode == 0, made.stderr
    _keys(tmp_path)
    received = _deck(paigow, "receive", "--deck", "D-1", "--seal", "S-77", "--package", "P-3")
    assert received == {
        "table": "SIM-1",
        "deck_id": "D-1",
        "event": "deck_received",
        "version": received["version"],
        "position": received["position"],
    }
    first = received["version"]
    assert isinstance(first, int)
    inspected = _deck(paigow, "inspect", "--deck", "D-1", "--count", "53", "--inspector", "i-4")
    assert (inspected["event"], inspected["version"]) == ("deck_inspected", first + 1)
    loaded = _deck(
        paigow,
        *("load", "--deck", "D-1", "--shuffler", "SH-9"),
        *("--received-at", "2026-11-29T19:55:00+00:00"),
    )
    assert loaded["event"] == "deck_loaded"
    assert _deck(paigow, "use", "--deck", "D-1")["event"] == "deck_in_use"
    assert (
        _deck(paigow, "hold", "--deck", "D-1", "--reason", "dispute", "--dispute", "X")["event"]
        == "deck_held"
    )

    def refused(*args: str) -> str:
        done = paigow("deck", *args, "--db", DB, "--table", "SIM-1", *FLOOR)
        assert done.returncode == 2
        assert done.stdout == ""
        lines = done.stderr.splitlines()
        assert len(lines) == 1, done.stderr  # one line, no traceback, no log noise
        return lines[0]

    assert refused("retire", "--deck", "D-1", "--reason", "worn") == (
        "paigow: deck D-1 is held (dispute): it cannot be retired"
    )
    assert refused("retire", "--deck", "D-9", "--reason", "worn") == (
        "paigow: unknown deck 'D-9' at table SIM-1"
    )
    assert refused("retire", "--deck", "D-1", "--reason", " ") == (
        "paigow: the reason must not be empty"
    )
    assert refused("inspect", "--deck", "D-1", "--count", "x", "--inspector", "i") == (
        "paigow: --count is a whole number of cards, not 'x'"
    )
    listed = paigow("deck", "list", "--db", DB, "--table", "SIM-1")
    decks = {deck["deck_id"]: deck for deck in map(json.loads, listed.stdout.splitlines())}
    # The simulated day dealt its two rounds from the deck it took into custody (R20).
    assert decks["SIM-1-DECK-1"]["rounds"] == [1, 2]
    assert decks["D-1"] == {
        "deck_id": "D-1",
        "package_id": "P-3",
        "seal": "S-77",
        "status": "in_use",
        "inspected": True,
        "card_count": 53,
        "inspector": "i-4",
        "shuffler_serial": "SH-9",
        "loaded_at": "2026-11-29T19:55:00+00:00",
        "rounds": [],
        "held": True,
        "hold_reason": "dispute",
        "dispute_id": "X",
        "retired_reason": None,
        "destroyed": False,
    }
    shown = paigow("deck", "show", "--db", DB, "--table", "SIM-1", "--deck", "D-1")
    timeline = [json.loads(line) for line in shown.stdout.splitlines()]
    assert [(e["event"], e["version"], e["actor"]) for e in timeline] == [
        ("deck_received", first, "floor-2"),
        ("deck_inspected", first + 1, "floor-2"),
        ("deck_loaded", first + 2, "floor-2"),
        ("deck_in_use", first + 3, "floor-2"),
        ("deck_held", first + 4, "floor-2"),
    ]
    assert timeline[1]["card_count"] == 53 and timeline[4]["dispute_id"] == "X"
    audited = paigow("audit", "verify", "--db", DB, "--format", "json")
    assert audited.returncode == 0, audited.stdout + audited.stderr
    report = json.loads(audited.stdout.splitlines()[-1])
    # Both simulated rounds name the day's deck: none is left without a custody record.
    assert report["custody"] == {"rounds_with_deck": 2, "no_custody_record": []}


def test_a_dispute_holds_the_deck_that_dealt_its_round(paigow: Run, tmp_path: Path) -> None:
    """R17 + R20: ``dispute open`` on a simulated round holds the day's deck, naming the
    dispute (``deck show``/``deck list``); a deal from it is then refused; the audit passes."""
    made = paigow("simulate", "--db", DB, "--rounds", "2", "--players", "1", "--seed", "4")
    assert made.returncode == 0, made.stderr
    _keys(tmp_path)
    opened = paigow(
        *("dispute", "open", "--db", DB, "--table", "SIM-1", "--round", "2"),
        *("--reason", "seat 1 says the joker was marked", *FLOOR),
    )
    assert opened.returncode == 0, opened.stderr
    record = json.loads(opened.stdout)
    dispute = record["dispute_id"]
    assert record["decks"] == [{"deck_id": "SIM-1-DECK-1", "hold": "held", "note": None}]
    listed = paigow("deck", "list", "--db", DB, "--table", "SIM-1")
    (deck,) = map(json.loads, listed.stdout.splitlines())
    assert (deck["deck_id"], deck["held"], deck["dispute_id"]) == ("SIM-1-DECK-1", True, dispute)
    assert deck["hold_reason"] == f"dispute {dispute}: seat 1 says the joker was marked"
    shown = paigow("deck", "show", "--db", DB, "--table", "SIM-1", "--deck", "SIM-1-DECK-1")
    last = json.loads(shown.stdout.splitlines()[-1])
    assert (last["event"], last["dispute_id"], last["actor"]) == ("deck_held", dispute, "floor-2")
    release = ("deck", "release", "--db", DB, "--table", "SIM-1", "--deck", "SIM-1-DECK-1")
    early = paigow(*release, "--reason", "no longer needed", *FLOOR)
    assert early.returncode == 2 and early.stdout == ""
    assert early.stderr.strip() == (
        f"paigow: deck SIM-1-DECK-1 is held for dispute {dispute}, which is still "
        "open: close the dispute first (paigow dispute close)"
    )
    closed = paigow(
        *("dispute", "close", dispute, "--db", DB, "--outcome", "no marks found"),
        *FLOOR,
    )
    assert closed.returncode == 0, closed.stderr
    listed = paigow("deck", "list", "--db", DB, "--table", "SIM-1")
    assert json.loads(listed.stdout)["held"] is True  # closing releases nothing (docs/audit.md)
    released = paigow(*release, "--reason", "dispute closed", *FLOOR)
    assert released.returncode == 0, released.stderr
    assert (
        json.loads(paigow("deck", "list", "--db", DB, "--table", "SIM-1").stdout)["held"] is False
    )
    audited = paigow("audit", "verify", "--db", DB)
    assert audited.returncode == 0, audited.stdout + audited.stderr


def test_a_new_table_deals_a_physical_deck_only_once_paigow_deck_put_one_in_use(
    paigow: Run, tmp_path: Path
) -> None:
    """R20 with a live server: a new table's rules require custody, so the dealer's report of a
    shuffler's deal is refused (422, rule R20) until the floor has received, inspected and put a
    deck in use with ``paigow deck``; the same report is then dealt from that deck, and the
    audit checks it."""
    assert paigow("db", "upgrade", "--db", DB).returncode == 0
    files = operator_keys(DB, tmp_path, ("security", "floor", "dealer", "cage"))
    tokens = {role: path.read_text().strip() for role, path in files.items()}
    n = iter(range(1, 100))
    with serving(DB, tmp_path, dict(os.environ)) as served:

        def post(role: str, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
            headers = {"Authorization": f"Bearer {tokens[role]}", "Idempotency-Key": f"k{next(n)}"}
            return httpx.post(f"{served.base}/tables/PG-2{path}", json=body, headers=headers)

        for role, path, body in [
            ("floor", "/open", {}),
            ("dealer", "/seat", {"seat": 1, "player_id": "ana"}),
            ("cage", "/buy-in", {"player_id": "ana", "amount": 20_000}),
            ("dealer", "/round/start", None),
            ("dealer", "/round/bet", {"player_id": "ana", "amount": 2_500}),
            ("dealer", "/round/close-bets", None),
        ]:
            assert post(role, path, body).status_code == 200
        deck = [card_text(c) for c in FULL_DECK]  # as the shuffler reported it
        refused = post("dealer", "/round/deal/report", {"deck": deck})
        assert (refused.status_code, refused.json()) == (
            422,
            {
                "error": "rule_violation",
                "message": "table PG-2 requires deck custody for a physical deal: no deck was "
                "received; receive, inspect and put one in use first",
                "rule": "R20",
            },
        )
        for args in (
            ("receive", "--deck", "D-1", "--seal", "S-1"),
            ("inspect", "--deck", "D-1", "--count", "53", "--inspector", "i-4"),
            ("use", "--deck", "D-1"),
        ):
            done = paigow("deck", *args, "--db", DB, "--table", "PG-2", "--key-file", "floor.key")
            assert done.returncode == 0, done.stderr
        dealt = post("dealer", "/round/deal/report", {"deck": deck})
        assert dealt.status_code == 200, dealt.text
        assert [(e["type"], e["payload"].get("deck_id")) for e in dealt.json()["events"]] == [
            ("stacks_dealt", None),
            ("deck_dealt", "D-1"),
        ]
    audited = paigow("audit", "verify", "--db", DB, "--format", "json")
    assert audited.returncode == 0, audited.stdout + audited.stderr
    assert json.loads(audited.stdout.splitlines()[-1])["custody"]["rounds_with_deck"] == 1
