"""Authentication (an API key as a bearer token) and the role check of each endpoint.

``Authorization: Bearer <token>``. A missing or unknown key is 401, logged (``unknown_api_key``)
and recorded as an ``authentication_failed`` system event, rate-limited per client address
(R5/R19, ``auth_failures.py``); a known key whose role may not call the endpoint is 403, and the
attempt is logged (structlog) with the actor, the role, the key id and the endpoint, never the
token.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from adapters.logging import get_logger
from entrypoints.http.errors import ApiProblem
from service_layer.operators.keys import ApiKey, KeyStore, presented_key_id
from service_layer.operators.rights import RIGHTS, refusal

log = get_logger(component="http")

bearer = HTTPBearer(
    auto_error=False,
    scheme_name="ApiKey",
    description="An API key from `paigow keys create --role ROLE`, sent as a bearer token.",
)


def _keys(request: Request) -> KeyStore:
    keys: KeyStore = request.app.state.keys
    return keys


async def caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> ApiKey:
    """The key the request carries: its actor and role. Looked up on every request (a revoked
    key stops at once), on a worker thread since the lookup reads the database."""
    if credentials is None or not credentials.credentials:
        raise await no_key(request)
    keys = _keys(request)
    key = await run_in_threadpool(keys.lookup, credentials.credentials)
    if key is None:
        raise await unknown_key(request, credentials.credentials)
    request.state.api_key = key  # the access log's (observe.py)
    return key


async def no_key(request: Request) -> ApiProblem:
    """401 for a request without a key, recorded as a failed authentication."""
    await record_failure(request, None)
    return ApiProblem(401, "unauthorized", "an API key is needed: Authorization: Bearer <key>")


async def unknown_key(request: Request, token: str) -> ApiProblem:
    """401 for a key the server does not know (or revoked): logged and recorded."""
    keys = _keys(request)
    # A row the log does not back (an insider's INSERT) says so in the line (R5/R19).
    unbacked = await run_in_threadpool(keys.unbacked_row, token)
    log.warning(
        "unknown_api_key",
        method=request.method,
        path=request.url.path,
        row_not_in_log=unbacked,
    )
    await record_failure(request, token)
    refused = request.app.state.service.refusal() if unbacked else None
    if refused is not None and ": untagged:" in refused:
        # Its creation is among events no append tag covers (written without the signing
        # key, or behind the store's back): what the operator checks, and how.
        return ApiProblem(
            401, "unauthorized", f"this API key is not one the log vouches for: {refused}"
        )
    return ApiProblem(401, "unauthorized", "this API key is unknown or revoked")


def denied(request: Request, operation: str, key: ApiKey) -> ApiProblem | None:
    """403 if the key's role may not call ``operation`` (``RIGHTS``), logged with the actor,
    the role, the key id and the endpoint, never the token; ``None`` if it may."""
    why = refusal(operation, key.role, f"call {operation}")
    if why is None:
        return None
    log.warning(
        "access_denied",
        actor=key.actor_id,
        role=key.role,
        key_id=key.key_id,
        operation=operation,
        method=request.method,
        path=request.url.path,
    )
    return ApiProblem(403, "forbidden", why)


async def record_failure(request: Request, token: str | None) -> None:
    """R5/R19: the failure on the system stream, when the limiter lets it through. Recording it
    never changes the answer (401): a store that cannot take it is logged, and that is all."""
    client = request.client.host if request.client is not None else None
    failures = request.app.state.auth_failures.failed(client)
    if failures is None:
        return
    route = request.scope.get("route")
    template = getattr(route, "path", None) or request.url.path
    service = request.app.state.service
    try:
        await run_in_threadpool(
            service.authentication_failed, template, client, presented_key_id(token), failures
        )
    except Exception as error:  # the store is down or refusing: the 401 stands
        log.warning("authentication_failed_not_recorded", error=type(error).__name__)


Caller = Annotated[ApiKey, Depends(caller)]


def require(operation: str) -> Callable[..., Awaitable[ApiKey]]:
    """A dependency admitting the roles ``RIGHTS[operation]`` allows; anyone else gets 403."""
    if operation not in RIGHTS:  # at import: every endpoint has its row in the matrix
        raise KeyError(f"{operation} has no row in service_layer/operators/rights.py")

    # ``async``: a pure check, so FastAPI runs it on the event loop instead of handing it to a
    # worker thread (each hand-off costs more than the check).
    async def check(request: Request, key: Caller) -> ApiKey:
        refused = denied(request, operation, key)
        if refused is not None:
            raise refused
        return key

    return check


Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])


def endpoint(
    method: Callable[..., Callable[[Endpoint], Endpoint]],
    path: str,
    operation: str,
    summary: str,
    **extra: Any,
) -> Callable[[Endpoint], Endpoint]:
    """The decorator of the endpoint ``operation`` (its operationId and its row of
    ``rights.RIGHTS``) on ``method`` (a router's ``get``, ``post``…): ``require(operation)``
    checks the key first, unless the endpoint takes the key as a parameter of its own
    (``Depends(require(operation))``: say ``key_parameter=True``)."""
    if not extra.pop("key_parameter", False):
        extra["dependencies"] = [Depends(require(operation))]
    return method(path, operation_id=operation, summary=summary, **extra)
