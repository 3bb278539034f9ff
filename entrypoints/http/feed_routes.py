"""The event feed over HTTP (docs/feed.md): every table's events, and the system stream's, in the
log's global order, as JSON pages or as Server-Sent Events; the checkpoints that seal them; named
subscriptions whose consumers' positions the server keeps.

- ``GET /events?after=P&limit=N&types=…&table_id=…``: one page after position ``P``
  (``next_after`` says where the next starts). With ``Accept: text/event-stream`` the same events
  as Server-Sent Events, each event's position its ``id``: catch-up pages first, then each event
  as it commits (PostgreSQL LISTEN/NOTIFY, polling on SQLite), a comment line every
  ``feed_heartbeat_s`` seconds when nothing else went out. ``Last-Event-ID`` (what an
  ``EventSource`` sends when it reconnects) resumes after that position exactly.
- ``GET /checkpoints?after=P``: the signed checkpoints after a position (an event's
  ``sealed_by`` names one), to check the signature that seals an event.
- ``POST /subscriptions`` (floor), ``GET /subscriptions``, ``GET /subscriptions/{name}/events``
  (after the acknowledged position; JSON or SSE), ``POST /subscriptions/{name}/ack``,
  ``DELETE /subscriptions/{name}`` (floor).

Who reads what, and what no one reads before a round is over: ``service_layer/feed.py``.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Header, Path, Query, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from adapters.store.feed_listen import listener_for
from adapters.store.subscriptions import Subscription, Subscriptions, subscriptions_for
from entrypoints.http.auth import endpoint, require
from entrypoints.http.errors import ApiProblem, error_docs, refusing
from service_layer import feed_subscriptions as subs
from service_layer.feed import (
    MAX_PAGE,
    Feed,
    FeedPage,
    FeedRefused,
    FeedScope,
    UnknownEventTypes,
    event_lines,
    page_json,
    scope_for,
    split_list,
)
from service_layer.feed_tail import FeedTail
from service_layer.feed_watch import FeedWatch
from service_layer.metrics import FeedCollector
from service_layer.operators.keys import ApiKey

router = APIRouter(tags=["feed"])

#: Events read per page while a stream catches up.
SSE_PAGE = 500
EVENT_STREAM = "text/event-stream"
_ERRORS = error_docs(
    (403, "this key's role may not read this (a dealer: the system stream, subscriptions)"),
    (404, "no such subscription"),
    (409, "a subscription of that name exists already"),
    (422, "a parameter out of range, or a position past the log's head"),
)
#: Each endpoint's decorator, the feed's error answers documented: its operationId names its
#: right (``auth.endpoint``).
_get, _post, _delete = (
    partial(endpoint, verb, responses=_ERRORS) for verb in (router.get, router.post, router.delete)
)
#: Every watch of this process: a signal to stop the server ends their followers' streams.
_WATCHES: weakref.WeakSet[FeedWatch] = weakref.WeakSet()

Types = Annotated[
    list[Annotated[str, Field(pattern=r"^[a-z0-9_,]{1,400}$")]] | None,
    Query(max_length=50, description="event types, repeated or comma-separated; none: all"),
]
TableIds = Annotated[
    list[Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._,-]{0,400}$")]] | None,
    Query(max_length=50, description="table ids (`system`: the system stream), repeated or "
          "comma-separated; none: every stream the role reads"),
]  # fmt: skip
After = Annotated[int, Query(ge=0, le=2**62, description="the position to read after")]
Limit = Annotated[int, Query(ge=1, le=MAX_PAGE, description="events in the page, at most")]
LastEventId = Annotated[
    str | None,
    Header(alias="Last-Event-ID", description="SSE: resume after this position"),
]
Name = Annotated[str, Path(pattern=subs.NAME_PATTERN)]


class FeedEventOut(BaseModel):
    """One event as stored, with its links and the checkpoint that seals it (docs/feed.md)."""

    position: int
    stream_id: str
    version: int
    type: str
    schema_version: int
    at: str = Field(description="the stored time text, as the event hash covers it")
    actor: dict[str, str]
    command_id: str
    prev_hash: str
    hash: str
    global_prev: str
    global_hash: str
    sealed_by: int | None = Field(description="position of the checkpoint that seals it")
    redacted: list[str] = Field(description="the payload's fields withheld (an open round)")
    payload: dict[str, Any]


class FeedPageOut(BaseModel):
    events: list[FeedEventOut]
    next_after: int
    head: int


class CheckpointOut(BaseModel):
    position: int
    hash: str
    signed_at: str
    key_id: str
    signature: str


class SubscriptionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=subs.NAME_PATTERN)
    types: list[Annotated[str, Field(pattern=r"^[a-z0-9_]{1,100}$")]] | None = Field(
        default=None, max_length=100
    )
    table_ids: list[Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]] | None = (
        Field(default=None, max_length=200)
    )
    after: int = Field(default=0, ge=0, le=2**62, strict=True)


class AckIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    position: int = Field(ge=0, le=2**62, strict=True)


class SubscriptionOut(BaseModel):
    name: str
    types: list[str] | None
    table_ids: list[str] | None
    position: int
    lag: int
    created_at: str
    created_by: str
    acked_at: str | None


#: The decorator of the two event routes (a JSON page or SSE), which take the key themselves.
_events_get = partial(
    _get,
    responses={
        200: {
            "description": "A page of events (JSON), or with `Accept: text/event-stream` the "
            "events as Server-Sent Events (`id`: the event's position; `data`: the event as in "
            "a page)",
            "content": {EVENT_STREAM: {"schema": {"type": "string"}}},
            "model": FeedPageOut,
        },
        **_ERRORS,
    },
    key_parameter=True,
)


# --- the app's feed ----------------------------------------------------------------------------


class FeedState:
    """One per app: the feed, its watch and the subscriptions, over the service's store."""

    def __init__(self, store: Any, poll_s: float, heartbeat_s: float) -> None:
        self.feed = Feed(store)
        # The followers at the head read the tail the watcher refreshes, not the database.
        self.tail = FeedTail(store)
        self.watch = FeedWatch(self.tail.refresh, poll_s, listener_for(store))
        self.subscriptions: Subscriptions = subscriptions_for(store)
        self.heartbeat_s = heartbeat_s
        self.chunks = SharedChunks()
        _WATCHES.add(self.watch)


