"""The event feed as JSON pages (``GET /events``, docs/feed.md): every stream's events in the
log's order, each verifiable; who sees which streams; no card of an open round before the live
table's view shows it. On SQLite and PostgreSQL (``sql_api``) where the store matters."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.client.feed_client import check_event, event_hash, signature_holds
from tests.integration.http.conftest import TABLE, Api, open_table


def page(api: Api, role: str, query: str = "") -> Any:
    response = api.get(role, f"/events?{query}")
    assert response.status_code == 200, response.text
    return response.json()


def every_event(api: Api, role: str, query: str = "", limit: int = 7) -> list[dict[str, Any]]:
    """Page after page from the start, until a page is not full."""
    events: list[dict[str, Any]] = []
    after = 0
    while True:
        found = page(api, role, f"after={after}&limit={limit}&{query}")
        events += found["events"]
        assert found["next_after"] >= after
        if len(found["events"]) < limit:
            return events
        after = found["next_after"]


def open_round(api: Api, table: str = TABLE) -> None:
    """A round dealt electronically and its dice rolled: the deck order is recorded, the round
    is open."""
    api.ok("dealer", "/round/start", table=table)
    api.ok("dealer", "/round/bet", {"player_id": "ana", "amount": 2_500}, table=table)
    api.ok("dealer", "/round/close-bets", table=table)
    api.ok("dealer", "/round/deal", table=table)
    api.ok("dealer", "/round/dice", table=table)


def finish_round(api: Api, table: str = TABLE) -> None:
    api.ok("dealer", "/round/hand", {"player_id": "ana"}, table=table)
    api.ok("dealer", "/round/banker-hand", table=table)
    api.ok("dealer", "/round/settle", table=table)
    api.ok("dealer", "/round/close", table=table)


def test_pages_give_the_whole_log_in_order_each_event_verifiable(sql_api: Api) -> None:
    api = sql_api
    open_table(api, (2, "ana", 100_000))
    open_round(api)
    finish_round(api)
    events = every_event(api, "auditor")
    store = api.service.store
    assert [e["position"] for e in events] == list(range(1, store.feed_head() + 1))
    previous = "0" * 64
    for event in events:
        check_event(event)  # its hash from its fields, its global link
        assert event["global_prev"] == previous
        previous = event["global_hash"]
        assert event["redacted"] == []  # the round is over: nothing withheld
    # The checkpoint that seals an event: the first at or after it, signed by the casino's key.
    checkpoints = {c["position"]: c for c in api.get("auditor", "/checkpoints?limit=1000").json()}
    by_position = {e["position"]: e for e in events}
    sealed = [e for e in events if e["sealed_by"] is not None]
    assert sealed and sealed[-1]["position"] == max(checkpoints)
    for event in sealed:
        checkpoint = checkpoints[event["sealed_by"]]
        assert event["position"] <= checkpoint["position"]
        assert not [p for p in checkpoints if event["position"] <= p < checkpoint["position"]]
        assert checkpoint["hash"] == by_position[checkpoint["position"]]["global_hash"]
        assert signature_holds(checkpoint, store.public_key)
    assert not [e for e in events if e["sealed_by"] is None and e["position"] <= max(checkpoints)]
    # The same as the store's own log.
    rows, _ = store.raw_log()
    assert [(e["hash"], e["global_hash"]) for e in events] == [(r[11], r[13]) for r in rows]


def test_filters_and_where_the_next_page_starts(api: Api) -> None:
    open_table(api, (2, "ana", 100_000))
    head = api.service.store.feed_head()
    seated = page(api, "floor", "types=player_seated")
    assert [e["type"] for e in seated["events"]] == ["player_seated"]
    assert seated["next_after"] == head == seated["head"]  # the filter read up to the head
    several = page(api, "floor", "types=player_seated,chips_bought_in&types=table_opened")
    assert [e["type"] for e in several["events"]] == [
        "table_opened",
        "player_seated",
        "chips_bought_in",
    ]
    system = page(api, "floor", "table_id=system")["events"]
    assert system and {e["stream_id"] for e in system} == {"system"}
    assert page(api, "floor", f"after={head}")["events"] == []
    assert page(api, "floor", f"after={head}")["next_after"] == head
    first = page(api, "floor", "limit=2")
    assert [e["position"] for e in first["events"]] == [1, 2] and first["next_after"] == 2
    assert api.get("floor", "/events?limit=0").status_code == 422
    assert api.get("floor", "/events?after=-1").status_code == 422
    typo = api.get("floor", "/events?types=player_seated,round_setled")  # a filter never matching
    assert (typo.status_code, typo.json()) == (
        422,
        {
            "error": "invalid_request",
            "message": "unknown event type 'round_setled': docs/events.md lists every type",
        },
    )


@pytest.mark.parametrize("role", ["cage", "count", "security"])
def test_the_roles_without_the_feed_are_refused(api: Api, role: str) -> None:
    assert api.get(role, "/events").status_code == 403
    assert api.get(role, "/checkpoints").status_code == 403


def test_a_dealer_sees_the_tables_named_and_never_the_system_stream(sql_api: Api) -> None:
    api = sql_api
    open_table(api, (2, "ana", 100_000))
    api.ok("floor", "/open", {}, table="PG-2")
    api.ok("dealer", "/seat", {"seat": 1, "player_id": "bo"}, table="PG-2")
    everything = every_event(api, "floor")
    assert {e["stream_id"] for e in everything} == {"system", TABLE, "PG-2"}
    dealer = every_event(api, "dealer")
    assert dealer and "system" not in {e["stream_id"] for e in dealer}
    assert dealer == [e for e in everything if e["stream_id"] != "system"]
    mine = every_event(api, "dealer", f"table_id={TABLE}")
    assert mine and {e["stream_id"] for e in mine} == {TABLE}
    refused = api.get("dealer", f"/events?table_id={TABLE},system")
    assert refused.status_code == 403 and "system" in refused.json()["message"]


def test_no_card_of_an_open_round_leaves_the_feed(sql_api: Api) -> None:
    api = sql_api
    open_table(api, (2, "ana", 100_000))
    open_round(api)
    state = api.get("dealer", f"/tables/{TABLE}").json()
    shown = {tuple(h["cards"]) for h in state["round"]["hands"]}
    for role in ("dealer", "floor", "auditor"):
        dealt = page(api, role, "types=stacks_dealt")["events"]
        assert [e["redacted"] for e in dealt] == [["deck", "stacks", "unused"]]
        payload = dealt[0]["payload"]
        assert payload["deck"] is None and payload["stacks"] is None and payload["unused"] is None
        assigned = page(api, role, "types=stacks_assigned")["events"][0]
        dead = [a for a in assigned["payload"]["assignments"] if a["holder"] == "dead"]
        assert dead and all(a["cards"] is None for a in dead)
        assert len(assigned["redacted"]) == len(dead)
        live = {tuple(a["cards"]) for a in assigned["payload"]["assignments"] if a["cards"]}
        assert live == shown  # exactly the hands the live table's view shows
        assert event_hash(dealt[0]) != dealt[0]["hash"]  # withheld: not its stored payload
    finish_round(api)
    dealt = page(api, "dealer", "types=stacks_dealt")["events"][0]
    assert dealt["redacted"] == [] and len(dealt["payload"]["deck"]) == 53
    assert event_hash(dealt) == dealt["hash"]


def test_a_tables_events_withhold_the_deck_of_its_open_round(sql_api: Api) -> None:
    """``GET /tables/{id}/events`` keeps the feed's rule: the deck order of a round still open
    would show every hand, the banker's too."""
    api = sql_api
    open_table(api, (2, "ana", 100_000))
    open_round(api)
    for role in ("dealer", "floor", "auditor"):
        events = api.get(role, f"/tables/{TABLE}/events").json()
        dealt = [e for e in events if e["type"] == "stacks_dealt"]
        assert [e["redacted"] for e in dealt] == [["deck", "stacks", "unused"]]
        assert dealt[0]["payload"]["deck"] is None and dealt[0]["payload"]["stacks"] is None
        assigned = next(e for e in events if e["type"] == "stacks_assigned")
        dead = [a for a in assigned["payload"]["assignments"] if a["holder"] == "dead"]
        assert dead and all(a["cards"] is None for a in dead)
        assert {e["redacted"] == [] for e in events if e["type"] not in SECRETS} == {True}
    finish_round(api)
    events = api.get("dealer", f"/tables/{TABLE}/events").json()
    dealt = next(e for e in events if e["type"] == "stacks_dealt")
    assert dealt["redacted"] == [] and len(dealt["payload"]["deck"]) == 53


