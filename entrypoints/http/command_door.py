"""The HTTP edge of a command: every request's body limit, the strict reading of a command's body,
and the command door, the one request path of every table command, refusals included.

**The body limit** (``BodyLimit``, ``PAIGOW_HTTP_MAX_BODY``, 64 KiB by default) is enforced while a
body is read, on every route: 413 ``body_too_large`` in the API's error shape (errors.py), nothing
done. Without it a 10 MB JSON body on a command route was read whole, then parsed on the event
loop: 1.36 GB of memory and 2.9 s during which no other request was answered. A
``Content-Length`` over the limit is refused before a byte is read; a body without one (chunked)
is counted as it arrives and refused as soon as it passes the limit, so whatever parses a body
(FastAPI's reader, the door's, ``strict_json``) parses at most the limit. One ASGI middleware
outside the door, FastAPI and the floor pages; its counting ``receive`` raises
:class:`BodyTooLarge`, an HTTP exception the handler of errors.py answers when an endpoint or the
door was reading, this middleware otherwise. A command's body is a few hundred bytes (a dealt deck
is about 600), the largest a rules profile of a few KiB: the default leaves room for both.

**Strict input** (``strict_body``, issue 17): a command's body is read as strict JSON and
validated without any conversion; refused with 422 ``invalid_request``, nothing written:

- what ``adapters.strict_json`` refuses: a body that is not UTF-8 (UTF-16), a key given twice,
  ``NaN``, nesting past 32 levels, a number past 40 digits, and a control character (ANSI
  escapes, ``\\r``, NUL, bidirectional overrides) in any string: reasons, names, house ways;
- a value of another JSON type than the schema's: ``"7"`` for an integer, ``0`` or ``1`` for a
  boolean, ``25.0`` for an integer. pydantic's lax mode would convert each; its strict mode
  also refuses a JSON array for a set (the rules profile's ``offered`` bets), so the body is
  validated as usual and then compared with the model's own JSON: any value that changed type
  was converted, and is refused with its location.

**The command door** (``CommandDoor``). A command from a terminal is the API's hot path (issue 10:
p99 under 20 ms at 200 requests/s). Through FastAPI, routing among 30 patterns, the middlewares,
solving the key's dependencies and validating the body cost as much CPU as deciding and appending
the command. So this ASGI middleware answers every POST to a command's path
(``command_routes.ROUTES``) itself, and FastAPI never routes one: its command routes are
documentation only (the OpenAPI document, 405 for another method). The door gives FastAPI's
answers, in FastAPI's order (issue 35 keeps them as contracts):

1. the body, read whole (the body limit bounds it: 413) and decoded as FastAPI's reader decodes
   it: JSON it cannot read is 422 before the key is looked at;
2. the key (``auth.py``): none, or unknown or revoked, is 401, logged and recorded as a failed
   authentication (``auth_failures.py``); a role the command is not for is 403 and its log line;
3. a JSON body read strictly: 422;
4. the table id, the ``Idempotency-Key`` header and the body against the route's schema, by
   FastAPI's own validators over the documented route's parameters: 422 with the ``detail``
   list FastAPI builds;
5. a ``system`` table or key (``route_spec.refusal``): 422; a slip's co-signers, each by their
   own key (``command_routes.slip_signers``): 401, 403 or 422;
6. the command (``route_spec.run_command``), answered with ``route_spec.answer``'s bytes.

An error raised on the way is answered by the handler FastAPI would pick (``errors.handler_for``);
no handler, a crash: ServerErrorMiddleware answers 500, as it would for an endpoint. When all is
well-formed (the usual case) the key lookup and the command share ONE worker thread and no
validator but the strict read runs; anything else is checked in ``door_checks.py``, as FastAPI
checks it. ``tests/integration/http/test_fast_path.py`` holds the door to the answers FastAPI's
endpoints gave (recorded in ``fastapi_answers.json``).
"""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fastapi.exceptions import RequestValidationError
from fastapi.security.utils import get_authorization_scheme_param
from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticUndefined, to_jsonable_python
from starlette._utils import get_route_path
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from adapters import strict_json
from entrypoints.http import auth
from entrypoints.http.command_routes import IDEMPOTENCY_KEY_PATTERN, ROUTES
from entrypoints.http.door_checks import (
    DOCUMENTED,
    fastapi_read,
    fastapi_validated,
    refused_or_signed,
)
from entrypoints.http.errors import ApiProblem, handler_for, problem
from entrypoints.http.models import TABLE_ID_PATTERN
from entrypoints.http.route_spec import CommandRoute, answer, refusal, run_command
from service_layer.command_runner import CommandRunner
from service_layer.operators.ledger import KeyLedger
from service_layer.operators.rights import RIGHTS
from table_core.events import Actor

