"""The books over HTTP (issue 18, duty R16): a gaming day opened and closed with its opener and
closer, fills and credits with their three signers, the count, a rating correction; every refusal
the issue names is a 422 with nothing written; ``GET /tables`` lists every table."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.http.conftest import Api

DAY = "2026-11-29"
OPENER = [{"denomination": 2500, "amount": 500_000}, {"denomination": 500, "amount": 100_000}]


def slip(number: str, amount: int, *, credit: bool = False) -> dict[str, Any]:
    return {
        "slip": number,
        "chips": [{"denomination": 2500, "amount": amount}],
        "requested_by": "floor-1",
        "issued_by": "dealer-1" if credit else "cage-1",
        "received_by": "cage-1" if credit else "dealer-1",
    }


def open_day(api: Api, **extra: Any) -> Any:
    return api.ok(
        "floor", "/gaming-day/open", {"gaming_day": DAY, "opener": OPENER, "dealer": "dealer-1"}
    )


def test_a_gaming_day_records_its_books_with_their_actors(api: Api) -> None:
    opened = open_day(api)
    assert [e["type"] for e in opened["events"]] == ["table_opened", "gaming_day_opened"]
    day = opened["events"][1]["payload"]
    assert (day["total"], day["dealer"], day["last_closer"]) == (
        600_000,
        {"id": "dealer-1", "role": "dealer"},
        None,
    )
    assert opened["events"][1]["actor"] == {"id": "floor-1", "role": "floor"}
    api.ok("dealer", "/seat", {"seat": 2, "player_id": "ana", "card": "CLUB-77"})
    bought = api.ok(
        "cage",
        "/buy-in",
        {"player_id": "ana", "amount": 50_000, "medium": "marker", "marker": "M-9"},
    )
    assert bought["events"][0]["payload"]["medium"] == "marker"
    filled = api.ok("cage", "/fill", slip("F-1", 100_000))["events"][0]
    assert (filled["type"], filled["payload"]["total"], filled["actor"]["role"]) == (
        "tray_filled",
        100_000,
        "cage",
    )
    assert filled["payload"]["issued_by"] == {"id": "cage-1", "role": "cage"}
    credited = api.ok("dealer", "/credit", slip("C-1", 50_000, credit=True))["events"][0]
    assert credited["payload"]["received_by"] == {"id": "cage-1", "role": "cage"}
    # the tray: 600,000 + 100,000 fill - 50,000 credit - 50,000 sold for the marker = 600,000
    closer = [{"denomination": 2500, "amount": 600_000}]
    closed = api.ok("floor", "/gaming-day/close", {"closer": closer, "dealer": "dealer-1"})
    assert closed["events"][0]["payload"]["expected"] == 600_000
    assert closed["events"][0]["payload"]["variance"] == 0
    counted = api.ok("count", "/count", {"gaming_day": DAY, "cash": 0, "markers": 50_000})
    assert counted["events"][0]["payload"]["total"] == 50_000
    corrected = api.ok(
        "floor", "/ratings/correct", {"player_id": "ana", "reason": "sat out", "minutes": 40}
    )
    assert corrected["events"][0]["type"] == "rating_corrected"
    rated = api.get("cage", "/players/ana/ratings?day=2026-11-29").json()
    (rating,) = rated["ratings"]
    assert {k: rating[k] for k in ("card", "status", "markers", "corrected_minutes")} == {
        "card": "CLUB-77",
        "status": "closed",  # closed with the table's gaming day
        "markers": 50_000,
        "corrected_minutes": 40,
    }
    assert rating["correction_reason"] == "sat out" and rating["minutes"] is not None
    assert api.get("cage", "/players/ana/ratings?day=2026-11-30").json()["ratings"] == []
    assert api.get("dealer", "/players/ana/ratings").status_code == 403


@pytest.mark.parametrize(
    ("path", "role", "body", "status", "says"),
    [
        ("/fill", "cage", slip("F-9", 25_000), 422, "closed"),
        ("/credit", "dealer", slip("C-9", 2_500_000, credit=True), 422, "holds 600000"),
        ("/count", "count", {"gaming_day": DAY, "cash": 0, "markers": 0}, 422, "not closed"),
        (
            "/gaming-day/close",
            "floor",
            {"closer": [{"denomination": 300, "amount": 600}], "dealer": "dealer-1"},
            422,
            "not in the profile",
        ),
        (
            "/fill",
            "cage",
            {**slip("F-8", 0), "chips": [{"denomination": 2500, "amount": -2500}]},
            422,
            "greater",
        ),
        (
            "/fill",
            "cage",
            {**slip("F-8", 0), "chips": [{"denomination": 2500, "amount": 2500.5}]},
            422,
            "integer",
        ),
        (
            "/ratings/correct",
            "floor",
            {"player_id": "ana", "reason": "", "minutes": 3},
            422,
            "reason",
        ),
        ("/count", "cage", {"gaming_day": DAY, "cash": 0, "markers": 0}, 403, "count"),
    ],
)
def test_a_refused_books_command_writes_nothing(
    api: Api, path: str, role: str, body: dict[str, Any], status: int, says: str
) -> None:
    open_day(api)
    if path == "/fill" and says == "closed":
        api.ok("floor", "/gaming-day/close", {"closer": OPENER, "dealer": "dealer-1"})
    before = api.version()
    response = api.post(role, path, body)
    assert response.status_code == status, response.text
    assert says in response.text
    assert api.version() == before


def test_tables_lists_every_table_open_or_closed(api: Api) -> None:
    open_day(api)
    api.ok("floor", "/open", {}, table="PG-2")
    assert api.get("auditor", "/tables").json() == [
        {
            "table_id": "PG-1",
            "gaming_day": DAY,
            "house_way": "fr",
            "status": "open",
            "books": "tracked",
        },
        {
            "table_id": "PG-2",
            "gaming_day": None,
            "house_way": "fr",
            "status": "open",
            "books": "none",
        },
    ]
    api.ok("floor", "/gaming-day/close", {"closer": OPENER, "dealer": "dealer-1"})
    assert api.get("count", "/tables").json()[0]["status"] == "closed"
