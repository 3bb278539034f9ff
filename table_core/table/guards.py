"""What every phase of a round checks first, and what every decider shares.

Who may give a command (:class:`NotAllowed` if not), in which state (:class:`WrongState`), for
which seat; the fields every event of a command carries (``envelope``); cards as event text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any, TypeVar

from pydantic import BaseModel

from table_core._speed import trusted
from table_core.cards import FULL_DECK, Card, card_text
from table_core.commands import Command
from table_core.errors import DomainError
from table_core.events import Actor
from table_core.rules import TableRules
from table_core.table.state import RoundState, TableState

#: Who may run the round, sell and cash chips, and act for a player at a live table.
DEALER_ROLES = frozenset({"dealer", "floor", "system"})
CAGE_ROLES = frozenset({"cage", "dealer", "floor"})
PLAYER_PROXIES = frozenset({"dealer", "floor"})
PROGRESSIVE = "progressive"


class WrongState(DomainError):
    """A command the current state does not accept; ``state`` names that state."""

    def __init__(self, action: str, state: str) -> None:
        super().__init__(f"cannot {action} in state {state}")
        self.action = action
        self.state = state


class NotAllowed(DomainError):
    """The actor's role may not give this command."""


_TEXT = tuple(card_text(card) for card in FULL_DECK)
_Model = TypeVar("_Model", bound=BaseModel)


def trusted_if(ok: bool, cls: type[_Model]) -> Callable[..., _Model]:
    """Events are built with ``trusted`` (_speed.py) from what decide computed; one that
    carries a command's own value skips validation only when that value is already of the schema's
    type (``ok``), so a float amount still fails validation as it always did."""
    return trusted(cls) if ok else cls


_text_of = _TEXT.__getitem__


def texts(cards: Sequence[Card]) -> tuple[str, ...]:
    """Cards as events hold them: canonical text (R-CARD-2)."""
    if len(cards) > 1:  # one C call (an itemgetter of one index answers the item, not a tuple)
        text: tuple[str, ...] = itemgetter(*cards)(_TEXT)
        return text
    return tuple(map(_text_of, cards))


def require(actor: Actor, roles: frozenset[str], action: str) -> None:
    """The actor's role is one of ``roles``, else :class:`NotAllowed`."""
    if actor.role not in roles:
        raise NotAllowed(f"a {actor.role} may not {action}")


def require_player(actor: Actor, player_id: str, action: str) -> None:
    """The player acts, or a dealer or the floor for them, else :class:`NotAllowed`."""
    if actor.role == "player" and actor.id == player_id:
        return
    if actor.role not in PLAYER_PROXIES:
        raise NotAllowed(f"{actor.role} {actor.id} may not {action} for player {player_id}")


def opened(state: TableState, action: str) -> TableRules:
    """The open table's rules, else :class:`WrongState`."""
    if state.rules is None:
        raise WrongState(action, state.phase)
    return state.rules


def live_round(state: TableState, action: str, phase: str, other_phase: str = "") -> RoundState:
    """The round, which must be in ``phase`` (or ``other_phase``)."""
    round_state = state.round
    if (
        state.rules is None
        or round_state is None
        or (round_state.phase != phase and round_state.phase != other_phase)
    ):
        raise WrongState(action, state.phase)
    return round_state


def player_seat(state: TableState, player_id: str) -> int:
    """The seat of a seated player, else :class:`DomainError`."""
    for seat, seated in state.seats.items():  # state.seat_of(player_id), one call less
        if seated == player_id:
            return seat
    raise DomainError(f"player {player_id} is not seated at table {state.table_id}")


def envelope(state: TableState, cmd: Command) -> dict[str, Any]:
    """What every event of ``cmd`` carries: the table, the actor, the time, the round if any."""
    env: dict[str, Any] = {"table_id": state.table_id, "actor": cmd.actor, "at": cmd.at}
    if state.round is not None:
        env["round"] = state.round.number
    return env


class TrayShort(DomainError):
    """The tray cannot give what a command needs (issue 18): ``holds`` and ``needs`` say by how
    much, so a caller knows the fill that must come first."""

    def __init__(self, message: str, holds: int, needs: int) -> None:
        super().__init__(message)
        self.holds = holds
        self.needs = needs


def require_tray_covers(state: TableState, out: int, what: str) -> None:
    """The tray can give ``out`` chips (issue 18; a table without books has no tray to check)."""
    tray = state.tray
    if tray is not None and out > tray:
        raise TrayShort(
            f"the tray of table {state.table_id} holds {tray}, {what} needs {out}: fill it first",
            tray,
            out,
        )
