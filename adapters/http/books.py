"""The books' commands over HTTP (issue 18, R16): a body's chips and actors as the core's
commands take them, for ``command_routes``' routes ``/gaming-day/open``, ``/fill`` and ``/credit``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from adapters.http.errors import ApiProblem
from adapters.http.route_spec import Builder
from table_core import commands as c
from table_core.events import Actor


def chips(given: Any) -> dict[int, int]:
    """A body's chips as the core takes them; a denomination given twice is refused."""
    out: dict[int, int] = {}
    for each in given:
        if each.denomination in out:
            raise ApiProblem(
                422, "invalid_request", f"denomination {each.denomination} is given twice"
            )
        out[each.denomination] = each.amount
    return out


def open_day(t: str, b: Any, a: Actor, at: datetime) -> c.Command:
    extra = {} if b.rules is None else {"rules": b.rules}
    return c.OpenGamingDay(
        gaming_day=b.gaming_day,
        opener=chips(b.opener),
        dealer=Actor(id=b.dealer, role="dealer"),
        table_id=t,
        actor=a,
        at=at,
        **extra,
    )


def slip(kind: type[c.FillTray] | type[c.CreditTray]) -> Builder:
    """A fill (the cage issues, the dealer receives) or a credit (the other way round)."""
    issuer, receiver = ("cage", "dealer") if kind is c.FillTray else ("dealer", "cage")

    def build(_t: str, b: Any, a: Actor, at: datetime) -> c.Command:
        return kind(
            slip=b.slip,
            chips=chips(b.chips),
            requested_by=Actor(id=b.requested_by, role="floor"),
            issued_by=Actor(id=b.issued_by, role=issuer),
            received_by=Actor(id=b.received_by, role=receiver),
            actor=a,
            at=at,
        )

    return build
