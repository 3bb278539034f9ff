"""The command door: the one request path of every table command, refusals included.

A command from a terminal is the API's hot path (issue 10: p99 under 20 ms at 200 requests/s).
Through FastAPI, routing among 30 patterns, the middlewares, solving the key's dependencies and
validating the body cost as much CPU as deciding and appending the command. So this ASGI
middleware answers every POST to a command's path (``command_routes.ROUTES``) itself, and FastAPI
never routes one: its command routes are documentation only (the OpenAPI document, 405 for another
method). The door gives FastAPI's answers, in FastAPI's order (issue 35 keeps them as contracts):

1. the body, read whole (``body_limit.py`` bounds it: 413) and decoded as FastAPI's reader
   decodes it: JSON it cannot read is 422 before the key is looked at;
2. the key (``auth.py``): none, or unknown or revoked, is 401, logged and recorded as a failed
   authentication (``auth_failures.py``); a role the command is not for is 403 and its log line;
3. a JSON body read strictly (``strict_input.py``): 422;
4. the table id, the ``Idempotency-Key`` header and the body against the route's schema, by
   FastAPI's own validators over the documented route's parameters: 422 with the ``detail``
   list FastAPI builds;
5. a ``system`` table or key (``command_routes.refusal``): 422; a slip's co-signers, each by their
   own key (``command_routes.slip_signers``): 401, 403 or 422;
6. the command (``command_routes.run_command``), answered with ``command_routes.answer``'s bytes.

An error raised on the way is answered by the handler FastAPI would pick (``errors.handler_for``);
no handler, a crash: ServerErrorMiddleware answers 500, as it would for an endpoint. When all is
well-formed (the usual case) the key lookup and the command share ONE worker thread and no
validator but the strict read runs. ``tests/integration/http/test_fast_path.py`` holds the door to
the answers FastAPI's endpoints gave (recorded in ``fastapi_answers.json``).
"""

from __future__ import annotations

import email.message
import json
import re
from typing import Any

from fastapi.dependencies.utils import request_body_to_args, request_params_to_args
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from fastapi.security.utils import get_authorization_scheme_param
from pydantic_core import PydanticUndefined
from starlette._utils import get_route_path
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from entrypoints.http import auth
from entrypoints.http.command_routes import (
    IDEMPOTENCY_KEY_PATTERN,
    ROUTES,
    answer,
    refusal,
    router,
    run_command,
    slip_signers,
)
from entrypoints.http.errors import ApiProblem, handler_for
from entrypoints.http.models import TABLE_ID_PATTERN
from entrypoints.http.route_spec import CommandRoute
from entrypoints.http.strict_input import read_strictly
from service_layer.operators.keys import ApiKey
from service_layer.operators.rights import RIGHTS
from table_core.events import Actor
from table_core.ports import RecordedEvent

_TABLE_ID = re.compile(TABLE_ID_PATTERN)
_IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)
_PREFIX = "/tables/"
#: Each command's documented route (command_routes.py), by its path under ``/tables/{table_id}``:
#: its template names the command in the access log and a failed authentication's record, its
#: parameters are what FastAPI's validators check.
_DOCUMENTED: dict[str, APIRoute] = {
    api.path.removeprefix("/tables/{table_id}"): api
    for api in router.routes
    if isinstance(api, APIRoute)
}
#: The headers a command reads; of one given twice, the first counts (as Starlette's ``get``).
_READ = (b"authorization", b"idempotency-key", b"content-type")
_MISSING = PydanticUndefined  # no body at all: FastAPI's ``Undefined``


class CommandDoor:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = _route_of(scope)
        if found is None:
            await self.app(scope, receive, send)
            return
        route, table_id = found
        # As FastAPI's router leaves them: the route (its template for the access log and the
        # failure's record) and the table id (observe.py).
        scope["route"] = _DOCUMENTED[route.path]
        scope["path_params"] = {"table_id": table_id}
        try:
            response = await _answer(scope, receive, route, table_id)
        except Exception as exc:
            handler = handler_for(exc)
            if handler is None:
                raise  # a crash: ServerErrorMiddleware answers 500, as for an endpoint
            response = handler(Request(scope), exc)
        await response(scope, receive, send)


