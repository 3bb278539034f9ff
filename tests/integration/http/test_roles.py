"""The role matrix (issue 10): every endpoint x every role, allowed or 403; a 403 is logged with
the actor. The expected matrix is written out here, apart from service_layer/operators/rights.py
(which ``tests/integration/http/test_rights_matrix.py`` proves on both ways in): ``security``, the
key officer, reads what everyone reads and gives no command."""

from __future__ import annotations

from typing import Any

import pytest
from structlog.testing import capture_logs

from tests.integration.http.conftest import ROLES, TABLE, Api, open_table

D, F, C, A, N, S = "dealer", "floor", "cage", "auditor", "count", "security"

EXPECTED: dict[str, set[str]] = {
    "open_table": {F},
    "change_rules": {F},
    "seat_player": {D, F},
    "leave_seat": {D, F},
    "buy_in": {C},
    "cash_out": {C},
    "start_round": {D},
    "accept_bank": {D, F},
    "decline_bank": {D, F},
    "place_bet": {D},
    "place_side_bet": {D},
    "close_bets": {D},
    "deal_electronic": {D},
    "report_deal": {D},
    "roll_dice_electronic": {D},
    "report_dice": {D},
    "set_hand": {D},
    "set_banker_hand": {D},
    "settle": {D},
    "close_round": {D},
    "void_round": {F},
    "open_gaming_day": {F},
    "close_gaming_day": {F},
    "fill_tray": {F, C, D},
    "credit_tray": {F, C, D},
    "count_drop": {N},
    "correct_rating": {F},
    "tables": {D, F, C, A, N, S},
    "receive_deck": {F},
    "inspect_deck": {F},
    "load_shuffler": {F},
    "put_deck_in_use": {F},
    "retire_deck": {F},
    "hold_deck": {F},
    "release_deck": {F},
    "table_state": {D, F, C, A, N, S},
    "table_events": {D, F, C, A, N, S},
    "round_recall": {D, F, C, A, N, S},
    "round_history": {D, F, C, A, N, S},
    "table_decks": {D, F, C, A, N, S},
    "reports": {F, C, A},
    "player_ratings": {F, C, A},
    "audit_verify": {A, F},
    # R17: disputes are the floor's and the auditor's
    "dispute_open": {A, F},
    "dispute_list": {A, F},
    "dispute_show": {A, F},
    "dispute_close": {A, F},
    "dispute_export": {A, F},
    # R5/R19: a software version is authorised by the floor, as a rules change
    "software_version_authorise": {F},
    "install_house_way": {F},
    # the event feed (docs/feed.md): a dealer reads the tables' streams; subscriptions are the
    # floor's to make and delete, the floor's and the auditor's to read and acknowledge
    "feed_events": {D, F, A},
    "feed_checkpoints": {D, F, A},
    "subscription_create": {F},
    "subscription_list": {A, F},
    "subscription_events": {A, F},
    "subscription_ack": {A, F},
    "subscription_delete": {F},
}

BODIES: dict[str, dict[str, Any]] = {
    "open_table": {},
    "change_rules": {"rules": {"version": 2}, "reason": "new commission sign posted"},
    "seat_player": {"seat": 4, "player_id": "cy"},
    "leave_seat": {"player_id": "bo"},
    "buy_in": {"player_id": "ana", "amount": 5_000},
    "cash_out": {"player_id": "ana", "amount": 1_000},
    "accept_bank": {"player_id": "ana"},
    "decline_bank": {"player_id": "ana"},
    "place_bet": {"player_id": "ana", "amount": 2_500},
    "place_side_bet": {"player_id": "ana", "bet": "fortune", "amount": 500},
    "report_deal": {"hands": [["As"]]},
    "report_dice": {"faces": [1, 2, 3]},
    "set_hand": {"player_id": "ana"},
    "void_round": {"reason": "card exposed"},
    "open_gaming_day": {"gaming_day": "2026-11-29", "opener": [], "dealer": "dealer-1"},
    "close_gaming_day": {"closer": [], "dealer": "dealer-1"},
    "fill_tray": {
        "slip": "F-1",
        "chips": [{"denomination": 2500, "amount": 25000}],
        "requested_by": "floor-1",
        "issued_by": "cage-1",
        "received_by": "dealer-1",
    },
    "credit_tray": {
        "slip": "C-1",
        "chips": [{"denomination": 2500, "amount": 25000}],
        "requested_by": "floor-1",
        "issued_by": "dealer-1",
        "received_by": "cage-1",
    },
    "count_drop": {"gaming_day": "2026-11-29", "cash": 0, "markers": 0},
    "correct_rating": {"player_id": "ana", "reason": "left early", "minutes": 30},
    "dispute_open": {"table_id": "PG-1", "rounds": [1], "reason": "chip count"},
    "dispute_close": {"outcome": "upheld"},
    "software_version_authorise": {"digest": "9" * 64, "reason": "CHG-1"},
    # Not a House Way file: refused (422) after the role check, before any certification.
    "install_house_way": {"table_id": "PG-1", "text": "name = 1", "reason": "new sign posted"},
    "receive_deck": {"deck_id": "D-1", "seal": "S-1"},
    "inspect_deck": {"deck_id": "D-1", "card_count": 53, "inspector": "insp-1"},
    "load_shuffler": {"deck_id": "D-1", "shuffler_serial": "SH-1"},
    "put_deck_in_use": {"deck_id": "D-1"},
    "retire_deck": {"deck_id": "D-1", "reason": "worn"},
    "hold_deck": {"deck_id": "D-1", "reason": "dispute"},
    "release_deck": {"deck_id": "D-1", "reason": "dispute closed"},
    "subscription_create": {"name": "cage-system"},
    "subscription_ack": {"position": 1},
}


