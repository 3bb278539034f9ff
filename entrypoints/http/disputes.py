"""Disputes over HTTP (R17): the floor and the auditor open, read, close and export them.

``POST /disputes`` opens one (its record, 201); ``GET /disputes`` and ``GET /disputes/{id}``
read them; ``POST /disputes/{id}/close`` records the outcome; ``GET /disputes/{id}/bundle`` answers
the regulator's bundle as JSON lines (a server started on a database URL only: the bundle is read
from the database as ``paigow audit export`` reads it). A refusal writes nothing: 404 no such
dispute, 409 already closed, 422 no such table or round, or an empty reason.
"""

from __future__ import annotations

import tempfile
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from entrypoints.http.auth import endpoint, require
from entrypoints.http.errors import ApiProblem, error_docs, refusing
from entrypoints.http.models import TABLE_ID_PATTERN
from service_layer import disputes
from service_layer.operators.keys import ApiKey
from table_core.ports import Actor

router = APIRouter(tags=["disputes"])
_ERRORS = error_docs(
    (403, "only the floor and the auditor handle disputes"),
    (404, "no such dispute"),
    (409, "the dispute is already closed"),
    (422, "no such table or round, or an empty reason or outcome"),
)
#: Each endpoint's decorator: its operationId names its right (``auth.endpoint``).
_get = partial(endpoint, router.get, responses=_ERRORS)
_post = partial(endpoint, router.post, responses=_ERRORS)


class DisputeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table_id: str = Field(pattern=TABLE_ID_PATTERN)
    reason: str = Field(max_length=2000)
    player: str | None = Field(default=None, max_length=200)
    rounds: list[Annotated[int, Field(ge=1, le=2**62)]] = Field(default=[], max_length=10_000)
    from_time: datetime | None = None
    to_time: datetime | None = None
    surveillance: list[Annotated[str, Field(max_length=2000)]] = Field(default=[], max_length=100)


class OutcomeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    outcome: str = Field(max_length=2000)


def _actor(key: ApiKey) -> Actor:
    return Actor(key.actor_id, key.role)


_run = refusing(disputes.DisputeError)


@_post(
    "/disputes",
    "dispute_open",
    "Open a dispute on rounds of a table: they are held from purge (R17)",
    status_code=201,
    key_parameter=True,
)
async def dispute_open(
    request: Request, body: DisputeIn, key: Annotated[ApiKey, Depends(require("dispute_open"))]
) -> dict[str, Any]:
    service = request.app.state.service
    asked = disputes.Request(**body.model_dump())
    record: dict[str, Any] = await run_in_threadpool(
        _run, disputes.open_dispute, service.store, asked, _actor(key), service.now()
    )
    if record["decks"]:
        # The opening held decks in the table's stream (R20): the table this server holds in
        # memory is caught up, so its next deal sees the hold at once.
        await run_in_threadpool(service.refresh, body.table_id)
    return record


@_get("/disputes", "dispute_list", "Every dispute, open and closed")
def dispute_list(request: Request) -> list[dict[str, Any]]:
    return list(disputes.disputes(request.app.state.service.store).values())


@_get("/disputes/{dispute_id}", "dispute_show", "One dispute's record")
def dispute_show(request: Request, dispute_id: str) -> dict[str, Any]:
    result: dict[str, Any] = _run(disputes.find, request.app.state.service.store, dispute_id)
    return result


@_post(
    "/disputes/{dispute_id}/close",
    "dispute_close",
    "Close a dispute, recording its outcome; its rounds are held no longer",
    key_parameter=True,
)
async def dispute_close(
    request: Request,
    dispute_id: str,
    body: OutcomeIn,
    key: Annotated[ApiKey, Depends(require("dispute_close"))],
) -> dict[str, Any]:
    service = request.app.state.service
    return await run_in_threadpool(
        _run,
        disputes.close_dispute,
        service.store,
        dispute_id,
        body.outcome,
        _actor(key),
        service.now(),
    )


@_get(
    "/disputes/{dispute_id}/bundle",
    "dispute_export",
    "The regulator's bundle of a dispute, as JSON lines (`paigow audit verify --bundle`)",
    response_class=PlainTextResponse,
)
def dispute_export(request: Request, dispute_id: str) -> PlainTextResponse:
    url: str | None = getattr(request.app.state, "audit_url", None)
    if url is None:
        raise ApiProblem(409, "conflict", "this server has no database to export a bundle from")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "dispute.jsonl"
        _run(disputes.export_dispute, request.app.state.service.store, url, dispute_id, out)
        text = out.read_text(encoding="utf-8")
    return PlainTextResponse(text, media_type="application/x-ndjson")
