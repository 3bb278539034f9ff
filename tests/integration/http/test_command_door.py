"""Every refusal of a table command through its one path, the command door
(entrypoints/http/command_door.py): the answers, log lines and records FastAPI's endpoints gave,
in FastAPI's order (the body's JSON before the key, the key before its role, the role before the
strict reading, that before the schema), and nothing written. The documented FastAPI routes of
the commands never run."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from structlog.testing import capture_logs

from entrypoints.http import command_routes
from eventlog.system_events import SYSTEM_STREAM
from tests.integration.http.conftest import START, TABLE, Api, open_table

JSON = ("Content-Type", "application/json")
BET = json.dumps({"player_id": "ana", "amount": 2500}).encode()
KEY_PATTERN = r"String should match pattern '^[\x21-\x7e]{1,200}$'"
TABLE_PATTERN = "String should match pattern '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'"
NO_KEY = {"error": "unauthorized", "message": "an API key is needed: Authorization: Bearer <key>"}
UNKNOWN = {"error": "unauthorized", "message": "this API key is unknown or revoked"}


def _invalid(message: str, *detail: tuple[list[Any], str, str]) -> dict[str, Any]:
    """422 ``invalid_request`` with FastAPI's ``detail``: (loc, msg, type) each."""
    shown = [{"loc": loc, "msg": msg, "type": kind} for loc, msg, kind in detail]
    return {"error": "invalid_request", "message": message, "detail": shown}


@pytest.fixture
def door(api: Api, monkeypatch: pytest.MonkeyPatch) -> Iterator[Api]:
    """A table with ana seated and a round started; the documented endpoints watched."""
    open_table(api, (1, "ana", 100_000))
    api.ok("dealer", "/round/start")
    revoked, token = api.keys.create("dealer-2", "dealer", START)
    api.keys.revoke(revoked.key_id, START)
    api.tokens["revoked"] = token
    ran: list[str] = []
    monkeypatch.setattr(command_routes, "_not_here", ran.append)
    before = api.version()
    yield api
    assert ran == []  # no request reached a documented FastAPI endpoint
    written = [e.type for e in api.service.store.read_stream(TABLE)][before:]
    assert written in ([], ["bet_placed"])  # a refusal writes nothing; a test's one bet


def _send(
    api: Api,
    raw: bytes,
    *,
    role: str | None = "dealer",
    key: str | None = "k-1",
    extra: tuple[tuple[str, str], ...] = (JSON,),
    path: str = "/round/bet",
    table: str = TABLE,
) -> Any:
    headers = [("Authorization", f"Bearer {api.tokens[role]}")] if role else []
    if key is not None:
        headers.append(("Idempotency-Key", key))
    headers.extend(extra)
    encoded = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    return api.client.post(f"/tables/{table}{path}", content=raw, headers=encoded)


def _answer(response: Any) -> tuple[int, Any]:
    return response.status_code, response.json()


def test_a_table_id_off_its_pattern_or_the_system_stream_is_refused(door: Api) -> None:
    assert _answer(_send(door, BET, table="PG 1!")) == (
        422,
        _invalid(
            f"path.table_id: {TABLE_PATTERN}",
            (["path", "table_id"], TABLE_PATTERN, "string_pattern_mismatch"),
        ),
    )
    assert _answer(_send(door, BET, table="system")) == (
        422,
        {"error": "invalid_request", "message": "'system' is not a table id"},
    )


def test_the_idempotency_key_missing_invalid_or_reserved_is_refused(door: Api) -> None:
    missing = _invalid(
        "header.Idempotency-Key: Field required",
        (["header", "Idempotency-Key"], "Field required", "missing"),
    )
    assert _answer(_send(door, BET, key=None)) == (422, missing)
    invalid = _invalid(
        f"header.Idempotency-Key: {KEY_PATTERN}",
        (["header", "Idempotency-Key"], KEY_PATTERN, "string_pattern_mismatch"),
    )
    for key in ("bad key with spaces", "\xa0x", "k" * 201):
        assert _answer(_send(door, BET, key=key)) == (422, invalid), key
    assert _answer(_send(door, BET, key="system:1")) == (
        422,
        {"error": "invalid_request", "message": "an Idempotency-Key may not begin with 'system:'"},
    )


