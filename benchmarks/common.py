"""What several benchmarks measure with: a percentile, a free port, clients played on threads
at once, and a PostgreSQL schema of their own for a run (made fresh and migrated, then dropped).

Imported as ``benchmarks.common`` by scripts that put the repository on ``sys.path`` first.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Sequence
from typing import Protocol

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
