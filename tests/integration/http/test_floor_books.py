"""The floor's pit from ``GET /tables`` and the day's player ratings (issue 21 after issue 18,
docs/floor.md): every figure a page shows is the one the API's JSON gives for the same table or
player, on SQLite and PostgreSQL; a player page per rated player, 404 for an unknown one, and the
API's rights (floor and auditor; no dealer)."""

from __future__ import annotations

import re
from typing import Any

from adapters.projections.books import percent
from entrypoints.http.floor.pages import money
from tests.integration.http.conftest import Api
from tests.integration.http.test_floor_pages import play, sign_in

DAY = "2026-11-29"
OPENER = [{"denomination": 2500, "amount": 500_000}, {"denomination": 500, "amount": 100_000}]
SMALL = [{"denomination": 2500, "amount": 50_000}]  # below the table's maximum bet (100,000)


def seed(api: Api) -> None:
    """PG-1: books opened, two carded players (ana for cash, bo with a marker), two rounds, bo
    leaves. PG-2: a tray of 500.00 (under the maximum bet), closed 25.00 short."""
    books = {"gaming_day": DAY, "dealer": "dealer-1"}
    api.ok("floor", "/gaming-day/open", {**books, "opener": OPENER})
    api.ok("dealer", "/seat", {"seat": 1, "player_id": "ana", "card": "CLUB-1"})
    api.ok("dealer", "/seat", {"seat": 4, "player_id": "bo", "card": "CLUB-4"})
    api.ok("cage", "/buy-in", {"player_id": "ana", "amount": 50_000})
    api.ok(
        "cage", "/buy-in", {"player_id": "bo", "amount": 30_000, "medium": "marker", "marker": "M1"}
    )
    play(api, 2)
    api.ok("dealer", "/leave", {"player_id": "bo"})
    api.ok("floor", "/gaming-day/open", {**books, "opener": SMALL}, table="PG-2")
    short = [{"denomination": 2500, "amount": 47_500}]
    api.ok("floor", "/gaming-day/close", {"closer": short, "dealer": "dealer-1"}, table="PG-2")


def cells(html: str, tag: str, key: str) -> dict[str, str]:
    """The ``data-k`` cells of the row ``<tr data-{tag}="{key}">``, by key, as text."""
    row = re.search(rf'<tr data-{tag}="{re.escape(key)}"[^>]*>(.*?)</tr>', html, re.S)
    assert row is not None, key
    found = re.findall(r'<td[^>]*data-k="([a-z_]+)"[^>]*>(.*?)</td>', row.group(1), re.S)
    return {k: re.sub(r"<[^>]+>", "", v).strip() for k, v in found}


def test_the_pit_shows_each_table_as_get_tables_and_the_days_books_give_it(sql_api: Api) -> None:
    api = sql_api
    seed(api)
    listed = {t["table_id"]: t for t in api.get("floor", "/tables").json()}
    books = api.get("floor", f"/reports?day={DAY}&view=accounting").json()["accounting"]
    figures = {row["table_id"]: row for row in books}
    sign_in(api, api.tokens["floor"])
    pit = api.client.get("/floor/pit").text

    one = cells(pit, "table", "PG-1")
    trays = {t: api.get("floor", f"/tables/{t}").json()["tray"] for t in ("PG-1", "PG-2")}
    assert (listed["PG-1"]["status"], listed["PG-1"]["gaming_day"]) == ("open", DAY)
    row = figures["PG-1"]
    # Open books: the drop is what the table recorded (the cash and the marker), the win the game's
    assert (row["drop"], row["inventory_win"]) == (80_000, None)
    assert one == {
        "status": "open",
        "house_way": listed["PG-1"]["house_way"],
        "house_way_file": "built-in",
        "variant": "commission",
        "seated": "1",
        "round": "2",
        "phase": "closed",
        "gaming_day": DAY,
        "tray": money(trays["PG-1"]),
        "drop": "800.00",
        "win": money(row["game_win"]),
        "hold_pct": row["hold_pct"],
        "alerts": "",
    }
    two = cells(pit, "table", "PG-2")
    row = figures["PG-2"]
    assert (listed["PG-2"]["status"], row["closer_variance"], row["inventory_win"]) == (
        "closed",
        -2_500,
        -2_500,
    )
    assert (two["status"], two["win"], two["drop"], two["hold_pct"]) == ("closed", "-25.00",
                                                                         "0.00", "—")  # fmt: skip
    assert two["tray"] == money(trays["PG-2"]) == "475.00"
    # The pit's totals: the rows added up, hold % of the sums as the report writes a percentage.
    totals = cells(pit, "totals", "pit")
    wins = figures["PG-1"]["game_win"] + figures["PG-2"]["inventory_win"]
    assert totals == {
        "tables": "2 tables",
        "seated": "1",
        "tray": money(trays["PG-1"] + trays["PG-2"]),
        "drop": "800.00",
        "win": money(wins),
        "hold_pct": percent(wins, 80_000),
    }
    assert re.search(
        r'as of <time id="as-of" datetime="[\dT:-]+">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d<', pit
    )
    assert re.findall(
        r'class="alert-tag">([^<]+)<', pit.split('data-table="PG-2"')[1].split("</tr>")[0]
    ) == [
        "tray needs a fill",
        "variance in the books",
        f"drop box not counted: {DAY}",
    ]


