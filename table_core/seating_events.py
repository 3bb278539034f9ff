"""The table's own events, between rounds: opened, rules changed, players seated and leaving,
chips bought in and cashed out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from table_core.event_base import (
    Amount,
    EventBase,
    Int,
    Seat,
)
from table_core.rules import TableRules

# --- the table ------------------------------------------------------------------------------------

#: The schema of the events that record a whole rules profile: 2 since the profile holds
#: ``deck_custody_required`` (R20).
PROFILE_SCHEMA = 2


def profile_v1_to_v2(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The upcaster of ``table_opened`` and ``rules_changed`` from schema 1 to 2. A profile of
    schema 1 was recorded before a table could require deck custody: none did, so it reads
    ``deck_custody_required: false`` and the table keeps the behaviour it had. Applied on every
    read; the stored bytes (and their hashes) never change."""
    rules = payload.get("rules")
    lifted = {**payload, "schema_version": PROFILE_SCHEMA}
    if isinstance(rules, Mapping):
        if "deck_custody_required" in rules:
            raise ValueError("a schema 1 profile has no deck_custody_required")
        lifted["rules"] = {**rules, "deck_custody_required": False}
    return lifted


class _ProfileEvent(EventBase):
    schema_version: Int = PROFILE_SCHEMA
    rules: TableRules

    @model_validator(mode="before")
    @classmethod
    def _upcast(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and data.get("schema_version") == 1:
            return profile_v1_to_v2(data)
        return data


class TableOpened(_ProfileEvent):
    """The table opens under a full rules profile (House Way, commission, limits, banking…)."""

    type: Literal["table_opened"] = "table_opened"


class RulesChanged(_ProfileEvent):
    """A floor supervisor changed the profile; it applies from round ``applies_from_round``."""

    type: Literal["rules_changed"] = "rules_changed"
    reason: str = Field(min_length=1)
    applies_from_round: Amount


def _without_unset(data: dict[str, Any], *names: str) -> dict[str, Any]:
    """Optional fields added after events were stored (issue 18) are written only when given, so an
    event recorded without them keeps the exact bytes (and hash) it always had."""
    for name in names:
        if data.get(name) is None:
            data.pop(name, None)
    return data


class PlayerSeated(EventBase):
    """A player sits; ``card`` is the players' club card that opens a rating (issue 18)."""

    type: Literal["player_seated"] = "player_seated"
    seat: Seat
    player_id: str = Field(min_length=1)
    card: str | None = Field(default=None, min_length=1)

    @model_serializer(mode="wrap")
    def _card_when_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _without_unset(handler(self), "card")


class PlayerLeft(EventBase):
    type: Literal["player_left"] = "player_left"
    seat: Seat
    player_id: str


#: How a player paid for chips (issue 18): ``cash`` and ``marker`` (a credit instrument) go to the
#: drop box and the tray gives the chips; ``chips`` (brought from another table or the cage) and
#: ``promotional`` (the marketing department's chips) take nothing from the tray and are no drop.
BuyInMedium = Literal["cash", "marker", "chips", "promotional"]
#: The media whose money is the table's drop (and whose chips come out of the tray).
DROP_MEDIA: frozenset[str | None] = frozenset({"cash", "marker", None})


class ChipsBoughtIn(EventBase):
    """A buy-in; ``medium`` ``None`` is a buy-in recorded before media existed (issue 18), read as
    cash. ``marker`` is the marker's number, given with ``medium="marker"`` only."""

    type: Literal["chips_bought_in"] = "chips_bought_in"
    player_id: str
    amount: Amount
    medium: BuyInMedium | None = None
    marker: str | None = Field(default=None, min_length=1)

    @model_serializer(mode="wrap")
    def _medium_when_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _without_unset(handler(self), "medium", "marker")


class ChipsCashedOut(EventBase):
    type: Literal["chips_cashed_out"] = "chips_cashed_out"
    player_id: str
    amount: Amount
