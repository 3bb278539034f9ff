"""``/ready`` names a failover (issue 23), without a Patroni pair: two TCP proxies to the shared
PostgreSQL server stand for two members, the URL names both (``host=A&host=B``) and the test cuts
A, the primary of the moment. While the store has lost A and reached nothing else, ``/ready`` is
503 "no primary: failover in progress since …, last primary A"; once a connection reaches B it is
200, names B as the primary and says when the failover happened; ``/metrics`` counts it.
``tests/e2e/ha`` does the same on a real pair, its leader SIGKILLed.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy.engine import make_url
from structlog.testing import capture_logs

from adapters.settings import load_settings
from adapters.store import migrate, open_store
from adapters.store.primary import PrimaryWatch
from adapters.store.signing import Signer
from eventlog.canonical import parse_time
from service_layer.operators.keys import key_store_for
from tests.integration.http.conftest import open_table
from tests.integration.http.test_operations import Proxy, metered_api, samples, value


@pytest.fixture
def two_members(pg_url: str) -> Iterator[tuple[str, Proxy, Proxy]]:
    migrate.upgrade(pg_url, load_settings().pg_roles())
    url = make_url(pg_url)
    target = (url.host or "127.0.0.1", url.port or 5432)
    a, b = Proxy(target), Proxy(target)
    hosts = (f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}")
    both = url.set(host=None, port=None).update_query_dict(
        {"host": hosts, "target_session_attrs": "read-write", "connect_timeout": "2"}
    )
    try:
        yield both.render_as_string(hide_password=False), a, b
    finally:
        a.cut()
        b.cut()


def test_ready_says_a_failover_is_under_way_then_names_the_new_primary(
    two_members: tuple[str, Proxy, Proxy],
) -> None:
    url, a, b = two_members
    store = open_store(url, signing_key=Signer.generate())
    try:
        api = metered_api(store, key_store_for(store))
        open_table(api, (1, "ana", 10_000))
        ready = api.client.get("/ready")
        assert ready.status_code == 200, ready.text
        assert ready.json()["primary"] == f"127.0.0.1:{a.port}"
        assert ready.json()["failover"] == {
            "in_progress": False,
            "since": None,
            "recovered_at": None,
            "last_primary": None,
            "primary": f"127.0.0.1:{a.port}",
            "count": 0,
        }
        assert value(samples(api), "paigow_store_failovers_total") == 0.0

        cut_at = datetime.now(UTC)
        a.cut()  # the primary dies: every connection through A is gone, A refuses new ones
        during = api.client.get("/ready")
        assert during.status_code == 503, during.text
        body = during.json()
        since = body["failover"]["since"]
        assert body["message"] == (
            f"store: no primary: failover in progress since {since}, "
            f"last primary 127.0.0.1:{a.port}"
        )
        assert body["checks"]["store"] == body["message"].removeprefix("store: ")
        assert body["failover"] == {
            "in_progress": True,
            "since": since,
            "recovered_at": None,
            "last_primary": f"127.0.0.1:{a.port}",
            "primary": None,
            "count": 0,
        }
        assert cut_at <= parse_time(since) <= datetime.now(UTC)
        assert "postgres@" not in during.text
        recovered(api, a, b, since)
        # Commands go through the new primary.
        started = api.post("dealer", "/round/start")
        assert started.status_code == 200, started.text
    finally:
        store.close()


def recovered(api: Any, a: Proxy, b: Proxy, since: str) -> None:
    """The next ``/ready`` reaches B: 200 naming it and the failover, logged and counted."""
    with capture_logs() as logs:
        after = api.client.get("/ready")  # the next connection reaches B
    assert after.status_code == 200, after.text
    found = after.json()
    assert found["status"] == "ready"
    assert found["primary"] == f"127.0.0.1:{b.port}"
    assert found["failover"]["since"] == since
    back_at = parse_time(found["failover"]["recovered_at"])
    assert parse_time(since) <= back_at <= datetime.now(UTC)
    assert found["failover"] | {"recovered_at": None} == {
        "in_progress": False,
        "since": since,
        "recovered_at": None,
        "last_primary": f"127.0.0.1:{a.port}",
        "primary": f"127.0.0.1:{b.port}",
        "count": 1,
    }
    [line] = [line for line in logs if line["event"] == "store_failover"]
    assert (line["last_primary"], line["primary"]) == (
        f"127.0.0.1:{a.port}",
        f"127.0.0.1:{b.port}",
    )
    metrics = samples(api)
    assert value(metrics, "paigow_store_failovers_total") == 1.0
    assert value(metrics, "paigow_store_primary_lost") == 0.0
    assert "postgres@" not in after.text


def test_a_late_loss_of_an_old_primary_changes_nothing() -> None:
    watch = PrimaryWatch()
    watch.connected("a:1")
    watch.lost("a:1")
    watch.connected("b:2")
    watch.lost("a:1")  # a pooled connection to the old primary, noticed after the failover
    assert not watch.in_progress and watch.failovers == 1 and watch.primary == "b:2"
    watch.lost(None)  # no server at all: the primary of the moment is lost
    watch.connected("b:2")  # the same one back: an outage, not a failover
    assert (watch.failovers, watch.reason()) == (1, None)
    single = PrimaryWatch(failover=False)
    single.connected("a:1")
    single.lost("a:1")
    assert single.in_progress and single.reason() is None  # the store's own error says why
