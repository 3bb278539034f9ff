"""What several benchmarks measure with: a percentile, a free port, a parser of counts, a server's
start awaited,
clients played on threads at once, and a PostgreSQL schema of their own for a run (made fresh
and migrated, then dropped).

Imported as ``benchmarks.common`` by scripts that put the repository on ``sys.path`` first.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

PG = os.environ.get("PAIGOW_BENCH_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


class Player(Protocol):
    def play(self, until: float) -> None: ...


def play_all(clients: Sequence[Player], seconds: float, failed: str) -> float:
    """Every client plays on a thread of its own for ``seconds``; the seconds it took. The first
    failure ends the run with ``failed`` and the error."""
    failures: list[BaseException] = []

    def play(client: Player) -> None:
        try:
            client.play(until)
        except BaseException as error:
            failures.append(error)

    started = time.perf_counter()
    until = started + seconds
    threads = [threading.Thread(target=play, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    if failures:
        raise SystemExit(f"{failed}: {failures[0]}")
    return elapsed


def pg_admin(statement: str, url: str = PG) -> None:
    """One statement on PostgreSQL's admin connection (autocommit: ``CREATE SCHEMA`` …)."""
    import psycopg
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    with psycopg.connect(
        host=parsed.host, port=parsed.port or 5432, user=parsed.username, dbname=parsed.database,
        autocommit=True,
    ) as admin:  # fmt: skip
        admin.execute(statement)


def fresh_schema(schema: str, url: str = PG) -> str:
    """``schema`` made anew and migrated; the URL whose connections work in it."""
    from sqlalchemy.engine import make_url

    from adapters.store import migrate

    pg_admin(f"DROP SCHEMA IF EXISTS {schema} CASCADE", url)
    pg_admin(f"CREATE SCHEMA {schema}", url)
    scoped = make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
    text = scoped.render_as_string(hide_password=False)
    migrate.upgrade(text)
    return text


def drop_schema(schema: str, url: str = PG) -> None:
    pg_admin(f"DROP SCHEMA IF EXISTS {schema} CASCADE", url)


def wait_started(process: subprocess.Popen[Any], ready: Callable[[], bool], log: Path) -> None:
    """Until ``ready()`` (a server answering): every tenth of a second, a minute at the most; a
    process that ended or the minute gone ends the run, naming the server's ``log``."""
    import httpx

    deadline = time.monotonic() + 60
    while True:
        try:
            if ready():
                return
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the server did not start; see {log}")
        time.sleep(0.1)


def counts_parser(description: str | None, **counts: int) -> argparse.ArgumentParser:
    """A parser with one whole-number option per keyword (``peer_rounds``: ``--peer-rounds``),
    in the keywords' order, each defaulting to the keyword's value."""
    parser = argparse.ArgumentParser(description=description)
    for name, default in counts.items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, default=default)
    return parser
