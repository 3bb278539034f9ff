"""The deck chain of custody over HTTP (R20), on SQLite and PostgreSQL: a new table refuses a
physical deal before a deck is in custody, the floor records a deck from its seal to its
retirement, each dealt round names its deck, a held deck is kept intact, and bad input (an unknown
deck, an empty reason) is a 422 that writes nothing."""

from __future__ import annotations

from typing import Any

from tests.integration.http.conftest import TABLE, Api, open_table
from tests.integration.http.test_commands import HANDS, payloads, written

DECK = {"deck_id": "D-0417"}


def custody(api: Api) -> None:
    api.ok("floor", "/decks/receive", {**DECK, "seal": "S-88213", "package_id": "PKG-12"})
    api.ok("floor", "/decks/inspect", {**DECK, "card_count": 53, "inspector": "insp-4"})
    api.ok(
        "floor",
        "/decks/shuffler",
        {**DECK, "shuffler_serial": "SHF-0042", "received_at": "2026-11-29T19:55:00Z"},
    )
    api.ok("floor", "/decks/use", DECK)


def deal_one(api: Api, **deal: Any) -> dict[str, Any]:
    api.ok("dealer", "/round/start")
    api.ok("dealer", "/round/bet", {"player_id": "ana", "amount": 2_500})
    api.ok("dealer", "/round/close-bets")
    dealt: dict[str, Any] = api.ok("dealer", "/round/deal/report", {"hands": HANDS, **deal})
    api.ok("floor", "/round/void", {"reason": "custody test"})
    return dealt


def test_a_deck_from_its_seal_to_its_retirement(sql_api: Api) -> None:
    api = sql_api
    open_table(api, (2, "ana", 100_000))
    api.ok("dealer", "/round/start")
    api.ok("dealer", "/round/bet", {"player_id": "ana", "amount": 2_500})
    api.ok("dealer", "/round/close-bets")
    before = written(api)
    refused = api.post("dealer", "/round/deal/report", {"hands": HANDS})
    assert (refused.status_code, refused.json()) == (  # a new table's rules require custody
        422,
        {
            "error": "rule_violation",
            "message": f"table {TABLE} requires deck custody for a physical deal: no deck was "
            "received; receive, inspect and put one in use first",
            "rule": "R20",
        },
    )
    assert written(api) == before
    api.ok("floor", "/round/void", {"reason": "no deck in custody"})
    custody(api)
    dealt = deal_one(api)
    assert payloads(dealt, "deck_dealt") == [
        {
            "type": "deck_dealt",
            "schema_version": 1,
            "table_id": TABLE,
            "round": 2,
            "actor": {"id": "dealer-1", "role": "dealer"},
            "at": payloads(dealt, "deck_dealt")[0]["at"],
            "deck_id": "D-0417",
        }
    ]
    assert payloads(deal_one(api, deck_id="D-0417"), "deck_dealt")[0]["round"] == 3
    held = api.ok("floor", "/decks/hold", {**DECK, "reason": "seat 2 dispute", "dispute_id": "X1"})
    assert payloads(held, "deck_held")[0]["dispute_id"] == "X1"
    before = written(api)
    refused = api.post("floor", "/decks/retire", {**DECK, "reason": "worn"})
    assert refused.status_code == 422
    assert refused.json() == {
        "error": "rule_violation",
        "message": "deck D-0417 is held (seat 2 dispute): it cannot be retired",
        "rule": "R20",
    }
    assert written(api) == before
    api.ok("floor", "/decks/release", {**DECK, "reason": "dispute closed"})
    api.ok("floor", "/decks/retire", {**DECK, "reason": "worn", "destroyed": True})
    decks = api.get("auditor", f"/tables/{TABLE}/decks")
    assert decks.status_code == 200
    assert decks.json() == [
        {
            "deck_id": "D-0417",
            "package_id": "PKG-12",
            "seal": "S-88213",
            "status": "retired",
            "inspected": True,
            "card_count": 53,
            "inspector": "insp-4",
            "shuffler_serial": "SHF-0042",
            "loaded_at": "2026-11-29T19:55:00+00:00",
            "rounds": [2, 3],
            "held": False,
            "hold_reason": None,
            "dispute_id": None,
            "retired_reason": "worn",
            "destroyed": True,
        }
    ]