def test_a_round_in_play_and_a_refusing_service_are_the_pits_status(api: Api) -> None:
    seed(api)
    sign_in(api, api.tokens["floor"])
    api.ok("dealer", "/round/start")
    one = cells(api.client.get("/floor/pit").text, "table", "PG-1")
    assert (one["status"], one["round"], one["phase"]) == ("in round", "3", "open for bets")
    api.service.refusing = "the store failed its verification"
    pit = api.client.get("/floor/pit").text
    assert [cells(pit, "table", t)["status"] for t in ("PG-1", "PG-2")] == ["refusing"] * 2
    assert "Commands refused: the store failed its verification" in pit


def test_the_books_list_the_days_ratings_as_the_api_gives_them(sql_api: Api) -> None:
    api = sql_api
    seed(api)
    api.ok("floor", "/open", {}, table="PG-3")  # no books: the rating's day is its start's
    api.ok("dealer", "/seat", {"seat": 2, "player_id": "cy", "card": "CLUB-9"}, table="PG-3")
    sign_in(api, api.tokens["auditor"])
    page = api.client.get(f"/floor/books?day={DAY}").text
    panel = page.split('id="ratings-panel"')[1].split("</section>")[0]
    assert re.findall(r'<tr data-player="([^"]+)"', panel) == ["ana", "bo", "cy"]
    for player in ("ana", "bo", "cy"):
        (rating,) = api.get("auditor", f"/players/{player}/ratings?day={DAY}").json()["ratings"]
        assert cells(panel, "player", player) == shown(rating)
        assert f'href="/floor/players/{player}"' in panel
    bo = api.get("auditor", f"/players/bo/ratings?day={DAY}").json()["ratings"][0]
    assert (bo["status"], bo["rounds"], bo["average_bet"], bo["markers"]) == (
        "closed",
        2,
        1_000,
        30_000,
    )
    assert api.client.get("/floor/books?day=2026-11-30").text.count("No rating recorded") == 1
    other = api.client.get(f"/floor/books?day={DAY}&table=PG-2").text
    assert "No rating recorded for this gaming day" in other


def shown(rating: dict[str, Any]) -> dict[str, str]:
    """A rating's row as the pages print it: money formatted, nothing else worked out."""

    def at(text: str | None) -> str:
        return "—" if text is None else text[:19].replace("T", " ")

    return {
        "player_id": rating["player_id"],
        "card": rating["card"],
        "table_id": rating["table_id"],
        "seat": str(rating["seat"]),
        "status": rating["status"],
        "started_at": at(rating["started_at"]),
        "ended_at": at(rating["ended_at"]),
        "minutes": "—" if rating["minutes"] is None else str(rating["minutes"]),
        "rounds": str(rating["rounds"]),
        "average_bet": money(rating["average_bet"]),
        "average_side_bet": money(rating["average_side_bet"]),
        "actual_win": money(rating["actual_win"]),
        "theo_win": money(rating["theo_win"]),
        "correction": "—",
    }


