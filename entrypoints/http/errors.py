"""Every refusal as one JSON shape: ``{"error": code, "message": text, ...}``.

- 401 ``unauthorized``: no API key, or one the server does not know (or revoked).
- 403 ``forbidden``: the key's role may not call this endpoint (logged with the actor).
- 404 ``not_found``: no such table or round.
- 409 ``stale_version`` with ``current_version``: the table moved on since the caller read it
  (the ``expected_version`` it sent, or another writer won the race); ``idempotency_key_reused``:
  the key was already used for another table.
- 422 ``rule_violation`` with ``rule`` (an ``R-…`` clause or ``null``) and a message a dealer can
  act on; ``invalid_request``: the body, a header or a parameter does not fit the schema, or the
  body is not strict JSON (command_door.py; a body FastAPI's reader fails on, 1,000-deep or a
  4,300-digit number, too); ``idempotency_key_reused``: the key was used on this table for
  another request (idempotency.py).
- 404 ``not_found`` / 405 ``method_not_allowed`` (and any other status Starlette raises) for a
  path or method no route knows: the same shape, not Starlette's plain text. A path that is a
  route's but for its trailing slash is a 307 to that path, relative (slashes.py).
- 413 ``body_too_large``: the request body is over ``PAIGOW_HTTP_MAX_BODY`` (``BodyLimit``,
  command_door.py).
- 503 ``commands_refused``: the store failed verification; ``log_tampered``: the store met an
  event it did not append (no valid append tag, issue 17) and refused to sign or fold it (the
  table refuses commands from then on); ``read_only``: the server was started
  with ``--read-only`` (no usable signing key); ``not_ready`` (``/ready``); ``store_unavailable``:
  the store refused, or (with ``Retry-After``) no database primary answered within the store's
  retries (a failover: send the same ``Idempotency-Key`` again after that many seconds), or the
  database cannot be reached or cannot write (a driver's own error: stopped, cut off, a full disk,
  a read-only SQLite file), with ``Retry-After``; one log line each, never a traceback.

Whatever the error, nothing was written: the service appends only after the core decided, in one
transaction, and the store refuses whole commands.
"""

from __future__ import annotations

import functools
import sqlite3
import typing
from collections.abc import Callable
from typing import Any

import psycopg
import sqlalchemy.exc
from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException

from adapters.logging import get_logger
from adapters.store.outage import RETRY_AFTER_S, describe
from entrypoints.http import slashes
from entrypoints.http.slashes import slash_redirect
from service_layer.problems import ApiProblem, StaleVersion
from service_layer.service import LogTampered, ServiceReadOnly, StoreUnverified
from table_core.errors import DomainError
from table_core.ports import (
    CommandIdConflict,
    ConcurrencyError,
    InvalidEvent,
    StoreError,
    StoreUnavailable,
)
from table_core.table import NotAllowed, WrongState

log = get_logger(component="http")

__all__ = [
    "NO_KEY",
    "ApiProblem",
    "ErrorBody",
    "StaleVersion",
    "error_docs",
    "install",
    "problem",
    "refused",
    "refusing",
]


class ErrorBody(BaseModel):
    """The body of every error response (extra fields depend on ``error``)."""

    error: str
    message: str
    rule: str | None = None
    state: str | None = None
    current_version: int | None = None
    expected_version: int | None = None
    detail: list[Any] | None = None


#: Every endpoint that takes an API key may answer this.
NO_KEY = "no API key, or an unknown one"


def error_docs(*answers: tuple[int, str]) -> dict[int | str, dict[str, Any]]:
    """The error answers of a group of endpoints that take an API key (401 first), each status
    with its text, for the OpenAPI document."""
    every = [(401, NO_KEY), *answers]
    return {code: {"model": ErrorBody, "description": text} for code, text in every}


#: The error of a use case's refusal by its status; any other status is ``invalid_request``.
_REFUSALS = {403: "forbidden", 404: "not_found", 409: "conflict"}


def refused(status: int, message: str) -> ApiProblem:
    """A use case's refusal (its status and message) as the answer."""
    return ApiProblem(status, _REFUSALS.get(status, "invalid_request"), message)