def test_bad_custody_input_is_refused_and_writes_nothing(api: Api) -> None:
    open_table(api, (2, "ana", 100_000))
    before = written(api)
    unknown = api.post("floor", "/decks/use", {"deck_id": "D-9"})
    assert unknown.status_code == 422
    assert unknown.json() == {
        "error": "rule_violation",
        "message": f"unknown deck 'D-9' at table {TABLE}",
        "rule": "R20",
    }
    api.ok("floor", "/decks/receive", {**DECK, "seal": "S-1"})
    before = written(api)
    empty = api.post("floor", "/decks/retire", {**DECK, "reason": ""})
    assert empty.status_code == 422 and empty.json()["error"] == "invalid_request"
    assert "reason" in empty.json()["message"]
    dealer = api.post("dealer", "/decks/use", DECK)
    assert dealer.status_code == 403
    short = api.ok("floor", "/decks/inspect", {**DECK, "card_count": 52, "inspector": "i"})
    assert payloads(short, "deck_inspected")[0]["passed"] is False  # R-CARD-1: 53 cards
    before = written(api)
    not_inspected = api.post("floor", "/decks/use", DECK)
    assert not_inspected.status_code == 422
    assert not_inspected.json()["message"] == (
        "deck D-0417 has not passed inspection (52 cards; 53 needed)"
    )
    api.ok("dealer", "/round/start")
    api.ok("dealer", "/round/bet", {"player_id": "ana", "amount": 2_500})
    api.ok("dealer", "/round/close-bets")
    no_deck = api.post("dealer", "/round/deal/report", {"hands": HANDS})
    assert (no_deck.status_code, no_deck.json()["rule"]) == (422, "R20")
    assert no_deck.json()["message"] == f"no deck is in use at table {TABLE}: nothing to deal"
    assert written(api) == before + 3


def test_a_dispute_opened_over_http_holds_its_deck(sql_api: Api) -> None:
    """R17 + R20: the auditor opens a dispute on round 1; the deck that dealt it is held in the
    same transaction, naming the dispute, and the next deal from it is refused at once."""
    api = sql_api
    open_table(api, (2, "ana", 100_000))
    custody(api)
    deal_one(api)
    headers = {"Authorization": f"Bearer {api.tokens['auditor']}"}
    body = {"table_id": TABLE, "rounds": [1], "reason": "marked cards"}
    opened = api.client.post("/disputes", json=body, headers=headers)
    assert opened.status_code == 201, opened.text
    dispute = opened.json()["dispute_id"]
    assert opened.json()["decks"] == [{"deck_id": "D-0417", "hold": "held", "note": None}]
    decks = api.client.get(f"/tables/{TABLE}/decks", headers=headers).json()
    (deck,) = decks
    assert (deck["held"], deck["dispute_id"]) == (True, dispute)
    api.ok("dealer", "/round/start")
    api.ok("dealer", "/round/bet", {"player_id": "ana", "amount": 2_500})
    api.ok("dealer", "/round/close-bets")
    refused = api.post("dealer", "/round/deal/report", {"hands": HANDS})
    assert refused.status_code == 422, refused.text
    assert refused.json()["message"] == (
        f"deck D-0417 is held (dispute {dispute}: marked cards): it cannot be dealt from"
    )
    release = {"deck_id": "D-0417", "reason": "the player withdrew"}
    early = api.post("floor", "/decks/release", release)
    assert early.status_code == 422, early.text
    assert early.json()["message"] == (
        f"deck D-0417 is held for dispute {dispute}, which is still open: close the dispute "
        "first (paigow dispute close)"
    )
    assert api.client.get(f"/tables/{TABLE}/decks", headers=headers).json()[0]["held"] is True