def test_a_players_page_shows_the_apis_ratings_and_keeps_its_rights(api: Api) -> None:
    seed(api)
    api.ok("floor", "/ratings/correct", {"player_id": "ana", "reason": "sat out", "minutes": 40})
    sign_in(api, api.tokens["floor"])
    page = api.client.get("/floor/players/ana")
    assert page.status_code == 200
    (rating,) = api.get("floor", "/players/ana/ratings").json()["ratings"]
    row = cells(page.text, "player", "ana")
    assert row == {**shown(rating), "gaming_day": DAY, "correction": "40 minutes (sat out)"}
    money_row = cells(page.text.split('id="rating-money"')[1], "table", "PG-1")
    assert (money_row["cash"], money_row["markers"], money_row["cashed_out"]) == (
        money(rating["cash"]),
        money(rating["markers"]),
        money(rating["cashed_out"]),
    )
    assert money_row["main_wagered"] == money(rating["main_wagered"]) == "40.00"
    for path in ("/floor/players/nobody", "/floor/players/-x"):
        missing = api.client.get(path)
        assert missing.status_code == 404 and '<h1 id="status">404</h1>' in missing.text, path
    sign_in(api, api.tokens["auditor"])
    assert api.client.get("/floor/players/bo").status_code == 200
    sign_in(api, api.keys.create("dan@PG-1", "dealer", api.service.now())[1])
    refused = api.client.get("/floor/players/ana")
    assert refused.status_code == 403 and "the dealer role may not see this page" in refused.text
    assert api.get("dealer", "/players/ana/ratings").status_code == 403  # as the API


def test_the_books_show_statistical_against_theoretical_hold_as_the_rollup_gives_it(
    sql_api: Api,
) -> None:
    api = sql_api
    seed(api)
    sign_in(api, api.tokens["floor"])
    page = api.client.get(f"/floor/books?day={DAY}").text
    panel = page.split('id="holds"')[1].split("</table>")[0]
    rollup = api.get("floor", f"/reports?day={DAY}&view=rollup").json()["rollup"]
    lines = {(r["level"], r["name"]) for r in rollup}
    assert re.findall(r'<tr data-level="([a-z]+)" data-name="([^"]+)"', panel) == sorted(
        lines, key=lambda line: ({"table": 0, "pit": 1, "casino": 2}[line[0]], line[1])
    )
    for row in rollup:
        shown = cells(panel.replace(f'data-level="{row["level"]}" ', ""), "name", row["name"])
        period = row["period"]
        assert shown[f"{period}_statistical"] == (row["statistical_hold_pct"] or "—")
        assert shown[f"{period}_theoretical"] == (row["theoretical_hold_pct"] or "—")
        assert shown[f"{period}_theo_win"] == money(row["theo_win"])
    casino = next(r for r in rollup if (r["level"], r["period"]) == ("casino", "day"))
    assert casino["handle"] > 0 and casino["theoretical_hold_pct"] is not None


def visible(html: str) -> str:
    """What a page shows: its text, and the titles, placeholders and values of its elements."""
    html = re.sub(r"<(script|style)\b.*?</\1>", "", html, flags=re.S)
    said = re.findall(r'\b(?:title|placeholder|value)="([^"]*)"', html)
    html = re.sub(r'name="csrf" value="[^"]*"', "", html)
    return re.sub(r"<[^>]+>", " ", html) + " " + " ".join(said)


def test_no_page_shows_an_api_path_or_a_developer_note_and_every_date_is_iso(api: Api) -> None:
    seed(api)
    sign_in(api, api.tokens["floor"])
    pages = ["/floor/pit", "/floor/pit/live", "/floor/tables/PG-1", "/floor/tables/PG-1/live",
             "/floor/tables/PG-1/rounds", "/floor/tables/PG-1/rounds/1", f"/floor/books?day={DAY}",
             "/floor/books?table=PG-1", "/floor/players/ana", "/floor/audit",
             "/floor/tables/NOPE"]  # fmt: skip
    audit = api.client.get("/floor/audit").text
    api.client.post(
        "/floor/audit/verify", data={"csrf": re.findall(r'csrf" value="([^"]+)', audit)[0]}
    )
    for path in pages:
        page = api.client.get(path)
        text = visible(page.text)
        assert page.status_code in (200, 404), path
        assert not re.search(r"\b(GET|POST|PUT|DELETE)\s+/", text), path
        assert not re.search(r"/(tables|reports|players|audit|docs)\b|\?day=", text), path
        assert not re.search(r"\bissue \d|\bsession \d|class=\"note\"", page.text), path
        assert not re.search(r"\d{1,2}/\d{1,2}/\d{2,4}", text), path  # no 12/02/2026
        assert not re.search(r"(?<![\d-])\d\d-\d\d(?![\d-])", text), path  # no 11-29 alone
        assert not re.search(r"\d{4}-\d\d-\d\dT\d", text), path  # 2026-11-29 20:00:00, no T
    books = api.client.get(f"/floor/books?day={DAY}").text
    assert f'name="day" value="{DAY}"' in books and 'type="date"' not in books
    assert f'<option value="{DAY}">' in books  # the days with play, offered as typed