class SharedChunks:
    """The SSE text of each page the tail hands out, written once for every follower it goes to.

    The followers at the head get the same ``FeedPage`` object from the tail at each wake-up
    (``FeedTail.page``), so its text is written, and encoded, for the first of them and sent as
    is to the others: the per-follower work of a wake-up is one look-up and one write. The page
    is kept with its text, so its ``id`` is not reused while the entry lives."""

    #: Entries kept (the pages of one or two wake-ups, for a few scopes), then forgotten at once.
    KEPT = 64

    def __init__(self) -> None:
        self._written: dict[int, tuple[FeedPage, bytes]] = {}

    def of(self, page: FeedPage) -> bytes:
        found = self._written.get(id(page))
        if found is not None and found[0] is page:
            return found[1]
        chunk = _sse(page)
        if len(self._written) >= self.KEPT:
            self._written = {}
        self._written[id(page)] = (page, chunk)
        return chunk


def install(app: FastAPI, settings: Any) -> None:
    app.state.feed = state = FeedState(
        app.state.service.store, settings.feed_poll_ms / 1000, settings.feed_heartbeat_s
    )
    app.state.store_gauges.register(FeedCollector(state.subscriptions, state.feed.head))
    app.include_router(router)
    _stop_on_server_exit()


def _state(request: Request) -> FeedState:
    state: FeedState = request.app.state.feed
    return state


def _stop_on_server_exit() -> None:
    """uvicorn waits for every open response before it stops, and an event stream never ends by
    itself: its signal handler is wrapped (once a process) to end the streams first."""
    try:
        from uvicorn.server import Server
    except ImportError:  # pragma: no cover - uvicorn is a dependency
        return
    original = Server.handle_exit
    if getattr(original, "_stops_feeds", False):
        return

    def handle_exit(self: Any, sig: int, frame: Any) -> None:
        for watch in list(_WATCHES):
            watch.stop()
        original(self, sig, frame)

    handle_exit._stops_feeds = True  # type: ignore[attr-defined]
    Server.handle_exit = handle_exit  # type: ignore[method-assign]


