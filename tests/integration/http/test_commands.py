"""Table commands over HTTP (issue 10): a live round to settlement, the refusals (422 with the
rule, 409 with the current version, 401), idempotent retries; nothing is written on any error."""

from __future__ import annotations

from typing import Any

import pytest

from table_core.cards import FULL_DECK, card_text
from tests.integration.http.conftest import TABLE, Api, deck_in_use, open_table

# A live table reports the seven hands. Dice 2+3+3 = 8: position ((8-1) mod 7)+1 = 1 gets stack 1
# (R-DEAL-3), so the dealer-banker (position 1) plays stack 1 and seat 2 (position 3) stack 3.
BANKER = ["2c", "3d", "5h", "7s", "9c", "Jd", "Kh"]  # no pair, king high
ANA = ["As", "Ad", "Ac", "Kc", "Ks", "Qh", "4d"]  # a full house: aces over kings
_REST = [card_text(c) for c in FULL_DECK if card_text(c) not in BANKER + ANA]
HANDS = [BANKER, _REST[0:7], ANA, _REST[7:14], _REST[14:21], _REST[21:28], _REST[28:35]]
FORTUNE = {"side_bets": {"offered": ["fortune"]}}


def payloads(body: dict, kind: str) -> list[dict]:
    return [e["payload"] for e in body["events"] if e["type"] == kind]


def written(api: Api) -> int:
    """Events written since the keys were made (their creations are the system stream's)."""
    return len(after_keys(api))


def after_keys(api: Api) -> list[Any]:
    return [e for e in api.service.store.read_all() if not e.type.startswith("api_key_")]


def test_a_live_round_from_opening_to_settlement(api: Api) -> None:
    api.ok("floor", "/open", {"rules": FORTUNE})
    api.ok("dealer", "/seat", {"seat": 2, "player_id": "ana"})
    api.ok("cage", "/buy-in", {"player_id": "ana", "amount": 100_000})
    deck_in_use(api)  # R20: the hands come from a physical deck, in custody
    started = api.ok("dealer", "/round/start")
    assert payloads(started, "round_started")[0]["round"] == 1
    api.ok("dealer", "/round/bet", {"player_id": "ana", "amount": 2_500})
    api.ok("dealer", "/round/side-bet", {"player_id": "ana", "bet": "fortune", "amount": 500})
    api.ok("dealer", "/round/close-bets")
    dealt = api.ok("dealer", "/round/deal/report", {"hands": HANDS})
    assert payloads(dealt, "stacks_dealt")[0]["source"] == "live"
    assert payloads(dealt, "deck_dealt")[0]["deck_id"] == "D-1"
    rolled = api.ok("dealer", "/round/dice/report", {"faces": [2, 3, 3]})
    assignment = payloads(rolled, "stacks_assigned")[0]["assignments"]
    assert [(a["position"], a["stack"], a["holder"]) for a in assignment][:3] == [
        (1, 1, "banker"),
        (2, 2, "dead"),
        (3, 3, "player"),
    ]
    # The player sets her own split: trips back, the kings front (R-SET-1).
    hand = {"player_id": "ana", "back": ["As", "Ad", "Ac", "Qh", "4d"], "front": ["Kc", "Ks"]}
    assert payloads(api.ok("dealer", "/round/hand", hand), "hand_set")[0]["by"] == "player"
    banker = payloads(api.ok("dealer", "/round/banker-hand"), "banker_hand_set")[0]
    assert (banker["back"], banker["front"]) == (["Kh", "7s", "5h", "3d", "2c"], ["Jd", "9c"])
    settled = api.ok("dealer", "/round/settle")
    result = payloads(settled, "round_settled")[0]["results"][0]
    # Both hands win: even money less 5% commission (R-PAY-1, R-PAY-2), commission on its own.
    assert (result["result"], result["payout"], result["commission"], result["net"]) == (
        "win",
        2_500,
        125,
        2_375,
    )
    assert [c["amount"] for c in payloads(settled, "commission_taken")] == [125]
    fortune = payloads(settled, "side_bet_settled")[0]
    assert (fortune["line"], fortune["payout"]) == ("full_house", 2_500)  # 5 to 1 (R-VAR-3)
    api.ok("dealer", "/round/close")
    state = api.get("auditor", f"/tables/{TABLE}").json()
    assert state["balances"] == {"ana": 100_000 + 2_375 + 2_500}
    assert (state["house_result"], state["commission"]) == (-5_000, 125)
    assert state["phase"] == "closed" and state["version"] == api.version()


