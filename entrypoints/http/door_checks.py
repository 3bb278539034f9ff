"""The command door's checks beyond a well-formed request (``command_door.py``): what FastAPI's
reader and validators would answer, and what follows once the worker thread has not run the
command (the key's refusals, or a slip's co-signers).

A usual command (a JSON body that reads strictly, a plain table id and ``Idempotency-Key``, a key
that may give it) never reaches this module. Anything else is checked here as FastAPI checks it,
for FastAPI's answers in FastAPI's order (issue 35 keeps them as contracts):
``tests/integration/http/test_fast_path.py`` holds the door to the answers FastAPI's endpoints
gave (recorded in ``fastapi_answers.json``).
"""

from __future__ import annotations

import email.message
import json
from typing import Any

from fastapi.dependencies.utils import request_body_to_args, request_params_to_args
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import Scope

from entrypoints.http import auth
from entrypoints.http.command_routes import router, slip_signers
from entrypoints.http.route_spec import CommandRoute, run_command
from service_layer.operators.keys import ApiKey
from table_core.events import Actor
from table_core.ports import RecordedEvent

#: Each command's documented route (command_routes.py), by its path under ``/tables/{table_id}``:
#: its template names the command in the access log and a failed authentication's record, its
#: parameters are what FastAPI's validators check.
DOCUMENTED: dict[str, APIRoute] = {
    api.path.removeprefix("/tables/{table_id}"): api
    for api in router.routes
    if isinstance(api, APIRoute)
}


def fastapi_read(body: bytes, content_type: str | None) -> Any:
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


async def fastapi_validated(
    scope: Scope, route: CommandRoute, table_id: str, value: Any
) -> tuple[Any, Exception | None]:
    """(the body's model, or ``None`` with FastAPI's 422): the table id, the headers and the body
    through FastAPI's own validators over the documented route's parameters."""
    dependant = DOCUMENTED[route.path].dependant
    _, path_errors = request_params_to_args(dependant.path_params, {"table_id": table_id})
    _, header_errors = request_params_to_args(dependant.header_params, Headers(scope=scope))
    values, body_errors = await request_body_to_args(
        dependant.body_params, value, embed_body_fields=False
    )
    errors = path_errors + header_errors + body_errors
    if errors:
        return None, RequestValidationError(errors)
    return values["body"], None


async def refused_or_signed(
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
    log line), then ``later`` (the strict read's, the validators' or the ``system`` names'
    refusal, in FastAPI's order); or, nothing refused, a slip run once its co-signers are
    authenticated, each by their own key (R19)."""
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
