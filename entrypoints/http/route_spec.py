"""One table command over HTTP, from its body to its answer's bytes: how a route is described
(``CommandRoute``: its path, operationId, body model and how the body becomes a core command), run
(``run_command``) and answered (``answer``). ``command_routes.ROUTES`` lists the routes; the
command door (``command_door.py``) and the documented FastAPI routes are both built from that
list, and the door runs and answers every command through this module.

Most bodies carry their command's fields under the command's own names: such a route names the
command's class and the body's fields are copied (``copied``); a route whose command takes
something else (the table id, a default time, a tuple) gives its own builder."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from functools import partial
from typing import Any

import orjson
from starlette.responses import Response

from entrypoints.http.models import CommandBody
from eventlog.system_events import SYSTEM_STREAM
from service_layer.command_runner import CommandRunner
from table_core import commands as c
from table_core.events import Actor
from table_core.ports import RecordedEvent

#: (table id, the validated body or None, the actor, the service's time) -> the core's command.
Builder = Callable[[str, Any, Actor, datetime], c.Command]
#: (table id, body, each signer's actor by role, the actor, the time) -> a slip's command.
SignedBuilder = Callable[[str, Any, dict[str, Actor], Actor, datetime], c.Command]


@dataclass(frozen=True, slots=True)
class Signed:
    """A slip signed by several keys (``rights.SIGNERS``): its body's ``signatures`` carry the
    co-signers' keys. ``names(body)``: how a person names the slip, and the signers' ids the body
    gives the old way, by role, with each one's field name (each must be the key's actor)."""

    build: SignedBuilder
    names: Callable[[Any], tuple[str, dict[str, str | None], dict[str, str]]]


@dataclass(frozen=True, slots=True)
class CommandRoute:
    path: str  # under /tables/{table_id}
    operation: str  # the OpenAPI operationId, and the row of rights.RIGHTS
    summary: str
    body: type[CommandBody] | type[Any]  # the body's model
    body_required: bool  # False: the body may be left out (it only carries expected_version)
    build: Builder | None  # None: ``electronic`` names the service's own deal or dice
    electronic: str | None = None
    doc: str | None = None
    signed: Signed | None = None


def copied(make: type[c.Command], body: Any) -> Builder:
    """Builds ``make`` from each of its fields the body has under the same name, with the actor
    and the time; the body's other fields (``expected_version``) are not the command's."""
    names = tuple(f.name for f in fields(make) if f.name in body.model_fields and f.init)

    def build(_table: str, b: Any, actor: Actor, at: datetime) -> c.Command:
        return make(**{name: getattr(b, name) for name in names}, actor=actor, at=at)

    return build


def route(
    path: str,
    operation: str,
    summary: str,
    body: Any,
    build: Builder | type[c.Command],
    doc: str | None = None,
) -> CommandRoute:
    """``build``: the command's class when the body carries its fields (``copied``), else how the
    body becomes the command."""
    if isinstance(build, type):
        build = copied(build, body)
    return CommandRoute(path, operation, summary, body, True, build, doc=doc)


def signed_route(
    path: str, operation: str, summary: str, body: Any, signed: Signed, doc: str | None = None
) -> CommandRoute:
    """A slip's route: built once its signers are known (``run_command``)."""

    def unsigned(_t: str, _b: Any, _a: Actor, _at: datetime) -> c.Command:
        raise AssertionError(f"{operation} is built with its signers")

    return CommandRoute(path, operation, summary, body, True, unsigned, doc=doc, signed=signed)


def simple(path: str, operation: str, summary: str, make: type[c.Command]) -> CommandRoute:
    """A command with no field but its actor and time; the body is optional."""

    def build(_table: str, _body: Any, actor: Actor, at: datetime) -> c.Command:
        return make(actor=actor, at=at)

    return CommandRoute(path, operation, summary, CommandBody, False, build)


def electronic(path: str, operation: str, summary: str, kind: str, doc: str = "") -> CommandRoute:
    return CommandRoute(path, operation, summary, CommandBody, False, None, kind, doc or None)


def refusal(table_id: str, idempotency_key: str) -> str | None:
    """Why this table id or key may not carry a command (the ``system`` stream is the service's
    own), or ``None``."""
    if table_id == SYSTEM_STREAM:
        return f"{SYSTEM_STREAM!r} is not a table id"
    if idempotency_key.startswith(f"{SYSTEM_STREAM}:"):  # the service's own command ids
        return "an Idempotency-Key may not begin with 'system:'"
    return None


def run_command(
    runner: CommandRunner,
    route: CommandRoute,
    table_id: str,
    idempotency_key: str,
    body: Any,
    actor: Actor,
    signed_by: dict[str, Actor] | None = None,
) -> tuple[list[RecordedEvent], bool]:
    """The blocking part of a command (decide, append), on a worker thread. ``signed_by``: a
    slip's signers by role (``command_routes.slip_signers``)."""
    expected = None if body is None else body.expected_version
    if route.signed is not None:
        assert signed_by is not None, "a slip is built with its signers"
        build: Any = partial(route.signed.build, table_id, body, signed_by)
    else:
        build = None if route.build is None else partial(route.build, table_id, body)
    return runner.run(
        table_id, idempotency_key, expected, build, actor=actor, electronic=route.electronic
    )


def answer(
    table_id: str, idempotency_key: str, records: list[RecordedEvent], replayed: bool
) -> Response:
    # The bytes written directly (``command_body``); the documented route's ``response_model``
    # describes them.
    return Response(
        command_body(table_id, idempotency_key, records),
        media_type="application/json",
        headers={"Idempotent-Replayed": "true" if replayed else "false"},
    )


def command_body(table_id: str, command_id: str, records: Sequence[RecordedEvent]) -> bytes:
    """A command's answer (``views.command_response``, the ``CommandResponse`` model) as the JSON
    text FastAPI would send for it, written directly: every command answers one, and building the
    models and validating them again on the way out cost more than deciding the command. Built
    from the recorded events only, so a retry that reads them back answers exactly what the first
    call did; a test holds the two equal on real answers."""
    version = records[-1].version if records else 0
    events = [
        {
            "position": r.position,
            "stream_id": r.stream_id,
            "version": r.version,
            "type": r.type,
            "schema_version": r.schema_version,
            # Keys in order at every depth, as the store keeps payloads (``views._sorted``).
            "payload": orjson.Fragment(orjson.dumps(r.payload, option=orjson.OPT_SORT_KEYS)),
            "actor": {"id": r.actor.id, "role": r.actor.role},
            "at": r.at.isoformat(),
            "command_id": r.command_id,
            "hash": r.hash,
        }
        for r in records
    ]
    body = {"table_id": table_id, "command_id": command_id, "version": version, "events": events}
    return orjson.dumps(body)