def test_a_rules_violation_is_422_with_the_rule_and_writes_nothing(api: Api) -> None:
    open_table(api, (2, "ana", 100_000))
    deck_in_use(api)
    api.ok("dealer", "/round/start")
    api.ok("dealer", "/round/bet", {"player_id": "ana", "amount": 2_500})
    before = written(api)
    refused = api.post(
        "dealer", "/round/side-bet", {"player_id": "ana", "bet": "fortune", "amount": 500}
    )
    assert refused.status_code == 422
    assert refused.json() == {
        "error": "rule_violation",
        "message": "this table does not take the fortune side bet (offered: none)",
        "rule": "R-VAR-2",
    }
    api.ok("dealer", "/round/close-bets")
    api.ok("dealer", "/round/deal/report", {"hands": HANDS})
    before = written(api)
    dice = api.post("dealer", "/round/dice/report", {"faces": [7, 1, 1]})
    assert (dice.status_code, dice.json()["rule"]) == (422, "R-DEAL-3")
    assert "three dice of 1..6" in dice.json()["message"]
    assert written(api) == before


def test_a_command_in_the_wrong_state_names_the_state(api: Api) -> None:
    open_table(api, (2, "ana", 100_000))
    before = written(api)
    refused = api.post("dealer", "/round/close-bets")
    assert refused.status_code == 422
    assert refused.json() == {
        "error": "rule_violation",
        "message": "cannot close bets in state no_round",
        "rule": None,
        "state": "no_round",
    }
    assert written(api) == before


def test_a_stale_expected_version_is_409_with_the_current_version(api: Api) -> None:
    open_table(api, (2, "ana", 100_000), (3, "bo", 50_000))
    current = api.ok("dealer", "/round/start")["version"]
    assert current == 6
    api.ok("dealer", "/round/bet", {"player_id": "ana", "amount": 2_500, "expected_version": 6})
    before = written(api)
    stale = api.post(
        "dealer", "/round/bet", {"player_id": "bo", "amount": 1_000, "expected_version": 6}
    )
    assert stale.status_code == 409
    assert stale.json()["current_version"] == 7 and stale.json()["expected_version"] == 6
    assert written(api) == before
    api.ok("dealer", "/round/bet", {"player_id": "bo", "amount": 1_000, "expected_version": 7})


def _retried_bet_writes_nothing(api: Api) -> None:
    open_table(api, (2, "ana", 100_000))
    api.ok("dealer", "/round/start")
    bet = {"player_id": "ana", "amount": 2_500, "expected_version": 4}
    first = api.post("dealer", "/round/bet", bet, key="terminal-7:bet:41")
    assert first.status_code == 200 and first.headers["Idempotent-Replayed"] == "false"
    before, version = written(api), api.version()
    retry = api.post("dealer", "/round/bet", bet, key="terminal-7:bet:41")
    assert retry.status_code == 200 and retry.headers["Idempotent-Replayed"] == "true"
    assert retry.content == first.content  # the same events, byte for byte
    assert (written(api), api.version()) == (before, version)
    api.ok("dealer", "/round/close-bets")  # the table moved on; the retry still answers the same
    late = api.post("dealer", "/round/bet", bet, key="terminal-7:bet:41")
    assert late.status_code == 200 and late.json() == first.json()
    state = api.get("dealer", f"/tables/{TABLE}").json()
    assert [w["amount"] for w in state["round"]["wagers"]] == [2_500]
    assert state["balances"]["ana"] == 97_500


def test_a_retried_bet_answers_the_first_result_and_writes_nothing(api: Api) -> None:
    _retried_bet_writes_nothing(api)


