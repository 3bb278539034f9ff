"""R19 over HTTP: a slip carries one authenticated key per signer. A fill or a credit is signed by
the floor, the cage and the dealer; a gaming day's opening and closing by the floor and the dealer.
The request's key is one signer, the body's ``signatures`` the others; each signer's actor is
their key's, never a name in the body. A dealer key alone naming "mallory" as all three signers of
a fill on another table is refused, and so is every other way of signing short; nothing is
written. The audit reports a slip whose signer held no active key of that role at the time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from adapters.clock import SteppingClock
from adapters.store import open_store
from audit.sources import open_database
from audit.verify import verify_log
from service_layer.operators.keys import key_store_for
from service_layer.service import TableService
from table_core import commands as c
from table_core.events import Actor
from tests.integration.http.conftest import START, Api

DAY = "2026-11-29"
OPENER = [{"denomination": 2500, "amount": 500_000}]
CHIPS = [{"denomination": 2500, "amount": 25_000}]
MALLORY = {"requested_by": "mallory", "issued_by": "mallory", "received_by": "mallory"}


def _open(api: Api, table: str) -> None:
    api.ok("floor", "/gaming-day/open", {"gaming_day": DAY, "opener": OPENER}, table=table)


def test_a_dealer_key_alone_cannot_fill_another_table_naming_mallory(api: Api) -> None:
    """The red team's fill: a dealer key, on a table the dealer does not deal, "mallory" as the
    requester, the issuer and the receiver."""
    _open(api, "PG-1")
    _open(api, "PG-2")
    before = api.version("PG-2")
    body = {"slip": "F-66", "chips": CHIPS, **MALLORY, "signatures": []}
    alone = api.post("dealer", "/fill", body, table="PG-2")
    assert (alone.status_code, alone.json()["error"]) == (422, "invalid_request")
    assert alone.json()["message"] == (
        "fill F-66 is signed by floor, cage, dealer, each with a key of their own: the floor "
        "and cage keys are missing"
    )
    signed = api.post(
        "dealer", "/fill", {**body, "signatures": api.sign("floor", "cage")}, table="PG-2"
    )
    assert signed.status_code == 422
    assert signed.json()["message"] == (
        "requested_by mallory is not the floor key's actor (floor-1): the key says who signs"
    )
    assert api.version("PG-2") == before


def test_each_signer_is_recorded_as_their_key_authenticates_them(api: Api) -> None:
    _open(api, "PG-1")
    body = {"slip": "F-1", "chips": CHIPS, "signatures": api.sign("floor", "dealer")}
    answer = api.post("cage", "/fill", body)
    assert answer.status_code == 200, answer.text
    (event,) = answer.json()["events"]
    assert {k: event["payload"][k] for k in ("requested_by", "issued_by", "received_by")} == {
        "requested_by": {"id": "floor-1", "role": "floor"},
        "issued_by": {"id": "cage-1", "role": "cage"},
        "received_by": {"id": "dealer-1", "role": "dealer"},
    }
    assert event["actor"] == {"id": "cage-1", "role": "cage"}
    assert all(token not in answer.text for token in api.tokens.values())
    day = api.ok("floor", "/gaming-day/close", {"closer": [{"denomination": 2500,
                 "amount": 525_000}], "dealer": "dealer-1"})  # fmt: skip
    assert day["events"][0]["payload"]["dealer"] == {"id": "dealer-1", "role": "dealer"}


def _second_floor_key_for_the_cage(api: Api) -> str:
    """The cage's actor holds a floor key too: one person, two roles."""
    return api.keys.create("cage-1", "floor", START)[1]


@pytest.mark.parametrize(
    ("role", "signatures", "status", "says"),
    [
        ("cage", lambda a: a.sign("floor", "auditor"), 403,
         "does not sign fill F-9: it is signed by floor, cage, dealer"),
        ("cage", lambda a: a.sign("floor", "cage"), 422, "two cage keys sign fill F-9"),
        ("cage", lambda a: [{"token": "pgw_unknown"}, *a.sign("dealer")], 401,
         "signatures[0]: this API key is unknown or revoked"),
        ("dealer", lambda a: [{"token": _second_floor_key_for_the_cage(a)}, *a.sign("cage")], 422,
         "cage-1 signs fill F-9 as floor and as cage: each signer is another person (R19)"),
        ("count", lambda a: a.sign("floor", "dealer"), 403,
         "the count role may not call fill_tray"),
    ],
)  # fmt: skip
def test_a_fill_signed_short_is_refused_and_writes_nothing(
    api: Api, role: str, signatures: Any, status: int, says: str
) -> None:
    _open(api, "PG-1")
    before = api.version()
    body = {"slip": "F-9", "chips": CHIPS, "signatures": signatures(api)}
    with capture_logs() as logs:
        answer = api.post(role, "/fill", body)
    assert answer.status_code == status, answer.text
    assert says in answer.json()["message"]
    assert "pgw_" not in answer.text and "pgw_" not in str(logs)  # no token answered or logged
    assert api.version() == before


def test_a_days_opening_needs_the_dealers_key(api: Api) -> None:
    answer = api.post(
        "floor", "/gaming-day/open", {"gaming_day": DAY, "opener": OPENER, "signatures": []}
    )
    assert answer.status_code == 422
    assert "the dealer key is missing" in answer.json()["message"]
    named = api.post(
        "floor", "/gaming-day/open", {"gaming_day": DAY, "opener": OPENER, "dealer": "dan"}
    )
    assert named.status_code == 422
    assert named.json()["message"] == (
        "dealer dan is not the dealer key's actor (dealer-1): the key says who signs"
    )
    assert api.version() == 0


def test_the_audit_reports_a_signer_who_held_no_key(tmp_path: Path) -> None:
    """A fill recorded past the keys (as an insider holding the signing key could): its cage
    signer "mallory" held no cage key, and the audit says so at the event (R19)."""
    url = f"sqlite:///{tmp_path / 'casino.db'}"
    store = open_store(url)
    try:
        keys = key_store_for(store)
        for role in ("security", "floor", "dealer", "cage"):
            keys.create(f"{role}-1", role, START)
        service = TableService(store, clock=SteppingClock(START, timedelta(seconds=1)))
        floor, dealer = Actor(id="floor-1", role="floor"), Actor(id="dealer-1", role="dealer")
        at = datetime(2026, 11, 29, 21, 0, tzinfo=UTC)
        service.execute(
            "PG-1",
            c.OpenGamingDay(
                gaming_day=at.date(), opener={2500: 500_000}, dealer=dealer, table_id="PG-1",
                actor=floor, at=at,
            ),
            "open-1",
        )  # fmt: skip
        filled = service.execute(
            "PG-1",
            c.FillTray(
                slip="F-1", chips={2500: 25_000}, requested_by=floor,
                issued_by=Actor(id="mallory", role="cage"), received_by=dealer, actor=floor,
                at=at,
            ),
            "fill-1",
        )  # fmt: skip
    finally:
        store.close()
    source = open_database(url)
    findings = [f for f in verify_log(source).findings if f.clause == "R19"]
    assert [(f.position, f.event_type, f.message) for f in findings] == [
        (
            filled.events[0].position,
            "tray_filled",
            "tray_filled: its issued_by, mallory (cage), held no active cage key then",
        )
    ]
