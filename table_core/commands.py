"""What people at the table ask for: frozen commands, each with its actor and the caller's time.

Inputs that are not pure (the time, the deck order, the dice) are resolved by the caller and
carried here, so :func:`table_core.table.decide` never looks outside its arguments. Cards may be
given as ints or text (``"As"``, ``"JK"``); events always record text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Literal

from table_core.cards import Card
from table_core.events import Actor
from table_core.rules import TableRules

CardInput = Card | str


@dataclass(frozen=True, kw_only=True, slots=True)
class Command:
    actor: Actor
    at: datetime


# The bases below hold the fields several commands open with (in the same order as before, so
# each command's fields, repr and equality are what they were); nothing dispatches on them:
# ``decide`` looks a command's own class up.


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayerCommand(Command):
    """A command on one player's behalf."""

    player_id: str


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayerAmount(PlayerCommand):
    """A player's chips in or out: ``amount`` in minor units."""

    amount: int


@dataclass(frozen=True, kw_only=True, slots=True)
class DeckCommand(Command):
    """A step of one deck's chain of custody (R20)."""

    deck_id: str


@dataclass(frozen=True, kw_only=True, slots=True)
class DeckWithReason(DeckCommand):
    reason: str


@dataclass(frozen=True, kw_only=True, slots=True)
class OpenTable(Command):
    table_id: str
    rules: TableRules = field(default_factory=TableRules)


@dataclass(frozen=True, kw_only=True, slots=True)
class ChangeRules(Command):
    """A floor supervisor's change; ``rules.version`` must exceed the current version."""

    rules: TableRules
    reason: str


@dataclass(frozen=True, kw_only=True, slots=True)
class InstallHouseWay(Command):
    """A floor supervisor installs a casino's House Way file, certified (issue 32): ``text`` is
    the file, ``digest`` its SHA-256 (checked), ``certificate_digest`` its certificate's; the
    table plays it from the next round, as a rules change does (``reason``)."""

    text: str
    digest: str
    certificate_digest: str
    reason: str


@dataclass(frozen=True, kw_only=True, slots=True)
class SeatPlayer(Command):
    """``card``: the players' club card, which opens a rating (issue 18)."""

    seat: int
    player_id: str
    card: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class LeaveSeat(PlayerCommand):
    """The player leaves; any remaining chips are cashed out first."""


@dataclass(frozen=True, kw_only=True, slots=True)
class BuyIn(PlayerAmount):
    """``medium``: ``cash``, ``marker`` (with its ``marker`` number), ``chips`` or
    ``promotional``; ``None`` records no medium, as buy-ins did before issue 18 (read as cash)."""

    medium: str | None = None
    marker: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class CashOut(PlayerAmount):
    pass


@dataclass(frozen=True, kw_only=True, slots=True)
class StartRound(Command):
    pass


@dataclass(frozen=True, kw_only=True, slots=True)
class AcceptBank(PlayerCommand):
    co_bank: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class DeclineBank(PlayerCommand):
    pass


@dataclass(frozen=True, kw_only=True, slots=True)
class PlaceBet(PlayerAmount):
    pass


@dataclass(frozen=True, kw_only=True, slots=True)
class PlaceSideBet(Command):
    """A side bet with the seat's hand (R-VAR-2..6): ``bet`` is ``fortune``,
    ``emperors_treasure``, ``insurance`` or ``progressive`` (whose ``amount`` is the table's fixed
    wager)."""

    player_id: str
    bet: str
    amount: int


@dataclass(frozen=True, kw_only=True, slots=True)
class CloseBets(Command):
    pass


@dataclass(frozen=True, kw_only=True, slots=True)
class DealCards(Command):
    """Exactly one of ``deck`` (53 cards in shuffled order) or ``hands`` (the seven stacks in cut
    order, as a live table may report them)."""

    deck: Sequence[CardInput] | None = None
    hands: Sequence[Sequence[CardInput]] | None = None
    source: Literal["electronic", "live"] = "live"
    #: The deck dealt from (R20); ``None``: the one deck in use, when the table keeps custody.
    deck_id: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class RollDice(Command):
    faces: Sequence[int]


@dataclass(frozen=True, kw_only=True, slots=True)
class SetHand(PlayerCommand):
    """The player's split; leave ``back`` and ``front`` out to ask for the House Way."""

    back: Sequence[CardInput] | None = None
    front: Sequence[CardInput] | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class SetBankerHand(Command):
    pass


@dataclass(frozen=True, kw_only=True, slots=True)
class Settle(Command):
    pass


@dataclass(frozen=True, kw_only=True, slots=True)
class CloseRound(Command):
    pass


@dataclass(frozen=True, kw_only=True, slots=True)
class VoidRound(Command):
    reason: str


# --- deck chain of custody (R20): the floor's ---------------------------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class ReceiveDeck(DeckCommand):
    seal: str
    package_id: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class InspectDeck(DeckCommand):
    """The count (53 to pass, R-CARD-1) and who inspected the deck."""

    card_count: int
    inspector: str


@dataclass(frozen=True, kw_only=True, slots=True)
class LoadShuffler(DeckCommand):
    """The shuffler's receipt of the deck: its serial and the time it took the deck."""

    shuffler_serial: str
    received_at: datetime


@dataclass(frozen=True, kw_only=True, slots=True)
class PutDeckInUse(DeckCommand):
    pass


@dataclass(frozen=True, kw_only=True, slots=True)
class RetireDeck(DeckWithReason):
    destroyed: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class HoldDeck(DeckWithReason):
    """Keep the deck intact (a dispute's hook: ``dispute_id``)."""

    dispute_id: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class ReleaseDeck(DeckWithReason):
    pass


# --- the books (issue 18): the gaming day, the tray, the count, ratings ---------------------------

#: Chips counted or moved by denomination: ``{denomination: amount}``, both in minor units.
ChipInput = Mapping[int, int]


@dataclass(frozen=True, kw_only=True, slots=True)
class OpenGamingDay(Command):
    """The floor supervisor (``actor``) opens the table for ``gaming_day`` with the ``opener``
    counted with the ``dealer``. ``table_id`` and ``rules`` open a table never opened before."""

    gaming_day: date
    opener: ChipInput
    dealer: Actor
    table_id: str | None = None
    rules: TableRules | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class CloseGamingDay(Command):
    """The floor supervisor closes the table with the ``closer`` counted with the ``dealer``."""

    closer: ChipInput
    dealer: Actor


@dataclass(frozen=True, kw_only=True, slots=True)
class TraySlip(Command):
    """A slip moving ``chips`` between the cage and the tray, signed by three people."""

    slip: str
    chips: ChipInput
    requested_by: Actor
    issued_by: Actor
    received_by: Actor


@dataclass(frozen=True, kw_only=True, slots=True)
class FillTray(TraySlip):
    """A fill slip: chips from the cage (``issued_by``) to the tray (``received_by``, the
    dealer), requested by the floor."""


@dataclass(frozen=True, kw_only=True, slots=True)
class CreditTray(TraySlip):
    """A credit slip: chips from the tray (``issued_by``, the dealer) to the cage
    (``received_by``), requested by the floor."""


@dataclass(frozen=True, kw_only=True, slots=True)
class CountDrop(Command):
    """The count team's count of the drop box of a closed ``gaming_day``."""

    gaming_day: date
    cash: int
    markers: int


@dataclass(frozen=True, kw_only=True, slots=True)
class CorrectRating(PlayerCommand):
    """A floor supervisor's correction of ``player_id``'s last rating at this table."""

    reason: str
    average_bet: int | None = None
    minutes: int | None = None
