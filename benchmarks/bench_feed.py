"""The event feed under load: tables playing while SSE consumers follow (docs/feed.md).

A real server (``paigow serve``, its own process) over SQLite and over PostgreSQL; ``--tables``
terminals (50) play whole rounds through the API at ``--rate`` commands/s in all (200, Poisson
arrivals, as ``bench_http.py`` paces them); ``--consumers`` SSE consumers (20, in a process of
their own) follow ``GET /events`` from the log's head, unfiltered, as an auditor.

Runs come in same-run pairs, one phase WITHOUT consumers and one WITH them, on the same server
and database, the order alternating from pair to pair (so a drift of the shared machine does not
always favour the same side). For each phase: every command's latency (p50, p99), and with
consumers:

- exactly once, in order: each consumer must receive every position after the head it started
  at, up to the head when the phase ended, each once, ascending (the feed is unfiltered, so the
  positions are dense); ``exact`` counts the consumers for which that held;
- the delivery delay after the answer: when a consumer received a command's last event, minus
  when the terminal got the command's answer (the commit comes just before the answer, so this is
  the push's own delay; negative when the push beat the answer); p50, p99 and max over every
  command and every consumer;
- the delivery delay after ``at``: a consumer's arrival time of an event minus the event's
  recorded time (the service's clock when the command ran, before its append: the command's wait
  for the store and its append are in it).

Usage (repo root): ``.venv/bin/python benchmarks/bench_feed.py [--engines sqlite,postgresql]
[--tables 50] [--consumers 20] [--rate 200] [--seconds 20] [--pairs 2] [--pin]``
(``--pin``: the server on one core, the terminals and consumers on the others, as when the
consumers run on other hosts). Prints a table, then ONE JSON line. The consumers' process is
this file run with ``--consume`` (internal).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from statistics import median
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_http import (  # noqa: E402
    Client,
    Server,
    database,
    poisson_times,
)

from adapters.logging import configure_logging  # noqa: E402
from adapters.store import open_store  # noqa: E402
from adapters.store.signing import Signer  # noqa: E402
from benchmarks.common import drop_schema, percentile, play_all  # noqa: E402
from service_layer.operators.keys import SqlKeyStore  # noqa: E402

ROLES = ("dealer", "floor", "cage", "auditor")


# --- the consumers (their own process) ----------------------------------------------------------


def _consumer(
    base: str, token: str, after: int, out: dict[str, Any], stop: threading.Event
) -> None:
    """One SSE consumer from ``after``: every position it receives, checked as it comes, and the
    delay of each event; until ``out["until"]`` is set and reached."""
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
    if after:
        headers["Last-Event-ID"] = str(after)
    connection.request("GET", "/events", headers=headers)
    response = connection.getresponse()
    assert response.status == 200, response.read()
    out.update(first=None, last=after, count=0, wrong=0, delays=[], arrivals={})
    out["ready"] = True
    delays = out["delays"]
    arrivals = out["arrivals"]  # command id -> when its last event so far came
    last = after
    while True:
        line = response.readline()
        if not line:
            break
        if not line.startswith(b"data: "):
            continue
        arrived = time.time()
        event = json.loads(line[6:])
        position = event["position"]
        if position != last + 1:  # a gap, a duplicate or out of order
            out["wrong"] += 1
        last = position
        out["count"] += 1
        out["last"] = position
        if out["first"] is None:
            out["first"] = position
        at = datetime.fromisoformat(event["at"]).timestamp()
        delays.append(arrived - at)
        arrivals[event["command_id"]] = arrived
        until = out.get("until")
        if until is not None and position >= until:
            break
        if stop.is_set():
            break
    connection.close()


def consume(base: str, token: str, after: int, count: int) -> int:
    """``count`` consumers from ``after``; prints ``ready`` once all are connected, reads the head
    to stop at from standard input, then prints their summary as one JSON line."""
    outs: list[dict[str, Any]] = [{} for _ in range(count)]
    stop = threading.Event()
    threads = [
        threading.Thread(target=_consumer, args=(base, token, after, out, stop), daemon=True)
        for out in outs
    ]
    for thread in threads:
        thread.start()
    while not all(out.get("ready") for out in outs):
        time.sleep(0.01)
    print("ready", flush=True)
    until = int(sys.stdin.readline())
    answered: dict[str, float] = json.loads(sys.stdin.readline())
    for out in outs:
        out["until"] = until
    deadline = time.monotonic() + 120
    for thread in threads:
        thread.join(timeout=max(0.1, deadline - time.monotonic()))
    stop.set()
    delays = sorted(d for out in outs for d in out["delays"])
    pushed = sorted(
        arrived - answered[command]
        for out in outs
        for command, arrived in out["arrivals"].items()
        if command in answered
    )
    expected = until - after
    exact = sum(
        1 for out in outs if out["count"] == expected and out["wrong"] == 0 and out["last"] == until
    )
    summary = {
        "consumers": count,
        "exact": exact,
        "events_each": expected,
        "received": [out["count"] for out in outs],
        "wrong": sum(out["wrong"] for out in outs),
        "pushed_after_answer_p50_ms": round(percentile(pushed, 0.50) * 1000, 1),
        "pushed_after_answer_p99_ms": round(percentile(pushed, 0.99) * 1000, 1),
        "pushed_after_answer_max_ms": round((pushed[-1] if pushed else 0.0) * 1000, 1),
        "commands_timed": len(pushed),
        "delivery_p50_ms": round(percentile(delays, 0.50) * 1000, 1),
        "delivery_p99_ms": round(percentile(delays, 0.99) * 1000, 1),
        "delivery_max_ms": round((delays[-1] if delays else 0.0) * 1000, 1),
    }
    print(json.dumps(summary), flush=True)
    return 0


# --- the load and the pairs ----------------------------------------------------------------------


class TimedClient(Client):
    """``bench_http.Client``, each command's answer time (``time.time()``) kept by its id."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.answered: dict[str, float] = {}

    def send(self, role: str, operation: str, path: str, body: Any = None) -> None:
        if self.interval:
            wait = self._slot() - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
        self._n += 1
        command_id = f"{self.table}-{self._n}-{time.time_ns()}"
        headers = {"Authorization": f"Bearer {self.tokens[role]}", "Idempotency-Key": command_id}
        payload = b"" if body is None else json.dumps(body).encode()
        if body is not None:
            headers["Content-Type"] = "application/json"
        started = time.perf_counter()
        self.http.request("POST", f"/tables/{self.table}{path}", body=payload, headers=headers)
        response = self.http.getresponse()
        text = response.read()
        elapsed = time.perf_counter() - started
        self.answered[command_id] = time.time()
        self.requests += 1
        if response.status != 200:
            raise RuntimeError(f"{operation}: {response.status} {text.decode(errors='replace')}")
        self.samples[operation].append(elapsed)


