"""A command rebuilt from the event that recorded it by copying the fields the two share by name.

A command and its event name a value alike when it is the same value (``player_id``, ``amount``,
``deck_id``; ``actor`` and ``at`` on every one), so ``audit/command_rebuild.py`` and
``audit/books_commands.py`` write out only the fields that differ: a name the event records
otherwise (``FoulReset.player_back``), a value read from another event of the command, or one
converted (the books' chips, a tuple on the event, a mapping on the command).
"""

from __future__ import annotations

import functools
from dataclasses import fields
from typing import Any, TypeVar

from table_core.commands import Command
from table_core.event_base import EventBase

C = TypeVar("C", bound=Command)


@functools.lru_cache(maxsize=128)  # the pairs command_rebuild and books_commands name: ~40
def shared_fields(command: type[Command], event: type[EventBase]) -> tuple[str, ...]:
    """The fields of ``command`` that ``event`` records under the same name."""
    own = {each.name for each in fields(command)}
    return tuple(name for name in event.model_fields if name in own)


def copied(command: type[C], event: EventBase, **differ: Any) -> C:
    """``command`` holding ``event``'s value of every field the two share, but those given in
    ``differ``."""
    names = shared_fields(command, type(event))  # type: ignore[arg-type]  # a class is hashable
    values = {name: getattr(event, name) for name in names}
    values.update(differ)
    return command(**values)