def test_of_an_idempotency_key_given_twice_the_first_counts(door: Api) -> None:
    twice = _send(door, BET, key="dup-1", extra=(("Idempotency-Key", "dup-2"), JSON))
    assert twice.status_code == 200
    assert (twice.json()["command_id"], twice.headers["Idempotent-Replayed"]) == ("dup-1", "false")


def test_no_key_is_401_recorded_as_a_failed_authentication(door: Api) -> None:
    for extra in (
        (JSON,),
        (("Authorization", "Basic abc"), JSON),
        (("Authorization", "Bearer  "), JSON),
    ):
        response = _send(door, BET, role=None, extra=extra)
        assert _answer(response) == (401, NO_KEY)
        assert response.headers["WWW-Authenticate"] == "Bearer"
    failed = [
        e
        for e in door.service.store.read_stream(SYSTEM_STREAM)
        if e.type == "authentication_failed"
    ]
    assert [(e.payload["route"], e.payload["key_id"]) for e in failed] == [
        ("/tables/{table_id}/round/bet", None)  # one record a minute per address (R5/R19)
    ]


@pytest.mark.parametrize("role", ["unknown", "revoked"])
def test_an_unknown_or_revoked_key_is_401_and_logged(door: Api, role: str) -> None:
    door.tokens["unknown"] = "pgw_" + "0" * 40
    with capture_logs() as logs:
        response = _send(door, BET, role=role)
    assert _answer(response) == (401, UNKNOWN)
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert [(e["event"], e.get("path"), e.get("row_not_in_log")) for e in logs[:1]] == [
        ("unknown_api_key", "/tables/PG-1/round/bet", False)
    ]


def test_a_role_the_command_is_not_for_is_403_with_its_log_line(door: Api) -> None:
    with capture_logs() as logs:
        response = _send(door, BET, role="auditor")
    assert _answer(response) == (
        403,
        {
            "error": "forbidden",
            "message": "the auditor role may not call place_bet: it is for dealer",
        },
    )
    denied = [e for e in logs if e["event"] == "access_denied"]
    key_id = door.keys.lookup(door.tokens["auditor"]).key_id  # type: ignore[union-attr]
    assert denied == [
        {
            "component": "http",
            "actor": "auditor-1",
            "role": "auditor",
            "key_id": key_id,
            "operation": "place_bet",
            "method": "POST",
            "path": "/tables/PG-1/round/bet",
            "event": "access_denied",
            "log_level": "warning",
        }
    ]
    access = [e for e in logs if e["event"] == "http_request"]
    assert [(e["route"], e["actor"], e["status"], e["error"]) for e in access] == [
        ("/tables/{table_id}/round/bet", "auditor-1", 403, "forbidden")
    ]


def test_a_body_not_strict_is_refused_once_the_key_may_give_the_command(door: Api) -> None:
    text = b'{"player_id": "ana", "amount": "2500"}'
    said = (
        "amounts are integer cents (minor units), a JSON number without a fraction: "
        'send 2500, not "2500" (a number, not a string)'
    )
    assert _answer(_send(door, text)) == (
        422,
        _invalid(f"body.amount: {said}", (["body", "amount"], said, "int_type")),
    )
    assert _answer(_send(door, text, role=None)) == (401, NO_KEY)  # the key first
    assert _answer(_send(door, text, role="cage"))[0] == 403  # then its role


def test_json_that_cannot_be_read_is_refused_before_the_key(door: Api) -> None:
    assert _answer(_send(door, b'{"player_id": ', role=None)) == (
        422,
        _invalid("body.14: JSON decode error", (["body", 14], "JSON decode error", "json_invalid")),
    )