def paced(base: str, tokens: dict[str, str], tables: list[str], rate: float, seconds: float,
          seed: int, answered: dict[str, float] | None = None) -> dict[str, Any]:  # fmt: skip
    """The tables play at ``rate`` commands/s in all for ``seconds``: every command's latency;
    each command's answer time into ``answered``."""
    interval = len(tables) / rate
    clients = [
        TimedClient(base, table, tokens, interval,
                    times=poisson_times(random.Random(seed * 1000 + i), 1 / interval, seconds))
        for i, table in enumerate(tables)
    ]  # fmt: skip
    try:
        elapsed = play_all(clients, seconds, "a command failed")
    finally:
        for c in clients:
            c.http.close()
    if answered is not None:
        for c in clients:
            answered.update(c.answered)
    samples = [s for c in clients for op in c.samples.values() for s in op]
    return {
        "commands": len(samples),
        "commands_per_s": round(len(samples) / elapsed, 1),
        "p50_ms": round(percentile(samples, 0.50) * 1000, 2),
        "p99_ms": round(percentile(samples, 0.99) * 1000, 2),
    }


def head(base: str, token: str) -> int:
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    auth = {"Authorization": f"Bearer {token}"}
    connection.request("GET", "/events?limit=1", headers=auth)  # a page carries the head
    found = int(json.loads(connection.getresponse().read())["head"])
    connection.close()
    return found


