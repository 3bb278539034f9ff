"""The floor pages in a real browser (issue 21): Debian's headless Chromium driven by Selenium
through Debian's chromedriver (nothing downloads a browser), against ``paigow serve`` on a free
loopback port with a SQLite file.

A pit boss signs in with the floor key, opens the pit (each table's tray, the pit's totals, an
"as of" time), watches the live table while a round is played through the HTTP API (dice, the
seven stacks, the results), sees the table's status, win and hold % on the pit as ``GET /tables``
and ``GET /reports`` give them, reads every seat's seven cards in the recall, finds one point per
hour played in the day's books (its label clear of the point, as the browser draws them), the day
field in ISO form and the day's player ratings there, follows one to its player page, and runs a
verification on the audit page. With the next round open, a verification started there holds
(no false alarm on the pit), and the pit, scrolled down, follows that round to its close by
itself without a reload and without losing its scroll position. No page shows an API path. A
dealer key on the pit page is refused; an unknown table is the floor's 404 page; a forged form
without its CSRF token is 403 and changes nothing; a session that is not the server's goes back to
sign-in. Each page's screenshot at 1366x768 goes to ``test-artifacts/screenshots/``
(CI keeps it) and must not be one colour.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from adapters.settings import load_settings
from entrypoints.http.floor.pages import money
from tests.e2e.conftest import PAIGOW
from tests.e2e.floor.png import colours
from tests.e2e.serving import serving

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
SHOTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "screenshots"
DB = "sqlite:///floor.db"
TABLE = "PG-7"

webdriver = pytest.importorskip("selenium.webdriver")
if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
    if os.environ.get("CI") == "true":
        raise RuntimeError("CI needs Debian's chromium and chromium-driver (.ci/run installs them)")
    pytest.skip("Debian's chromium and chromium-driver are not installed", allow_module_level=True)

from selenium.common.exceptions import (  # noqa: E402
    NoSuchElementException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def _start_a_verification(browser: Any, wait: Any) -> None:
    """Click "Start a verification" and wait for the page it answers: the page before it may
    already say the log holds (an earlier verification), so its verdict proves nothing."""
    button = browser.find_element(By.ID, "verify")
    button.click()
    wait.until(expected_conditions.staleness_of(button))


def _key(cwd: Path, role: str, actor: str, security: str | None = None) -> str:
    """A key's token, made by ``paigow keys create`` as the ``security`` key (none: the store's
    first key, the bootstrap)."""
    env = {**os.environ, "PAIGOW_API_KEY": security} if security else None
    made = subprocess.run(
        [str(PAIGOW), "keys", "create", "--role", role, "--actor", actor, "--db", DB],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    token: str = json.loads(made.stdout)["token"]
    return token


#: The live table's dice, stacks (their cards) and result rows (their cells' text), read at once.
LIVE_SNAPSHOT = """
const all = (root, css) => Array.from(root.querySelectorAll(css));
const results = {};
for (const row of all(document, "#results tbody tr[data-seat]")) {
  results[row.dataset.seat] = all(row, "td").map((cell) => cell.innerText.trim());
}
return {
  faces: all(document, "#dice .die").map((die) => die.innerText.trim()),
  stacks: all(document, "#stacks .stack").map(
    (stack) => all(stack, ".card").map((card) => card.dataset.card)
  ),
  results: results,
};
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    made = subprocess.run(  # a new SQLite file, with its signing key beside
        [str(PAIGOW), "db", "upgrade", "--db", DB],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    security = _key(tmp_path, "security", "sec-1")
    tokens = {"floor": _key(tmp_path, "floor", "pit-boss", security)}
    for role, actor in (("dealer", f"dan@{TABLE}"), ("cage", "cage-1"), ("auditor", "aud-1")):
        tokens[role] = _key(tmp_path, role, actor, security)
    tokens["other_dealer"] = _key(tmp_path, "dealer", "eve@PG-9", security)
    with serving(DB, tmp_path, {**os.environ, "PAIGOW_LOG_FORMAT": "json"}) as served:
        yield served.base, tokens


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--window-size=1366,768", f"--user-data-dir={tmp_path / 'chromium'}",
    ):  # fmt: skip
        options.add_argument(flag)
    service = webdriver.ChromeService(executable_path=DRIVER)
    driver = webdriver.Chrome(service=service, options=options)
    # The page's viewport itself at 1366x768 (the window's size would include its frame).
    viewport = {"width": 1366, "height": 768, "deviceScaleFactor": 1, "mobile": False}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", viewport)
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(tmp_path / "chromium", ignore_errors=True)


