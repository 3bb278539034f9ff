"""Queries over HTTP: table state and events, game recall, reports, audit verify of a range."""

from __future__ import annotations

from typing import Any

from tests.integration.http.conftest import TABLE, Api, deck_in_use, open_table
from tests.integration.http.test_commands import FORTUNE, HANDS

ANA_SPLIT = {"player_id": "ana", "back": ["As", "Ad", "Ac", "Qh", "4d"], "front": ["Kc", "Ks"]}


def play_the_live_round(api: Api) -> None:
    """The round of test_commands: ana wins 2,500 less 125 commission, Fortune pays 2,500."""
    api.ok("floor", "/open", {"rules": FORTUNE})
    api.ok("dealer", "/seat", {"seat": 2, "player_id": "ana"})
    api.ok("cage", "/buy-in", {"player_id": "ana", "amount": 100_000})
    deck_in_use(api)  # R20: a physical deck, in custody
    api.ok("dealer", "/round/start")
    api.ok("dealer", "/round/bet", {"player_id": "ana", "amount": 2_500})
    api.ok("dealer", "/round/side-bet", {"player_id": "ana", "bet": "fortune", "amount": 500})
    api.ok("dealer", "/round/close-bets")
    api.ok("dealer", "/round/deal/report", {"hands": HANDS})
    api.ok("dealer", "/round/dice/report", {"faces": [2, 3, 3]})
    api.ok("dealer", "/round/hand", ANA_SPLIT)
    api.ok("dealer", "/round/banker-hand")
    api.ok("dealer", "/round/settle")
    api.ok("dealer", "/round/close")


def test_round_recall_history_and_reports(api: Api) -> None:
    play_the_live_round(api)
    record = api.get("dealer", f"/tables/{TABLE}/rounds/1").json()
    assert (record["round"], record["status"]) == (1, "closed")
    assert api.get("dealer", f"/tables/{TABLE}/rounds/2").status_code == 404
    assert [r["round"] for r in api.get("floor", f"/tables/{TABLE}/rounds?last=5").json()] == [1]
    assert api.get("floor", f"/tables/{TABLE}/rounds?seat=5").json() == []
    assert len(api.get("floor", f"/tables/{TABLE}/rounds?player_id=ana").json()) == 1
    report = api.get("cage", f"/reports?view=house&view=players&table_id={TABLE}").json()
    assert set(report) >= {"house", "players"} and "accounting" not in report
    house = report["house"][0]
    assert (house["main_result"], house["commission"], house["side_result"]) == (
        -2_500,
        125,
        -2_500,
    )
    ana = report["players"][0]
    assert (ana["player_id"], ana["balance"]) == ("ana", 104_875)


def _verify(api: Api, query: str = "") -> Any:
    return api.get("auditor", f"/audit/verify{query}")


def test_audit_verify_of_a_range(api: Api) -> None:
    play_the_live_round(api)
    report = _verify(api, f"?table_id={TABLE}&from_round=1&to_round=1").json()
    assert (report["ok"], report["findings"], report["rounds"], report["tables"]) == (
        True,
        [],
        1,
        1,
    )
    money = report["money"][0]
    assert (money["bought_in"], money["balances"], money["commission"]) == (100_000, 104_875, 125)
    assert report["signatures_checked"] is True
    backwards = _verify(api, "?from_round=3&to_round=2")
    assert backwards.status_code == 422
    assert backwards.json()["message"] == "from_round 3 is after to_round 2"


def test_audit_verify_finds_a_changed_event(sql_api: Api) -> None:
    """Verification must be able to fail: one stored amount changed behind the store's back."""
    from sqlalchemy import text

    api = sql_api
    open_table(api, (2, "ana", 100_000))
    assert _verify(api).json()["ok"] is True
    engine = api.service.store.engine  # type: ignore[attr-defined]
    with engine.begin() as connection:
        if engine.dialect.name == "sqlite":
            connection.execute(text("DROP TRIGGER IF EXISTS events_no_update"))
        else:
            connection.execute(text("ALTER TABLE events DISABLE TRIGGER USER"))
        connection.execute(
            text("UPDATE events SET payload = replace(payload, '100000', '900000') "
                 "WHERE type = 'chips_bought_in'")
        )  # fmt: skip
    report = _verify(api).json()
    assert report["ok"] is False
    assert report["findings"][0]["kind"] == "integrity"
    assert report["findings"][0]["event_type"] == "chips_bought_in"


def test_the_state_and_events_of_a_table(api: Api) -> None:
    assert api.get("auditor", f"/tables/{TABLE}").status_code == 404
    open_table(api, (2, "ana", 100_000))
    state = api.get("auditor", f"/tables/{TABLE}").json()
    assert state["seats"] == [{"seat": 2, "player_id": "ana", "balance": 100_000}]
    assert (state["phase"], state["version"], state["round"]) == ("no_round", 3, None)
    events = api.get("auditor", f"/tables/{TABLE}/events?after_version=1").json()
    assert [(e["version"], e["type"]) for e in events] == [
        (2, "player_seated"),
        (3, "chips_bought_in"),
    ]
    assert events[1]["payload"]["amount"] == 100_000 and events[1]["actor"]["role"] == "cage"
