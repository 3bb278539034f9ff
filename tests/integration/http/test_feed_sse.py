"""The event feed as Server-Sent Events (docs/feed.md, "Live"), over a real server on SQLite and
PostgreSQL, followed by the repository's own client (adapters/client/feed_client.py): each
event's position is its SSE ``id``, ``Last-Event-ID`` resumes after it exactly, live events are
pushed, heartbeats keep the connection, and a consumer that falls behind gets every event once,
in order."""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from adapters.client.feed_client import FeedClient
from entrypoints.http import feed_routes
from tests.integration.http.conftest import TABLE, Api, build_api, open_table, served
from tests.integration.http.test_feed import finish_round, open_round


@pytest.fixture
def live(sql_api: Api, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Api, str]]:
    """The API over a real database, served by uvicorn; catch-up pages of 3 events (so that a
    consumer behind meets several pages while the tables play)."""
    monkeypatch.setattr(feed_routes, "SSE_PAGE", 3)
    with served(sql_api.client.app) as url:
        yield sql_api, url


def churn(api: Api, count: int, table: str = TABLE) -> None:
    """``count`` events: a player sits down at seat 5 and leaves, again and again."""
    for _ in range(count):
        if "zed" not in api.service.load(table).seats.values():
            api.ok("dealer", "/seat", {"seat": 5, "player_id": "zed"}, table=table)
        else:
            api.ok("dealer", "/leave", {"player_id": "zed"}, table=table)


