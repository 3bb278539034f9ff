"""Queries: the table's state, its recorded events, a round's recall, reports, audit verify.

Reads never take a table's command lock: the state is the service's last folded state (immutable,
so a reader never sees half a command), and events come from the store as committed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import date
from functools import partial
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Path, Query, Request

from adapters.settings import Settings
from entrypoints.http.auth import endpoint
from entrypoints.http.command_routes import ERRORS, TableId
from entrypoints.http.errors import ApiProblem, ErrorBody
from entrypoints.http.models import (
    ID_PATTERN,
    TABLE_ID_PATTERN,
    TableEventOut,
    TableOut,
)
from entrypoints.http.views import event_out, table_out
from eventlog.system_events import SYSTEM_STREAM
from service_layer.deck_custody import deck_record
from service_layer.feed import SECRET_TYPES, withhold_cards
from service_layer.service import TableService

router = APIRouter(tags=["queries"])
T = TypeVar("T")
READ_ERRORS: dict[int | str, dict[str, Any]] = {code: ERRORS[code] for code in (401, 403, 422)}
READ_ERRORS[404] = {"model": ErrorBody, "description": "no such table or round"}
#: Each endpoint's decorator: its operationId names its right (``auth.endpoint``).
_get = partial(endpoint, router.get, responses=READ_ERRORS)


def service_of(request: Request) -> TableService:
    service: TableService = request.app.state.service
    return service


def settings_of(request: Request) -> Settings:
    """The settings the app was made with (``create_app``)."""
    settings: Settings = request.app.state.settings
    return settings


def _opened_table(service: TableService, table_id: str) -> Any:
    if table_id == SYSTEM_STREAM:
        raise ApiProblem(404, "not_found", f"no table {table_id!r}")
    state = service.load(table_id)
    if state.table_id is None:
        service.forget(table_id)  # keep no empty state in memory for an id nobody opened
        raise ApiProblem(404, "not_found", f"no table {table_id!r} has been opened")
    return state


@_get(
    "/tables/{table_id}",
    "table_state",
    "The table's state: seats, balances, totals and the live round",
    response_model=TableOut,
)
def table_state(request: Request, table_id: TableId) -> Any:
    return table_out(_opened_table(service_of(request), table_id))


@_get(
    "/tables/{table_id}/events",
    "table_events",
    "The table's recorded events, in order, after a version",
    response_model=list[TableEventOut],
)
def table_events(
    request: Request,
    table_id: TableId,
    after_version: Annotated[int, Query(ge=0, le=2**62)] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 1000,
) -> Any:
    service = service_of(request)
    state = _opened_table(service, table_id)
    records = service.store.read_stream(table_id, after_version)
    live = state.round
    open_round = None if live is None or live.phase in ("closed", "voided") else live.number
    return [_table_event(r, open_round) for r in records[:limit]]


def _table_event(record: Any, open_round: int | None) -> TableEventOut:
    """The event, its cards withheld while its round is open (the deck order would show every
    hand, the banker's too, before they are set)."""
    shown = event_out(record, TableEventOut)
    secret = record.type in SECRET_TYPES and open_round is not None
    if secret and record.payload.get("round") == open_round:
        # The payload is the event's own copy (``event_out``): blanked in place.
        shown.redacted = withhold_cards(record.type, shown.payload)
    return shown


@_get(
    "/tables/{table_id}/decks",
    "table_decks",
    "The table's decks: each one's chain of custody (R20)",
    response_model=list[dict[str, Any]],
)
def table_decks(request: Request, table_id: TableId) -> Any:
    """Each deck's record: seal, package, inspection, shuffler receipt, the rounds dealt from it,
    whether it is held, and its retirement (an empty list: the table keeps no custody yet)."""
    return [
        deck_record(deck) for deck in _opened_table(service_of(request), table_id).decks.values()
    ]


RoundNumber = Annotated[int, Path(ge=1, le=2**62)]


@_get("/tables", "tables", "Every table, open or closed, with its gaming day, House Way and status")
def tables(request: Request) -> list[dict[str, Any]]:
    """From the books projection: ``status`` is ``open`` or ``closed`` (the gaming day's
    closer recorded); ``gaming_day`` is null for a table opened without an opener (no books)."""
    from adapters.projections.books import read_tables

    def query(runner: Any) -> list[dict[str, Any]]:
        with runner.db.read() as tx:
            return read_tables(tx)

    return projections_of(request).read(query)


# --- projections: round recall and reports (adapters/projections, docs/projections.md) ----------


class Projections:
    """One projection runner per app. Reads catch the projections up first (so no reader sees
    stale figures); catching up is serialised here, since request threads would otherwise race
    to apply the same batch (the runner refuses the loser, but it would have done the work)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self._runner: Any = None
        self._lock = threading.Lock()

    def read(self, query: Callable[[Any], T]) -> T:
        """``query(runner)`` on projections caught up to the store's head. Under the lock too:
        the in-memory store's projections share one SQLite connection between threads."""
        from adapters.projections import ProjectionRunner

        with self._lock:
            if self._runner is None:
                self._runner = ProjectionRunner(self.store)
            self._runner.catch_up()
            return query(self._runner)


def projections_of(request: Request) -> Projections:
    projections: Projections | None = getattr(request.app.state, "projections", None)
    if projections is None:
        projections = request.app.state.projections = Projections(service_of(request).store)
    return projections


def _rounds(request: Request, table_id: str, **where: Any) -> list[Any]:
    from adapters.projections.rounds import read_rounds

    def query(runner: Any) -> list[Any]:
        with runner.db.read() as tx:
            return read_rounds(tx, table_id, **where)

    return projections_of(request).read(query)


@_get(
    "/tables/{table_id}/rounds/{round}",
    "round_recall",
    "Game recall: one round as recorded (cards, bets, hands, results)",
)
def round_recall(request: Request, table_id: TableId, round: RoundNumber) -> dict[str, Any]:
    found = _rounds(request, table_id, round_number=round)
    if not found:
        raise ApiProblem(404, "not_found", f"table {table_id!r} has no round {round}")
    record: dict[str, Any] = found[0].to_dict()
    return record


@_get(
    "/tables/{table_id}/rounds",
    "round_history",
    "Game recall: the last rounds, optionally where a seat or a player had action",
)
def round_history(
    request: Request,
    table_id: TableId,
    last: Annotated[int, Query(ge=1, le=500)] = 20,
    seat: Annotated[int | None, Query(ge=1, le=6)] = None,
    player_id: Annotated[str | None, Query(pattern=ID_PATTERN)] = None,
) -> list[dict[str, Any]]:
    found = _rounds(request, table_id, last=last, seat=seat, player_id=player_id)
    return [r.to_dict() for r in found]


@_get(
    "/players/{player_id}/ratings",
    "player_ratings",
    "A player's ratings: time, rounds, average bets, buy-ins, actual and theo win",
)
def player_ratings(
    request: Request,
    player_id: Annotated[str, Path(pattern=ID_PATTERN)],
    day: Annotated[date | None, Query(description="gaming day; none: every day")] = None,
) -> dict[str, Any]:
    """``adapters.projections.ratings.read_ratings`` (docs/projections.md, "Player ratings"):
    every rating of the player by start, with the floor's corrections beside the figures."""
    return ratings_of(request, player_id, day, settings_of(request).gaming_day().day_of)


def ratings_of(
    request: Request, player_id: str, day: date | None, day_of: Callable[[Any], date]
) -> dict[str, Any]:
    """A player's ratings as ``GET /players/{id}/ratings`` answers them (the floor's player page
    reads them here too): ``day_of`` is the report's gaming day of a time."""
    from adapters.projections.ratings import read_ratings

    def query(runner: Any) -> dict[str, Any]:
        with runner.db.read() as tx:
            found = read_ratings(tx, day=day, player=player_id, day_of=day_of)
        return {"player_id": player_id, "ratings": found}

    return projections_of(request).read(query)


ReportView = Literal[
    "accounting", "side_bets", "players", "house", "rotation", "eligibility", "offers", "rollup"
]


@_get(
    "/reports",
    "reports",
    "Reports: accounting per gaming day, bankroll, house result, banker rotation",
)
def reports(
    request: Request,
    day: Annotated[
        date | Literal["all"] | None,
        Query(description="gaming day (YYYY-MM-DD); `all` or none: every day"),
    ] = None,
    table_id: Annotated[str | None, Query(pattern=TABLE_ID_PATTERN)] = None,
    view: Annotated[list[ReportView] | None, Query(description="views; none: all")] = None,
) -> dict[str, Any]:
    from adapters.projections.reports import VIEWS, build_report

    views = tuple(view) if view else VIEWS
    settings = settings_of(request)
    gaming_day = settings.gaming_day()
    pits = settings.pit_of()

    def query(runner: Any) -> dict[str, Any]:
        report: dict[str, Any] = build_report(
            runner,
            gaming_day,
            day=None if day == "all" else day,
            table_id=table_id,
            views=views,
            catch_up=False,
            pits=pits,
        )
        return report

    return projections_of(request).read(query)


# --- audit: verify a range (audit/, docs/audit.md) --------------------------------------------


def _log_source(request: Request) -> Any:
    """The log to audit. A server started on a database URL reads it as ``paigow audit verify``
    does (read-only, one snapshot, with the database's closing checks); otherwise the store's own
    log, with the store's public key."""
    from audit.sources import LogSource, open_database

    url: str | None = getattr(request.app.state, "audit_url", None)
    if url is not None:
        settings = settings_of(request)
        return open_database(
            url, signing_key=settings.signing_key, public_setting=settings.public_key
        )
    store = service_of(request).store
    rows, checkpoints = store.raw_log()  # type: ignore[attr-defined]
    # Rows first, then checkpoints: one signed after the rows were read would look like a cut
    # tail, so only checkpoints within the rows read are checked.
    last = rows[-1][0] if rows else 0
    checkpoints = [c for c in checkpoints if c[0] <= last]
    public_key = getattr(store, "public_key", None)
    return LogSource(type(store).__name__, iter(rows), checkpoints, public_key, total=len(rows))


def verify_live(
    request: Request,
    table_id: str | None = None,
    from_round: int | None = None,
    to_round: int | None = None,
) -> Any:
    """``audit.verify.verify_log`` over the log a server serves, as ``GET /audit/verify`` and the
    floor's "Start a verification" both run it: a live log holds the events of the rounds in
    progress after its last checkpoint (their round's end seals them), so that tail is accepted
    and said in the summary; an event that should have been sealed and was not (a round's end, a
    table fact between rounds, a system event) stays a finding (``audit.seal``), as for
    ``paigow audit verify --allow-unsealed-tail`` and ``paigow db verify``."""
    from audit.verify import verify_log

    source = _log_source(request)
    try:
        return verify_log(
            source,
            table=table_id,
            first_round=from_round,
            last_round=to_round,
            allow_unsealed_tail=True,
        )
    finally:
        source.close()


@_get(
    "/audit/verify",
    "audit_verify",
    "Audit a range: the chain, procedure, rules and money re-derived by the core",
)
def audit_verify(
    request: Request,
    table_id: Annotated[str | None, Query(pattern=TABLE_ID_PATTERN)] = None,
    from_round: Annotated[int | None, Query(ge=1, le=2**62)] = None,
    to_round: Annotated[int | None, Query(ge=1, le=2**62)] = None,
) -> dict[str, Any]:
    """Every finding of ``audit.verify.verify_log`` (empty when the log holds), the money of each
    table and the summary line. The whole chain is always checked (it vouches for every event);
    ``table_id``, ``from_round`` and ``to_round`` limit which rounds are re-derived."""
    if from_round is not None and to_round is not None and from_round > to_round:
        raise ApiProblem(
            422, "invalid_request", f"from_round {from_round} is after to_round {to_round}"
        )
    report = verify_live(request, table_id, from_round, to_round)
    findings = [{**f.to_dict(), "text": str(f)} for f in report.findings]
    return {**report.to_dict(), "findings": findings, "summary": report.summary()}
