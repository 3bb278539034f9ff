"""Big request bodies against a live server: ``/health`` latency while 20 clients send 10 MB JSON
bodies to a command route, against the same ``/health`` with no such clients (the peer), in the
same run; and the server's memory.

A real server (``paigow serve``, its own process) over a fresh SQLite file. Three runs of
``--seconds`` each:

  quiet   one probe asks ``/health`` every 20 ms; nothing else happens (the peer);
  flood   the same probe while ``--clients`` clients (20) send 10 MB bodies to
          ``POST /tables/PG-1/open`` with a valid key, back to back, half declared by
          ``Content-Length`` and half chunked. Each is refused with 413 (``PAIGOW_HTTP_MAX_BODY``,
          64 KiB): the declared ones before a byte is read, the chunked ones at the limit; the
          server closes each such connection with its answer, reading no more of it, and the
          client opens a new one for its next body;
  heavy   the same probe while the clients send bodies just under the limit that are slow to
          read strictly (thousands of small objects, 422 once read): read in the one reader
          thread (``command_door.read_strictly``), never on the event loop.

The senders run in two processes of their own at the lowest priority (``nice 19``), as clients
on other machines would cost the server nothing; the probe runs in this process. Per run: the
probe's p50, p99 and max, the bodies answered and their statuses, the server's CPU per body (from
/proc), its resident memory (``VmRSS``) before and after and its peak (``VmHWM``).

Goal: ``/health`` p99 under 50 ms during the flood; the server's memory grows by a few MiB at
most (a 10 MB body once cost 1.36 GB and stalled the event loop 2.9 s).

Usage (repo root): ``.venv/bin/python benchmarks/bench_body_limit.py [--seconds 10]
[--clients 20] [--mb 10]``. Prints a table, then ONE JSON line.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import free_port, percentile, wait_started  # noqa: E402

PAIGOW = Path(sys.executable).with_name("paigow")
PATH = "/tables/PG-1/open"
PROBE_EVERY = 0.020
LIMIT = 64 * 1024
MIB = 1024 * 1024


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user + system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory(pid: int) -> dict[str, int]:
    """The process's resident set now and at its peak, in bytes."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0]) * 1024
    return found


class Server:
    def __init__(self, folder: Path) -> None:
        db = f"sqlite:///{folder / 'bench.db'}"
        run = {"cwd": folder, "capture_output": True, "text": True, "check": True}
        subprocess.run([str(PAIGOW), "db", "upgrade", "--db", db], **run)  # type: ignore[call-overload]
        # A store's first key is the security officer's; it then issues the floor's key.
        keys = [str(PAIGOW), "keys", "create", "--db", db]
        officer = subprocess.run([*keys, "--role", "security", "--actor", "officer"], **run)  # type: ignore[call-overload]
        officer_file = folder / "officer.key"
        officer_file.write_text(json.loads(officer.stdout)["token"])
        officer_file.chmod(0o600)
        made = subprocess.run(  # type: ignore[call-overload]
            [*keys, "--role", "floor", "--actor", "bench", "--key-file", str(officer_file)], **run
        )
        self.token = json.loads(made.stdout)["token"]
        self.port = free_port()
        self.log = (folder / "serve.log").open("w")
        self.process = subprocess.Popen(
            [str(PAIGOW), "serve", "--db", db, "--port", str(self.port)],
            cwd=folder,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
            env={**os.environ, "PAIGOW_LOG_LEVEL": "warning"},
        )
        health = f"http://127.0.0.1:{self.port}/health"
        wait_started(
            self.process,
            lambda: httpx.get(health, timeout=1).status_code == 200,
            folder / "serve.log",
        )

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


