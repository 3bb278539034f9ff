"""A casino's House Way file installed on a table over HTTP (issue 32): ``POST /house-ways``.

Body ``{"table_id", "text", "reason", "expected_version"?}`` and the ``Idempotency-Key`` header,
the floor's key. The file is certified first, on a worker thread (every hand, by suit class: a
minute or so; a certificate already made by this process for the same text is reused); a file
that does not certify is 422 ``rule_violation`` (R-HW-5) with its failures and a first hand, a bad
file 422 with its lines, nothing written. Then ``house_way_installed`` and the ``rules_changed``
naming it are recorded together and answered as any command is (200, the recorded events).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from entrypoints.http.auth import require
from entrypoints.http.command_routes import ERRORS, IdempotencyKey
from entrypoints.http.errors import ApiProblem
from entrypoints.http.models import TABLE_ID_PATTERN, CommandResponse
from entrypoints.http.route_spec import answer, refusal
from service_layer.command_runner import CommandRunner
from service_layer.house_way_install import install_command
from service_layer.operators.keys import ApiKey
from table_core.events import Actor
from table_core.ports import RecordedEvent

router = APIRouter(tags=["commands"])


class HouseWayIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table_id: str = Field(pattern=TABLE_ID_PATTERN, examples=["PG-1"])
    text: str = Field(min_length=1, description="the House Way file, its exact text (TOML)")
    reason: str = Field(min_length=1, max_length=2000, description="why the House Way changes")
    expected_version: int | None = Field(default=None, ge=0, description="the table's version")


def _install(
    runner: CommandRunner, body: HouseWayIn, key: str, actor: Actor
) -> tuple[list[RecordedEvent], bool]:
    command = install_command(body.text, body.reason, actor, runner.service.now())
    return runner.run(
        body.table_id, key, body.expected_version, lambda _a, _at: command, actor=actor
    )


@router.post(
    "/house-ways",
    operation_id="install_house_way",
    summary="Install a certified House Way file on a table (floor; a rules change with a reason)",
    response_model=CommandResponse,
    responses=ERRORS,
)
async def install_house_way(
    request: Request,
    body: HouseWayIn,
    idempotency_key: IdempotencyKey,
    key: Annotated[ApiKey, Depends(require("install_house_way"))],
) -> Any:
    refused = refusal(body.table_id, idempotency_key)
    if refused is not None:
        raise ApiProblem(422, "invalid_request", refused)
    actor = Actor(id=key.actor_id, role=key.role)
    records, replayed = await run_in_threadpool(
        _install, request.app.state.runner, body, idempotency_key, actor
    )
    response: Response = answer(body.table_id, idempotency_key, records, replayed)
    return response
