"""What the casino's operations read, no key needed: ``/health``, ``/ready``, ``/metrics``, and
the API's documents (``/docs``, ``/redoc``) served with their assets from this server.

- ``/health``: liveness, the process answers (``{"status": "ok", "refusing": …}``).
- ``/ready``: the store answers, its schema is at the head revision, the signing key is the one
  that signed the log's last checkpoint, nothing refuses commands (service_layer/readiness.py);
  503 ``not_ready`` naming the first failing check otherwise. A check that does not answer within
  ``READY_TIMEOUT_S`` fails.
- ``/metrics``: Prometheus's text format (service_layer/metrics.py).
- ``/docs`` and ``/redoc``: Swagger UI and ReDoc with their scripts, styles and icon served under
  ``/docs-assets/`` from the ``fastapi-offline`` package (MIT; it ships Swagger UI, Apache-2.0,
  and ReDoc, MIT): a casino's isolated network reaches nothing else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import fastapi_offline
from fastapi import APIRouter, FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from entrypoints.http.errors import ErrorBody, problem
from entrypoints.http.models import HealthOut, ReadyOut
from service_layer import metrics
from service_layer.readiness import failover_reason, readiness

#: Where the documents' assets are served from (fastapi-offline's ``static`` folder).
ASSETS_URL = "/docs-assets"
ASSETS_DIR = Path(fastapi_offline.__file__).parent / "static"
#: ``/ready`` fails a store that has not answered by then (a probe must not hang).
READY_TIMEOUT_S = 2.0

router = APIRouter(tags=["health"])


@router.get("/health", operation_id="health", summary="Liveness; no key needed")
def health(request: Request) -> HealthOut:
    return HealthOut(status="ok", refusing=request.app.state.service.refusing)


@router.get(
    "/ready",
    operation_id="ready",
    summary="Readiness: the store answers, its schema is at head, its key signs, commands go",
    responses={503: {"model": ErrorBody, "description": "not ready: `message` says why"}},
)
async def ready(request: Request) -> Any:
    state = request.app.state
    try:
        found = await asyncio.wait_for(
            run_in_threadpool(readiness, state.service.store, state.service, state.head),
            READY_TIMEOUT_S,
        )
    except TimeoutError:
        store = state.service.store
        why = failover_reason(store) or f"the store did not answer within {READY_TIMEOUT_S:g} s"
        watch = getattr(store, "primary_watch", None)
        extra = {} if watch is None else {"failover": watch.state()}
        return problem(503, "not_ready", f"store: {why}", checks={"store": "no answer"}, **extra)
    found_extra: dict[str, Any] = {} if found.failover is None else {"failover": found.failover}
    warnings = getattr(state, "warnings", None)
    if warnings:
        found_extra["warnings"] = warnings
    if found.reason is not None:
        return problem(503, "not_ready", found.reason, checks=found.checks, **found_extra)
    out = ReadyOut(status="ready", checks=found.checks, primary=found.primary, **found_extra)
    dumped = out.model_dump(exclude_none=found.failover is None)
    if not warnings:
        dumped.pop("warnings", None)
    return JSONResponse(dumped)


@router.get("/metrics", include_in_schema=False)
def prometheus_metrics(request: Request) -> Response:
    return Response(
        metrics.exposition(request.app.state.store_gauges), media_type=metrics.CONTENT_TYPE
    )


def install_documents(app: FastAPI) -> None:
    """``/docs``, its OAuth2 redirect page and ``/redoc``, from this server's own assets (the app
    is built with ``docs_url=None, redoc_url=None``)."""
    app.mount(ASSETS_URL, StaticFiles(directory=ASSETS_DIR), name="docs-assets")
    title = app.title
    icon = f"{ASSETS_URL}/favicon.png"

    def page(make: Callable[..., HTMLResponse], name: str, **assets: str) -> Any:
        """A documentation page made by FastAPI's ``make``, its assets' URLs under the root path
        a proxy mounts this server at (``assets``: each URL's parameter and path here)."""

        async def serve(request: Request) -> HTMLResponse:
            root = request.scope.get("root_path", "")
            urls = {parameter: f"{root}{path}" for parameter, path in assets.items()}
            return make(openapi_url=f"{root}/openapi.json", title=f"{title} - {name}", **urls)

        return serve

    app.get("/docs", include_in_schema=False, name="swagger_ui")(
        page(
            get_swagger_ui_html,
            "Swagger UI",
            oauth2_redirect_url="/docs/oauth2-redirect",
            swagger_js_url=f"{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=icon,
        )
    )

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    app.get("/redoc", include_in_schema=False, name="redoc")(
        page(
            partial(get_redoc_html, with_google_fonts=False),
            "ReDoc",
            redoc_js_url=f"{ASSETS_URL}/redoc.standalone.js",
            redoc_favicon_url=icon,
        )
    )
