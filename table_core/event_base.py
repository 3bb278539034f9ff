"""What every event shares: the actor's roles, the envelope fields (``EventBase``) and the field
types of payloads (canonical card text, strict integers, money in minor units), for the event
modules ``table_core/events.py``, ``book_events.py`` and ``custody_events.py``."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
)

from table_core.cards import FULL_DECK, card_text
from table_core.ports import Actor

#: ``auditor``: only on ``deck_held`` naming a dispute an auditor opened (R17 + R20); the core
#: lets an auditor record nothing else at a table.
ActorRole = Literal["dealer", "floor", "player", "system", "cage", "count", "auditor"]

_CANONICAL = frozenset(card_text(c) for c in FULL_DECK)


def _canonical_card(text: str) -> str:
    # Stored events hold canonical text only, so two auditors never read one card two ways.
    if text not in _CANONICAL:
        raise ValueError(f"not a canonical card text: {text!r}")
    return text


CardText = Annotated[str, AfterValidator(_canonical_card)]
Cards = tuple[CardText, ...]
Back = Annotated[tuple[CardText, ...], Field(min_length=5, max_length=5)]
Front = Annotated[tuple[CardText, ...], Field(min_length=2, max_length=2)]
# Integers are strict: a stored 25.0 is a corrupt payload, not 25 minor units.
Int = Annotated[int, Strict()]
Seat = Annotated[int, Strict(), Field(ge=1, le=6)]
Position = Annotated[int, Strict(), Field(ge=1, le=7)]
Money = Annotated[int, Strict(), Field(ge=0)]
Amount = Annotated[int, Strict(), Field(ge=1)]

HandResult = Literal["win", "loss", "copy"]
WagerResult = Literal["win", "push", "loss"]


TABLE_ROLES = frozenset(get_args(ActorRole))


def _table_role(actor: Actor) -> Actor:
    # The store records any role (``security``, ``bootstrap``: its system stream); an event at a
    # table names one of a table's.
    if actor.role not in TABLE_ROLES:
        raise ValueError(f"not a role at a table: {actor.role!r}")
    return actor


#: An event's actor (the one ``Actor`` type, ``table_core/ports.py``) in one of a table's roles.
TableActor = Annotated[Actor, AfterValidator(_table_role)]


class EventBase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    type: str
    schema_version: Int = 1
    table_id: str = Field(min_length=1)
    round: Int | None = None
    actor: TableActor
    at: AwareDatetime


class RoundEventBase(EventBase):
    round: Annotated[int, Strict(), Field(ge=1)]