SECRETS = ("stacks_dealt", "stacks_assigned")


def test_the_tail_in_memory_answers_as_the_database_does(api: Api) -> None:
    """``FeedTail`` (what live followers read) gives the pages ``Feed.page`` reads from the
    store: the same events, seals, withheld cards and ``next_after``, for every scope."""
    from service_layer.feed import Feed, FeedScope, scope_for
    from service_layer.feed_tail import FeedTail

    store = api.service.store
    tail = FeedTail(store, capacity=16, stale_s=3600)
    assert tail.refresh() == store.feed_head()  # it starts at the head
    start = tail.base
    assert start is not None
    open_table(api, (2, "ana", 100_000))
    tail.refresh()
    for _ in range(2):
        open_round(api)
        finish_round(api)
        tail.refresh()
    open_round(api)  # the last round stays open: its cards are withheld
    tail.refresh()
    feed = Feed(store)
    scopes = [
        FeedScope(),
        scope_for("dealer"),
        scope_for("floor", ["system"]),
        scope_for("auditor", None, ["stacks_dealt", "stacks_assigned", "round_closed"]),
    ]
    assert tail.base is not None and tail.base > start  # trimmed to its capacity
    for scope in scopes:
        for after in range(tail.base, tail.last + 1):
            for limit in (1, 3, 500):
                mine = tail.page(after, limit, scope)
                assert mine is not None
                theirs = feed.page(after, limit, scope)
                assert (mine.events, mine.payloads, mine.full) == (
                    theirs.events,
                    theirs.payloads,
                    theirs.full,
                ), (scope, after, limit)
                assert mine.next_after == theirs.next_after
    assert tail.page(tail.base - 1, 10, FeedScope()) is None  # before what it holds
    withheld = tail.page(tail.base, 500, scope_for("auditor", None, ["stacks_dealt"]))
    assert withheld is not None and withheld.events[-1]["redacted"]
    tail.stale_s = 0.0
    assert tail.page(tail.base, 10, FeedScope()) is None  # not refreshed lately: not trusted


def test_followers_at_the_same_place_share_one_page_and_its_text(api: Api) -> None:
    """The tail builds a page once for every follower after the same position with the same
    scope, until the log grows; the SSE routes write its text once for all of them."""
    from entrypoints.http.feed_routes import SharedChunks
    from service_layer.feed import FeedScope, scope_for
    from service_layer.feed_tail import FeedTail

    store = api.service.store
    tail = FeedTail(store, stale_s=3600)
    start = tail.refresh()
    open_table(api, (2, "ana", 100_000))
    tail.refresh()
    first = tail.page(start, 500, FeedScope())
    assert first is not None and first.events
    assert tail.page(start, 500, FeedScope()) is first  # the same object for the next follower
    assert tail.page(start, 500, scope_for("dealer")) is not first  # another scope, its own
    chunks = SharedChunks()
    text = chunks.of(first)
    assert chunks.of(first) is text
    assert text.decode().count("\ndata: ") == len(first.events)
    open_round(api)
    tail.refresh()  # the log grew: a page built now holds the new events
    again = tail.page(start, 500, FeedScope())
    assert again is not None and again is not first
    assert len(again.events) > len(first.events) and chunks.of(again) != text
