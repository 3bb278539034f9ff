"""Named subscriptions of the event feed (docs/feed.md, "Durable subscriptions"), on SQLite and
PostgreSQL: the floor makes one, its consumer reads after the acknowledged position and
acknowledges (only forward), a consumer restarted (a new server over the same database, a new
client) resumes after what it acknowledged, and ``/metrics`` lists each one's lag."""

from __future__ import annotations

import re
from typing import Any

from adapters.client.feed_client import FeedClient
from adapters.store import open_store
from adapters.store.signing import Signer
from service_layer.operators.keys import key_store_for
from tests.integration.http.conftest import TABLE, Api, build_api, open_table, served
from tests.integration.http.test_feed import every_event
from tests.integration.http.test_feed_sse import Follower, churn
from tests.integration.http.test_floor_pages import sign_in


def make(api: Api, body: dict[str, Any], role: str = "floor") -> Any:
    return api.client.post(
        "/subscriptions", json=body, headers={"Authorization": f"Bearer {api.tokens[role]}"}
    )


def ack(api: Api, name: str, position: int, role: str = "auditor") -> Any:
    return api.client.post(
        f"/subscriptions/{name}/ack",
        json={"position": position},
        headers={"Authorization": f"Bearer {api.tokens[role]}"},
    )


def metric(api: Api, name: str, subscription: str) -> float:
    text = api.client.get("/metrics").text
    prefix = f'{name}{{subscription="{subscription}"}} '
    found = [line for line in text.splitlines() if line.startswith(prefix)]
    assert len(found) == 1, text
    return float(found[0][len(prefix) :])


def test_make_read_acknowledge_list_and_delete(sql_api: Api) -> None:
    api = sql_api
    open_table(api, (2, "ana", 100_000))
    head = api.service.store.feed_head()
    made = make(api, {"name": "cage-system", "types": ["chips_bought_in", "player_seated"]})
    assert made.status_code == 201, made.text
    assert made.json()["position"] == 0 and made.json()["lag"] == head
    assert made.json()["created_by"] == "floor-1"
    assert make(api, {"name": "cage-system"}).status_code == 409
    assert make(api, {"name": "bad name"}).status_code == 422
    assert make(api, {"name": "future", "after": head + 1}).status_code == 422
    typo = make(api, {"name": "settled", "types": ["round_setled"]})
    assert (typo.status_code, typo.json()["message"]) == (
        422,
        "unknown event type 'round_setled': docs/events.md lists every type",
    )
    assert make(api, {"name": "x", "after": "1"}).status_code == 422  # strict JSON
    assert make(api, {"name": "mine"}, role="dealer").status_code == 403
    # Its events: its own filter, after its acknowledged position (JSON page).
    page = api.get("auditor", "/subscriptions/cage-system/events").json()
    assert [e["type"] for e in page["events"]] == ["player_seated", "chips_bought_in"]
    seated = page["events"][0]["position"]
    # Acknowledged: the next read starts after it; an older acknowledgement changes nothing.
    assert ack(api, "cage-system", seated).json()["position"] == seated
    page = api.get("auditor", "/subscriptions/cage-system/events").json()
    assert [e["type"] for e in page["events"]] == ["chips_bought_in"]
    assert ack(api, "cage-system", 1).json()["position"] == seated
    assert ack(api, "cage-system", head + 1).status_code == 422
    assert ack(api, "nobody", 1).status_code == 404
    assert ack(api, "cage-system", 1, role="dealer").status_code == 403
    same = api.get("floor", "/events?subscription=cage-system").json()
    assert same == api.get("floor", "/subscriptions/cage-system/events").json()
    assert api.get("floor", "/events?subscription=cage-system&types=x").status_code == 422
    assert api.get("dealer", "/events?subscription=cage-system").status_code == 403
    # Listed with their lag, on the API and in /metrics.
    listed = api.get("floor", "/subscriptions").json()
    assert [(s["name"], s["position"], s["lag"]) for s in listed] == [
        ("cage-system", seated, head - seated)
    ]
    assert metric(api, "paigow_feed_subscription_lag", "cage-system") == head - seated
    assert metric(api, "paigow_feed_subscription_position", "cage-system") == seated
    # And on the floor's pit page, with the same lag.
    assert sign_in(api, api.tokens["floor"]).status_code == 303
    pit = api.client.get("/floor/pit/live")
    assert pit.status_code == 200
    row = re.search(r'<tr data-subscription="cage-system">(.*?)</tr>', pit.text, re.S)
    assert row is not None
    assert f'data-k="position">{seated}<' in row.group(1)
    assert f'data-k="lag">{head - seated}<' in row.group(1)
    api.client.cookies.clear()
    gone = api.client.delete(
        "/subscriptions/cage-system", headers={"Authorization": f"Bearer {api.tokens['floor']}"}
    )
    assert gone.status_code == 204
    assert api.get("floor", "/subscriptions/cage-system/events").status_code == 404
    assert api.get("floor", "/subscriptions").json() == []


def _server(url: str, key: Signer) -> tuple[Api, Any]:
    """A server over the database at ``url``, as ``paigow serve`` restarted would be."""
    store = open_store(url, signing_key=key)
    return build_api(store, key_store_for(store)), store


def test_a_consumer_restarted_resumes_where_it_acknowledged(db_url: str) -> None:
    key = Signer.generate()
    api, store = _server(db_url, key)
    try:
        open_table(api, (2, "ana", 100_000))
        assert make(api, {"name": "tracking", "table_ids": [TABLE]}).status_code == 201
        with served(api.client.app) as url:
            client = FeedClient(url, api.tokens["auditor"], subscription="tracking")
            follower = Follower(client)
            churn(api, 6)
            mine = [e for e in every_event(api, "floor") if e["stream_id"] == TABLE]
            follower.wait_for(mine[-1]["position"])
            # The consumer handled them all but acknowledged only up to the fourth, then died.
            acked = follower.events[3]["position"]
            client.ack(acked)
            follower.close()
            assert [e["position"] for e in follower.events] == [e["position"] for e in mine]
            churn(api, 3)  # while it is down
    finally:
        store.close()
    # The server restarts; a new consumer of the subscription names no position.
    api, store = _server(db_url, key)
    try:
        with served(api.client.app) as url:
            client = FeedClient(url, api.tokens["floor"], subscription="tracking")
            follower = Follower(client)
            mine = [e for e in every_event(api, "floor") if e["stream_id"] == TABLE]
            follower.wait_for(mine[-1]["position"])
            follower.close()
        resumed = [e["position"] for e in follower.events]
        # At least once: everything after the acknowledged position, again where unacknowledged.
        assert resumed == [e["position"] for e in mine if e["position"] > acked]
        listed = api.get("floor", "/subscriptions").json()
        assert listed[0]["position"] == acked
    finally:
        store.close()
