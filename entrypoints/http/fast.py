"""The fast path for well-formed commands: the same answer as the FastAPI endpoint, less CPU.

A command from a terminal is the API's hot path (issue 10: p99 under 20 ms at 200 requests/s).
Through FastAPI, routing among 30 patterns, the middlewares, solving the key's dependencies and
validating the body cost as much CPU as deciding and appending the command. This ASGI middleware
takes a POST to a command's path itself when everything about it is as it should be:

- the path is a command of ``command_routes.ROUTES``, not a slip signed by several keys (rare:
  FastAPI authenticates each signer), and the table id fits its pattern;
- one ``Authorization: Bearer <token>``, one ``Idempotency-Key`` that fits its pattern;
- a JSON body that the route's model accepts (or none, where the body is optional);
- the key is known and its role may give the command (``rights.RIGHTS``).

It then runs the command exactly as the endpoint does (``command_routes.run_command``, one
worker thread for the key lookup and the command) and answers with the same bytes
(``command_routes.answer``); an error the command raises is answered by the same handler FastAPI
would pick (``errors.handler_for``). Anything else is handed, untouched (the body it read is
replayed), to FastAPI: a refusal there is answered and logged as it always was (401, 403 and its
log line, 422 with the validation's detail, 404, 405). Nothing has happened before a hand-over:
the lookup only reads. ``tests/integration/http/test_fast_path.py`` holds both paths to the same
answers.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi.exceptions import RequestValidationError
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from entrypoints.http.command_routes import (
    IDEMPOTENCY_KEY_PATTERN,
    ROUTES,
    answer,
    refusal,
    run_command,
)
from entrypoints.http.errors import handler_for
from entrypoints.http.models import TABLE_ID_PATTERN
from entrypoints.http.route_spec import CommandRoute
from entrypoints.http.strict_input import STRICT_REFUSAL, read_strictly
from service_layer.operators.rights import RIGHTS
from table_core.events import Actor

_TABLE_ID = re.compile(TABLE_ID_PATTERN)
_IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)
_PREFIX = "/tables/"
_TEMPLATE = "/tables/{table_id}"
#: A command's body is small (a dealt deck is about 600 bytes): past this, FastAPI reads it (the
#: body limit, body_limit.py, is enforced outside both paths).
_MAX_BODY = 64 * 1024
#: Returned by the worker when FastAPI must answer instead (unknown key, a role without rights).
_HAND_OVER = object()


class FastCommands:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = _route_of(scope)
        if route is None or route.signed is not None:  # a slip's signers: FastAPI's (rare)
            await self.app(scope, receive, send)
            return
        table_id = scope["path"][len(_PREFIX) :].partition("/")[0]
        # For the access log and the metrics (observe.py): the route's template, the table and,
        # once looked up, the key (as ``auth.caller`` leaves it for FastAPI's path).
        scope["paigow.route"] = _TEMPLATE + route.path
        state = scope.setdefault("state", {})
        state["table_id"] = table_id
        headers = _headers(scope)
        messages, body = await _read_body(receive)
        parsed = None
        if headers is not None and body is not None:
            parsed = await _command_of(route, table_id, headers, body, scope)
        outcome: Any = _HAND_OVER
        if parsed is not None:
            token, key, model = parsed
            app_state = scope["app"].state
            try:
                outcome = await run_in_threadpool(
                    _run,
                    app_state.keys,
                    app_state.runner,
                    route,
                    table_id,
                    token,
                    key,
                    model,
                    state,
                )
            except Exception as exc:
                handler = handler_for(exc)
                if handler is None:
                    raise  # a crash: ServerErrorMiddleware answers 500, as for the endpoint
                await handler(None, exc)(scope, receive, send)
                return
        if outcome is _HAND_OVER:
            await self.app(scope, _replay(messages, receive), send)
            return
        records, replayed = outcome
        await answer(table_id, key, records, replayed)(scope, receive, send)


def _route_of(scope: Scope) -> CommandRoute | None:
    if scope["type"] != "http" or scope["method"] != "POST" or scope.get("root_path"):
        return None
    path: str = scope["path"]
    if not path.startswith(_PREFIX):
        return None
    table_id, slash, rest = path[len(_PREFIX) :].partition("/")
    if not slash or _TABLE_ID.fullmatch(table_id) is None:
        return None
    return ROUTES.get("/" + rest)


def _headers(scope: Scope) -> dict[bytes, bytes] | None:
    """The three headers a command reads; ``None`` if one of them comes twice."""
    found: dict[bytes, bytes] = {}
    for name, value in scope["headers"]:
        if name in (b"authorization", b"idempotency-key", b"content-type"):
            if name in found:
                return None
            found[name] = value
    return found


async def _read_body(receive: Receive) -> tuple[list[Message], bytes | None]:
    """The messages read and the whole body; the body is ``None`` when it is larger than a
    command's or the client left (the messages then go to FastAPI as they came)."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, None
        size += len(message.get("body", b""))
        if size > _MAX_BODY:
            return messages, None
        if not message.get("more_body", False):
            return messages, b"".join(m.get("body", b"") for m in messages)


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """``receive`` as if nothing had been read: the messages read first, then the connection's."""
    pending = list(reversed(messages))

    async def replayed() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return replayed


async def _command_of(
    route: CommandRoute, table_id: str, headers: dict[bytes, bytes], body: bytes, scope: Scope
) -> tuple[str, str, Any] | None:
    """(token, idempotency key, validated body or None) when all is well-formed, else ``None``."""
    authorization = headers.get(b"authorization", b"")
    if not authorization.startswith(b"Bearer "):
        return None
    token = authorization[7:].decode("latin-1")
    if not token or " " in token:
        return None
    key = headers.get(b"idempotency-key", b"").decode("latin-1")
    if _IDEMPOTENCY_KEY.fullmatch(key) is None or refusal(table_id, key) is not None:
        return None
    if not body:
        return None if route.body_required else (token, key, None)
    if headers.get(b"content-type") != b"application/json":
        return None
    try:
        # Read as the endpoint's strict check reads it (strict_input.py): a refusal is FastAPI's
        # to answer, with the same 422 (its check takes this one: the body is not read twice).
        model = await read_strictly(route.body, body)
    except RequestValidationError as refused:
        scope[STRICT_REFUSAL] = refused
        return None
    return token, key, model


def _run(
    keys: Any,
    runner: Any,
    route: CommandRoute,
    table_id: str,
    token: str,
    key: str,
    model: Any,
    state: dict[str, Any],
) -> Any:
    try:
        api_key = keys.lookup(token)
    except Exception:  # the endpoint's own dependency meets it and answers as it always has
        return _HAND_OVER
    if api_key is None or api_key.role not in RIGHTS[route.operation]:
        return _HAND_OVER
    state["api_key"] = api_key
    actor = Actor(id=api_key.actor_id, role=api_key.role)
    return run_command(runner, route, table_id, key, model, actor)
