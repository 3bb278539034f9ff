"""Software change control over HTTP (R5/R19): the floor authorises a release's code by its
digest, with a reason, before it runs (``service_layer/software_versions.py``).

``POST /service/software-versions`` (``{"digest", "reason"}``; ``version`` is still read, as the
digest, when ``digest`` is absent) records ``software_version_authorised`` (its record, 201, with
``digest``); refused, nothing written: 403 another role, 409 the digest the log already runs, 422
not a digest (a version label), two different digests, or an empty reason.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from entrypoints.http.auth import endpoint, require
from entrypoints.http.errors import error_docs, refused
from service_layer import software_versions
from service_layer.change_control import authorise
from service_layer.operators.keys import ApiKey
from table_core.ports import Actor

router = APIRouter(tags=["service"])
_ERRORS = error_docs(
    (403, "only the floor authorises a software version"),
    (409, "the digest is the one the log already runs"),
    (422, "not a digest (a version label), or an empty reason"),
)


class VersionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    digest: str | None = Field(
        default=None, max_length=100, description="the code's digest, 64 hex digits"
    )
    version: str | None = Field(
        default=None, max_length=100, description="read as the digest when `digest` is absent"
    )
    reason: str = Field(max_length=2000)


def _authorise(store: Any, body: VersionIn, actor: Actor, now: Any) -> dict[str, Any]:
    try:
        named = {n.strip().lower() for n in (body.digest, body.version) if n is not None}
        if len(named) > 1:
            raise software_versions.VersionAuthorisationError(
                "`digest` and `version` name different code: give the digest once"
            )
        digest = body.digest if body.digest is not None else body.version
        return authorise(store, digest or "", body.reason, actor, now)
    except software_versions.VersionAuthorisationError as error:
        raise refused(error.status, str(error)) from None


@endpoint(
    router.post,
    "/service/software-versions",
    "software_version_authorise",
    "Authorise a release's code (its digest) to run, with a reason, before it runs (R5/R19)",
    status_code=201,
    responses=_ERRORS,
    key_parameter=True,
)
async def software_version_authorise(
    request: Request,
    body: VersionIn,
    key: Annotated[ApiKey, Depends(require("software_version_authorise"))],
) -> dict[str, Any]:
    service = request.app.state.service
    actor = Actor(key.actor_id, key.role)
    return await run_in_threadpool(_authorise, service.store, body, actor, service.now())