def shot(driver: Any, name: str) -> None:
    path = SHOTS / f"{name}.png"
    assert driver.save_screenshot(str(path))
    assert len(colours(path)) > 4, f"{path} is blank"


def sign_in(driver: Any, base: str, token: str) -> None:
    driver.get(f"{base}/floor/pit")
    assert driver.current_url.endswith("/floor/signin")  # no session yet
    driver.find_element(By.ID, "key").send_keys(token)
    driver.find_element(By.ID, "signin").click()


class Api:
    def __init__(self, base: str, tokens: dict[str, str]) -> None:
        self.base, self.tokens, self.n = base, tokens, 0

    def post(self, role: str, path: str, body: dict[str, Any] | None = None) -> Any:
        self.n += 1
        headers = {"Authorization": f"Bearer {self.tokens[role]}", "Idempotency-Key": f"f{self.n}"}
        answer = httpx.post(f"{self.base}/tables/{TABLE}{path}", json=body, headers=headers)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def get(self, path: str) -> Any:
        headers = {"Authorization": f"Bearer {self.tokens['floor']}"}
        return httpx.get(f"{self.base}{path}", headers=headers).json()

    def play_round(self) -> None:
        self.open_round()
        self.finish_round()

    def open_round(self) -> None:
        """A round started, its bets placed, dealt and its dice rolled: open, its events after
        the last checkpoint until its close."""
        for step, body in (
            ("/round/start", None),
            ("/round/bet", {"player_id": "ana", "amount": 2_000}),
            ("/round/bet", {"player_id": "bo", "amount": 1_000}),
            ("/round/close-bets", None),
            ("/round/deal", None),
            ("/round/dice", None),
        ):
            self.post("dealer", step, body)

    def finish_round(self) -> None:
        for step, body in (
            ("/round/hand", {"player_id": "ana"}),
            ("/round/hand", {"player_id": "bo"}),
            ("/round/banker-hand", None),
            ("/round/settle", None),
            ("/round/close", None),
        ):
            self.post("dealer", step, body)


#: Each chart's drawn boxes (the browser's own layout): its points' and its texts'.
CHART_BOXES = """
const box = (e) => { const r = e.getBoundingClientRect();
  return [r.left, r.top, r.right, r.bottom, e.textContent.trim()]; };
return Array.from(document.querySelectorAll("svg.chart")).map((svg) => ({
  id: svg.closest("figure").id,
  points: Array.from(svg.querySelectorAll("circle.point")).map(box),
  texts: Array.from(svg.querySelectorAll("text")).filter((t) => t.textContent.trim()).map(box),
}));
"""


def overlap(a: list[Any], b: list[Any]) -> bool:
    return not (a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1])


def plain_page(driver: Any) -> None:
    """No API address, developer note or non-ISO date on the page as the browser shows it."""
    text = driver.execute_script("return document.body.innerText")
    assert not re.search(r"\b(GET|POST) /|/(tables|reports|players)/|\?day=", text), text
    assert not re.search(r"\d{1,2}/\d{1,2}/\d{2,4}", text), text