def probe(port: int, seconds: float) -> list[float]:
    """``/health`` every 20 ms for ``seconds``, on one keep-alive connection: each latency, ms."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    samples = []
    start = time.monotonic()
    slot = start
    while slot - start < seconds:
        began = time.perf_counter()
        connection.request("GET", "/health")
        answer = connection.getresponse()
        answer.read()
        samples.append((time.perf_counter() - began) * 1000)
        assert answer.status == 200, answer.status
        slot += PROBE_EVERY
        time.sleep(max(0.0, slot - time.monotonic()))
    connection.close()
    return samples


def heavy_body(size: int) -> bytes:
    """Strict JSON of ``size`` bytes at most that is slow to read strictly: thousands of small
    objects (each key checked for duplicates, each string for control characters)."""
    count = (size - 16) // 8
    return b'{"x":[' + b",".join([b'{"a":1}'] * count) + b"]}"


def _send_one(port: int, token: str, size: int, chunked: bool, n: int) -> int:
    """One body on its own connection; the status answered (0: the connection was cut). A body
    of ``size`` up to the limit is the heavy one, sent whole; a bigger one is spaces."""
    heavy = heavy_body(size) if size <= LIMIT else b""
    if heavy:
        size, chunked = len(heavy), False
    head = [
        f"POST {PATH} HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        f"Authorization: Bearer {token}",
        f"Idempotency-Key: flood-{os.getpid()}-{n}",
        "Content-Type: application/json",
        "Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}",
    ]
    piece = b" " * (256 * 1024)
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        try:
            sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
            sock.sendall(heavy)
            sent = len(heavy)
            while sent < size:
                part = piece[: min(len(piece), size - sent)]
                if sent == 0:
                    part = b"{}" + part[2:]
                sock.sendall(b"%x\r\n%s\r\n" % (len(part), part) if chunked else part)
                sent += len(part)
            if chunked:
                sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server may stop reading once it answered: its answer is still there
        answer = b""
        try:
            while b"\r\n" not in answer:
                data = sock.recv(4096)
                if not data:
                    break
                answer += data
        except OSError:
            return 0
    try:
        return int(answer.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return 0


def _sender(port: int, token: str, size: int, threads: int, until: float, out: Any) -> None:
    os.nice(19)
    counts: dict[int, int] = {}
    lock = threading.Lock()

    def loop(index: int) -> None:
        n = 0
        while time.time() < until:
            status = _send_one(port, token, size, chunked=bool(index % 2), n=index * 100_000 + n)
            n += 1
            with lock:
                counts[status] = counts.get(status, 0) + 1

    workers = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    out.put(counts)


def run(server: Server, seconds: float, clients: int, size: int) -> dict[str, Any]:
    before = memory(server.process.pid)
    cpu_before = cpu_seconds(server.process.pid)
    senders: list[multiprocessing.Process] = []
    results: Any = multiprocessing.Queue()
    if clients:
        until = time.time() + seconds + 1.0
        per = [clients // 2 + clients % 2, clients // 2]
        for threads in per:
            process = multiprocessing.Process(
                target=_sender, args=(server.port, server.token, size, threads, until, results)
            )
            process.start()
            senders.append(process)
        time.sleep(1.0)  # the flood under way before the probe starts
    samples = probe(server.port, seconds)
    statuses: dict[int, int] = {}
    for process in senders:
        for status, count in results.get(timeout=120).items():
            statuses[status] = statuses.get(status, 0) + count
        process.join(timeout=120)
    after = memory(server.process.pid)
    cpu = cpu_seconds(server.process.pid) - cpu_before
    bodies = sum(statuses.values())
    return {
        "server_cpu_s": round(cpu, 2),
        "server_cpu_ms_per_body": round(cpu * 1000 / bodies, 3) if bodies else None,
        "p50_ms": round(percentile(samples, 0.50), 2),
        "p99_ms": round(percentile(samples, 0.99), 2),
        "max_ms": round(max(samples), 2),
        "probes": len(samples),
        "bodies": sum(statuses.values()),
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "rss_before_mib": round(before["VmRSS"] / MIB, 1),
        "rss_after_mib": round(after["VmRSS"] / MIB, 1),
        "rss_peak_mib": round(after["VmHWM"] / MIB, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--mb", type=int, default=10, help="each big body's size, in MB")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder))
        try:
            quiet = run(server, args.seconds, 0, 0)
            flood = run(server, args.seconds, args.clients, args.mb * 1024 * 1024)
            heavy = run(server, args.seconds, args.clients, LIMIT)
        finally:
            server.stop()
    rows = [
        ("quiet (peer)", quiet),
        (f"flood: {args.clients} x {args.mb} MB bodies", flood),
        (f"heavy: {args.clients} x 64 KiB JSON", heavy),
    ]
    print(f"{'run':<28} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'bodies':>7} {'RSS MiB':>16}")
    for name, r in rows:
        rss = f"{r['rss_before_mib']} -> {r['rss_after_mib']}"
        print(
            f"{name:<28} {r['p50_ms']:>8} {r['p99_ms']:>8} {r['max_ms']:>8} {r['bodies']:>7} "
            f"{rss:>16}"
        )
    ratio = flood["p99_ms"] / quiet["p99_ms"] if quiet["p99_ms"] else None
    growth = flood["rss_after_mib"] - flood["rss_before_mib"]
    print(
        f"/health p99 during the flood: {flood['p99_ms']} ms ({ratio:.2f}x the quiet run's; goal "
        f"under 50 ms); statuses {flood['statuses']}; server RSS grew {growth:.1f} MiB, peak "
        f"{flood['rss_peak_mib']} MiB"
    )
    print(
        json.dumps(
            {
                "bench": "body_limit",
                "clients": args.clients,
                "body_mb": args.mb,
                "quiet": quiet,
                "flood": flood,
                "heavy": heavy,
                "p99_ratio_heavy_to_quiet": round(heavy["p99_ms"] / quiet["p99_ms"], 2)
                if quiet["p99_ms"]
                else None,
                "p99_ratio_flood_to_quiet": None if ratio is None else round(ratio, 2),
                "p99_goal_ms": 50,
                "p99_goal_met": flood["p99_ms"] < 50,
                "rss_growth_mib": round(growth, 1),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
