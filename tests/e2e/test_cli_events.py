"""``paigow events follow``: the event feed as JSON lines, read from the database as a script runs
it, on SQLite (polling) and PostgreSQL (LISTEN/NOTIFY): the same events as ``GET /events``, the
filters, ``--after`` to resume, and a live follower that gets each new event once, in order."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.store import open_store
from adapters.store.signing import Signer
from service_layer.operators.keys import key_store_for
from tests.integration.conftest import pg_database, pg_head_template, pg_url  # noqa: F401 (fixtures)
from tests.integration.http.conftest import TABLE, Api, build_api, open_table
from tests.integration.http.test_feed import finish_round, open_round

from .conftest import PAIGOW, Run


@pytest.fixture(params=["sqlite", "postgresql"])
def casino(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Api, str]]:
    """A casino's database with a table open, played through the HTTP API in process."""
    if request.param == "postgresql":
        url = str(request.getfixturevalue("pg_url"))
    else:
        url = f"sqlite:///{tmp_path / 'casino.db'}"
    store = open_store(url, signing_key=Signer.generate())
    try:
        api = build_api(store, key_store_for(store))
        open_table(api, (2, "ana", 100_000))
        yield api, url
    finally:
        store.close()


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def test_once_gives_the_feeds_events_filtered_and_resumed(
    casino: tuple[Api, str], paigow: Run
) -> None:
    api, url = casino
    open_round(api)  # open: the deck order is withheld here too
    done = paigow("events", "follow", "--db", url, "--once")
    assert done.returncode == 0, done.stderr
    every = _lines(done.stdout)
    served = api.get("floor", "/events?limit=1000").json()["events"]
    assert every == served
    assert [e["position"] for e in every] == list(range(1, api.service.store.feed_head() + 1))
    dealt = [e for e in every if e["type"] == "stacks_dealt"]
    assert dealt[0]["payload"]["deck"] is None
    later = _lines(paigow("events", "follow", "--db", url, "--once", "--after", "5").stdout)
    assert later == every[5:]
    bets = paigow("events", "follow", "--db", url, "--once", "--types", "bet_placed,round_started")
    assert [e["type"] for e in _lines(bets.stdout)] == ["round_started", "bet_placed"]
    system = _lines(paigow("events", "follow", "--db", url, "--once", "--table", "system").stdout)
    assert system and {e["stream_id"] for e in system} == {"system"}
    table = _lines(paigow("events", "follow", "--db", url, "--once", "--table", TABLE).stdout)
    assert table == [e for e in every if e["stream_id"] == TABLE]
    typo = paigow("events", "follow", "--db", url, "--types", "bet_placed,bet_plased")
    assert (typo.returncode, typo.stdout, typo.stderr) == (
        2,
        "",
        "paigow events follow: --types: unknown event type 'bet_plased': "
        "docs/events.md lists every type\n",
    )  # said at once, not a follower waiting for ever on a filter that never matches
    finish_round(api)


def test_a_live_follower_gets_each_new_event_once_in_order(casino: tuple[Api, str]) -> None:
    api, url = casino
    process = subprocess.Popen(
        [str(PAIGOW), "events", "follow", "--db", url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    got: list[tuple[float, dict[str, Any]]] = []

    def read() -> None:
        assert process.stdout is not None
        for text in process.stdout:
            got.append((time.monotonic(), json.loads(text)))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def wait_for(position: int) -> float:
        deadline = time.monotonic() + 60
        while not got or got[-1][1]["position"] < position:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, got[-1:] or None
            time.sleep(0.01)
        return got[-1][0]

    try:
        wait_for(api.service.store.feed_head())
        delays = []
        for _ in range(3):
            started = time.monotonic()
            open_round(api)
            finish_round(api)
            delays.append(wait_for(api.service.store.feed_head()) - started)
    finally:
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=30)
        reader.join(timeout=10)
    assert status == 130
    positions = [line["position"] for _, line in got]
    assert positions == list(range(1, api.service.store.feed_head() + 1))