def test_the_floor_in_a_browser(server: tuple[str, dict[str, str]], browser: Any) -> None:
    base, tokens = server
    api = Api(base, tokens)
    day = load_settings().gaming_day().today(datetime.now(UTC)).isoformat()  # the server's
    api.post(  # the table opened with its books: its gaming day and the opener
        "floor",
        "/gaming-day/open",
        {
            "gaming_day": day,
            "opener": [{"denomination": 2500, "amount": 500_000}],
            "signatures": [{"token": tokens["dealer"]}],  # the dealer counts it with the floor
            "rules": {"limits": {"min_bet": 500, "max_bet": 50_000}},
        },
    )
    api.post("dealer", "/seat", {"seat": 1, "player_id": "ana", "card": "CLUB-1"})
    api.post("dealer", "/seat", {"seat": 4, "player_id": "bo", "card": "CLUB-4"})
    api.post("cage", "/buy-in", {"player_id": "ana", "amount": 20_000})
    api.post("cage", "/buy-in", {"player_id": "bo", "amount": 10_000})
    # Up to 30 s on a loaded CI machine; an element of the page being left is looked up again.
    # A page that replaces its verdict while it is read answers "stale" or, from Chromium's
    # inspector, "node ... does not belong to the document": both mean "read it again".
    wait = WebDriverWait(
        browser,
        30,
        ignored_exceptions=(
            StaleElementReferenceException,
            NoSuchElementException,
            WebDriverException,
        ),
    )

    # Sign in, the pit: the table, open, its House Way (a built-in, no file installed), two
    # players seated.
    browser.get(f"{base}/floor/signin")
    shot(browser, "01-signin")
    sign_in(browser, base, tokens["floor"])
    wait.until(lambda d: d.current_url.endswith("/floor/pit"))
    row = browser.find_element(By.CSS_SELECTOR, f'#pit tr[data-table="{TABLE}"]')
    cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
    assert cells[:6] == [TABLE, "open", "fr", "built-in", "commission", "2"]
    shown = {c.get_attribute("data-k"): c.text for c in row.find_elements(By.TAG_NAME, "td")}
    # The books' day; the tray: the opener less the chips sold; the drop: the cash bought in.
    assert (shown["gaming_day"], shown["tray"], shown["drop"]) == (day, "4,700.00", "300.00")
    totals = browser.find_element(By.ID, "pit-totals")
    summed = {c.get_attribute("data-k"): c.text for c in totals.find_elements(By.TAG_NAME, "td")}
    assert (summed["tables"], summed["seated"], summed["tray"]) == ("1 table", "2", "4,700.00")
    as_of = browser.find_element(By.ID, "as-of").text
    assert datetime.strptime(as_of, "%Y-%m-%d %H:%M:%S")  # ISO, to the second
    assert tokens["floor"] not in browser.page_source  # the key is in no page
    plain_page(browser)
    shot(browser, "02-pit")

    # The live table follows a round played through the HTTP API.
    browser.get(f"{base}/floor/tables/{TABLE}")
    assert browser.find_element(By.ID, "phase").text == "no round"
    api.play_round()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#results tbody tr[data-seat]"))
    recall = api.get(f"/tables/{TABLE}/rounds/1")
    # One snapshot of the page: it re-renders as the table moves on (the round's close follows
    # its results), so elements found one call apart may be gone by the next.
    live = browser.execute_script(LIVE_SNAPSHOT)
    assert live["faces"] == [str(f) for f in recall["dice"]["faces"]]
    assert len(live["stacks"]) == 7
    assert live["stacks"] == [s["cards"] for s in recall["stacks"]]  # the joker too, as "JK"
    for result in recall["settlement"]["results"]:
        assert live["results"][str(result["seat"])][5] == result["result"]
    shot(browser, "03-live-table")

    # Game recall: every seat's seven cards, as the API recalls them.
    browser.get(f"{base}/floor/tables/{TABLE}/rounds/1")
    rows = browser.find_elements(By.CSS_SELECTOR, "#round-1 tr.seat-cards")
    assert len(rows) == 7
    for row, stack in zip(rows, recall["stacks"], strict=True):
        cards = [c.get_attribute("data-card") for c in row.find_elements(By.CSS_SELECTOR, ".card")]
        assert len(cards) == 7 and cards == stack["cards"]
    unused = browser.find_elements(By.CSS_SELECTOR, "#round-1 .unused .card")
    assert [c.get_attribute("data-card") for c in unused] == recall["deal"]["unused"]
    shot(browser, "04-recall")

    # The pit after the round: the table's status, win and hold % as GET /tables and the day's
    # books (GET /reports) give them.
    browser.get(f"{base}/floor/pit")
    (listed,) = api.get("/tables")
    (books,) = api.get(f"/reports?day={day}&view=accounting")["accounting"]
    row = browser.find_element(By.CSS_SELECTOR, f'#pit tr[data-table="{TABLE}"]')
    shown = {c.get_attribute("data-k"): c.text for c in row.find_elements(By.TAG_NAME, "td")}
    assert (listed["status"], listed["gaming_day"], books["inventory_win"]) == ("open", day, None)
    assert (shown["status"], shown["gaming_day"], shown["phase"]) == ("open", day, "closed")
    assert shown["drop"] == money(books["drop"]) == "300.00"
    assert (shown["win"], shown["hold_pct"]) == (money(books["game_win"]), books["hold_pct"])
    shot(browser, "02b-pit-after-a-round")

    # The day's books: one point per hour played on the hourly chart.
    browser.get(f"{base}/floor/books")
    hours = {datetime.fromisoformat(recall["ended_at"]).strftime("%H")}  # PAIGOW_TZ: UTC
    points = browser.find_elements(By.CSS_SELECTOR, "#chart-hourly-win svg circle.point")
    assert [p.get_attribute("data-label") for p in points] == [f"{h}:00" for h in sorted(hours)]
    assert browser.find_elements(By.CSS_SELECTOR, "#chart-drop-handle svg rect.bar")
    # Each chart as drawn: the lone point's figure shown, and no text on a point or another text.
    for chart in browser.execute_script(CHART_BOXES):
        for i, text in enumerate(chart["texts"]):
            assert not any(overlap(text, point) for point in chart["points"]), (chart["id"], text)
            assert not any(overlap(text, other) for other in chart["texts"][i + 1 :]), text
        if len(chart["points"]) == 1:
            (point,) = chart["points"]
            labels = [t for t in chart["texts"] if point[0] <= (t[0] + t[2]) / 2 <= point[2]]
            assert any(t[3] <= point[1] for t in labels), (chart["id"], labels)  # above it
    field = browser.find_element(By.ID, "day")  # the day as typed and shown: ISO, any locale
    assert (field.get_attribute("type"), field.get_attribute("value")) == ("text", day)
    plain_page(browser)
    shot(browser, "05-books")

    # The day's player ratings, as GET /players/{id}/ratings?day= gives them; a click to a player.
    panel = browser.find_element(By.ID, "ratings-panel")
    browser.execute_script("arguments[0].scrollIntoView()", panel)
    rated = [r.get_attribute("data-player") for r in panel.find_elements(By.CSS_SELECTOR, "tr")[1:]]
    assert rated == ["ana", "bo"]
    (ana,) = api.get(f"/players/ana/ratings?day={day}")["ratings"]
    row = panel.find_element(By.CSS_SELECTOR, 'tr[data-player="ana"]')
    shown = {c.get_attribute("data-k"): c.text for c in row.find_elements(By.TAG_NAME, "td")}
    assert (shown["card"], shown["rounds"], shown["average_bet"]) == ("CLUB-1", "1", "20.00")
    assert (shown["actual_win"], shown["theo_win"]) == (
        money(ana["actual_win"]),
        money(ana["theo_win"]),
    )
    shot(browser, "05b-books-ratings")
    row.find_element(By.LINK_TEXT, "ana").click()
    wait.until(lambda d: d.current_url.endswith("/floor/players/ana"))
    assert browser.find_element(By.ID, "player").text == "ana"
    rows = browser.find_elements(By.CSS_SELECTOR, '#ratings tr[data-player="ana"]')
    assert [r.get_attribute("data-table") for r in rows] == [TABLE]
    shot(browser, "05c-player")

    # The audit: start a verification; the log holds.
    browser.get(f"{base}/floor/audit")
    _start_a_verification(browser, wait)
    wait.until(lambda d: d.find_element(By.ID, "verdict").text == "The log holds")
    assert browser.find_element(By.ID, "cp-position").text.isdigit()
    plain_page(browser)
    shot(browser, "06-audit")

    # Mid-round: the next round open (its events after the last checkpoint), a verification
    # started from the audit page holds, as GET /audit/verify says, and the pit raises no alarm.
    api.open_round()
    browser.get(f"{base}/floor/audit")
    _start_a_verification(browser, wait)
    wait.until(lambda d: d.find_element(By.ID, "verdict").text == "The log holds")
    assert "chain.unsealed" not in browser.page_source
    assert f"{TABLE} round 2" in browser.find_element(By.ID, "last-verification").text
    assert api.get("/audit/verify")["ok"] is True
    shot(browser, "06b-audit-mid-round")

    # The pit follows the round by itself: scrolled down in a short window, it refreshes within
    # 10 s, without a reload (a mark left on the page stays) and at the same scroll position.
    short = {"width": 1366, "height": 260, "deviceScaleFactor": 1, "mobile": False}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", short)
    browser.get(f"{base}/floor/pit")
    row = browser.find_element(By.CSS_SELECTOR, f'#pit tr[data-table="{TABLE}"]')
    assert row.find_element(By.CSS_SELECTOR, '[data-k="status"]').text == "in round"
    assert row.find_element(By.CSS_SELECTOR, '[data-k="alerts"]').text == ""  # no false alarm
    before = browser.find_element(By.ID, "as-of").text
    browser.execute_script("window.scrollTo(0, document.body.scrollHeight); window.kept = 1;")
    scrolled = browser.execute_script("return window.scrollY")
    assert scrolled > 0
    api.finish_round()
    wait.until(
        lambda d: (
            d.find_element(By.CSS_SELECTOR, f'#pit tr[data-table="{TABLE}"] [data-k="status"]').text
            == "open"
        )
    )
    assert browser.execute_script("return window.kept") == 1  # no reload
    assert browser.execute_script("return window.scrollY") == scrolled
    assert browser.find_element(By.ID, "as-of").text > before
    row = browser.find_element(By.CSS_SELECTOR, f'#pit tr[data-table="{TABLE}"]')
    assert row.find_element(By.CSS_SELECTOR, '[data-k="phase"]').text == "closed"
    assert row.find_element(By.CSS_SELECTOR, '[data-k="alerts"]').text == ""
    full = {"width": 1366, "height": 768, "deviceScaleFactor": 1, "mobile": False}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", full)
    shot(browser, "02c-pit-refreshed")

    # Bad input: an unknown table is the floor's 404 page.
    browser.get(f"{base}/floor/tables/NO-SUCH")
    assert browser.find_element(By.ID, "status").text == "404"
    shot(browser, "07-not-found")

    # A forged form (the session cookie, no CSRF token): 403, and still signed in.
    cookie = browser.get_cookie("paigow_floor")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    jar = {"paigow_floor": cookie["value"]}
    forged = httpx.post(f"{base}/floor/signout", cookies=jar, follow_redirects=False)
    assert forged.status_code == 403
    assert httpx.get(f"{base}/floor/pit", cookies=jar).status_code == 200  # nothing changed

    # A session that is not the server's (expired, forged): back to sign-in.
    browser.delete_all_cookies()
    browser.get(f"{base}/floor/signin")
    browser.add_cookie(
        {"name": "paigow_floor", "value": "eyJyIjoiZmxvb3IifQ.forged", "path": "/floor"}
    )
    browser.get(f"{base}/floor/pit")
    assert browser.current_url.endswith("/floor/signin")

    # A dealer key: the pit page is refused; its own table's live view is not.
    sign_in(browser, base, tokens["dealer"])
    wait.until(lambda d: d.current_url.endswith(f"/floor/tables/{TABLE}"))
    browser.get(f"{base}/floor/pit")
    assert browser.find_element(By.ID, "status").text == "403"
    assert "the dealer role may not see this page" in browser.find_element(By.ID, "message").text
    shot(browser, "08-dealer-refused")
    browser.get(f"{base}/floor/tables/{TABLE}")
    assert browser.find_elements(By.CSS_SELECTOR, "#stacks .stack")

    # Another table's dealer does not see this table.
    browser.delete_all_cookies()
    sign_in(browser, base, tokens["other_dealer"])
    wait.until(lambda d: d.current_url.endswith("/floor/tables/PG-9"))  # not opened: 404
    browser.get(f"{base}/floor/tables/{TABLE}")
    assert browser.find_element(By.ID, "status").text == "403"

    # The cage has no floor page.
    browser.delete_all_cookies()
    sign_in(browser, base, tokens["cage"])
    error = wait.until(lambda d: d.find_elements(By.ID, "signin-error"))
    assert "the cage role has no floor pages" in error[0].text