# --- the body limit, on every route -----------------------------------------------------------

#: The default limit of a request body, in bytes.
DEFAULT_MAX_BODY = 64 * 1024


class BodyTooLarge(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(
            413,
            detail=f"the request body is over {limit} bytes, this server's limit "
            "(PAIGOW_HTTP_MAX_BODY): nothing was done",
            # The rest of the body is not read: the connection ends with the answer.
            headers={"Connection": "close"},
        )


class BodyLimit:
    def __init__(self, app: ASGIApp, limit: int = DEFAULT_MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            await _refuse(BodyTooLarge(limit), scope, receive, send)  # the body is never read
            return
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except BodyTooLarge as refused:
            if started:  # a route answered before it read its body: nothing more to say
                return
            await _refuse(refused, scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            text = value.strip()
            return int(text) if text.isdigit() else None  # the server refuses a bad one itself
    return None


async def _refuse(refused: BodyTooLarge, scope: Scope, receive: Receive, send: Send) -> None:
    response = problem(413, "body_too_large", str(refused.detail))
    response.headers.update(refused.headers or {})
    await response(scope, receive, send)


# --- strict input ----------------------------------------------------------------------------

_JSON_TYPES = {
    str: "a string",
    int: "an integer",
    bool: "a boolean",
    float: "a number",
    list: "an array",
    dict: "an object",
    type(None): "null",
}


def _refused(
    loc: tuple[Any, ...], msg: str, kind: str, given: Any = None
) -> RequestValidationError:
    return RequestValidationError(
        [{"loc": ("body", *loc), "msg": msg, "type": kind, "input": given}]
    )


def _child(obj: Any, key: Any) -> Any:
    if isinstance(obj, BaseModel):
        return getattr(obj, key, None)
    if isinstance(obj, dict):
        return obj.get(key)
    if isinstance(obj, list | tuple) and isinstance(key, int) and key < len(obj):
        return obj[key]
    return None


def _scalars(values: list[Any]) -> list[tuple[str, Any]] | None:
    """The list's members as sortable (type, value) pairs, or ``None`` if one is not a scalar."""
    if not all(isinstance(v, str | int | float | bool) for v in values):
        return None
    return sorted((type(v).__name__, v) for v in values)


def _converted(given: Any, dumped: Any, loc: tuple[Any, ...], obj: Any) -> tuple[Any, ...] | None:
    """Where ``given`` (the parsed body) differs in type or value from ``dumped`` (the model's
    JSON; ``obj`` the model's value there), or ``None``. Only the keys the caller gave are
    compared (defaults fill the rest); a key the model's JSON leaves out (a default it does not
    write) is compared with the model's value itself."""
    if isinstance(given, dict):
        if not isinstance(dumped, dict):
            return loc
        for key, value in given.items():
            child = _child(obj, key)
            back = dumped[key] if key in dumped else to_jsonable_python(child)
            found = _converted(value, back, (*loc, key), child)
            if found is not None:
                return found
        return None
    if isinstance(given, list):
        if not isinstance(dumped, list) or len(given) != len(dumped):
            return loc
        mine = _scalars(given)
        if mine is not None and mine == _scalars(dumped):
            return None  # the same members, which the model keeps in its own order
        for index, (value, back) in enumerate(zip(given, dumped, strict=True)):
            found = _converted(value, back, (*loc, index), _child(obj, index))
            if found is not None:
                return found
        return None
    if type(given) is not type(dumped) or given != dumped:
        return loc
    return None


def _walk(value: Any, loc: tuple[Any, ...]) -> Any:
    for part in loc:
        value = value[part]
    return value


def _walk_model(value: Any, loc: tuple[Any, ...]) -> Any:
    for part in loc:
        value = _child(value, part)
    return value


#: A body up to this size is read on the event loop (a command's is a few hundred bytes); a larger
#: one, up to the body limit (``BodyLimit``), in the reader thread: reading 64 KiB strictly takes
#: tens of milliseconds, which no request should hold the loop for.
ON_LOOP = 4096
#: ONE thread reads the larger bodies, one after the other: the reading holds the GIL, and twenty
#: threads reading at once kept the loop from its turn for most of a second (and held twenty
#: parsed bodies in memory); one thread gives it up to the loop every switch interval (5 ms).
_READER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paigow-strict-json")


async def read_strictly(model: type[BaseModel], raw: bytes) -> Any:
    """``strict_body``, in the reader thread for a body over :data:`ON_LOOP` bytes."""
    if len(raw) <= ON_LOOP:
        return strict_body(model, raw)
    return await asyncio.get_running_loop().run_in_executor(_READER, strict_body, model, raw)


def strict_body(model: type[BaseModel], raw: bytes) -> Any:
    """The body ``raw`` as ``model``, read strictly; ``RequestValidationError`` (the API's 422
    ``invalid_request``) otherwise."""
    try:
        data = strict_json.loads(raw, printable=True)
    except strict_json.StrictJsonError as error:
        kind = "string_unprintable" if "control character" in str(error) else "json_invalid"
        raise _refused((), str(error), kind) from None
    try:
        body = model.model_validate(data)
    except ValidationError as error:
        raise RequestValidationError(
            [
                # ``input`` words the answer (errors.py: money given as 25.00); never echoed
                {
                    "loc": ("body", *e["loc"]),
                    "msg": e["msg"],
                    "type": e["type"],
                    "input": e["input"],
                }
                for e in error.errors(include_url=False)
            ]
        ) from None
    where = _converted(data, body.model_dump(mode="json"), (), body)
    if where is not None:
        given = _walk(data, where)
        wanted = to_jsonable_python(_walk_model(body, where))
        if type(given) is type(wanted):
            message = f"{given!r} is not written as the schema keeps it ({wanted!r})"
        else:
            message = (
                f"{_JSON_TYPES.get(type(given), 'a value')} given where the schema wants "
                f"{_JSON_TYPES.get(type(wanted), 'another value')}: no conversion is made"
            )
        raise _refused(where, message, "strict_type", given)
    return body


# --- the command door ------------------------------------------------------------------------

_TABLE_ID = re.compile(TABLE_ID_PATTERN)
_IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)
_PREFIX = "/tables/"
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
        scope["route"] = DOCUMENTED[route.path]
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
        app_state.keys.ledger,
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
        outcome = await refused_or_signed(
            scope, route, table_id, idempotency_key, token, value, key, later
        )
    records, replayed = outcome
    return answer(table_id, idempotency_key, records, replayed)


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
    strict = media == "application/json"  # the strict reading applies
    if strict and content_type == "application/json":
        try:
            return await read_strictly(route.body, body), None, True
        except RequestValidationError as refused:
            return fastapi_read(body, content_type), refused, False
    value = fastapi_read(body, content_type)
    if strict:
        try:
            await read_strictly(route.body, body)
        except RequestValidationError as refused:
            return value, refused, False
    return value, None, False


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
        value, refused_by = await fastapi_validated(scope, route, table_id, value)
        if refused_by is not None:
            return None, refused_by
    elif value is _MISSING:
        value = None
    named = refusal(table_id, key_header or "")
    if named is not None:
        return value, ApiProblem(422, "invalid_request", named)
    return value, None


def _run(
    ledger: KeyLedger,
    runner: CommandRunner,
    route: CommandRoute,
    table_id: str,
    idempotency_key: str,
    token: str,
    body: Any,
    run: bool,
    state: dict[str, Any],
) -> tuple[Any, Any]:
    """On the worker thread: (the key or ``None``, the command's outcome or ``None``). The
    command runs only if nothing is left to refuse and the key's role may give it. The key is the
    log's (``KeyLedger.lookup``: one read of the system stream's version)."""
    key = ledger.lookup(token)
    if key is None:
        return None, None
    state["api_key"] = key  # the access log's (observe.py), whatever the command's outcome
    if not run or key.role not in RIGHTS[route.operation]:
        return key, None
    actor = Actor(id=key.actor_id, role=key.role)
    return key, run_command(runner, route, table_id, idempotency_key, body, actor)
