"""``paigow serve --workers 2`` end to end (issue 10), over a real PostgreSQL schema and SQLite:
a full electronic round from several clients, each request on a new connection (so both worker
processes serve the table, each catching up with what the other wrote), settled correctly and
shown alike by every read; SIGTERM to the parent stops every worker, each recording
``service_stopped``. ``--workers 0`` and ``--workers`` over ``memory://`` are clear errors."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from adapters.settings import load_settings
from adapters.store import migrate, open_store
from adapters.store.signing import Signer
from service_layer.operators.keys import key_store_for
from tests.e2e.conftest import PAIGOW, Run
from tests.integration.conftest import pg_database, pg_head_template, pg_url  # noqa: F401 (fixtures)

TABLE = "PG-9"
PLAYERS = (("ana", 20_000), ("bo", 10_000), ("cy", 15_000))
WORKERS = 2


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@dataclass
class Served:
    url: str
    base: str
    tokens: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes]

    def lines(self) -> list[dict[str, Any]]:
        text = self.log.read_text().splitlines()
        return [json.loads(line) for line in text if line.startswith("{")]


@pytest.fixture(params=["sqlite", "postgresql"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    env = {**os.environ, "PAIGOW_LOG_FORMAT": "json"}
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'casino.db'}"  # a new file, its signing key beside it
    else:
        url = request.getfixturevalue("pg_url")
        migrate.upgrade(url, load_settings().pg_roles())
        key_file = tmp_path / "signing.pem"
        key_file.write_bytes(Signer.generate().private_pem())
        key_file.chmod(0o600)  # a key its group or others can read is refused (issue 17)
        env["PAIGOW_SIGNING_KEY"] = str(key_file)
    store = open_store(url, signing_key=env.get("PAIGOW_SIGNING_KEY"))
    try:
        keys = key_store_for(store)
        now = datetime.now(UTC)
        tokens = {
            role: keys.create(f"{role}-e2e", role, now)[1]
            for role in ("dealer", "floor", "cage", "auditor")
        }
    finally:
        store.close()
    port = free_port()
    log = tmp_path / "serve.log"
    command = [str(PAIGOW), "serve", "--db", url, "--port", str(port), "--workers", str(WORKERS)]
    with log.open("w") as err:
        process = subprocess.Popen(
            command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=err, env=env
        )
    base = f"http://127.0.0.1:{port}"
    server = Served(url, base, tokens, log, process)
    try:
        deadline = time.monotonic() + 60
        while len([e for e in server.lines() if e["event"] == "http_started"]) < WORKERS:
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the workers did not start: " + log.read_text()
            time.sleep(0.1)
        yield server
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)


def test_two_workers_play_a_round_from_many_connections_then_stop_on_sigterm(
    served: Served,
) -> None:
    base, tokens = served.base, served.tokens
    keys = iter(range(1, 1000))

    def post(role: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        # httpx.post opens a new connection each time: any worker may take it.
        headers = {"Authorization": f"Bearer {tokens[role]}", "Idempotency-Key": f"w-{next(keys)}"}
        response = httpx.post(f"{base}/tables/{TABLE}{path}", json=body, headers=headers)
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        return answer

    def get(path: str) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {tokens['auditor']}"}
        response = httpx.get(f"{base}{path}", headers=headers)
        assert response.status_code == 200, response.text
        shown: dict[str, Any] = response.json()
        return shown

    post("floor", "/open", {"rules": {"limits": {"min_bet": 500, "max_bet": 50_000}}})
    for seat, (player, chips) in enumerate(PLAYERS, 1):
        post("dealer", "/seat", {"seat": seat, "player_id": player})
        post("cage", "/buy-in", {"player_id": player, "amount": chips})
    post("dealer", "/round/start")
    # Three terminals betting at once, each request on its own connection.
    bets = [
        threading.Thread(
            target=post, args=("dealer", "/round/bet", {"player_id": p, "amount": 1_000 * n})
        )
        for n, (p, _) in enumerate(PLAYERS, 1)
    ]
    for t in bets:
        t.start()
    for t in bets:
        t.join()
    post("dealer", "/round/close-bets")
    dealt = post("dealer", "/round/deal")
    assert len(dealt["events"][0]["payload"]["deck"]) == 53
    post("dealer", "/round/dice")
    for player, _ in PLAYERS:
        post("dealer", "/round/hand", {"player_id": player})  # the House Way
    post("dealer", "/round/banker-hand")
    settled = post("dealer", "/round/settle")
    results = next(e for e in settled["events"] if e["type"] == "round_settled")["payload"]
    closed = post("dealer", "/round/close")

    nets = {r["player_id"]: r["net"] for r in results["results"]}
    assert set(nets) == {p for p, _ in PLAYERS}
    for _ in range(2 * WORKERS):  # every read, whichever worker takes it, shows the table now
        state = get(f"/tables/{TABLE}")
        assert state["version"] == closed["version"]
        assert state["balances"] == {p: chips + nets[p] for p, chips in PLAYERS}
        total = sum(state["balances"].values()) + state["house_result"] + state["commission"]
        assert total == state["bought_in"] == sum(chips for _, chips in PLAYERS)
        assert state["round"]["phase"] == "closed" and state["last_round"] == 1
    events = get(f"/tables/{TABLE}/events")
    assert [e["version"] for e in events] == list(range(1, closed["version"] + 1))
    assert [e["type"] for e in events].count("bet_placed") == len(PLAYERS)

    for _ in range(2 * WORKERS):  # /metrics sums every worker's counts, whichever answers
        scraped = {
            (sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(httpx.get(f"{base}/metrics").text)
            for sample in family.samples
        }
        bet = (("method", "POST"), ("route", "/tables/{table_id}/round/bet"), ("status", "200"))
        assert scraped[("paigow_http_requests_total", bet)] == len(PLAYERS)
        assert scraped[("paigow_rounds_settled_total", ())] == 1

    lines = served.lines()
    done = [line for line in lines if line["event"] == "command_done"]
    assert len({line["pid"] for line in done}) == WORKERS, "one worker served every command"
    workers = children(served.process.pid)
    started = {line["pid"] for line in lines if line["event"] == "http_started"}
    assert started <= set(workers) and len(started) == WORKERS

    served.process.send_signal(signal.SIGTERM)
    assert served.process.wait(timeout=60) == 0
    assert not [pid for pid in started if alive(pid)]  # the parent waited for its workers
    deadline = time.monotonic() + 10  # multiprocessing's resource tracker follows the parent
    while [pid for pid in workers if alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if alive(pid)]
    stopped = {line["pid"] for line in served.lines() if line["event"] == "http_stopped"}
    assert stopped == started
    store = open_store(served.url, signing_key=os.environ.get("PAIGOW_SIGNING_KEY"))
    try:
        kinds = [e.type for e in store.read_stream("system")]
    finally:
        store.close()
    keys = ["api_key_created"] * 4  # made before the server started
    assert kinds[:4] == keys
    assert sorted(kinds[4:]) == sorted(
        ["service_started", "store_opened", "service_stopped"] * WORKERS
    )
    assert kinds[-WORKERS:] == ["service_stopped"] * WORKERS


def test_workers_must_be_a_whole_number_from_one_and_share_a_database(paigow: Run) -> None:
    for bad in ("0", "-2", "two"):
        refused = paigow("serve", "--workers", bad, "--db", "sqlite:///never.db")
        assert (refused.returncode, refused.stderr) == (
            2,
            f"paigow serve: --workers: must be a whole number of processes from 1, not {bad!r}; "
            "see --help\n",
        )
    alone = paigow("serve", "--workers", "2", "--db", "memory://")
    assert alone.returncode == 2 and "memory:// lives in one process" in alone.stderr
    assert "Traceback" not in alone.stderr