def operations(api: Api) -> list[tuple[str, str, str]]:
    """(operation id, method, path) of every endpoint, from the served OpenAPI document."""
    document = api.client.get("/openapi.json").json()
    return [
        (operation["operationId"], method.upper(), path)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]


def call(api: Api, operation: str, method: str, path: str, role: str, n: int) -> Any:
    path = path.replace("{table_id}", TABLE).replace("{round}", "1")
    path = path.replace("{dispute_id}", "D-00000000").replace("{name}", "no-such-subscription")
    headers = api.headers(role, key=f"matrix-{n}")
    if method == "GET":
        return api.client.get(path, headers=headers)
    if method == "DELETE":
        return api.client.delete(path, headers=headers)
    return api.client.post(path, json=BODIES.get(operation), headers=headers)


#: The operations' probes, open to anyone (no key): liveness and readiness.
OPEN = {"health", "ready"}


def test_the_matrix_covers_every_endpoint_but_the_probes(api: Api) -> None:
    served = {operation for operation, _, _ in operations(api)}
    assert served - OPEN == set(EXPECTED)
    commands = {
        operation
        for operation, method, path in operations(api)
        if method == "POST" and path.startswith("/tables/")
    }
    # every table command of table_core.commands, deal and dice twice; 6 books (issue 18),
    # 7 deck custody (R20)
    assert len(commands) == 34


@pytest.mark.parametrize("role", ROLES)
def test_every_endpoint_admits_its_roles_and_refuses_the_others(api: Api, role: str) -> None:
    open_table(api, (2, "ana", 100_000), (3, "bo", 50_000))
    api.ok("dealer", "/round/start")
    endpoints = [e for e in operations(api) if e[0] not in OPEN]
    assert len(endpoints) == len(EXPECTED)
    for n, (operation, method, path) in enumerate(endpoints):
        with capture_logs() as logs:
            response = call(api, operation, method, path, role, n)
        assert response.status_code < 500, (operation, response.text)
        if role in EXPECTED[operation]:
            assert response.status_code != 403, (operation, role, response.text)
            assert not [e for e in logs if e["event"] == "access_denied"]
        else:
            assert response.status_code == 403, (operation, role, response.text)
            assert response.json()["error"] == "forbidden"
            denied = [e for e in logs if e["event"] == "access_denied"]
            assert len(denied) == 1
            assert (denied[0]["actor"], denied[0]["role"], denied[0]["operation"]) == (
                f"{role}-1",
                role,
                operation,
            )


def test_a_refused_role_writes_nothing(api: Api) -> None:
    open_table(api, (2, "ana", 100_000))
    before = len(api.service.store.read_all())
    for role, path, body in [
        ("dealer", "/buy-in", {"player_id": "ana", "amount": 5_000}),
        ("cage", "/round/start", None),
        ("auditor", "/round/void", {"reason": "card exposed"}),
        ("dealer", "/rules", {"rules": {"version": 2}, "reason": "new sign"}),
    ]:
        assert api.post(role, path, body).status_code == 403
    assert len(api.service.store.read_all()) == before


#: Each command of the core and the endpoint(s) that give it.
COMMAND_ENDPOINTS = {
    "OpenTable": {"open_table"},
    "ChangeRules": {"change_rules"},
    "SeatPlayer": {"seat_player"},
    "LeaveSeat": {"leave_seat"},
    "BuyIn": {"buy_in"},
    "CashOut": {"cash_out"},
    "StartRound": {"start_round"},
    "AcceptBank": {"accept_bank"},
    "DeclineBank": {"decline_bank"},
    "PlaceBet": {"place_bet"},
    "PlaceSideBet": {"place_side_bet"},
    "CloseBets": {"close_bets"},
    "DealCards": {"deal_electronic", "report_deal"},
    "RollDice": {"roll_dice_electronic", "report_dice"},
    "SetHand": {"set_hand"},
    "SetBankerHand": {"set_banker_hand"},
    "Settle": {"settle"},
    "CloseRound": {"close_round"},
    "VoidRound": {"void_round"},
    "OpenGamingDay": {"open_gaming_day"},
    "CloseGamingDay": {"close_gaming_day"},
    "FillTray": {"fill_tray"},
    "CreditTray": {"credit_tray"},
    "CountDrop": {"count_drop"},
    "CorrectRating": {"correct_rating"},
    "ReceiveDeck": {"receive_deck"},
    "InspectDeck": {"inspect_deck"},
    "LoadShuffler": {"load_shuffler"},
    "PutDeckInUse": {"put_deck_in_use"},
    "RetireDeck": {"retire_deck"},
    "HoldDeck": {"hold_deck"},
    "ReleaseDeck": {"release_deck"},
    "InstallHouseWay": {"install_house_way"},
}


def test_every_command_of_the_core_has_an_endpoint(api: Api) -> None:
    from table_core import commands as c

    kinds = [v for v in vars(c).values() if isinstance(v, type) and issubclass(v, c.Command)]
    # A class another command extends holds shared fields (c.Command, c.PlayerAmount, ...).
    core = {
        kind.__name__
        for kind in kinds
        if not any(other is not kind and issubclass(other, kind) for other in kinds)
    }
    assert core == set(COMMAND_ENDPOINTS), "a new command needs an endpoint (entrypoints/http)"
    served = {
        operation
        for operation, method, path in operations(api)
        if method == "POST" and (path.startswith("/tables/") or path == "/house-ways")
    }
    assert set().union(*COMMAND_ENDPOINTS.values()) == served