def _route_of(scope: Scope) -> tuple[CommandRoute, str] | None:
    """The command and table id of a POST to a command's path, as Starlette's router matches
    ``/tables/{table_id}/…`` (any non-empty segment: the table id's pattern is checked later,
    422); ``None`` for any other request."""
    if scope["type"] != "http" or scope["method"] != "POST":
        return None
    path = get_route_path(scope)
    if not path.startswith(_PREFIX):
        return None
    table_id, slash, rest = path[len(_PREFIX) :].partition("/")
    route = ROUTES.get("/" + rest) if slash and table_id else None
    return None if route is None else (route, table_id)


async def _answer(scope: Scope, receive: Receive, route: CommandRoute, table_id: str) -> Response:
    body = await _read_body(receive)
    headers: dict[bytes, str] = {}
    for name, value in scope["headers"]:
        if name in _READ and name not in headers:
            headers[name] = value.decode("latin-1")
    content_type = headers.get(b"content-type")
    # 1. The body as FastAPI reads it, before the key (its reader's refusals come first);
    # ``later``: a strict refusal, answered once the key is checked.
    value, later, checked = await _body_of(route, body, content_type)
    # 2. The key: none is 401 at once.
    token = _bearer(headers.get(b"authorization"))
    if token is None:
        raise await auth.no_key(Request(scope))
    key_header = headers.get(b"idempotency-key")
    if later is None:  # 4. and 5.: the parameters, then the ``system`` names
        value, later = await _parameters(scope, route, table_id, key_header, value, checked)
    idempotency_key = key_header or ""
    run = later is None and route.signed is None  # nothing left to check once the key is known
    app_state = scope["app"].state
    state = scope.setdefault("state", {})
    key, outcome = await run_in_threadpool(
        _run,
        app_state.keys,
        app_state.runner,
        route,
        table_id,
        idempotency_key,
        token,
        value,
        run,
        state,
    )
    if outcome is None:  # refused, or a slip
        outcome = await _refused_or_signed(
            scope, route, table_id, idempotency_key, token, value, key, later
        )
    records, replayed = outcome
    return answer(table_id, idempotency_key, records, replayed)


async def _refused_or_signed(
    scope: Scope,
    route: CommandRoute,
    table_id: str,
    idempotency_key: str,
    token: str,
    body: Any,
    key: ApiKey | None,
    later: Exception | None,
) -> tuple[list[RecordedEvent], bool]:
    """What follows a command the worker did not run: the key's refusals (401, then 403 with its
    log line), then ``later`` (steps 3 to 5, in FastAPI's order); or, nothing refused, a slip run
    once its co-signers are authenticated, each by their own key (R19)."""
    request = Request(scope)
    if key is None:
        raise await auth.unknown_key(request, token)
    refused = auth.denied(request, route.operation, key)
    if refused is not None:
        raise refused
    if later is not None:
        raise later
    signed_by = await slip_signers(request, route, key, body)
    return await run_in_threadpool(
        run_command,
        scope["app"].state.runner,
        route,
        table_id,
        idempotency_key,
        body,
        Actor(id=key.actor_id, role=key.role),
        signed_by,
    )


def _bearer(authorization: str | None) -> str | None:
    """The token of ``Authorization: Bearer <token>`` as ``auth.bearer`` (FastAPI's
    ``HTTPBearer``) reads it, or ``None``."""
    scheme, token = get_authorization_scheme_param(authorization)
    if not (authorization and scheme and token) or scheme.lower() != "bearer":
        return None
    return token


