"""HTTP API latency and throughput: place-bet and set-hand under concurrent clients on loopback.

A real server (``paigow serve``, its own process, uvicorn) over SQLite and over PostgreSQL; one
client thread per table (8 tables of 6 players by default), each playing whole rounds through the
API: start, six bets, close, electronic deal and dice, six set-hands (the House Way on request),
banker hand, settle, close. Every request is timed; the figures are for ``place_bet`` and
``set_hand``, and requests/s counts every command.

Three runs per engine:
  service the same commands through the application service in the benchmark's process, one
          table, no HTTP: the store's and the core's share of the latency;
  paced   the clients together send ``--rate`` requests/s (each client waits for its next slot),
          the issue's goal: p99 under 20 ms at 200 requests/s on PostgreSQL. ``--arrivals``
          says how the slots fall: ``poisson`` (the default: each terminal on its own, its
          requests at random times, seeded: a Poisson process of the terminal's share of the
          rate, drawn as that many uniform times over the run, so the rate is exact),
          ``staggered`` (even gaps, the terminals' phases spread over one interval) or
          ``lockstep`` (every terminal on the same tick: a burst of ``--tables`` requests at
          once, a stress case; earlier runs started so, drifting apart as answers came late);
  max     closed loop, each client sends its next request as soon as the last one answers.

``--workers N`` runs ``paigow serve --workers N`` (default 1: one process): each client's
keep-alive connection stays on the worker that accepted it, so the tables are split between the
workers as the kernel hands the connections out. The server CPU figure is then the parent's plus
every worker's (the parent's children, read from /proc).

Usage (repo root): ``.venv/bin/python benchmarks/bench_http.py [--rate 200] [--seconds 15]
[--tables 8] [--engines sqlite,postgresql] [--arrivals poisson|staggered|lockstep]
[--runs paced,max] [--workers 1]``. Prints a table, then ONE JSON line. Every command request
takes the server's one path, the command door (entrypoints/http/command_door.py).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.logging import configure_logging  # noqa: E402
from adapters.store import open_store  # noqa: E402
from adapters.store.signing import Signer  # noqa: E402
from benchmarks.common import (  # noqa: E402
    drop_schema,
    free_port,
    fresh_schema,
    percentile,
    play_all,
    wait_started,
)
from service_layer.operators.keys import SqlKeyStore  # noqa: E402

PAIGOW = Path(sys.executable).with_name("paigow")
PLAYERS = 6
MEASURED = ("place_bet", "set_hand")


def database(engine: str, folder: Path) -> tuple[str, str | None]:
    """A fresh migrated database and, for PostgreSQL, the schema to drop afterwards."""
    if engine == "sqlite":
        return f"sqlite:///{folder / 'bench.db'}", None
    schema = f"bench_http_{os.getpid()}"
    return fresh_schema(schema), schema


def keyed_database(
    engine: str, folder: Path, roles: tuple[str, ...]
) -> tuple[str, str | None, Path, dict[str, str]]:
    """``database``'s, its signing key's file in ``folder`` and an API key's token per role."""
    url, schema = database(engine, folder)
    key_file = folder / "signing.pem"
    key_file.write_bytes(Signer.generate().private_pem())
    key_file.chmod(0o600)  # a key its group or others can read is refused
    store = open_store(url, signing_key=key_file)
    keys = SqlKeyStore(store)
    now = datetime.now(UTC)
    tokens = {role: keys.create(f"{role}-bench", role, now)[1] for role in roles}
    store.close()
    return url, schema, key_file, tokens


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (field 3 of proc(5) is index 0)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