def with_consumers(server: Server, tokens: dict[str, str], tables: list[str],
                   args: argparse.Namespace, seed: int) -> dict[str, Any]:  # fmt: skip
    start = head(server.base, tokens["auditor"])
    consumers = subprocess.Popen(
        [sys.executable, __file__, "--consume", server.base, tokens["auditor"], str(start),
         str(args.consumers)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        # Pinned, the consumers share a core with the terminals that time the commands: at the
        # lowest priority they take none of the terminals' turns, as consumers on other hosts.
        preexec_fn=(lambda: os.nice(19)) if args.pin else None,
    )  # fmt: skip
    assert consumers.stdin is not None and consumers.stdout is not None
    assert consumers.stdout.readline().strip() == "ready"
    cpu = server.cpu_seconds()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    answered: dict[str, float] = {}
    result = paced(server.base, tokens, tables, args.rate, args.seconds, seed, answered)
    result["server_cpu_s"] = round(server.cpu_seconds() - cpu, 2)
    end = head(server.base, tokens["auditor"])
    consumers.stdin.write(f"{end}\n{json.dumps(answered)}\n")
    consumers.stdin.flush()
    summary = json.loads(consumers.stdout.readline())
    consumers.wait(timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    result["consumers_cpu_s"] = round(spent, 2)  # the consumers' process (this machine's cores)
    return {**result, **summary}


#: The cores this run may use, read before ``pin`` narrows this process to some of them.
CORES = sorted(os.sched_getaffinity(0))


def pin(server: Server) -> None:
    """The server on the first core, this process (the terminals) and the consumers' process it
    starts on the others, the consumers at the lowest priority: the consumers' and terminals' own
    CPU then never takes the server's, nor the consumers' the terminals', as when they run on
    other hosts. The database's processes are left where the system puts them."""
    cores = CORES
    if len(cores) < 2:
        raise SystemExit("--pin needs two cores or more")
    for pid in [server.process.pid, *server._children()]:
        os.sched_setaffinity(pid, {cores[0]})
    os.sched_setaffinity(0, set(cores[1:]))  # children (the consumers) inherit it


def bench(engine: str, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        url, schema = database(engine, folder)
        key_file = folder / "signing.pem"
        key_file.write_bytes(Signer.generate().private_pem())
        key_file.chmod(0o600)
        store = open_store(url, signing_key=key_file)
        keys = SqlKeyStore(store)
        now = datetime.now(UTC)
        tokens = {role: keys.create(f"{role}-bench", role, now)[1] for role in ROLES}
        store.close()
        server = Server(url, folder, key_file)
        if args.pin:
            pin(server)
        try:
            tables = [f"T{i:02d}" for i in range(args.tables)]
            for table in tables:
                Client(server.base, table, tokens, 0.0).setup()
            pairs = []
            for n in range(args.pairs):
                pair: dict[str, Any] = {}
                order = ("without", "with") if n % 2 == 0 else ("with", "without")
                for side in order:
                    seed = n * 2 + (side == "with")
                    if side == "with":
                        pair[side] = with_consumers(server, tokens, tables, args, seed)
                    else:
                        cpu = server.cpu_seconds()
                        pair[side] = paced(server.base, tokens, tables, args.rate, args.seconds,
                                           seed)  # fmt: skip
                        pair[side]["server_cpu_s"] = round(server.cpu_seconds() - cpu, 2)
                pair["p99_ratio"] = round(pair["with"]["p99_ms"] / pair["without"]["p99_ms"], 2)
                pairs.append(pair)
            return {
                "pairs": pairs,
                "p99_ratio_median": round(median(p["p99_ratio"] for p in pairs), 2),
                "all_exact": all(p["with"]["exact"] == args.consumers for p in pairs),
            }
        finally:
            server.stop()
            if schema is not None:
                drop_schema(schema)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--consume":
        base, token, after, count = sys.argv[2:6]
        return consume(base, token, int(after), int(count))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="sqlite,postgresql")
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--consumers", type=int, default=20)
    parser.add_argument("--rate", type=float, default=200.0, help="commands/s in all")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    parser.add_argument("--pairs", type=int, default=2, help="same-run pairs (without, with)")
    parser.add_argument(
        "--pin",
        action="store_true",
        help="the server on one core, the terminals and consumers on the others (as off-host)",
    )
    args = parser.parse_args()
    configure_logging(level="warning")
    figures: dict[str, Any] = {}
    print(
        f"{'engine':<11} {'pair':>4} {'phase':<8} {'cmd/s':>6} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'srv cpu':>7}  pushed after the answer p50 / p99 / max ms; after `at` p50 / p99; "
        "consumers exact"
    )
    for engine in args.engines.split(","):
        figures[engine] = result = bench(engine, args)
        for n, pair in enumerate(result["pairs"]):
            for side in ("without", "with"):
                r = pair[side]
                extra = ""
                if side == "with":
                    extra = (
                        f"  {r['pushed_after_answer_p50_ms']} / {r['pushed_after_answer_p99_ms']}"
                        f" / {r['pushed_after_answer_max_ms']}; {r['delivery_p50_ms']} / "
                        f"{r['delivery_p99_ms']}; {r['exact']}/{r['consumers']} "
                        f"({r['events_each']} events each; their CPU {r['consumers_cpu_s']} s)"
                    )
                print(
                    f"{engine:<11} {n:>4} {side:<8} {r['commands_per_s']:>6} {r['p50_ms']:>7} "
                    f"{r['p99_ms']:>7} {r['server_cpu_s']:>7}{extra}"
                )
        print(f"{engine:<11} p99 with / without, median of the pairs: {result['p99_ratio_median']}")
    named = ("tables", "consumers", "rate", "seconds", "pairs", "pin")
    settings = {k: getattr(args, k) for k in named}
    print(json.dumps({"bench": "feed", **settings, "engines": figures}))
    return 0 if all(f["all_exact"] for f in figures.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