async def _read_body(receive: Receive) -> bytes:
    """The whole body (the body limit raises past it); a client that left is FastAPI's 400 (its
    handler answers 422: errors.py)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise HTTPException(400, "There was an error parsing the body")
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _body_of(
    route: CommandRoute, body: bytes, content_type: str | None
) -> tuple[Any, Exception | None, bool]:
    """(the body as FastAPI's validators would get it, a strict refusal to answer after the key,
    whether the value is already the route's model). A JSON body is read strictly first (the
    usual case, read once): it succeeds only where FastAPI's reader does too."""
    if not body:
        return _MISSING, None, False
    media = (content_type or "").partition(";")[0].strip().lower()
    strict = media == "application/json"  # strict_input.py's reading applies
    if strict and content_type == "application/json":
        try:
            return await read_strictly(route.body, body), None, True
        except RequestValidationError as refused:
            return _fastapi_read(body, content_type), refused, False
    value = _fastapi_read(body, content_type)
    if strict:
        try:
            await read_strictly(route.body, body)
        except RequestValidationError as refused:
            return value, refused, False
    return value, None, False


def _fastapi_read(body: bytes, content_type: str | None) -> Any:
    """The body as FastAPI's reader leaves it (fastapi/routing.py): JSON for an
    ``application/…json`` type, the bytes otherwise; JSON it cannot decode is refused as there."""
    if not content_type:
        return body  # FastAPI's strict content type: no type, no JSON
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    if message.get_content_maintype() != "application" or not (
        subtype == "json" or subtype.endswith("+json")
    ):
        return body
    try:
        return json.loads(body)
    except json.JSONDecodeError as error:
        raise RequestValidationError(
            [
                {
                    "type": "json_invalid",
                    "loc": ("body", error.pos),
                    "msg": "JSON decode error",
                    "input": {},
                    "ctx": {"error": error.msg},
                }
            ]
        ) from None
    except Exception:  # too deep, a number too long: FastAPI's 400 (errors.py answers 422)
        raise HTTPException(400, "There was an error parsing the body") from None


async def _parameters(
    scope: Scope,
    route: CommandRoute,
    table_id: str,
    key_header: str | None,
    value: Any,
    checked: bool,
) -> tuple[Any, Exception | None]:
    """(the body's model or ``None``, the refusal of step 4 or 5 or ``None``). Well-formed, the
    usual case, is seen by two patterns; anything else goes through FastAPI's validators over the
    documented route's parameters, for FastAPI's 422."""
    plain = (
        _TABLE_ID.fullmatch(table_id) is not None
        and key_header is not None
        and _IDEMPOTENCY_KEY.fullmatch(key_header) is not None
        and (checked or (value is _MISSING and not route.body_required))
    )
    if not plain:
        dependant = _DOCUMENTED[route.path].dependant
        _, path_errors = request_params_to_args(dependant.path_params, {"table_id": table_id})
        _, header_errors = request_params_to_args(dependant.header_params, Headers(scope=scope))
        values, body_errors = await request_body_to_args(
            dependant.body_params, value, embed_body_fields=False
        )
        errors = path_errors + header_errors + body_errors
        if errors:
            return None, RequestValidationError(errors)
        value = values["body"]
    elif value is _MISSING:
        value = None
    refused = refusal(table_id, key_header or "")
    if refused is not None:
        return value, ApiProblem(422, "invalid_request", refused)
    return value, None


def _run(
    keys: Any,
    runner: Any,
    route: CommandRoute,
    table_id: str,
    idempotency_key: str,
    token: str,
    body: Any,
    run: bool,
    state: dict[str, Any],
) -> tuple[Any, Any]:
    """On the worker thread: (the key or ``None``, the command's outcome or ``None``). The
    command runs only if nothing is left to refuse and the key's role may give it."""
    key = keys.lookup(token)
    if key is None:
        return None, None
    state["api_key"] = key  # the access log's (observe.py), whatever the command's outcome
    if not run or key.role not in RIGHTS[route.operation]:
        return key, None
    actor = Actor(id=key.actor_id, role=key.role)
    return key, run_command(runner, route, table_id, idempotency_key, body, actor)