class Server:
    """``paigow serve`` in its own process, as a casino runs it (``workers`` > 1: a supervisor
    and that many worker processes)."""

    def __init__(self, url: str, folder: Path, key_file: Path, workers: int = 1) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        env = {**os.environ, "PAIGOW_SIGNING_KEY": str(key_file), "PAIGOW_LOG_FORMAT": "json"}
        log_path = folder / "serve.log"
        self.log = log_path.open("w")
        command = [str(PAIGOW), "serve", "--db", url, "--port", str(self.port), "--no-verify"]
        self.process = subprocess.Popen(
            [*command, "--workers", str(workers)],
            cwd=folder,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
            env=env,
        )
        # Every worker up, not only the first: a late one would take no connection.
        wait_started(
            self.process,
            lambda: (
                httpx.get(f"{self.base}/health", timeout=1).status_code == 200
                and log_path.read_text().count('"http_started"') >= workers
            ),
            log_path,
        )

    def _children(self) -> list[int]:
        parent = str(self.process.pid)
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if _stat(int(entry.name))[1] == parent:
                        found.append(int(entry.name))
                except OSError:  # ended meanwhile
                    pass
        return found

    def cpu_seconds(self) -> float:
        """The server's CPU time so far (user + system), from /proc: the process itself, the
        children it has waited for (a worker that ended) and its live children (the workers)."""
        fields = _stat(self.process.pid)
        ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))
        for child in self._children():
            try:
                child_fields = _stat(child)
            except OSError:
                continue
            ticks += int(child_fields[11]) + int(child_fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


class Client:
    """One terminal at one table: plays rounds, timing every request."""

    def __init__(
        self,
        base: str,
        table: str,
        tokens: dict[str, str],
        interval: float,
        *,
        phase: float = 0.0,
        times: list[float] | None = None,
    ) -> None:
        # The standard library's keep-alive connection: a terminal on another machine costs the
        # server nothing, so the load generator should cost this shared machine little (httpx
        # took about 2.4 ms of CPU a request here, as much as the server).
        host, port = base.removeprefix("http://").split(":")
        self.http = http.client.HTTPConnection(host, int(port), timeout=30)
        self.table = table
        self.tokens = tokens
        self.interval = interval  # seconds between this client's requests (0: closed loop)
        self.samples: dict[str, list[float]] = defaultdict(list)
        self.requests = 0
        self.errors = 0
        self._n = 0
        # The send times (absolute): even gaps of ``interval`` from ``phase`` on, or, for
        # Poisson arrivals, the offsets in ``times`` (popped, earliest last) and even gaps past
        # them (the round under way when the run ends). A slow answer delays this terminal's
        # next request, never the rate asked for: a late client catches up.
        self._start = time.perf_counter()
        self._last = self._start + phase - interval
        self._times = sorted(times, reverse=True) if times else []

    def _slot(self) -> float:
        if self._times:
            self._last = self._start + self._times.pop()
        else:
            self._last += self.interval
        return self._last

    def _pace(self) -> None:
        """Wait for this terminal's next send time (at once in a closed loop); count the send."""
        if self.interval:
            wait = self._slot() - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
        self._n += 1

    def send(self, role: str, operation: str, path: str, body: Any = None) -> None:
        self._pace()
        headers = {
            "Authorization": f"Bearer {self.tokens[role]}",
            "Idempotency-Key": f"{self.table}-{self._n}-{time.time_ns()}",
        }
        started = time.perf_counter()
        payload = b"" if body is None else json.dumps(body).encode()
        if body is not None:
            headers["Content-Type"] = "application/json"
        self.http.request("POST", f"/tables/{self.table}{path}", body=payload, headers=headers)
        response = self.http.getresponse()
        text = response.read()
        elapsed = time.perf_counter() - started
        self.requests += 1
        if response.status != 200:
            self.errors += 1
            raise RuntimeError(f"{operation}: {response.status} {text.decode(errors='replace')}")
        self.samples[operation].append(elapsed)

    def setup(self) -> None:
        self.send("floor", "open_table", "/open", {})
        for seat in range(1, PLAYERS + 1):
            player = f"{self.table}-p{seat}"
            self.send("dealer", "seat_player", "/seat", {"seat": seat, "player_id": player})
            self.send("cage", "buy_in", "/buy-in", {"player_id": player, "amount": 10**9})

    def play(self, until: float) -> None:
        players = [f"{self.table}-p{seat}" for seat in range(1, PLAYERS + 1)]
        while time.perf_counter() < until:
            self.send("dealer", "start_round", "/round/start")
            for player in players:
                self.send(
                    "dealer", "place_bet", "/round/bet", {"player_id": player, "amount": 2_500}
                )
            self.send("dealer", "close_bets", "/round/close-bets")
            self.send("dealer", "deal", "/round/deal")
            self.send("dealer", "dice", "/round/dice")
            for player in players:
                self.send("dealer", "set_hand", "/round/hand", {"player_id": player})
            self.send("dealer", "banker_hand", "/round/banker-hand")
            self.send("dealer", "settle", "/round/settle")
            self.send("dealer", "close_round", "/round/close")


def poisson_times(rng: random.Random, rate: float, seconds: float) -> list[float]:
    """A Poisson process of ``rate`` over ``seconds`` given its count: that many uniform times."""
    return [rng.uniform(0, seconds) for _ in range(round(rate * seconds))]


def run(
    base: str,
    tokens: dict[str, str],
    tables: list[str],
    rate: float,
    seconds: float,
    arrivals: str = "poisson",
) -> dict[str, Any]:
    interval = len(tables) / rate if rate else 0.0
    clients = [
        Client(
            base,
            table,
            tokens,
            interval,
            phase=interval * i / len(tables) if arrivals == "staggered" else 0.0,
            times=(
                poisson_times(random.Random(i), 1 / interval, seconds)
                if arrivals == "poisson" and interval
                else None
            ),
        )
        for i, table in enumerate(tables)
    ]
    elapsed = play_all(clients, seconds, "a request failed")
    result: dict[str, Any] = {
        "requests": sum(c.requests for c in clients),
        "requests_per_s": round(sum(c.requests for c in clients) / elapsed, 1),
    }
    for operation in MEASURED:
        samples = [s for c in clients for s in c.samples[operation]]
        result[operation] = {
            "count": len(samples),
            "per_s": round(len(samples) / elapsed, 1),
            "p50_ms": round(percentile(samples, 0.50) * 1000, 2),
            "p99_ms": round(percentile(samples, 0.99) * 1000, 2),
        }
    return result


def service_baseline(url: str, key_file: Path, seconds: float) -> dict[str, Any]:
    """The same commands through the application service in this process, one table, no HTTP:
    what the store and the core cost, to tell the API's share from theirs."""
    from adapters.rng import SecureDeckAndDice
    from service_layer.service import TableService
    from table_core import commands as c
    from table_core.events import Actor

    store = open_store(url, signing_key=key_file)
    service = TableService(store, source=SecureDeckAndDice())
    dealer, floor, cage = (Actor(id=f"{r}-base", role=r) for r in ("dealer", "floor", "cage"))
    n = iter(range(10**9))
    samples: dict[str, list[float]] = defaultdict(list)

    def run(command: Any, operation: str = "") -> None:
        started = time.perf_counter()
        service.execute("B0", command, f"base-{next(n)}")
        if operation:
            samples[operation].append(time.perf_counter() - started)

    now = service.now
    run(c.OpenTable(table_id="B0", actor=floor, at=now()))
    players = [f"B0-p{seat}" for seat in range(1, PLAYERS + 1)]
    for seat, player in enumerate(players, start=1):
        run(c.SeatPlayer(seat=seat, player_id=player, actor=dealer, at=now()))
        run(c.BuyIn(player_id=player, amount=10**9, actor=cage, at=now()))
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        run(c.StartRound(actor=dealer, at=now()))
        for player in players:
            run(c.PlaceBet(player_id=player, amount=2_500, actor=dealer, at=now()), "place_bet")
        run(c.CloseBets(actor=dealer, at=now()))
        service.deal_electronic("B0", dealer, f"base-{next(n)}")
        service.roll_dice_electronic("B0", dealer, f"base-{next(n)}")
        for player in players:
            run(c.SetHand(player_id=player, actor=dealer, at=now()), "set_hand")
        run(c.SetBankerHand(actor=dealer, at=now()))
        run(c.Settle(actor=dealer, at=now()))
        run(c.CloseRound(actor=dealer, at=now()))
    store.close()
    return {
        operation: {
            "count": len(samples[operation]),
            "p50_ms": round(percentile(samples[operation], 0.50) * 1000, 2),
            "p99_ms": round(percentile(samples[operation], 0.99) * 1000, 2),
        }
        for operation in MEASURED
    }


def bench(engine: str, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        url, schema, key_file, tokens = keyed_database(engine, folder, ("dealer", "floor", "cage"))
        baseline = service_baseline(url, key_file, args.seconds / 3)
        server = Server(url, folder, key_file, args.workers)
        try:
            out: dict[str, Any] = {"service": baseline}
            for mode, rate, tables in (
                ("paced", args.rate, [f"P{i}" for i in range(args.tables)]),
                ("max", 0.0, [f"M{i}" for i in range(args.tables)]),
            ):
                if mode not in args.runs.split(","):
                    continue
                for table in tables:
                    Client(server.base, table, tokens, 0.0).setup()
                cpu, client_cpu = server.cpu_seconds(), time.process_time()
                out[mode] = run(server.base, tokens, tables, rate, args.seconds, args.arrivals)
                if rate:
                    out[mode]["arrivals"] = args.arrivals
                # CPU per request: the server's (API + service + store client) and the clients'
                # (http.client, in this process): with 2 cores, their sum bounds the request rate.
                requests = out[mode]["requests"]
                out[mode]["server_cpu_ms_per_request"] = round(
                    (server.cpu_seconds() - cpu) / requests * 1000, 2
                )
                out[mode]["client_cpu_ms_per_request"] = round(
                    (time.process_time() - client_cpu) / requests * 1000, 2
                )
            return out
        finally:
            server.stop()
            if schema is not None:
                drop_schema(schema)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=200.0, help="paced run: requests/s in all")
    parser.add_argument("--seconds", type=float, default=15.0, help="length of each run")
    parser.add_argument("--tables", type=int, default=8, help="tables = concurrent clients")
    parser.add_argument("--engines", default="sqlite,postgresql")
    parser.add_argument("--runs", default="paced,max", help="which HTTP runs: paced, max or both")
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes (paigow serve --workers N); the server CPU sums them",
    )
    parser.add_argument(
        "--arrivals",
        choices=("poisson", "staggered", "lockstep"),
        default="poisson",
        help="paced run: how the terminals' requests fall in time",
    )
    args = parser.parse_args()
    if args.workers < 1:
        parser.error("--workers must be 1 or more")
    configure_logging(level="warning")  # the baseline's service would log every command
    figures: dict[str, Any] = {}
    print(
        f"{'engine':<11} {'workers':>7} {'run':<7} {'req/s':>7}  {'operation':<10} "
        f"{'p50 ms':>7} {'p99 ms':>7}"
    )
    for engine in args.engines.split(","):
        figures[engine] = bench(engine, args)
        for mode, result in figures[engine].items():
            for operation in MEASURED:
                o = result[operation]
                rate = result.get("requests_per_s")
                shown = "-" if rate is None else f"{rate:.1f}"
                # The in-process service baseline runs no server: no workers.
                workers = "-" if mode == "service" else str(args.workers)
                print(
                    f"{engine:<11} {workers:>7} {mode:<7} {shown:>7}  {operation:<10} "
                    f"{o['p50_ms']:>7.2f} {o['p99_ms']:>7.2f}"
                )
            if "server_cpu_ms_per_request" in result:
                print(
                    f"{engine:<11} {args.workers:>7} {mode:<7} CPU a request: server "
                    f"{result['server_cpu_ms_per_request']:.2f} ms, clients "
                    f"{result['client_cpu_ms_per_request']:.2f} ms"
                )
    print(json.dumps({"workers": args.workers, **figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
