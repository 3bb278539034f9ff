"""The floor pages (issue 21, docs/floor.md) over the app: their figures are the projections'
(on SQLite and PostgreSQL), and their security holds (session cookie, CSRF, CSP, roles, 404s)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from entrypoints.http.floor import session as floor_session
from entrypoints.http.floor.pages import money
from tests.integration.http.conftest import START, TABLE, Api, open_table

FLOOR = Path(__file__).resolve().parents[3] / "entrypoints" / "http" / "floor"


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None
    return found.group(1)


def sign_in(api: Api, token: str) -> Any:
    api.client.cookies.clear()
    form = api.client.get("/floor/signin")
    return api.client.post(
        "/floor/signin", data={"key": token, "csrf": csrf_of(form.text)}, follow_redirects=False
    )


def play(api: Api, rounds: int = 1) -> None:
    for _ in range(rounds):
        api.ok("dealer", "/round/start")
        api.ok("dealer", "/round/bet", {"player_id": "ana", "amount": 2_000})
        api.ok("dealer", "/round/bet", {"player_id": "bo", "amount": 1_000})
        for step in ("/round/close-bets", "/round/deal", "/round/dice"):
            api.ok("dealer", step)
        api.ok("dealer", "/round/hand", {"player_id": "ana"})
        api.ok("dealer", "/round/hand", {"player_id": "bo"})
        for step in ("/round/banker-hand", "/round/settle", "/round/close"):
            api.ok("dealer", step)


def test_the_pages_show_the_projections_figures(sql_api: Api) -> None:
    api = sql_api
    open_table(api, (1, "ana", 50_000), (4, "bo", 50_000))
    play(api, 2)
    assert sign_in(api, api.tokens["floor"]).status_code == 303
    report = api.get("floor", "/reports?day=2026-11-29").json()["accounting"][0]

    pit = api.client.get("/floor/pit").text
    row = re.search(rf'<tr data-table="{TABLE}">(.*?)</tr>', pit, re.S)
    assert row is not None
    assert f">{money(report['drop'])}<" in row.group(1)
    assert f">{report['hold_pct']}<" in row.group(1)

    # The commands ran from 20:00:00 UTC on a one-second clock: one hour played, one point.
    books = api.client.get("/floor/books?day=2026-11-29").text
    chart = books.split('id="chart-hourly-win"')[1].split("</figure>")[0]
    assert re.findall(r'class="point"[^>]*data-label="([^"]+)"', chart) == ["20:00"]
    assert f"<title>20:00: {money(report['win'])}</title>" in chart

    recall = api.client.get(f"/floor/tables/{TABLE}/rounds").text
    assert re.findall(r'<article class="round panel" id="round-(\d+)"', recall) == ["1", "2"]
    one = api.get("auditor", f"/tables/{TABLE}/rounds/2").json()
    page = api.client.get(f"/floor/tables/{TABLE}/rounds/2").text
    shown = re.findall(r'<tr class="seat-cards[^"]*".*?</tr>', page, re.S)
    assert len(shown) == 7
    for html, stack in zip(shown, one["stacks"], strict=True):
        assert re.findall(r'data-card="([^"]+)"', html) == stack["cards"]


def test_sign_in_sets_a_strict_httponly_cookie_and_no_page_shows_the_key(api: Api) -> None:
    open_table(api, (1, "ana", 50_000), (4, "bo", 50_000))
    play(api)
    answer = sign_in(api, api.tokens["floor"])
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/floor" in cookie
    assert answer.headers["location"] == "/floor/"
    for path in ("/floor/pit", f"/floor/tables/{TABLE}", f"/floor/tables/{TABLE}/rounds",
                 "/floor/books", "/floor/audit"):  # fmt: skip
        page = api.client.get(path)
        assert page.status_code == 200, path
        assert api.tokens["floor"] not in page.text and "pgw_" not in page.text
        csp = page.headers["content-security-policy"]
        assert "unsafe-inline" not in csp and "script-src 'self'" in csp
        assert "style-src 'self'" in csp
        assert "<style" not in page.text and " style=" not in page.text
        assert not re.search(r"<script(?![^>]*\bsrc=)", page.text)  # no inline script


def test_a_form_without_its_csrf_token_is_403_and_changes_nothing(api: Api) -> None:
    open_table(api, (1, "ana", 50_000))
    sign_in(api, api.tokens["auditor"])
    for data in ({}, {"csrf": "forged"}):
        forged = api.client.post("/floor/audit/verify", data=data)
        assert forged.status_code == 403
        assert "CSRF" in forged.text and "<h1" in forged.text  # the floor's look
    assert getattr(api.client.app.state, "floor_verification", None) is None  # type: ignore[attr-defined]
    audit = api.client.get("/floor/audit").text
    done = api.client.post("/floor/audit/verify", data={"csrf": csrf_of(audit)})
    assert done.status_code == 200 and 'id="verdict">The log holds' in done.text


def test_an_expired_or_forged_session_goes_back_to_sign_in(api: Api) -> None:
    open_table(api, (1, "ana", 50_000))
    sessions = api.client.app.state.floor_sessions  # type: ignore[attr-defined]
    expired = floor_session.Session("n", int(time.time()) - 1, "s")
    unknown = sessions.encode(floor_session.Session("n", int(time.time()) + 60, "no-such-id"))
    forged = unknown[:-2] + "AA"
    for value in (sessions.encode(expired), unknown, forged, "garbage"):
        api.client.cookies.clear()
        api.client.cookies.set(floor_session.COOKIE, value, path="/floor")
        answer = api.client.get("/floor/pit", follow_redirects=False)
        assert (answer.status_code, answer.headers["location"]) == (303, "/floor/signin")


def test_roles_dealer_its_own_table_only_cage_none_and_the_cookie_is_no_api_key(api: Api) -> None:
    open_table(api, (1, "ana", 50_000))
    own = api.keys.create(f"dan@{TABLE}", "dealer", START)[1]
    assert sign_in(api, own).headers["location"] == "/floor/"
    assert api.client.get("/floor/", follow_redirects=False).headers["location"] == (
        f"/floor/tables/{TABLE}"
    )
    assert api.client.get(f"/floor/tables/{TABLE}").status_code == 200
    for path in ("/floor/pit", "/floor/books", "/floor/audit"):
        refused = api.client.get(path)
        assert (
            refused.status_code == 403 and "the dealer role may not see this page" in refused.text
        )
    sign_in(api, api.tokens["dealer"])  # "dealer-1": no table named in its actor id
    assert api.client.get(f"/floor/tables/{TABLE}").status_code == 403
    refused = sign_in(api, api.tokens["cage"])
    assert refused.status_code == 401 and "the cage role has no floor pages" in refused.text
    assert sign_in(api, "pgw_not-a-key").status_code == 401
    sign_in(api, api.tokens["auditor"])
    # The session acts on no table: a command with the cookie alone has no key (401).
    before = api.version()
    assert api.client.post(f"/tables/{TABLE}/round/start", json={}).status_code in (401, 422)
    assert api.version() == before


def test_an_unknown_table_or_round_is_the_floors_404_page(api: Api) -> None:
    open_table(api, (1, "ana", 50_000))
    sign_in(api, api.tokens["floor"])
    for path in ("/floor/tables/NOPE", f"/floor/tables/{TABLE}/rounds/7",
                 f"/floor/tables/{TABLE}/rounds/x", "/floor/tables/NOPE/rounds",
                 "/floor/books?table=NOPE", "/floor/books?day=29-11-2026", "/floor/nope",
                 "/floor/tables/PG-1/nope"):  # fmt: skip
        page = api.client.get(path)
        assert page.status_code == 404, path
        assert '<h1 id="status">404</h1>' in page.text and "/floor/static/floor.css" in page.text
        assert "/docs" not in page.text  # a page for a person, not the API's answer


def test_every_asset_is_served_by_the_server_and_names_no_other_host() -> None:
    assets = [*FLOOR.glob("templates/*.html"), *FLOOR.glob("static/*")]
    assert len(assets) >= 12  # the folder the server serves them from
    for path in [*assets, FLOOR / "charts.py"]:
        text = path.read_text(encoding="utf-8")
        hosts = set(re.findall(r"(?:https?:)?//[A-Za-z0-9.-]+\.[a-z]{2,}", text))
        assert hosts <= {"http://www.w3.org"}, (path, hosts)  # the SVG namespace, not fetched


def floor_verdict(api: Api) -> tuple[str, str]:
    """Start a verification from the audit page: (its verdict, the page's text)."""
    audit = api.client.get("/floor/audit").text
    done = api.client.post("/floor/audit/verify", data={"csrf": csrf_of(audit)})
    assert done.status_code == 200
    found = re.search(r'id="verdict">([^<]+)<', done.text)
    assert found is not None
    return found.group(1), done.text


def pit_alerts(api: Api) -> list[str]:
    pit = api.client.get("/floor/pit").text
    row = pit.split(f'data-table="{TABLE}"')[1].split("</tr>")[0]
    return re.findall(r'class="alert-tag">([^<]+)<', row)


def test_a_verification_started_mid_round_agrees_with_the_api(api: Api) -> None:
    """A live log holds the open round's events after its last checkpoint: the floor's
    verification and ``GET /audit/verify`` both accept them, and the pit raises no alarm. A round
    end left unsealed (its checkpoint removed) is a finding for both, and the pit's alert."""
    open_table(api, (1, "ana", 50_000), (4, "bo", 50_000))
    play(api)
    api.ok("dealer", "/round/start")
    api.ok("dealer", "/round/bet", {"player_id": "ana", "amount": 2_000})
    for step in ("/round/close-bets", "/round/deal", "/round/dice"):
        api.ok("dealer", step)
    sign_in(api, api.tokens["floor"])

    verdict, page = floor_verdict(api)
    answer = api.get("auditor", "/audit/verify").json()
    assert (verdict, answer["ok"]) == ("The log holds", True)
    assert "chain.unsealed" not in page and "unsealed tail allowed" in page
    assert f"{TABLE} round 2" in answer["summary"]
    assert pit_alerts(api) == []

    for step in ("/round/hand", "/round/banker-hand", "/round/settle", "/round/close"):
        api.ok("dealer", step, {"player_id": "ana"} if step == "/round/hand" else None)
    api.service.store.checkpoint_rows.pop()  # the round's end, sealed at its close: unsealed now
    verdict, page = floor_verdict(api)
    answer = api.get("auditor", "/audit/verify").json()
    assert (verdict, answer["ok"]) == ("Findings", False)
    assert "chain.unsealed" in page and "a round ends unsealed" in page
    assert [f["clause"] for f in answer["findings"]] == ["chain.unsealed"]
    assert pit_alerts(api) == ["verification failed"]
