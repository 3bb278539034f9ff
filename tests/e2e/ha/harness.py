"""Play through ``paigow serve`` on the Patroni pair while its leader is SIGKILLed (issue 23).

Used by ``test_failover_e2e.py`` and ``benchmarks/bench_failover.py``. A player thread per table
plays whole rounds over HTTP at a steady pace (``rate`` commands a second in all), each command
with its own ``Idempotency-Key``, resent with that same key after a 503 (``Retry-After``) or a
lost connection, as a dealer terminal does; every attempt is recorded with its times and status.
The main thread kills the leader's postmaster, waits for Patroni to promote the standby and for
the old primary to re-join as the synchronous standby, and again.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from adapters.settings import load_settings

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "deploy" / "ha"))

from cluster import PG_BIN, HaCluster, free_port, missing_tools  # noqa: E402, F401 (the tests)

from adapters.store import migrate, open_store  # noqa: E402
from adapters.store.signing import Signer  # noqa: E402
from service_layer.operators.keys import key_store_for  # noqa: E402

PAIGOW = Path(sys.executable).with_name("paigow")
PLAYERS = ("ana", "bo")


@dataclass
class Attempt:
    key: str
    table: str
    sent: float  # time.monotonic()
    answered: float
    status: int  # 0: no answer (the connection was lost)
    events: int = 0


@dataclass
class Served:
    """``paigow serve`` over the pair's read-write URL, and the keys its clients use."""

    url: str
    base: str
    tokens: dict[str, str]
    process: subprocess.Popen[bytes]
    log: Path
    key_file: Path

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                return self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.wait()


def serve(cluster: HaCluster, folder: Path, database: str = "paigow") -> Served:
    cluster.create_database(database)
    url = cluster.url(database)
    migrate.upgrade(url, load_settings().pg_roles())
    key_file = folder / "signing.pem"
    key_file.write_bytes(Signer.generate().private_pem())
    key_file.chmod(0o600)  # a key its group or others can read is refused
    store = open_store(url, signing_key=key_file)
    try:
        keys = key_store_for(store)
        now = datetime.now(UTC)
        roles = ("dealer", "floor", "cage")
        tokens = {role: keys.create(f"{role}-ha", role, now)[1] for role in roles}
    finally:
        store.close()
    env = {**os.environ, "PAIGOW_LOG_FORMAT": "json", "PAIGOW_SIGNING_KEY": str(key_file)}
    port = free_port()
    log = folder / "serve.log"
    with log.open("w") as err:
        process = subprocess.Popen(
            [str(PAIGOW), "serve", "--db", url, "--port", str(port)],
            cwd=folder,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
        )
    served = Served(url, f"http://127.0.0.1:{port}", tokens, process, log, key_file)
    deadline = time.monotonic() + 60
    while '"http_started"' not in log.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            served.stop()
            raise RuntimeError("paigow serve did not start: " + log.read_text()[-2000:])
        time.sleep(0.1)
    return served


def round_steps() -> list[tuple[str, str, dict[str, Any] | None]]:
    return [
        ("dealer", "/round/start", None),
        *[("dealer", "/round/bet", {"player_id": p, "amount": 1_000}) for p in PLAYERS],
        ("dealer", "/round/close-bets", None),
        ("dealer", "/round/deal", None),
        ("dealer", "/round/dice", None),
        *[("dealer", "/round/hand", {"player_id": p}) for p in PLAYERS],
        ("dealer", "/round/banker-hand", None),
        ("dealer", "/round/settle", None),
        ("dealer", "/round/close", None),
    ]


