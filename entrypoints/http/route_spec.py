"""How one table command is described for HTTP (``CommandRoute``): its path, operationId, body
model and how the body becomes a core command. ``command_routes.ROUTES`` lists them; the command
door (``command_door.py``) and the documented FastAPI routes are both built from that list.

Most bodies carry their command's fields under the command's own names: such a route names the
command's class and the body's fields are copied (``copied``); a route whose command takes
something else (the table id, a default time, a tuple) gives its own builder."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from entrypoints.http.models import CommandBody
from table_core import commands as c
from table_core.events import Actor

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
    """A slip's route: built once its signers are known (``command_routes.run_command``)."""

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
