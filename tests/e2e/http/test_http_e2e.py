"""End to end over real HTTP (issue 10): ``paigow keys create`` and ``paigow serve`` as installed,
a uvicorn server on a free loopback port, one full round from opening the table to settlement,
then the round's recall and an audit verify through the API; a 403 is logged as JSON with the
actor; the OpenAPI document is served; stopping the server records ``service_stopped``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from adapters.store import open_store
from tests.e2e.conftest import PAIGOW, Run
from tests.e2e.serving import serving

DB = "sqlite:///casino.db"
TABLE = "PG-7"


@dataclass
class Server:
    base: str
    tokens: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # uvicorn shuts down gracefully
            self.process.wait(timeout=30)


@pytest.fixture
def server(tmp_path: Path, paigow: Run) -> Iterator[Server]:
    made = paigow("db", "upgrade", "--db", DB)  # a new SQLite file, with its signing key beside
    assert made.returncode == 0, made.stderr
    # The store's first key, a security key (the bootstrap), makes the others (R19).
    first = paigow("keys", "create", "--role", "security", "--actor", "sec-e2e", "--db", DB)
    assert first.returncode == 0, first.stderr
    security = json.loads(first.stdout)["token"]
    tokens = {}
    creating = {  # the other keys at once: each is a process start
        role: subprocess.Popen(
            [str(PAIGOW), "keys", "create", "--role", role, "--actor", f"{role}-e2e", "--db", DB],
            cwd=tmp_path,
            env={**os.environ, "PAIGOW_API_KEY": security},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for role in ("floor", "dealer", "cage", "auditor", "count")
    }
    for role, process in creating.items():
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        created = json.loads(out)
        assert created["role"] == role and created["token"].startswith("pgw_")
        tokens[role] = created["token"]
    env = {**os.environ, "PAIGOW_LOG_FORMAT": "json"}
    with serving(DB, tmp_path, env) as served:
        yield Server(served.base, tokens, served.log, served.process)


def test_a_full_round_over_http_then_recall_and_audit(server: Server) -> None:
    base, tokens, log = server.base, server.tokens, server.log
    n = iter(range(1, 100))

    def post(role: str, path: str, body: dict | None = None) -> dict:
        headers = {"Authorization": f"Bearer {tokens[role]}", "Idempotency-Key": f"e2e-{next(n)}"}
        response = httpx.post(f"{base}/tables/{TABLE}{path}", json=body, headers=headers)
        assert response.status_code == 200, response.text
        return response.json()

    def get(role: str, path: str) -> httpx.Response:
        return httpx.get(f"{base}{path}", headers={"Authorization": f"Bearer {tokens[role]}"})

    post("floor", "/open", {"rules": {"limits": {"min_bet": 500, "max_bet": 50_000}}})
    post("dealer", "/seat", {"seat": 1, "player_id": "ana"})
    post("dealer", "/seat", {"seat": 4, "player_id": "bo"})
    post("cage", "/buy-in", {"player_id": "ana", "amount": 20_000})
    post("cage", "/buy-in", {"player_id": "bo", "amount": 10_000})
    post("dealer", "/round/start")
    post("dealer", "/round/bet", {"player_id": "ana", "amount": 2_000})
    post("dealer", "/round/bet", {"player_id": "bo", "amount": 1_000})
    post("dealer", "/round/close-bets")
    dealt = post("dealer", "/round/deal")
    deck = dealt["events"][0]["payload"]["deck"]
    assert len(deck) == 53 and len(set(deck)) == 53  # the secure source's deck (R-DEAL-4)
    post("dealer", "/round/dice")
    post("dealer", "/round/hand", {"player_id": "ana"})  # ana asks for the House Way
    post("dealer", "/round/hand", {"player_id": "bo"})
    post("dealer", "/round/banker-hand")
    settled = post("dealer", "/round/settle")
    results = next(e for e in settled["events"] if e["type"] == "round_settled")["payload"]
    post("dealer", "/round/close")

    state = get("cage", f"/tables/{TABLE}").json()
    nets = {r["player_id"]: r["net"] for r in results["results"]}
    assert state["balances"] == {"ana": 20_000 + nets["ana"], "bo": 10_000 + nets["bo"]}
    total = sum(state["balances"].values()) + state["house_result"] + state["commission"]
    assert total == state["bought_in"] == 30_000

    recall = get("auditor", f"/tables/{TABLE}/rounds/1")
    assert recall.status_code == 200
    record = recall.json()
    assert record["status"] == "closed" and record["round"] == 1

    verified = get("auditor", f"/audit/verify?table_id={TABLE}&from_round=1&to_round=1")
    assert verified.status_code == 200, verified.text
    report = verified.json()
    assert report["ok"] is True and report["findings"] == []
    assert report["rounds"] == 1 and report["signatures_checked"] is True
    assert report["summary"].startswith("audit OK")

    denied = httpx.post(
        f"{base}/tables/{TABLE}/round/void",
        json={"reason": "card exposed"},
        headers={"Authorization": f"Bearer {tokens['dealer']}", "Idempotency-Key": "e2e-void"},
    )
    assert denied.status_code == 403
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    refusals = [line for line in lines if line["event"] == "access_denied"]
    assert [(r["actor"], r["role"], r["operation"]) for r in refusals] == [
        ("dealer-e2e", "dealer", "void_round")
    ]

    document = httpx.get(f"{base}/openapi.json").json()
    written = json.loads((Path(__file__).parents[3] / "docs" / "openapi.json").read_text())
    assert document["paths"] == written["paths"]

    server.stop()  # SIGTERM: uvicorn shuts down and the service records it
    store = open_store(f"sqlite:///{server.log.parent / 'casino.db'}")
    try:
        kinds = [e.type for e in store.read_stream("system")]
    finally:
        store.close()
    # R5/R19: the six keys made with `paigow keys create` before the server started
    assert kinds == ["api_key_created"] * 6 + ["service_started", "store_opened", "service_stopped"]


def test_a_gaming_day_over_http_books_ratings_and_tables(server: Server) -> None:
    """Issue 18 (R16): open with an opener, carded players buy in for cash and a marker, a fill,
    a round, a refused credit, the closer, the count; then the report's books, the ratings and
    every table, all over real HTTP."""
    base, tokens = server.base, server.tokens
    n = iter(range(1, 100))

    def send(role: str, path: str, body: dict | None = None) -> httpx.Response:
        headers = {"Authorization": f"Bearer {tokens[role]}", "Idempotency-Key": f"day-{next(n)}"}
        return httpx.post(f"{base}/tables/PG-9{path}", json=body, headers=headers)

    def post(role: str, path: str, body: dict | None = None) -> dict:
        response = send(role, path, body)
        assert response.status_code == 200, response.text
        return response.json()

    def get(role: str, path: str) -> dict:
        response = httpx.get(f"{base}{path}", headers={"Authorization": f"Bearer {tokens[role]}"})
        assert response.status_code == 200, response.text
        return response.json()

    chips = [{"denomination": 2_500, "amount": 50_000}]

    def sign(*roles: str) -> list[dict[str, str]]:  # a slip's other signers, a key each (R19)
        return [{"token": tokens[role]} for role in roles]

    post("floor", "/gaming-day/open", {"gaming_day": "2026-12-01", "opener": chips,
                                       "dealer": "dealer-e2e",
                                       "signatures": sign("dealer")})  # fmt: skip
    post("dealer", "/seat", {"seat": 1, "player_id": "ana", "card": "CLUB-1"})
    post("dealer", "/seat", {"seat": 2, "player_id": "bo"})
    post("cage", "/buy-in", {"player_id": "ana", "amount": 20_000, "medium": "cash"})
    post("cage", "/buy-in", {"player_id": "bo", "amount": 20_000, "medium": "marker",
                             "marker": "M-77"})  # fmt: skip
    slip = {"requested_by": "floor-e2e", "issued_by": "cage-e2e", "received_by": "dealer-e2e"}
    post(
        "cage",
        "/fill",
        {"slip": "F-1", "chips": chips, **slip, "signatures": sign("floor", "dealer")},
    )
    for path, body in [("/round/start", None),
                       ("/round/bet", {"player_id": "ana", "amount": 2_500}),
                       ("/round/bet", {"player_id": "bo", "amount": 1_000}),
                       ("/round/close-bets", None), ("/round/deal", None), ("/round/dice", None),
                       ("/round/hand", {"player_id": "ana"}), ("/round/hand", {"player_id": "bo"}),
                       ("/round/banker-hand", None), ("/round/settle", None),
                       ("/round/close", None)]:  # fmt: skip
        post("dealer", path, body)
    table = get("cage", "/tables/PG-9")
    tray = table["tray"]  # opener - chips sold + fill + the house's result and commission
    assert tray == 50_000 - 40_000 + 50_000 + table["house_result"] + table["commission"]
    refused = send("dealer", "/credit", {"slip": "C-1", "chips": [{"denomination": 2_500,
                   "amount": 1_000_000}], "requested_by": "floor-e2e", "issued_by": "dealer-e2e",
                   "received_by": "cage-e2e", "signatures": sign("floor", "cage")})  # fmt: skip
    assert refused.status_code == 422 and "fill it first" in refused.json()["message"]
    closer = [{"denomination": 100, "amount": tray - tray % 100}]
    post("floor", "/gaming-day/close", {"closer": closer, "signatures": sign("dealer")})
    post("count", "/count", {"gaming_day": "2026-12-01", "cash": 20_000, "markers": 20_000})

    (row,) = get("auditor", "/reports?day=2026-12-01&view=accounting&table_id=PG-9")["accounting"]
    assert (row["books"], row["drop"], row["cash"], row["markers"]) == (
        "counted",
        40_000,
        20_000,
        20_000,
    )
    assert row["inventory_win"] == row["game_win"] + row["closer_variance"]
    assert row["closer_variance"] == -(tray % 100)
    (rating,) = get("floor", "/players/ana/ratings")["ratings"]
    assert (rating["card"], rating["rounds"], rating["average_bet"]) == ("CLUB-1", 1, 2_500)
    assert get("floor", "/players/bo/ratings")["ratings"] == []  # bo has no club card
    tables = {t["table_id"]: t for t in get("count", "/tables")}
    assert tables["PG-9"] == {"table_id": "PG-9", "gaming_day": "2026-12-01", "house_way": "fr",
                              "status": "closed", "books": "tracked"}  # fmt: skip