def test_a_body_off_the_schema_is_refused_with_fastapis_detail(door: Api) -> None:
    missing = _invalid(
        "body.amount: Field required", (["body", "amount"], "Field required", "missing")
    )
    assert _answer(_send(door, b'{"player_id": "ana"}')) == (422, missing)
    extra = b'{"player_id": "ana", "amount": 1, "tip": 5}'
    assert _answer(_send(door, extra)) == (
        422,
        _invalid(
            "body.tip: Extra inputs are not permitted",
            (["body", "tip"], "Extra inputs are not permitted", "extra_forbidden"),
        ),
    )
    assert _answer(_send(door, b"", extra=())) == (
        422,
        _invalid("body: Field required", (["body"], "Field required", "missing")),
    )
    # The strict reading comes first: a table id off its pattern is not reached.
    assert _answer(_send(door, b'{"player_id": "ana"}', table="x$y")) == (422, missing)


def test_a_body_that_is_not_json_is_refused(door: Api) -> None:
    msg = "Input should be a valid dictionary or object to extract fields from"
    refused = (422, _invalid(f"body: {msg}", (["body"], msg, "model_attributes_type")))
    assert _answer(_send(door, BET, extra=(("Content-Type", "text/plain"),))) == refused
    assert _answer(_send(door, BET, extra=())) == refused  # no type: not read as JSON


def test_a_body_over_the_limit_is_413_and_closes_the_connection(door: Api) -> None:
    big = json.dumps({"reason": "x" * 70_000}).encode()
    response = _send(door, big, role="floor", path="/round/void")
    assert _answer(response) == (
        413,
        {
            "error": "body_too_large",
            "message": "the request body is over 65536 bytes, this server's limit "
            "(PAIGOW_HTTP_MAX_BODY): nothing was done",
        },
    )
    assert response.headers["Connection"] == "close"


@pytest.mark.parametrize(
    ("cosigner", "answer"),
    [
        (
            "forged",
            (
                401,
                {
                    "error": "unauthorized",
                    "message": "signatures[1]: this API key is unknown or revoked",
                },
            ),
        ),
        (
            "revoked",
            (
                401,
                {
                    "error": "unauthorized",
                    "message": "signatures[1]: this API key is unknown or revoked",
                },
            ),
        ),
        ("auditor", (403, "forbidden")),
    ],
)
def test_a_slip_with_a_bad_co_signer_is_refused(
    door: Api, cosigner: str, answer: tuple[int, Any]
) -> None:
    door.tokens["forged"] = "pgw_forged"
    body = {
        "slip": "F-1",
        "chips": [{"denomination": 2500, "amount": 25_000}],
        "signatures": door.sign("floor", cosigner),
    }
    response = _send(door, json.dumps(body).encode(), path="/fill")
    status, shown = _answer(response)
    if isinstance(answer[1], str):
        assert (status, shown["error"]) == answer
        assert shown["message"].startswith("a auditor key (")
        assert shown["message"].endswith(
            ") does not sign fill F-1: it is signed by floor, cage, dealer"
        )
    else:
        assert (status, shown) == answer
        assert response.headers["WWW-Authenticate"] == "Bearer"


def test_a_well_formed_bet_goes_through_the_same_door(door: Api) -> None:
    response = _send(door, BET, key="bet-1")
    assert response.status_code == 200, response.text
    assert [e["type"] for e in response.json()["events"]] == ["bet_placed"]


def test_the_documented_endpoints_are_unreachable_and_raise_if_ever_called(api: Api) -> None:
    """Another method on a command's path is still FastAPI's 405; the documented endpoint itself
    refuses to run (the door answers every POST before FastAPI routes it)."""
    got = api.client.get(f"/tables/{TABLE}/round/bet")
    assert (got.status_code, got.json()["error"]) == (405, "method_not_allowed")
    endpoint = next(
        r.endpoint for r in command_routes.router.routes if getattr(r, "name", None) == "place_bet"
    )
    with pytest.raises(AssertionError, match="place_bet is answered by the command door"):
        asyncio.run(endpoint(None, TABLE, None, "k-1"))
