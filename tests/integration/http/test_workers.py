"""Two apps on one store, as the workers of ``paigow serve --workers N`` run (issue 10): a client
that opens a new connection per request lands on either, so the same table is written through
both, alternately. Over the in-memory store, SQLite and PostgreSQL: every command goes through
(a stale worker catches up and decides again), each worker reads only the events after the
version it holds (never the whole stream again), and each worker's state is the fold of the whole
stream, event for event. The stale ``expected_version`` path catches up the same way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from adapters.rng import SeededDeckAndDice
from adapters.settings import load_settings
from entrypoints.http.app import create_app
from service_layer.held_tables import table_events
from service_layer.operators.keys import KeyStore, key_store_for
from service_layer.service import TableService
from table_core.table import TableState, fold
from tests.integration.backends import open_backend
from tests.integration.counting_store import CountingStore
from tests.integration.http.conftest import ROLES, START, TABLE, Api

PLAYERS = (("ana", 20_000), ("bo", 10_000))


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def workers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Api, Api]]:
    """Two apps, each with its own store connection and a ``shared`` service (as each worker
    builds them), the same keys valid on both."""
    opener = open_backend(request.param, request, tmp_path)
    open_again = next(opener)
    stores = [CountingStore(open_again(), TABLE), CountingStore(open_again(), TABLE)]
    keys: KeyStore = key_store_for(stores[0].inner)
    tokens = {role: keys.create(f"{role}-1", role, START)[1] for role in ROLES}
    apis = []
    for n, store in enumerate(stores):
        service = TableService(store, source=SeededDeckAndDice(n + 1), shared=True)
        app = create_app(service, keys, load_settings())
        apis.append(Api(TestClient(app), service, keys, tokens, prefix=f"w{n}"))
    yield apis[0], apis[1]
    next(opener, None)  # closes the stores


def counting(api: Api) -> CountingStore:
    store = api.service.store
    assert isinstance(store, CountingStore)
    return store


def whole_fold(api: Api) -> TableState:
    return fold(table_events(counting(api).inner.read_stream(TABLE)))


def test_two_workers_writing_one_table_alternately_catch_up_event_for_event(
    workers: tuple[Api, Api],
) -> None:
    one, two = workers
    names = [name for name, _ in PLAYERS]
    steps: list[tuple[str, str, dict[str, Any] | None]] = [
        ("floor", "/open", {}),
        *[("dealer", "/seat", {"seat": s, "player_id": p}) for s, p in enumerate(names, 1)],
        *[("cage", "/buy-in", {"player_id": p, "amount": a}) for p, a in PLAYERS],
        ("dealer", "/round/start", None),
        *[("dealer", "/round/bet", {"player_id": p, "amount": 1_000}) for p in names],
        ("dealer", "/round/close-bets", None),
        ("dealer", "/round/deal", None),
        ("dealer", "/round/dice", None),
        *[("dealer", "/round/hand", {"player_id": p}) for p in names],
        ("dealer", "/round/banker-hand", None),
        ("dealer", "/round/settle", None),
        ("dealer", "/round/close", None),
    ]
    written = {"w0": 0, "w1": 0}
    settled: dict[str, Any] = {}
    for turn, (role, path, body) in enumerate(steps):
        api = (one, two)[turn % 2]
        answer = api.ok(role, path, body)
        assert answer["version"] == api.version()  # nothing lost, nothing written twice
        written[api.prefix] += len(answer["events"])
        settled.update({e["type"]: e["payload"] for e in answer["events"]})
        # The writer holds the table now, event for event; the other worker is left stale (no
        # read in between) until its next command finds it so.
        assert api.service.load(TABLE) == whole_fold(api)

    nets = {r["player_id"]: r["net"] for r in settled["round_settled"]["results"]}
    state = two.get("cage", f"/tables/{TABLE}").json()
    assert one.get("cage", f"/tables/{TABLE}").json() == state  # a read on either worker
    assert state["balances"] == {p: a + nets[p] for p, a in PLAYERS}
    total = sum(state["balances"].values()) + state["house_result"] + state["commission"]
    assert total == state["bought_in"] == 30_000
    for api, other in ((one, two), (two, one)):
        reads = counting(api).table_reads()
        # One read of the whole stream at most (the first load: the worker that opens the table
        # has none); then only events after the version held, each of them the other's.
        assert [after for after, _ in reads].count(0) <= 1
        assert all(after > 0 for after, _ in reads[1:])
        assert sum(n for _, n in reads) == written[other.prefix]
        # Each command after the other's found the table stale and caught up.
        assert len([n for _, n in reads if n > 0]) >= len(steps) // 2 - 1


def test_a_stale_expected_version_is_checked_against_the_table_caught_up(
    workers: tuple[Api, Api],
) -> None:
    one, two = workers
    one.ok("floor", "/open", {})
    for seat, (player, amount) in enumerate(PLAYERS, 1):
        one.ok("dealer", "/seat", {"seat": seat, "player_id": player})
        one.ok("cage", "/buy-in", {"player_id": player, "amount": amount})
    held = two.get("dealer", f"/tables/{TABLE}").json()["version"]  # two holds the table
    version = one.ok("dealer", "/round/start")["version"]
    counting(two).reads.clear()

    # The version the client saw on one is current: two catches up and the bet goes through.
    bet = {"player_id": "ana", "amount": 1_000, "expected_version": version}
    assert two.ok("dealer", "/round/bet", bet)["version"] == version + 1
    assert counting(two).table_reads()[0] == (held, version - held)
    assert sum(n for _, n in counting(two).table_reads()) == version - held

    # A read on two shows what one wrote since, read after the version two held.
    one.ok("dealer", "/round/bet", {"player_id": "bo", "amount": 1_000})
    counting(two).reads.clear()
    assert two.get("dealer", f"/tables/{TABLE}").json()["version"] == version + 2
    assert counting(two).table_reads() == [(version + 1, 1)]

    # An old expected version is 409 with the current one, and reads no event again.
    one.ok("dealer", "/round/close-bets")
    counting(two).reads.clear()
    stale = two.post("dealer", "/round/deal", {"expected_version": version + 2}, key="deal-old")
    assert stale.status_code == 409 and stale.json()["current_version"] == version + 3
    reads = counting(two).table_reads()
    assert min(after for after, _ in reads) == version + 2 and sum(n for _, n in reads) == 1
    assert two.service.load(TABLE) == whole_fold(two)