class Follower:
    """A client's ``follow`` in a thread, its events kept in order."""

    def __init__(self, client: FeedClient, after: int | None = None) -> None:
        self.client = client
        self.events: list[dict[str, Any]] = []
        self.stop = threading.Event()
        self.received_at: dict[int, float] = {}
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(after,), daemon=True)
        self.thread.start()

    def _run(self, after: int | None) -> None:
        try:
            for event in self.client.follow(after, stop=self.stop.is_set):
                self.received_at[event["position"]] = time.monotonic()
                self.events.append(event)
        except BaseException as error:  # the test reads it
            self.error = error

    def wait_for(self, position: int, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while not self.events or self.events[-1]["position"] < position:
            assert self.error is None, self.error
            assert time.monotonic() < deadline, (position, self.events[-1:] or None)
            time.sleep(0.01)

    def close(self) -> None:
        self.stop.set()
        self.client.close()
        self.thread.join(timeout=20)
        assert self.error is None, self.error


def _client(api: Api, url: str, role: str = "auditor", **kw: Any) -> FeedClient:
    return FeedClient(url, api.tokens[role], public_key=api.service.store.public_key, **kw)


def test_resume_by_last_event_id_after_a_disconnect_no_gap_no_duplicate(
    live: tuple[Api, str],
) -> None:
    api, url = live
    open_table(api, (2, "ana", 100_000))
    client = _client(api, url)
    first = Follower(client)
    first.wait_for(api.service.store.feed_head())
    # The connection drops (the consumer stops); the tables play on meanwhile.
    first.close()
    seen = [e["position"] for e in first.events]
    churn(api, 7)
    # A new connection resumes after the last position handled: Last-Event-ID.
    second = Follower(client)
    churn(api, 5)
    head = api.service.store.feed_head()
    second.wait_for(head)
    second.close()
    positions = seen + [e["position"] for e in second.events]
    assert positions == list(range(1, head + 1))  # every event once, in order
    assert client.connections == 2
    assert client.verified_checkpoints  # the seals of the events caught up, signatures checked


def test_the_sse_id_is_the_position_and_last_event_id_resumes_exactly(
    live: tuple[Api, str],
) -> None:
    api, url = live
    open_table(api, (2, "ana", 100_000))
    churn(api, 4)
    head = api.service.store.feed_head()
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request(
        "GET",
        "/events",
        headers={
            "Authorization": f"Bearer {api.tokens['floor']}",
            "Accept": "text/event-stream",
            "Last-Event-ID": str(head - 3),
        },
    )
    response = connection.getresponse()
    assert response.status == 200
    assert response.getheader("content-type", "").startswith("text/event-stream")
    ids = []
    while len(ids) < 3:
        line = response.readline().decode().rstrip("\n")
        if line.startswith("id: "):
            ids.append(int(line[4:]))
    connection.close()
    assert ids == [head - 2, head - 1, head]


def test_live_events_are_pushed_and_a_consumer_behind_catches_up(live: tuple[Api, str]) -> None:
    api, url = live
    open_table(api, (2, "ana", 100_000))
    churn(api, 20)  # pages of 3: the consumer starts seven pages behind
    follower = Follower(_client(api, url))
    churn(api, 10)  # while it catches up
    follower.wait_for(api.service.store.feed_head())
    watch = api.client.app.state.feed.watch  # type: ignore[attr-defined]
    # PostgreSQL: woken by LISTEN/NOTIFY; SQLite: polling.
    assert watch.listening == (api.service.store.dialect == "postgresql")
    delays = []
    for _ in range(5):  # at the head now: each new event is pushed
        started = time.monotonic()
        api.ok("dealer", "/seat", {"seat": 6, "player_id": "late"})
        head = api.service.store.feed_head()
        follower.wait_for(head)
        delays.append(follower.received_at[head] - started)
        api.ok("dealer", "/leave", {"player_id": "late"})
    follower.wait_for(api.service.store.feed_head())
    follower.close()
    positions = [e["position"] for e in follower.events]
    assert positions == list(range(1, api.service.store.feed_head() + 1))
    # Pushed, not found by a consumer's poll: well within a second even on a busy machine
    # (benchmarks/bench_feed.py measures the delay).
    assert max(delays) < 1.0, delays


def test_a_dealer_follows_its_table_without_system_events_or_open_cards(
    live: tuple[Api, str],
) -> None:
    api, url = live
    open_table(api, (2, "ana", 100_000))
    api.ok("floor", "/open", {}, table="PG-2")
    follower = Follower(_client(api, url, "dealer", table_ids=(TABLE,)))
    open_round(api)
    churn(api, 2, table="PG-2")
    mine = [e for e in _every(api) if e["stream_id"] == TABLE]
    follower.wait_for(mine[-1]["position"])
    follower.close()
    assert [e["position"] for e in follower.events] == [e["position"] for e in mine]
    dealt = [e for e in follower.events if e["type"] == "stacks_dealt"]
    assert dealt and dealt[0]["payload"]["deck"] is None and dealt[0]["redacted"]
    finish_round(api)


def _every(api: Api) -> list[dict[str, Any]]:
    return list(api.get("floor", "/events?limit=1000").json()["events"])


def test_heartbeats_keep_a_quiet_connection(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from adapters.store import open_store
    from adapters.store.signing import Signer
    from service_layer.operators.keys import key_store_for

    monkeypatch.setenv("PAIGOW_FEED_HEARTBEAT_S", "0.2")
    store = open_store(db_url, signing_key=Signer.generate())
    try:
        api = build_api(store, key_store_for(store))
        with served(api.client.app) as url:
            host, port = url.removeprefix("http://").split(":")
            connection = http.client.HTTPConnection(host, int(port), timeout=10)
            connection.request(
                "GET",
                "/events?types=dispute_opened",  # a type no event of this log has
                headers={
                    "Authorization": f"Bearer {api.tokens['auditor']}",
                    "Accept": "text/event-stream",
                },
            )
            response = connection.getresponse()
            started = time.monotonic()
            beats = 0
            lines = []
            assert response.status == 200
            while beats < 3:
                raw = response.readline()
                assert raw, f"the stream ended after {lines!r}"
                line = raw.decode().rstrip("\n")
                lines.append(line)
                beats += line == ": heartbeat"
            connection.close()
        head = store.feed_head()
    finally:
        store.close()
    assert 0.4 < time.monotonic() - started < 5
    # The filter matched nothing: the first heartbeat moves the id past the positions read.
    assert lines[lines.index(": heartbeat") + 1] == f"id: {head}"