def test_a_retried_bet_writes_nothing_on_sqlite_and_postgresql(sql_api: Api) -> None:
    _retried_bet_writes_nothing(sql_api)


def test_a_key_used_on_another_table_is_409_and_writes_nothing(api: Api) -> None:
    open_table(api, (2, "ana", 100_000))
    api.ok("floor", "/open", {}, table="PG-2", key="open-pg-2")
    before = written(api)
    reused = api.post("floor", "/open", {}, key="open-pg-2")  # PG-1 is open: the core refuses
    assert reused.status_code == 409 and reused.json()["error"] == "idempotency_key_reused"
    fresh = api.post("floor", "/open", {}, table="PG-3", key="open-pg-2")  # decided, then refused
    assert fresh.status_code == 409 and fresh.json()["error"] == "idempotency_key_reused"
    assert written(api) == before


def test_the_electronic_deal_is_drawn_once(api: Api) -> None:
    open_table(api, (2, "ana", 100_000))
    api.ok("dealer", "/round/start")
    api.ok("dealer", "/round/bet", {"player_id": "ana", "amount": 2_500})
    api.ok("dealer", "/round/close-bets")
    first = api.post("dealer", "/round/deal", key="deal-r1")
    again = api.post("dealer", "/round/deal", key="deal-r1")
    assert again.content == first.content
    other = api.post("dealer", "/round/deal", key="deal-r1-b")
    assert (other.status_code, other.json()["message"]) == (
        422,
        "cannot draw now: the round is dealt, not bets_closed",
    )
    rolled = api.ok("dealer", "/round/dice")
    faces = payloads(rolled, "dice_rolled")[0]["faces"]
    assert len(faces) == 3 and all(1 <= f <= 6 for f in faces)


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({}, "an API key is needed: Authorization: Bearer <key>"),
        ({"Authorization": "Bearer pgw_not-a-key"}, "this API key is unknown or revoked"),
        (
            {"Authorization": "Basic ZGVhbGVyOnB3"},
            "an API key is needed: Authorization: Bearer <key>",
        ),
    ],
)
def test_no_valid_key_is_401(api: Api, headers: dict[str, str], message: str) -> None:
    response = api.client.post(
        f"/tables/{TABLE}/open", json={}, headers={**headers, "Idempotency-Key": "k"}
    )
    assert response.status_code == 401
    assert response.json() == {"error": "unauthorized", "message": message}
    assert response.headers["WWW-Authenticate"] == "Bearer"
    # Nothing on the table; R5/R19: the failure itself on the system stream.
    assert [e.type for e in after_keys(api)] == ["authentication_failed"]


def test_a_revoked_key_is_401(api: Api) -> None:
    key_id = next(k.key_id for k in api.keys.list() if k.role == "floor")
    from tests.integration.http.conftest import START

    assert api.keys.revoke(key_id, START)
    assert api.post("floor", "/open", {}).status_code == 401


def test_every_command_needs_an_idempotency_key(api: Api) -> None:
    headers = {"Authorization": f"Bearer {api.tokens['floor']}"}
    missing = api.client.post(f"/tables/{TABLE}/open", json={}, headers=headers)
    assert missing.status_code == 422 and missing.json()["error"] == "invalid_request"
    assert "Idempotency-Key" in missing.json()["message"]
    system = api.post("floor", "/open", {}, key="system:1:x")
    assert system.status_code == 422 and "system:" in system.json()["message"]
    assert api.post("floor", "/open", {}, table="system").status_code == 422
    assert written(api) == 0


@pytest.mark.parametrize("amount", [2500.0, "2500", True, 0, -5, 10**13])
def test_money_is_strict_integer_minor_units(api: Api, amount: object) -> None:
    open_table(api, (2, "ana", 100_000))
    api.ok("dealer", "/round/start")
    before = written(api)
    refused = api.post("dealer", "/round/bet", {"player_id": "ana", "amount": amount})
    assert refused.status_code == 422 and refused.json()["error"] == "invalid_request"
    assert refused.json()["detail"][0]["loc"] == ["body", "amount"]
    assert written(api) == before
