"""What a batch of table commands holds (``TableService.execute_batch``): the commands, the
electronic draws made when their turn comes, and the commands built from the table's state then;
and how an item becomes the core's command.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from adapters.clock import Clock
from table_core import commands as c
from table_core.dealing import DeckAndDiceSource
from table_core.errors import DomainError
from table_core.events import Actor, Event
from table_core.table import TableState


@dataclass(frozen=True)
class ElectronicDeal:
    """In a batch: deal a deck drawn from the table's source when this command's turn comes."""

    actor: Actor


@dataclass(frozen=True)
class ElectronicDice:
    """In a batch: roll the source's dice for the dealt round when this command's turn comes."""

    actor: Actor


@dataclass(frozen=True)
class Deferred:
    """In a batch: a command built from the table's state when its turn comes (a player acting on
    what the layout shows: the bank offered to them, their seven cards). ``build`` may answer
    ``None``: nothing to do (a player who banks does not wager); the item is then skipped and its
    command id is not used."""

    build: Callable[[TableState], c.Command | ElectronicDeal | ElectronicDice | None]


BatchCommandItem = c.Command | ElectronicDeal | ElectronicDice | Deferred
#: One command of a batch and its command id.
BatchItem = tuple[BatchCommandItem, str]


@dataclass
class BatchDecision:
    """A batch decided in memory: each command's id, events and the state after it; the indices
    of the commands that end a round and of the skipped deferred items; or the first refusal
    (the item, its command id, the error and the state it was decided on)."""

    decided: list[tuple[str, list[Event], TableState]] = field(default_factory=list)
    round_ends: list[int] = field(default_factory=list)
    skipped: set[int] = field(default_factory=set)
    refused: tuple[BatchCommandItem, str, DomainError, TableState] | None = None


def resolve(
    item: BatchCommandItem, state: TableState, source: DeckAndDiceSource | None, clock: Clock
) -> c.Command | None:
    """A batch item as the core's command: deferred items are built from ``state`` now (``None``:
    nothing to do), electronic draws drawn now (:func:`draw_command`)."""
    if isinstance(item, Deferred):
        built = item.build(state)
        if built is None or isinstance(built, Deferred):
            return None
        item = built
    if isinstance(item, ElectronicDeal | ElectronicDice):
        return draw_command(item, state, source, clock)
    return item


def draw_command(
    draw: ElectronicDeal | ElectronicDice,
    state: TableState,
    source: DeckAndDiceSource | None,
    clock: Clock,
) -> c.Command:
    """The deal or the dice drawn from ``source`` at ``clock``'s time now, and only in the phase
    that takes them: a deal already recorded is never drawn again (drawing again after a crash
    would change it), refused naming the phase, as the core refuses a command in the wrong one."""
    phase = "bets_closed" if isinstance(draw, ElectronicDeal) else "dealt"
    if source is None:
        raise DomainError("this table has no deck-and-dice source: report the deal instead")
    if state.phase != phase:
        raise DomainError(f"cannot draw now: the round is {state.phase}, not {phase}")
    if isinstance(draw, ElectronicDeal):
        deck = list(source.shuffled_deck())
        return c.DealCards(deck=deck, source="electronic", actor=draw.actor, at=clock())
    return c.RollDice(faces=source.roll_dice(), actor=draw.actor, at=clock())