def refusing(kind: type[Exception]) -> Callable[..., Any]:
    """``run(call, *args)``: the call's result, or its refusal (a ``kind`` carrying ``status``)
    answered as ``refused`` says; nothing else is caught."""

    def run(call: Callable[..., Any], *args: Any) -> Any:
        try:
            return call(*args)
        except kind as error:
            raise refused(error.status, str(error)) from None  # type: ignore[attr-defined]

    return run


def problem(status: int, error: str, message: str, **extra: Any) -> JSONResponse:
    body = {"error": error, "message": message, **extra}
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(jsonable_encoder(body), status_code=status, headers=headers)


def _api_problem(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiProblem)
    return problem(exc.status, exc.error, exc.message, **exc.extra)


def _domain_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, DomainError)
    if isinstance(exc, NotAllowed):  # the core's own role check (this layer's is stricter)
        return problem(403, "forbidden", exc.message)
    extra: dict[str, Any] = {"rule": exc.rule}
    if isinstance(exc, WrongState):
        extra["state"] = exc.state
    return problem(422, "rule_violation", exc.message, **extra)


def _store_unverified(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StoreUnverified)
    return problem(503, "commands_refused", exc.message)


def _log_tampered(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LogTampered)
    return problem(503, "log_tampered", exc.message)


def _read_only(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ServiceReadOnly)
    return problem(503, "read_only", exc.message)


#: Starlette's own refusals (no route, a method the route does not take), by status.
_HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}


def _http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 400:
        # FastAPI's JSON reader failed on the body (1,000-deep, a 4,300-digit number: "There was
        # an error parsing the body"): the 422 every other unreadable body gets.
        message = "the body is not JSON this API reads (nested too deep, or a number too long)"
        detail = [{"loc": ["body"], "msg": message, "type": "json_invalid"}]
        return problem(422, "invalid_request", message, detail=detail)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    if exc.status_code == 404:
        moved = slash_redirect(request)  # ``/floor`` -> ``/floor/``, never naming a host
        if moved is not None:
            return moved
        page = getattr(request.app.state, "floor_not_found", None)
        if page is not None and request.url.path.startswith("/floor/"):
            shown: Response = page(request)  # a person's browser: the floor's own 404 page
            return shown
        message = f"no route {request.method} {request.url.path}: see /docs"
    elif exc.status_code == 405:
        message = f"{request.method} is not allowed on {request.url.path}"
    else:
        message = str(exc.detail)
    response = problem(exc.status_code, code, message)
    for name, value in (exc.headers or {}).items():
        response.headers[name] = value
    return response


def _concurrency(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ConcurrencyError)
    return problem(
        409,
        "stale_version",
        str(exc),
        current_version=exc.actual_version,
        expected_version=exc.expected_version,
    )


def _command_id_conflict(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, CommandIdConflict)
    return problem(
        409,
        "idempotency_key_reused",
        f"Idempotency-Key {exc.command_id!r} was already used on table {exc.recorded_stream!r}:"
        " use a new key for a new command",
    )


def _invalid_event(_request: Request, exc: Exception) -> JSONResponse:
    # A value the store cannot record as given (an integer past 64 bits in a rules profile, …).
    return problem(422, "rule_violation", str(exc), rule=None)


def _store_error(_request: Request, exc: Exception) -> JSONResponse:
    log.error("store_error", error=str(exc), kind=type(exc).__name__)
    return problem(503, "store_unavailable", f"the event store refused: {exc}")


def _store_unavailable(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StoreUnavailable)
    log.warning("store_unavailable", error=str(exc))
    answer = problem(503, "store_unavailable", f"{exc}: retry with the same Idempotency-Key")
    answer.headers["Retry-After"] = str(exc.retry_after)
    return answer


def _store_outage(_request: Request, exc: Exception) -> JSONResponse:
    # The database is down, cut off, full or read-only (a driver's error no store turned into
    # StoreUnavailable): one line, no traceback, the same answer for every request until it is
    # back (a retry with the same key is then safe).
    log.error("store_unavailable", error=describe(exc), kind=type(exc).__name__)
    answer = problem(
        503, "store_unavailable", "the event store cannot be reached or cannot write: try again"
    )
    answer.headers["Retry-After"] = str(RETRY_AFTER_S)
    return answer


