"""The table's state: what a table knows after its events (``folding.fold`` builds it).

The state is immutable: each event gives a new state and never changes the old one, so a caller
may keep any earlier state. Places are 0 (the dealer's) and seats 1..6 (dealing.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from operator import attrgetter, itemgetter
from typing import Literal

from table_core.cards import FULL_DECK, Card, card_text
from table_core.dealing import DEALER_PLACE, Deal, position_of
from table_core.rules import TableRules

Phase = Literal[
    "offering_bank",
    "open_for_bets",
    "bets_closed",
    "dealt",
    "dice_rolled",
    "hands_set",
    "banker_hand_set",
    "settled",
    "closed",
    "voided",
]
#: Phases after which a round holds no chips any more.
FINISHED: frozenset[str] = frozenset({"settled", "closed", "voided"})

_CARD_BY_TEXT = {card_text(card): card for card in FULL_DECK}


_card_by_text = _CARD_BY_TEXT.__getitem__


def cards_of(texts: Iterable[str]) -> tuple[Card, ...]:
    """Canonical card text (as events hold it) back to cards."""
    if type(texts) is tuple and len(texts) > 1:  # one C call (one index: the item, not a tuple)
        cards: tuple[Card, ...] = itemgetter(*texts)(_CARD_BY_TEXT)
        return cards
    return tuple(map(_card_by_text, texts))


@dataclass(frozen=True, slots=True)
class Wager:
    """A main wager at a place (0: the house hand's wager against a player-banker)."""

    place: int
    player_id: str | None
    amount: int
    position: int


_BY_POSITION = attrgetter("position")


@dataclass(frozen=True, slots=True)
class SideBet:
    """A side bet on the layout (R-VAR-2); ``bet`` is the side bet's name (``fortune``…)."""

    bet: str
    amount: int
    player_id: str


@dataclass(frozen=True, slots=True)
class PlayedHand:
    back: tuple[Card, ...]
    front: tuple[Card, ...]
    forfeited: bool = False


@dataclass(frozen=True)
class RoundState:
    """One round; places are 0 (the dealer's) and seats 1..6 (dealing.py)."""

    number: int
    rules: TableRules
    phase: Phase
    bank_order: tuple[int, ...] = ()
    offers_made: int = 0
    offered_seat: int | None = None
    banker_place: int = DEALER_PLACE
    banker_player: str | None = None
    co_bank: bool = False
    wagers: Mapping[int, Wager] = field(default_factory=dict)
    returned: Mapping[int, Wager] = field(default_factory=dict)
    side_bets: Mapping[int, tuple[SideBet, ...]] = field(default_factory=dict)
    #: Seat -> what its locked progressive wager put in the meter (R-VAR-6), for a void to return.
    contributions: Mapping[int, int] = field(default_factory=dict)
    deal: Deal | None = None
    dice: tuple[int, int, int] | None = None
    first_position: int | None = None
    hands: Mapping[int, tuple[Card, ...]] = field(default_factory=dict)
    played: Mapping[int, PlayedHand] = field(default_factory=dict)
    banker_hand: PlayedHand | None = None

    @property
    def live(self) -> bool:
        return self.phase not in FINISHED

    @property
    def player_banked(self) -> bool:
        return self.banker_place != DEALER_PLACE

    def player_places(self) -> list[int]:
        """Places of players' wagers in action, in position order (the house hand excluded)."""
        return [w.place for w in self.wagers_in_order() if w.place != DEALER_PLACE]

    def wagers_in_order(self) -> list[Wager]:
        return sorted(self.wagers.values(), key=_BY_POSITION)

    def all_players_set(self) -> bool:
        return all(place in self.played for place in self.player_places())

    def side_bets_in_order(self) -> list[tuple[int, SideBet]]:
        """Every side bet on the layout as ``(seat, bet)``, in position order from the banker and,
        at one seat, in the order placed."""
        seats = sorted(self.side_bets, key=lambda seat: position_of(seat, self.banker_place))
        return [(seat, bet) for seat in seats for bet in self.side_bets[seat]]


DeckStatus = Literal["received", "in_use", "retired"]


@dataclass(frozen=True, slots=True)
class Deck:
    """One deck's chain of custody (R20), as its events left it."""

    deck_id: str
    seal: str
    package_id: str | None = None
    status: DeckStatus = "received"
    inspected: bool = False  # the last inspection passed (53 cards)
    card_count: int | None = None
    inspector: str | None = None
    shuffler_serial: str | None = None
    loaded_at: datetime | None = None
    rounds: tuple[int, ...] = ()  # the rounds dealt from it, in order
    held: bool = False
    hold_reason: str | None = None
    retired_reason: str | None = None
    destroyed: bool = False
    hold_dispute: str | None = None  # the dispute the hold names (R17), ``None``: no dispute


@dataclass(frozen=True, slots=True)
class InstalledHouseWay:
    """A House Way file installed on the table (``house_way_installed``): the name it declares,
    its exact text and the SHA-256 of the certificate it was installed by."""

    name: str
    text: str
    certificate_digest: str


@dataclass(frozen=True)
class TableState:
    """Everything a table knows; ``version`` is the number of events folded into it.

    Money: ``house_result`` is all the house won or lost (main wagers, side bets, Envy, the
    progressive), so players' chips + ``cashed_out`` + ``chips_in_play()`` + ``house_result`` +
    ``commission`` = ``bought_in``. ``meter`` is the part of the house's money set aside for the
    progressive (R-VAR-6): moving money into it or out of it changes no result. ``meter_seeded`` is
    what the house itself put in (seeds and re-seeds), so ``meter - meter_seeded`` is what the
    players' contributions put in less what hits took out.
    """

    table_id: str | None = None
    rules: TableRules | None = None
    seats: Mapping[int, str] = field(default_factory=dict)
    balances: Mapping[str, int] = field(default_factory=dict)
    round: RoundState | None = None
    last_round: int = 0
    bank_pointer: int = 0
    last_bank_was_player: bool = False
    last_dealer_wagers: Mapping[str, int] = field(default_factory=dict)
    bought_in: int = 0
    cashed_out: int = 0
    house_result: int = 0
    commission: int = 0
    meter: int = 0
    meter_seeded: int = 0
    #: The books (issue 18, inventory.py): ``untracked`` for a table opened without an opener
    #: (as every table was before), else ``open`` or ``closed`` for its ``gaming_day``.
    books: Literal["untracked", "open", "closed"] = "untracked"
    gaming_day: date | None = None
    #: The tray is ``tray_base + house_result + commission`` (see ``tray``).
    tray_base: int = 0
    last_closer: int | None = None
    #: The slip numbers of the day's fills and credits (a slip is used once).
    slips: frozenset[str] = frozenset()
    #: Closed gaming days whose drop box the count has not recorded yet.
    uncounted: tuple[date, ...] = ()
    #: Carded players -> when their last rating at this table opened (``player_seated``).
    ratings: Mapping[str, datetime] = field(default_factory=dict)
    #: Deck custody (R20), by deck id; empty until the table receives its first deck.
    decks: Mapping[str, Deck] = field(default_factory=dict)
    #: House Way files installed on the table (issue 32), by the SHA-256 of their text.
    house_ways: Mapping[str, InstalledHouseWay] = field(default_factory=dict)
    version: int = 0

    @property
    def tray(self) -> int | None:
        """The chips in the tray now (``None``: a table without books): the opener, plus fills,
        less credits and the chips sold for cash and markers, plus what the house won since."""
        if self.books == "untracked":
            return None
        return self.tray_base + self.house_result + self.commission

    @property
    def phase(self) -> str:
        """The state name used in refusals: ``not_opened``, ``no_round`` or the round's phase."""
        if self.table_id is None:
            return "not_opened"
        if self.round is None:
            return "no_round"
        return self.round.phase

    @property
    def keeps_custody(self) -> bool:
        """The table records its decks (R20): from its first ``deck_received`` on."""
        return bool(self.decks)

    def seat_of(self, player_id: str) -> int | None:
        for seat, seated in self.seats.items():
            if seated == player_id:
                return seat
        return None

    def chips_in_play(self) -> int:
        """Players' chips on the layout in a live round (main wagers and side bets)."""
        round_state = self.round
        if round_state is None or not round_state.live:
            return 0
        main = sum(w.amount for w in round_state.wagers.values() if w.place != DEALER_PLACE)
        return main + sum(b.amount for bets in round_state.side_bets.values() for b in bets)
