"""Every request counted, timed and logged: the metrics (service_layer/metrics.py) and the access
log.

An ASGI middleware, outermost of the app's own (the command door included), so a command the
door answers is seen as a route FastAPI answers. Per request it writes ONE structured line
(structlog, adapters/logging.py: ``PAIGOW_LOG_LEVEL`` and ``PAIGOW_LOG_FORMAT``)::

    {"event": "http_request", "method": "POST", "route": "/tables/{table_id}/round/bet",
     "status": 200, "ms": 4.1, "actor": "dealer-7", "table_id": "PG-1", ...}

``route`` is the route's template, never the raw path or its query; ``actor`` is the API key's
actor once the key is known (``null`` before). Nothing of the request's headers is logged: no
token, no ``Authorization``, no ``Idempotency-Key``. It costs a few microseconds a request: two
cached metric children, one clock pair, one log line (none below the log level).

A command answered with an error also counts ``paigow_commands_refused_total{reason}``, its body's
``error`` code (read only for an error's answer).
"""

from __future__ import annotations

import time
from typing import Any

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from adapters.logging import get_logger
from entrypoints.http.command_routes import ROUTES
from service_layer import metrics

#: The templates of the command routes (their refusals are counted by reason).
COMMAND_TEMPLATES = frozenset("/tables/{table_id}" + path for path in ROUTES)
#: The label of a path no route knows: never the path itself (the label set stays bounded).
UNMATCHED = "unmatched"


class Observe:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.log = get_logger(component="http")
        self._children: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        state = scope.setdefault("state", {})
        answer: dict[str, Any] = {"status": 500, "body": None}

        async def observed_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                if message["status"] >= 400 and scope["method"] == "POST":
                    answer["body"] = []
            elif message["type"] == "http.response.body" and answer["body"] is not None:
                answer["body"].append(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, observed_send)
        finally:
            self._record(scope, state, answer, time.perf_counter() - started)

    def _record(
        self, scope: Scope, state: dict[str, Any], answer: dict[str, Any], seconds: float
    ) -> None:
        route = _template(scope)
        method, status = scope["method"], answer["status"]
        children = self._children.get((route, method, status))
        if children is None:
            children = self._children[(route, method, status)] = (
                metrics.REQUESTS.labels(route, method, str(status)),
                metrics.LATENCY.labels(route, method),
            )
        children[0].inc()
        children[1].observe(seconds)
        reason = None
        if answer["body"] is not None and route in COMMAND_TEMPLATES:
            reason = _error_code(b"".join(answer["body"]))
            metrics.REFUSED.labels(reason).inc()
        key = state.get("api_key")
        path_params = scope.get("path_params") or {}
        self.log.info(
            "http_request",
            method=method,
            route=route,
            status=status,
            ms=round(seconds * 1000, 2),
            actor=getattr(key, "actor_id", None),
            role=getattr(key, "role", None),
            table_id=path_params.get("table_id"),
            **({"error": reason} if reason else {}),
        )


def _template(scope: Scope) -> str:
    route = scope.get("route")  # FastAPI's router's, or the command door's (command_door.py)
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else UNMATCHED


def _error_code(body: bytes) -> str:
    try:
        found = orjson.loads(body)
    except orjson.JSONDecodeError:
        return "unknown"
    code = found.get("error") if isinstance(found, dict) else None
    return code if isinstance(code, str) and len(code) <= 40 else "unknown"