def _core_validation(_request: Request, exc: Exception) -> JSONResponse:
    # The core built an event its own model refuses (a value the request schema let through):
    # decide raised before anything was appended, so it is the caller's input, not a crash.
    assert isinstance(exc, ValidationError)
    log.warning("command_not_recordable", error=str(exc))
    found = exc.errors()
    if not found:
        return problem(422, "rule_violation", "invalid value")
    where = ".".join(str(p) for p in found[0]["loc"])
    return problem(422, "rule_violation", f"{where}: {found[0]['msg']}")


#: A value refused as no integer: for a field of money, the answer says money is whole cents.
_NOT_AN_INTEGER = frozenset({"int_type", "int_from_float", "int_parsing", "strict_type"})


@functools.cache
def money_fields() -> frozenset[str]:
    """The names of the request bodies' fields that hold money: those described as minor units,
    in every model of ``models`` and the models they hold (a chip list, the table's rules)."""
    from entrypoints.http import models

    names: set[str] = set()
    seen: set[type[BaseModel]] = set()

    def walk(kind: Any) -> None:
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            if kind in seen:
                return
            seen.add(kind)
            for name, field in kind.model_fields.items():
                if "minor units" in (field.description or ""):
                    names.add(name)
                walk(field.annotation)
        for inner in typing.get_args(kind):
            walk(inner)

    for value in vars(models).values():
        walk(value)
    return frozenset(names)


def _message(error: dict[str, Any]) -> str:
    """A refusal's words: pydantic's, but for money given as no integer (``25.00``, ``"2500"``),
    which is told that amounts are integer cents and what to send."""
    message = str(error.get("msg", "invalid"))
    loc = [p for p in error.get("loc", ()) if isinstance(p, str)]
    if error.get("type") not in _NOT_AN_INTEGER or not loc or loc[-1] not in money_fields():
        return message
    given = error.get("input")
    said = "amounts are integer cents (minor units), a JSON number without a fraction"
    if isinstance(given, float) and given == given and abs(given) < 1e15:
        cents = round(given * 100)
        if given.is_integer():  # 2500.0: cents written as a float, or units
            return f"{said}: send {int(given)}, not {given!r} ({given:,.2f} would be {cents})"
        return f"{said}: {given:,.2f} is sent as {cents}"
    if isinstance(given, str) and given.strip().lstrip("-").isdigit():
        return f'{said}: send {given.strip()}, not "{given}" (a number, not a string)'
    return said


def _request_validation(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    parts = []
    for error in errors[:5]:
        where = ".".join(str(p) for p in error.get("loc", ()))
        parts.append(f"{where}: {_message(error)}")
    detail = [
        {"loc": list(e.get("loc", ())), "msg": _message(e), "type": e.get("type")} for e in errors
    ]
    return problem(422, "invalid_request", "; ".join(parts) or "invalid request", detail=detail)


#: The handler of each error class. Starlette picks the handler of the most specific class in the
#: exception's MRO, so StoreUnverified (a DomainError) and the store errors' subclasses get their
#: own; ``handler_for`` picks the same way for the command door (command_door.py).
HANDLERS: dict[type[Exception], Any] = {
    ApiProblem: _api_problem,
    StoreUnverified: _store_unverified,
    LogTampered: _log_tampered,
    ServiceReadOnly: _read_only,
    HTTPException: _http_exception,
    DomainError: _domain_error,
    ConcurrencyError: _concurrency,
    CommandIdConflict: _command_id_conflict,
    InvalidEvent: _invalid_event,
    StoreError: _store_error,
    StoreUnavailable: _store_unavailable,
    ValidationError: _core_validation,
    RequestValidationError: _request_validation,
    sqlite3.OperationalError: _store_outage,
    psycopg.OperationalError: _store_outage,
    psycopg.InterfaceError: _store_outage,
    sqlalchemy.exc.OperationalError: _store_outage,
    sqlalchemy.exc.InterfaceError: _store_outage,
    sqlalchemy.exc.TimeoutError: _store_outage,
    sqlalchemy.exc.DisconnectionError: _store_outage,
}


def handler_for(exc: Exception) -> Any:
    """The handler FastAPI would call for ``exc``, or ``None`` (a crash: 500)."""
    for cls in type(exc).__mro__:
        handler = HANDLERS.get(cls)
        if handler is not None:
            return handler
    return None


def install(app: FastAPI) -> None:
    slashes.install(app)
    for cls, handler in HANDLERS.items():
        app.add_exception_handler(cls, handler)
