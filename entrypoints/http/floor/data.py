"""What each floor page shows, read from the same places the JSON queries read: the service's
folded table state (``GET /tables/{id}``), the round history projection (``GET
/tables/{id}/rounds``), the report's projections (``GET /reports``) and the store's checkpoints.

No figure of money is worked out here: every amount and every hold % comes from a projection or
from the folded state as it is; this module only picks rows and names alerts.
"""

from __future__ import annotations

from datetime import date
from functools import partial
from typing import Any

from fastapi import Request

from entrypoints.http.queries import projections_of, service_of, settings_of
from eventlog.system_events import SYSTEM_STREAM
from table_core.table.house_way_install import clause_words, house_way_status


class NotFound(Exception):
    """An unknown table or round: the 404 page."""


def gaming_day(request: Request) -> Any:
    """The settings' gaming day (zone and cut-off), made once per app: parsing them costs more
    than a page's queries."""
    found = getattr(request.app.state, "floor_gaming_day", None)
    if found is None:
        found = request.app.state.floor_gaming_day = settings_of(request).gaming_day()
    return found


def pits(request: Request) -> dict[str, str]:
    """The ``pits`` setting (table -> pit) as ``GET /reports`` reads it, once per app."""
    found = getattr(request.app.state, "floor_pits", None)
    if found is None:
        found = request.app.state.floor_pits = settings_of(request).pit_of()
    return dict(found)


def today(request: Request) -> date:
    """The gaming day now, by the service's clock (the one that stamps the events)."""
    day: date = gaming_day(request).today(service_of(request).clock())
    return day


def table_state(request: Request, table_id: str) -> Any:
    """The table's folded state (as ``GET /tables/{id}``); :class:`NotFound` if never opened."""
    service = service_of(request)
    if table_id == SYSTEM_STREAM:
        raise NotFound(f"no table {table_id!r}")
    state = service.load(table_id)
    if state.table_id is None:
        service.forget(table_id)
        raise NotFound(f"no table {table_id!r} has been opened")
    return state


def table_ids(request: Request) -> list[str]:
    from adapters.projections import bankroll

    def query(runner: Any) -> list[str]:
        with runner.db.read() as tx:
            return [row["table_id"] for row in bankroll.house(tx)]

    return projections_of(request).read(query)


def _status(listed: dict[str, Any], state: Any, refusing: str | None) -> str:
    """``refusing`` (the service refuses commands), ``in round``, else the books' status as
    ``GET /tables`` lists it (``open``; ``closed`` once the gaming day's closer is in)."""
    if refusing:
        return "refusing"
    if listed["status"] == "closed":
        return "closed"
    if state.round is not None and state.round.phase != "closed":
        return "in round"
    return "open"


def _alerts(
    state: Any, day: dict[str, Any] | None, verification: dict[str, Any] | None
) -> list[str]:
    alerts = []
    if verification is not None and not verification["ok"]:
        alerts.append("verification failed")
    tray = state.tray
    if tray is not None and state.rules is not None and tray < state.rules.limits.max_bet:
        alerts.append("tray needs a fill")  # it could not pay one maximum bet (docs/floor.md)
    if day is not None:
        variances = ("opener_variance", "closer_variance", "drop_variance", "win_variance")
        if any(day.get(name) for name in variances):
            alerts.append("variance in the books")
    if state.uncounted:
        alerts.append("drop box not counted: " + ", ".join(d.isoformat() for d in state.uncounted))
    return alerts