# --- reading -----------------------------------------------------------------------------------


def _scope(key: ApiKey, table_id: list[str] | None, types: list[str] | None) -> FeedScope:
    return _scoped(lambda: scope_for(key.role, split_list(table_id), split_list(types)))


def _scoped(make: Callable[[], FeedScope]) -> FeedScope:
    """The scope ``make`` returns, or its refusal: 403 for the role, 422 for an unknown type."""
    try:
        return make()
    except FeedRefused as error:
        raise ApiProblem(403, "forbidden", str(error)) from None
    except UnknownEventTypes as error:
        raise ApiProblem(422, "invalid_request", str(error)) from None


def _resume(after: int, last_event_id: str | None) -> int:
    """Where to start: after ``Last-Event-ID`` when the client sends one, else ``after``."""
    if last_event_id is None or not last_event_id.strip():
        return after
    text = last_event_id.strip()
    if not text.isdigit() or len(text) > 19:
        raise ApiProblem(422, "invalid_request", "Last-Event-ID is an event's position")
    return int(text)


def _wants_stream(request: Request) -> bool:
    return EVENT_STREAM in request.headers.get("accept", "")


async def _answer(
    request: Request, state: FeedState, after: int, limit: int, scope: FeedScope
) -> Response:
    if _wants_stream(request):
        return StreamingResponse(
            _event_stream(state, after, scope),
            media_type=EVENT_STREAM,
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    page = await run_in_threadpool(state.feed.page, after, limit, scope)
    return Response(page_json(page), media_type="application/json")


def _sse(page: FeedPage) -> bytes:
    return "".join(
        f"id: {event['position']}\ndata: {line}\n\n"
        for event, line in zip(page.events, event_lines(page), strict=True)
    ).encode()


async def _event_stream(
    state: FeedState, after: int, scope: FeedScope
) -> AsyncIterator[str | bytes]:
    """Catch-up pages, then live events, heartbeats between: until the client goes or the
    server stops. ``after`` only moves past events sent; a heartbeat carries it (an ``id`` with
    no data) when a filtered page moved it past positions that were not the client's."""
    watch, feed, tail, chunks = state.watch, state.feed, state.tail, state.chunks
    with watch.following():
        yield f"retry: 1000\n: paigow event feed after {after}\n\n"
        sent_id = after
        beat = time.monotonic()
        while not watch.stopped:
            mark = watch.mark  # before the read: a commit after it moves the mark
            page = tail.page(after, SSE_PAGE, scope)  # from memory, at the head: shared
            shared = page is not None
            if page is None:  # behind what the tail holds: the database, this follower's own
                page = await run_in_threadpool(feed.page, after, SSE_PAGE, scope)
            if page.events:
                yield chunks.of(page) if shared else _sse(page)
                sent_id = page.events[-1]["position"]
                beat = time.monotonic()
            after = page.next_after
            if page.full:
                continue
            left = state.heartbeat_s - (time.monotonic() - beat)
            if left <= 0:
                moved = f"id: {after}\n" if after > sent_id else ""
                yield f": heartbeat\n{moved}\n"
                sent_id = max(sent_id, after)
                beat = time.monotonic()
                continue
            # At most a second between reads, woken or not: a watcher stuck or gone delays a
            # follower (the tail goes stale, the database answers), never stalls it.
            await watch.changed(mark, min(left, 1.0))


@_events_get(
    "/events",
    "feed_events",
    "The event feed: every stream's events after a global position (JSON page or SSE)",
)
async def feed_events(
    request: Request,
    key: Annotated[ApiKey, Depends(require("feed_events"))],
    after: After = 0,
    limit: Limit = 100,
    types: Types = None,
    table_id: TableIds = None,
    subscription: Annotated[str | None, Query(pattern=subs.NAME_PATTERN)] = None,
    last_event_id: LastEventId = None,
) -> Response:
    state = _state(request)
    if subscription is not None:
        if types is not None or table_id is not None:
            raise ApiProblem(
                422, "invalid_request", "a subscription has its own types and table_id"
            )
        if key.role not in _subscription_readers():
            raise ApiProblem(403, "forbidden", f"the {key.role} role reads no subscription")
        return await _subscription_answer(request, state, key, subscription, after or None,
                                          limit, last_event_id)  # fmt: skip
    scope = _scope(key, table_id, types)
    return await _answer(request, state, _resume(after, last_event_id), limit, scope)


def _subscription_readers() -> frozenset[str]:
    from service_layer.operators.rights import RIGHTS

    return RIGHTS["subscription_events"]


async def _subscription_answer(
    request: Request,
    state: FeedState,
    key: ApiKey,
    name: str,
    after: int | None,
    limit: int,
    last_event_id: str | None,
) -> Response:
    found = await run_in_threadpool(_run, subs.find, state.subscriptions, name)
    start = found.position if after is None else after
    scope = _scoped(lambda: subs.scope_of(found, key.role))
    return await _answer(request, state, _resume(start, last_event_id), limit, scope)


_run = refusing(subs.SubscriptionError)


@_get(
    "/checkpoints",
    "feed_checkpoints",
    "The signed checkpoints after a position: each seals every event up to its own",
    response_model=list[CheckpointOut],
)
def feed_checkpoints(request: Request, after: After = 0, limit: Limit = 100) -> Any:
    return _state(request).feed.checkpoints(after, limit)


# --- subscriptions -----------------------------------------------------------------------------


@_post(
    "/subscriptions",
    "subscription_create",
    "Create a named subscription: a consumer's filter and its acknowledged position",
    status_code=201,
    response_model=SubscriptionOut,
)
async def subscription_create(request: Request, body: SubscriptionIn) -> Any:
    state = _state(request)
    service = request.app.state.service
    key: ApiKey = request.state.api_key  # the endpoint's check of the key put it there

    def create(head: int) -> Subscription:
        return subs.create(state.subscriptions, body.name, body.types, body.table_ids,
                           body.after, head, key.actor_id, service.now())  # fmt: skip

    return await _changed(state, create)


async def _changed(state: FeedState, change: Callable[[int], Subscription]) -> dict[str, Any]:
    """``change(head)`` on a worker thread, the log's head read first; the subscription it
    leaves, described with its lag (a refusal: its HTTP answer)."""

    def run() -> dict[str, Any]:
        head = state.feed.head()
        return subs.described(change(head), head)

    result: dict[str, Any] = await run_in_threadpool(_run, run)
    return result


@_get(
    "/subscriptions",
    "subscription_list",
    "Every subscription, with its acknowledged position and its lag behind the log",
    response_model=list[SubscriptionOut],
)
def subscription_list(request: Request) -> Any:
    state = _state(request)
    head = state.feed.head()
    return [subs.described(s, head) for s in state.subscriptions.all()]


@_events_get(
    "/subscriptions/{name}/events",
    "subscription_events",
    "A subscription's events after its acknowledged position (JSON page or SSE)",
)
async def subscription_events(
    request: Request,
    name: Name,
    key: Annotated[ApiKey, Depends(require("subscription_events"))],
    after: Annotated[
        int | None, Query(ge=0, le=2**62, description="none: the acknowledged position")
    ] = None,
    limit: Limit = 100,
    last_event_id: LastEventId = None,
) -> Response:
    return await _subscription_answer(request, _state(request), key, name, after, limit,
                                      last_event_id)  # fmt: skip


@_post(
    "/subscriptions/{name}/ack",
    "subscription_ack",
    "Acknowledge a subscription's events up to a position (it only moves forward)",
    response_model=SubscriptionOut,
)
async def subscription_ack(request: Request, name: Name, body: AckIn) -> Any:
    state = _state(request)
    now = request.app.state.service.now
    return await _changed(
        state, lambda head: subs.ack(state.subscriptions, name, body.position, head, now())
    )


@_delete(
    "/subscriptions/{name}",
    "subscription_delete",
    "Delete a subscription (its consumer's position is forgotten)",
    status_code=204,
)
async def subscription_delete(request: Request, name: Name) -> Response:
    await run_in_threadpool(_run, subs.delete, _state(request).subscriptions, name)
    return Response(status_code=204)
