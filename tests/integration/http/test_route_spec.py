"""A route that names its command's class copies the body's fields into the command
(``route_spec.copied``): every field the body carries reaches the command, none is dropped."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime

from entrypoints.http.command_routes import ROUTE_LIST, ROUTES
from entrypoints.http.models import BetBody, BuyInBody
from table_core import commands as c
from table_core.events import Actor

DEALER = Actor(id="dealer-1", role="dealer")
AT = datetime(2024, 5, 1, 20, 0, tzinfo=UTC)


def _copied_names(route_operation: str) -> tuple[str, ...] | None:
    route = next(r for r in ROUTE_LIST if r.operation == route_operation)
    if route.build is None:
        return None  # the service's own deal or dice
    names = inspect.getclosurevars(route.build).nonlocals.get("names")
    return None if names is None else tuple(names)


def test_every_copied_route_takes_each_field_of_its_body_but_the_expected_version() -> None:
    copied = 0
    for route in ROUTE_LIST:
        names = _copied_names(route.operation)
        if names is None:
            continue  # the route builds its command itself
        copied += 1
        assert set(names) == set(route.body.model_fields) - {"expected_version"}, route.operation
    assert copied == 19


def test_a_bet_and_a_buy_in_become_exactly_the_commands_written_out() -> None:
    bet = BetBody(player_id="ana", amount=2_500)
    assert ROUTES["/round/bet"].build is not None
    assert ROUTES["/round/bet"].build("PG-1", bet, DEALER, AT) == c.PlaceBet(
        player_id="ana", amount=2_500, actor=DEALER, at=AT
    )
    buy_in = BuyInBody(player_id="ana", amount=100_000, medium="marker", marker="M-7")
    assert ROUTES["/buy-in"].build is not None
    assert ROUTES["/buy-in"].build("PG-1", buy_in, DEALER, AT) == c.BuyIn(
        player_id="ana", amount=100_000, medium="marker", marker="M-7", actor=DEALER, at=AT
    )
