"""The books' commands over HTTP (issue 18, R16): a body's chips and signers as the core's
commands take them, for ``command_routes``' routes ``/gaming-day/open``, ``/gaming-day/close``,
``/fill`` and ``/credit``.

Each of those is a slip signed by several people (``service_layer/operators/signers.py``, R19): the
key of the request is one signer, and the body's ``signatures`` carry the others' keys. Each
signer's actor comes from their key; a name the body gives the old way (``dealer``,
``requested_by``, ``issued_by``, ``received_by``) must be that key's actor.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from entrypoints.http.errors import ApiProblem
from entrypoints.http.route_spec import Signed
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


def _open_day(t: str, b: Any, signers: dict[str, Actor], a: Actor, at: datetime) -> c.Command:
    extra = {} if b.rules is None else {"rules": b.rules}
    return c.OpenGamingDay(
        gaming_day=b.gaming_day,
        opener=chips(b.opener),
        dealer=signers["dealer"],
        table_id=t,
        actor=a,
        at=at,
        **extra,
    )


def _close_day(_t: str, b: Any, signers: dict[str, Actor], a: Actor, at: datetime) -> c.Command:
    return c.CloseGamingDay(closer=chips(b.closer), dealer=signers["dealer"], actor=a, at=at)


def _day_names(what: str) -> Any:
    def names(b: Any) -> tuple[str, dict[str, str | None], dict[str, str]]:
        return what, {"dealer": b.dealer}, {"dealer": "dealer"}

    return names


OPEN_DAY = Signed(_open_day, _day_names("the gaming day's opening"))
CLOSE_DAY = Signed(_close_day, _day_names("the gaming day's closing"))


def slip(kind: type[c.FillTray] | type[c.CreditTray]) -> Signed:
    """A fill (the cage issues, the dealer receives) or a credit (the other way round)."""
    issuer, receiver = ("cage", "dealer") if kind is c.FillTray else ("dealer", "cage")
    noun = "fill" if kind is c.FillTray else "credit"

    def build(_t: str, b: Any, signers: dict[str, Actor], a: Actor, at: datetime) -> c.Command:
        return kind(
            slip=b.slip,
            chips=chips(b.chips),
            requested_by=signers["floor"],
            issued_by=signers[issuer],
            received_by=signers[receiver],
            actor=a,
            at=at,
        )

    def names(b: Any) -> tuple[str, dict[str, str | None], dict[str, str]]:
        named = {"floor": b.requested_by, issuer: b.issued_by, receiver: b.received_by}
        fields = {"floor": "requested_by", issuer: "issued_by", receiver: "received_by"}
        return f"{noun} {b.slip}", named, fields

    return Signed(build, names)