def pit(request: Request) -> dict[str, Any]:
    """Every table as ``GET /tables`` lists it (``read_tables``: gaming day, House Way, books
    status), today's row of ``GET /reports?day=`` (``build_report``: drop, win, hold %), and from
    the folded state the players seated, the round's phase and the tray: one snapshot of the
    projections, and the states the service holds in memory (no query that grows with history).
    The pit's totals add the rows up (hold % of the sums, by the report's own ``percent``);
    ``as_of`` is the service's clock when the page was read, in the casino's zone."""
    from adapters.projections.books import percent, read_tables, win_of
    from adapters.projections.reports import build_report

    service = service_of(request)
    now = service.clock()
    day = gaming_day(request).day_of(now)

    def query(runner: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        with runner.db.read() as tx:
            listed = read_tables(tx)
        report = build_report(
            runner, gaming_day(request), day=day, views=("accounting",), catch_up=False
        )
        return listed, report

    listed, report = projections_of(request).read(query)
    figures_of = {row["table_id"]: row for row in report["accounting"]}
    verification = getattr(request.app.state, "floor_verification", None)
    rows = []
    for table in listed:
        state = table_state(request, table["table_id"])
        figures = figures_of.get(table["table_id"])
        rows.append(
            {
                **table,
                "status": _status(table, state, service.refusing),
                "variant": state.rules.variant,
                "house_way_file": house_way_status(state),
                "seated": len(state.seats),
                "round": None if state.round is None else state.round.number,
                "phase": "no round" if state.round is None else state.round.phase,
                "tray": state.tray,
                "today": figures,
                "win": None if figures is None else win_of(figures),
                "alerts": _alerts(state, figures, verification),
            }
        )
    drop = sum(row["today"]["drop"] for row in rows if row["today"] is not None)
    win = sum(row["win"] for row in rows if row["win"] is not None)
    trays = [row["tray"] for row in rows if row["tray"] is not None]
    totals = {
        "tables": len(rows),
        "seated": sum(row["seated"] for row in rows),
        "tray": sum(trays) if trays else None,
        "drop": drop,
        "win": win,
        "hold_pct": percent(win, drop),
    }
    zone = gaming_day(request)
    return {
        "day": day,
        "tables": rows,
        "totals": totals,
        "as_of": now.astimezone(zone.zone).strftime("%Y-%m-%d %H:%M:%S"),
        "zone": zone.zone_name,
        "refusing": service.refusing,
        "subscriptions": _subscriptions(request),
    }


def _subscriptions(request: Request) -> list[dict[str, Any]]:
    """The event feed's named subscriptions with their lag behind the log's head (as ``GET
    /subscriptions`` and ``/metrics`` give them, docs/feed.md): the table systems that follow the
    casino and how far behind each is."""
    from service_layer.feed_subscriptions import described

    feed = getattr(request.app.state, "feed", None)
    if feed is None:
        return []
    head = int(feed.feed.head())
    return [described(s, head) for s in feed.subscriptions.all()]


def rounds(
    request: Request, table_id: str, round_number: int | None = None, last: int | None = None
) -> list[Any]:
    """The round history projection's documents (as ``GET /tables/{id}/rounds``)."""
    from adapters.projections.rounds import read_rounds

    def query(runner: Any) -> list[Any]:
        with runner.db.read() as tx:
            return read_rounds(tx, table_id, round_number=round_number, last=last)

    return [r.to_dict() for r in projections_of(request).read(query)]


def live(request: Request, table_id: str) -> dict[str, Any]:
    """The table now: its state and the round in play (else the last one played)."""
    state = table_state(request, table_id)
    number = state.round.number if state.round is not None else state.last_round
    found = rounds(request, table_id, round_number=number) if number else []
    return {
        "state": state,
        "round": found[0] if found else None,
        "house_way": house_way_status(state),
        "clause": partial(clause_words, state),
    }


def books(request: Request, day: date, table_id: str | None) -> dict[str, Any]:
    """The gaming day's report (``GET /reports?day=``), every day's rows for the by-day chart, the
    roll-up ending on the day (``GET /reports?day=&view=rollup``: statistical against theoretical
    hold per table, pit and casino), the day's hours (``accounting.hourly``) and the day's
    ratings (``read_ratings`` as ``GET /players/{id}/ratings?day=`` reads them, every player's;
    one table's with ``table_id``)."""
    from adapters.projections import accounting
    from adapters.projections.ratings import read_ratings
    from adapters.projections.reports import build_report
    from adapters.projections.rollup import rollup

    ids = [table_id] if table_id else table_ids(request)

    def query(runner: Any) -> dict[str, Any]:
        report = build_report(
            runner,
            gaming_day(request),
            day=day,
            table_id=table_id,
            views=_BOOK_VIEWS,
            catch_up=False,
        )
        every = build_report(
            runner,
            gaming_day(request),
            day=None,
            table_id=table_id,
            views=("accounting", "side_bets"),
            catch_up=False,
        )
        with runner.db.read() as tx:
            report["hours"] = accounting.hourly(tx, gaming_day(request), ids, day)
            rated = read_ratings(tx, day=day, day_of=gaming_day(request).day_of)
            # The rows GET /reports?view=rollup sums, from the every-day read the by-day chart
            # needs anyway (no second read of the whole history).
            report["rollup"] = rollup(
                tx, every["accounting"], every["side_bets"], day, pits(request)
            )
        report["holds"] = holds_by_period(report["rollup"])
        report["ratings"] = [r for r in rated if table_id in (None, r["table_id"])]
        report["days"] = accounting.day_totals(every["accounting"])
        report["totals"] = accounting.day_totals(report["accounting"])
        return report

    return projections_of(request).read(query)


_BOOK_VIEWS = ("accounting", "side_bets")


def holds_by_period(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The roll-up's rows side by side: one line per table, pit and the casino, with its day,
    month-to-date and year-to-date row (a period with no play is absent)."""
    lines: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        line = lines.setdefault(
            (row["level"], row["name"]), {"level": row["level"], "name": row["name"]}
        )
        line[row["period"]] = row
    return list(lines.values())


def player(request: Request, player_id: str) -> dict[str, Any]:
    """The player's ratings as ``GET /players/{id}/ratings`` answers them (``ratings_of``, every
    gaming day); :class:`NotFound` for a player with no rating."""
    from entrypoints.http.queries import ratings_of

    found = ratings_of(request, player_id, None, gaming_day(request).day_of)
    if not found["ratings"]:
        raise NotFound(f"no rating of a player {player_id!r}")
    return found


def last_checkpoint(request: Request) -> Any:
    store = service_of(request).store
    last = getattr(store, "last_checkpoint", None)
    if last is not None:
        return last()
    checkpoints = store.checkpoints()
    return checkpoints[-1] if checkpoints else None
