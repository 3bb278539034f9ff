"""The command door (entrypoints/http/command_door.py), the one path of every command, answers
exactly as FastAPI's endpoints did.

An app over a fresh store with a fixed clock, deck and dice is sent a whole round, replays, stale
versions, rule violations and every kind of malformed request. Each answer's status, body, replay
header and ``WWW-Authenticate`` must be the one FastAPI's own command endpoints gave to the same
requests, recorded in ``fastapi_answers.json`` while they still answered (they are documentation
only now), with the events written and the failed authentications recorded.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from adapters.settings import load_settings
from adapters.store import InMemoryEventStore
from adapters.store.signing import Signer
from entrypoints.http import command_routes
from entrypoints.http.app import create_app
from eventlog.system_events import SYSTEM_STREAM
from service_layer.operators.keys import MemoryKeyStore
from service_layer.service import TableService
from tests.integration.http.conftest import ROLES, START, TABLE, Api

AUTH = "Authorization"
JSON = {"Content-Type": "application/json"}


#: FastAPI's answers to ``_requests``, in order, and what its endpoints wrote.
RECORDED = json.loads((Path(__file__).parent / "fastapi_answers.json").read_text("utf-8"))


def _app(keys: MemoryKeyStore) -> tuple[TableService, TestClient]:
    service = TableService(
        InMemoryEventStore(Signer.generate()),
        clock=SteppingClock(START, timedelta(seconds=1)),
        source=SeededDeckAndDice(3),
    )
    return service, TestClient(create_app(service, keys, load_settings()))


def _send(client: TestClient, path: str, headers: dict[str, str], **request: Any) -> Any:
    if "raw" in request:
        return client.post(f"/tables/{TABLE}{path}", content=request["raw"], headers=headers)
    return client.post(f"/tables/{TABLE}{path}", json=request.get("body"), headers=headers)


def _requests(tokens: dict[str, str]) -> Iterator[tuple[str, dict[str, Any]]]:
    def h(role: str, key: str, **extra: str) -> dict[str, str]:
        return {AUTH: f"Bearer {tokens[role]}", "Idempotency-Key": key, **extra}

    yield "/open", {"body": {}, "headers": h("floor", "open-1")}
    yield "/open", {"body": {}, "headers": h("floor", "open-1")}  # a retry: replayed
    yield "/seat", {"body": {"seat": 2, "player_id": "ana"}, "headers": h("dealer", "seat-1")}
    yield "/seat", {"body": {"seat": 3, "player_id": "bo"}, "headers": h("floor", "seat-2")}
    yield "/buy-in", {"body": {"player_id": "ana", "amount": 100_000}, "headers": h("cage", "b1")}
    yield "/buy-in", {"body": {"player_id": "bo", "amount": 50_000}, "headers": h("cage", "b2")}
    # Refusals of every kind, none of which writes.
    yield "/round/bet", {"body": {"player_id": "ana", "amount": 2_500}, "headers": h("dealer", "x")}
    yield "/round/start", {"headers": h("cage", "wrong-role")}
    yield "/round/start", {"headers": {AUTH: "Bearer nope", "Idempotency-Key": "unknown-key"}}
    yield "/round/start", {"headers": {"Idempotency-Key": "no-key"}}
    yield "/round/start", {"headers": {AUTH: f"Bearer {tokens['dealer']}"}}
    yield "/round/start", {"headers": h("dealer", "bad key with spaces")}
    yield "/round/start", {"headers": h("dealer", "system:1")}
    yield "/round/start", {"body": {"expected_version": 3}, "headers": h("dealer", "stale")}
    yield "/round/start", {"body": {"expected_version": -1}, "headers": h("dealer", "neg")}
    yield "/round/start", {"raw": b"{", "headers": h("dealer", "broken", **JSON)}
    yield (
        "/round/start",
        {"raw": b"{}", "headers": h("dealer", "text", **{"Content-Type": "text/plain"})},
    )
    yield "/round/start", {"raw": b"NaN", "headers": h("dealer", "nan", **JSON)}
    yield "/round/start", {"body": [], "headers": h("dealer", "list")}
    yield "/round/bet", {"headers": h("dealer", "no-body")}
    yield "/round/bet", {"body": {"player_id": "ana", "amount": 25.0}, "headers": h("dealer", "f")}
    yield "/round/bet", {"body": {"player_id": "ana", "amount": "25"}, "headers": h("dealer", "s")}
    yield (
        "/round/bet",
        {"body": {"player_id": "ana", "amount": 1, "x": 1}, "headers": h("dealer", "e")},
    )
    # Strict input (issue 17): read two ways, converted, or holding a control character.
    for raw in (
        b'{"player_id": "ana", "amount": 1000, "amount": 2000}',
        '{"player_id": "ana", "amount": 1000}'.encode("utf-16"),
        b'{"player_id": "ana", "amount": ' + b"9" * 4300 + b"}",
        b'{"player_id": "ana", "amount": ' + b"[" * 1000 + b"]" * 1000 + b"}",
    ):
        yield "/round/bet", {"raw": raw, "headers": h("dealer", "strict-bet", **JSON)}
    yield "/seat", {"body": {"seat": "4", "player_id": "cy"}, "headers": h("dealer", "strict-s")}
    yield "/open", {"body": {"rules": {"co_bank": 0}}, "headers": h("floor", "strict-open")}
    yield (
        "/round/bank/accept",
        {"body": {"player_id": "ana", "co_bank": 1}, "headers": h("dealer", "strict-bank")},
    )
    for reason in ("\x1b[2Jwiped", "a\rb", "nul\x00"):
        yield "/round/void", {"body": {"reason": reason}, "headers": h("floor", "strict-void")}
    # The round.
    yield "/round/start", {"headers": h("dealer", "start-1")}
    yield (
        "/round/bet",
        {"body": {"player_id": "ana", "amount": 2_500}, "headers": h("dealer", "bet-1")},
    )
    yield (
        "/round/bet",
        {"body": {"player_id": "bo", "amount": 10**9}, "headers": h("dealer", "big")},
    )
    yield (
        "/round/bet",
        {
            "body": {"player_id": "bo", "amount": 1_000, "expected_version": 9},
            "headers": h("dealer", "bet-stale"),
        },
    )
    yield (
        "/round/bet",
        {
            "body": {"player_id": "bo", "amount": 1_000, "expected_version": 7},
            "headers": h("dealer", "bet-2"),
        },
    )
    yield "/round/close-bets", {"headers": h("dealer", "close-1")}
    yield "/round/deal", {"headers": h("dealer", "deal-1")}
    yield "/round/deal", {"headers": h("dealer", "deal-1")}
    yield "/round/dice", {"body": {}, "headers": h("dealer", "dice-1")}
    yield "/round/hand", {"body": {"player_id": "ana"}, "headers": h("dealer", "hand-1")}
    yield (
        "/round/hand",
        {
            "body": {"player_id": "bo", "back": ["As"], "front": []},
            "headers": h("dealer", "hand-2"),
        },
    )
    yield "/round/hand", {"body": {"player_id": "bo"}, "headers": h("dealer", "hand-3")}
    yield "/round/banker-hand", {"headers": h("dealer", "banker-1")}
    yield "/round/settle", {"headers": h("dealer", "settle-1")}
    yield "/round/close", {"headers": h("dealer", "close-round-1")}
    yield "/round/close", {"headers": h("dealer", "close-1")}  # the key of another command
    yield "/round/void", {"body": {"reason": "test"}, "headers": h("floor", "void-1")}
    # Larger than the body limit (command_door.BodyLimit): 413 on both paths, nothing read past it.
    yield "/round/void", {"body": {"reason": "x" * 70_000}, "headers": h("floor", "void-2")}
    # Read off the event loop (command_door.read_strictly), then refused for its length alike.
    yield "/round/void", {"body": {"reason": "x" * 20_000}, "headers": h("floor", "void-3")}


def test_the_door_answers_every_request_as_fastapi_did() -> None:
    keys = MemoryKeyStore(InMemoryEventStore(Signer.generate()))
    tokens = {role: keys.create(f"{role}-1", role, START)[1] for role in ROLES}
    service, door = _app(keys)
    requests = list(_requests(tokens))
    assert len(requests) == len(RECORDED["answers"])
    for (path, request), b in zip(requests, RECORDED["answers"], strict=True):
        a = _send(door, path, **request)
        assert (path, a.status_code, a.json()) == (b["path"], b["status"], b["body"]), request
        assert a.headers.get("Idempotent-Replayed") == b["Idempotent-Replayed"]
        assert a.headers.get("WWW-Authenticate") == b["WWW-Authenticate"]
    written = service.store.read_stream(TABLE)
    assert [[e.type, e.hash] for e in written] == RECORDED["table"]
    # R5/R19: the refused keys are on the system stream alike (its command ids, and so its
    # hashes, name each service instance: the payloads are compared).
    assert [
        [e.type, json.loads(json.dumps(e.payload, default=str))]
        for e in service.store.read_stream(SYSTEM_STREAM)
    ] == RECORDED["system"]
    assert [e.type for e in service.store.read_stream(SYSTEM_STREAM)] == ["authentication_failed"]
    assert [e.type for e in written] == [
        "table_opened",
        "player_seated",
        "player_seated",
        "chips_bought_in",
        "chips_bought_in",
        "round_started",
        "bet_placed",
        "bet_placed",
        "bets_closed",
        "stacks_dealt",
        "dice_rolled",
        "stacks_assigned",
        "hand_set",
        "hand_set",
        "banker_hand_set",
        "round_settled",
        "round_closed",
    ]


def test_a_command_never_reaches_the_documented_fastapi_endpoint(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[str] = []
    monkeypatch.setattr(command_routes, "_not_here", ran.append)
    assert api.post("floor", "/open", {}).status_code == 200
    assert api.post("dealer", "/seat", {"seat": 1, "player_id": "ana"}).status_code == 200
    assert api.post("dealer", "/round/start").status_code == 200
    # A refusal found by the core comes back from the door through the same handler.
    refused = api.post("dealer", "/round/bet", {"player_id": "ana", "amount": 10**9})
    assert refused.status_code == 422 and refused.json()["error"] == "rule_violation"
    # And so do the refusals FastAPI's endpoints used to answer.
    assert api.post("cage", "/round/bet", {"player_id": "ana"}).status_code == 403
    assert api.post("dealer", "/round/bet", {"player_id": "ana"}).status_code == 422
    assert api.post("dealer", "/round/bet", {"player_id": "ana"}, table="a b").status_code == 422
    assert ran == []


def test_a_body_in_several_chunks_is_read_whole_by_the_door(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Over ASGI directly: a body sent in chunks, small (the command runs) and larger than a
    command's (every chunk read: the answer is about the reason's length, not a broken JSON
    text). The body limit is raised past a command's for it."""
    import asyncio

    monkeypatch.setenv("PAIGOW_HTTP_MAX_BODY", str(256 * 1024))
    keys = MemoryKeyStore(InMemoryEventStore(Signer.generate()))
    tokens = {role: keys.create(f"{role}-1", role, START)[1] for role in ROLES}
    service, client = _app(keys)
    app = client.app

    def call(path: str, role: str, key: str, chunks: list[bytes]) -> tuple[int, Any]:
        headers = [
            (b"authorization", f"Bearer {tokens[role]}".encode()),
            (b"idempotency-key", key.encode()),
            (b"content-type", b"application/json"),
        ]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": f"/tables/{TABLE}{path}",
            "raw_path": f"/tables/{TABLE}{path}".encode(),
            "root_path": "",
            "query_string": b"",
            "headers": headers,
            "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 80),
        }
        incoming = [
            {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
            for i, c in enumerate(chunks)
        ]
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return incoming.pop(0) if incoming else {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
        body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
        return sent[0]["status"], json.loads(body)

    with client:  # the lifespan: none here, but the app's state is set up the same way
        assert call("/open", "floor", "open", [b"{", b"}"])[0] == 200
        reason = json.dumps({"reason": "x" * 70_000}).encode()
        status, answer = call("/round/void", "floor", "void", [reason[:40_000], reason[40_000:]])
    assert status == 422
    assert answer["error"] == "invalid_request"
    assert answer["detail"][0]["loc"] == ["body", "reason"]
    assert [e.type for e in service.store.read_all()] == ["table_opened"]


def test_the_old_fast_path_setting_is_accepted_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``PAIGOW_HTTP_FAST_PATH`` chose between two request paths; there is one now, the door, and
    a server started with the setting still starts, with the door."""
    from entrypoints.bootstrap import Serving, serve_app
    from entrypoints.http.command_door import CommandDoor

    def door_in(app: Any) -> bool:
        return any(middleware.cls is CommandDoor for middleware in app.user_middleware)

    assert door_in(serve_app(load_settings(), f"sqlite:///{tmp_path / 'on.db'}", Serving()))
    monkeypatch.setenv("PAIGOW_HTTP_FAST_PATH", "0")
    assert door_in(serve_app(load_settings(), f"sqlite:///{tmp_path / 'off.db'}", Serving()))