@dataclass
class Play:
    """Player threads, one per table, sharing the record of every attempt."""

    served: Served
    tables: int = 4
    rate: float = 50.0
    prefix: str = "HA"  # the tables' ids: HA-1, HA-2, ... (a new prefix: new tables)
    attempts: list[Attempt] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    stopping: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> None:
        for n in range(self.tables):
            table = f"{self.prefix}-{n + 1}"
            thread = threading.Thread(target=self._play, args=(table,), daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        self.stopping.set()
        for thread in self._threads:
            thread.join(timeout=60)

    def answered(self) -> list[Attempt]:
        """The attempts that got a 2xx answer: one per command."""
        with self._lock:
            return [a for a in self.attempts if 200 <= a.status < 300]

    def played(self) -> list[Attempt]:
        """The 2xx attempts past each table's opening (open, seats, buy-ins): the rounds."""
        opening = 1 + 2 * len(PLAYERS)
        return [a for a in self.answered() if int(a.key.rsplit("-", 1)[1]) > opening]

    def _play(self, table: str) -> None:
        interval = self.tables / self.rate
        client = httpx.Client(base_url=self.served.base, timeout=30)
        opening = [
            ("floor", "/open", {}),
            *[("dealer", "/seat", {"seat": s, "player_id": p}) for s, p in enumerate(PLAYERS, 1)],
            *[("cage", "/buy-in", {"player_id": p, "amount": 10_000_000}) for p in PLAYERS],
        ]
        count = 0
        next_at = time.monotonic()
        try:
            steps = iter(opening)
            while not self.stopping.is_set():
                step = next(steps, None)
                if step is None:
                    steps = iter(round_steps())
                    continue
                count += 1
                if not self._command(client, table, f"{table}-{count}", *step):
                    return
                next_at += interval
                time.sleep(max(0.0, next_at - time.monotonic()))
        finally:
            client.close()

    def _command(
        self, client: httpx.Client, table: str, key: str, role: str, path: str, body: Any
    ) -> bool:
        """Send the command until it is answered 2xx (False: refused, the table stops)."""
        headers = {"Authorization": f"Bearer {self.served.tokens[role]}", "Idempotency-Key": key}
        while True:
            sent = time.monotonic()
            try:
                response = client.post(f"/tables/{table}{path}", json=body, headers=headers)
            except httpx.TransportError:
                self._record(Attempt(key, table, sent, time.monotonic(), 0))
                time.sleep(0.2)
                continue
            attempt = Attempt(key, table, sent, time.monotonic(), response.status_code)
            if 200 <= response.status_code < 300:
                attempt.events = len(response.json()["events"])
                self._record(attempt)
                return True
            self._record(attempt)
            if response.status_code == 503 and "Retry-After" in response.headers:
                time.sleep(float(response.headers["Retry-After"]))
                continue
            with self._lock:
                self.failures.append(f"{key} {path}: {response.status_code} {response.text}")
            return False

    def _record(self, attempt: Attempt) -> None:
        with self._lock:
            self.attempts.append(attempt)


@dataclass
class ReadyPoll:
    """``GET /ready`` every ``every`` seconds in a thread: (time.monotonic(), status, body)."""

    served: Served
    every: float = 0.2
    answers: list[tuple[float, int, dict[str, Any]]] = field(default_factory=list)
    stopping: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _poll(self) -> None:
        with httpx.Client(base_url=self.served.base, timeout=10) as client:
            while not self.stopping.wait(self.every):
                try:
                    response = client.get("/ready")
                except httpx.TransportError:
                    continue
                self.answers.append((time.monotonic(), response.status_code, response.json()))


def wait_replayed(cluster: HaCluster, database: str, timeout: float = 60.0) -> None:
    """Wait until the standby has replayed everything the primary has written (a synchronous
    standby has FLUSHED every acknowledged commit; its replay may trail by a moment)."""
    written = cluster.psql("SELECT pg_current_wal_lsn()", database).strip()
    query = f"SELECT pg_last_wal_replay_lsn() >= '{written}'::pg_lsn"
    standby = cluster.libpq(database, "prefer-standby")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = subprocess.run(
            [str(PG_BIN / "psql"), standby, "-XAtqc", query], capture_output=True, text=True
        )
        if found.stdout.strip() == "t":
            return
        time.sleep(0.2)
    raise RuntimeError(f"the standby did not replay {written} within {timeout:.0f} s")


@dataclass
class Kill:
    member: str
    at: float
    healthy_at: float = 0.0  # the old primary back as the synchronous standby


def kill_and_heal(cluster: HaCluster, heal_timeout: float = 120.0) -> Kill:
    cluster.wait_healthy(heal_timeout)
    member, at = cluster.kill_leader()
    kill = Kill(member, at)
    cluster.wait_promoted(member, heal_timeout)
    cluster.wait_healthy(heal_timeout)
    kill.healthy_at = time.monotonic()
    return kill


def failover_time(kill: Kill, attempts: list[Attempt]) -> float:
    """From the kill to the first 2xx answer of a command sent after it."""
    after = [a.answered for a in attempts if a.sent >= kill.at and 200 <= a.status < 300]
    return min(after) - kill.at if after else float("inf")


def outside(kills: list[Kill], attempts: list[Attempt]) -> list[Attempt]:
    """The 2xx attempts that overlap no failover window (a kill to the pair healthy again)."""
    return [
        a
        for a in attempts
        if 200 <= a.status < 300
        and not any(a.answered >= k.at and a.sent <= k.healthy_at for k in kills)
    ]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def serve_log(served: Served) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in served.log.read_text().splitlines() if line.startswith("{")
    ]
