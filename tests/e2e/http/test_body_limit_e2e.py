"""A live ``paigow serve``: twenty 10 MB JSON bodies on a command route (half declared by
``Content-Length``, half chunked) are each refused with 413, and the server's resident memory
does not grow by more than a few MiB (it grew by 1.36 GB for one such body when bodies were read
whole and parsed on the event loop)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.e2e.conftest import Run, operator_keys
from tests.e2e.serving import serving

DB = "sqlite:///casino.db"
BIG = b"{}" + b" " * (10 * 1024 * 1024 - 2)
MIB = 1024 * 1024


def resident(pid: int) -> int:
    """The process's resident set, in bytes (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def chunks(data: bytes, size: int = 64 * 1024) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def test_big_bodies_are_refused_without_the_memory_they_would_cost(
    tmp_path: Path, paigow: Run
) -> None:
    assert paigow("db", "upgrade", "--db", DB).returncode == 0
    token = operator_keys(DB, tmp_path, ("security", "floor"))["floor"].read_text().strip()
    with serving(DB, tmp_path, {**os.environ, "PAIGOW_LOG_FORMAT": "json"}) as served:
        pid = served.process.pid
        with httpx.Client(base_url=served.base, timeout=60) as client:

            def send(n: int) -> httpx.Response:
                headers = {
                    "Authorization": f"Bearer {token}",
                    "Idempotency-Key": f"big-{n}",
                    "Content-Type": "application/json",
                }
                body = BIG if n % 2 else chunks(BIG)
                return client.post("/tables/PG-1/open", content=body, headers=headers)

            for n in range(4):  # the server's buffers and caches, warmed up
                assert send(n).status_code == 413
            before = resident(pid)
            answers = [send(n) for n in range(4, 24)]
            after = resident(pid)
            assert {a.status_code for a in answers} == {413}
            assert {a.json()["error"] for a in answers} == {"body_too_large"}
            assert client.get("/health").status_code == 200
            opened = client.post(
                "/tables/PG-1/open",
                json={},
                headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "small"},
            )
            assert opened.status_code == 200, opened.text
    assert after - before < 8 * MIB, f"resident memory grew by {(after - before) / MIB:.1f} MiB"
