"""The table's state as a left fold of its events: ``evolve(state, event) -> state``.

``evolve`` only applies facts; every rule is checked in ``decide`` (table.py) before a fact is
emitted, so replaying a stored stream never re-judges history. The state is immutable: each event
gives a new state and never changes the old one, so a caller may keep any earlier state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Literal, TypeVar

from table_core.cards import FULL_DECK, Card, card_text
from table_core.dealing import DEALER_PLACE, Deal, position_of
from table_core.errors import DomainError
from table_core.events import (
    BankAccepted,
    BankDeclined,
    BankerHandSet,
    BankOffered,
    BetPlaced,
    BetsClosed,
    ChipsBoughtIn,
    ChipsCashedOut,
    CommissionTaken,
    DiceRolled,
    EnvyPaid,
    Event,
    FoulReset,
    HandForfeited,
    HandSet,
    MeterChanged,
    PlayerLeft,
    PlayerSeated,
    RoundClosed,
    RoundSettled,
    RoundStarted,
    RoundVoided,
    RulesChanged,
    SideBetPlaced,
    SideBetSettled,
    StacksAssigned,
    StacksDealt,
    TableOpened,
    WagerReturned,
)
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

_CARD_BY_TEXT = {card_text(c): c for c in FULL_DECK}


_card_by_text = _CARD_BY_TEXT.__getitem__


def cards_of(texts: Iterable[str]) -> tuple[Card, ...]:
    """Canonical card text (as events hold it) back to cards."""
    return tuple(map(_card_by_text, texts))


@dataclass(frozen=True, slots=True)
class Wager:
    """A main wager at a place (0: the house hand's wager against a player-banker)."""

    place: int
    player_id: str | None
    amount: int
    position: int


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
        return sorted(self.wagers.values(), key=lambda w: w.position)

    def all_players_set(self) -> bool:
        return all(place in self.played for place in self.player_places())

    def side_bets_in_order(self) -> list[tuple[int, SideBet]]:
        """Every side bet on the layout as ``(seat, bet)``, in position order from the banker and,
        at one seat, in the order placed."""
        seats = sorted(self.side_bets, key=lambda seat: position_of(seat, self.banker_place))
        return [(seat, bet) for seat in seats for bet in self.side_bets[seat]]


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
    version: int = 0

    @property
    def phase(self) -> str:
        """The state name used in refusals: ``not_opened``, ``no_round`` or the round's phase."""
        if self.table_id is None:
            return "not_opened"
        if self.round is None:
            return "no_round"
        return self.round.phase

    def seat_of(self, player_id: str) -> int | None:
        for seat, seated in self.seats.items():
            if seated == player_id:
                return seat
        return None

    def chips_in_play(self) -> int:
        """Players' chips on the layout in a live round (main wagers and side bets)."""
        r = self.round
        if r is None or not r.live:
            return 0
        main = sum(w.amount for w in r.wagers.values() if w.place != DEALER_PLACE)
        return main + sum(b.amount for bets in r.side_bets.values() for b in bets)


# --- evolve ---------------------------------------------------------------------------------------
#
# Events are applied to a draft: the table's fields as a plain dict (a C-level copy of the state's
# ``__dict__``), the round's copied only when an event changes it, each mapping copied before its
# first change. ``fold`` freezes the draft once at the end, so a batch of events costs one new
# state that shares every unchanged mapping, and the round itself when unchanged, with the state
# before it; a state once built is never changed. Building through ``__dict__`` skips the frozen
# dataclass's ``__init__`` (a ``setattr`` per field), hence the states have no ``__slots__``.

_DEALER_ONLY = frozenset({DEALER_PLACE})
_ROUND_MAPPINGS = ("wagers", "returned", "side_bets", "contributions", "hands", "played")
#: RoundState's fields in order with their defaults; the mappings (default factories) are
#: created fresh by ``new_round`` and the three required fields always given.
_ROUND_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(RoundState)}
assert {f.name for f in fields(RoundState) if f.default_factory is not MISSING} == set(
    _ROUND_MAPPINGS
)
_new = object.__new__
_set = object.__setattr__
_S = TypeVar("_S")


class _Draft:
    __slots__ = ("copied", "round", "table")

    def __init__(self, state: TableState) -> None:
        self.table: dict[str, Any] = state.__dict__.copy()
        self.round: dict[str, Any] | None = None  # the round's fields once an event changes it
        self.copied: set[str] = set()

    def mapping(self, name: str) -> dict[Any, Any]:
        """A table mapping (``balances``, ``seats``…) that this draft may change."""
        if name not in self.copied:
            self.table[name] = dict(self.table[name])
            self.copied.add(name)
        value: dict[Any, Any] = self.table[name]
        return value

    def live(self) -> dict[str, Any]:
        """The round's fields, which this draft may change (not its mappings: ``round_mapping``)."""
        if self.round is None:
            r: RoundState | None = self.table["round"]
            if r is None:
                raise DomainError("a round event arrived with no round started")
            self.round = r.__dict__.copy()
        return self.round

    def round_mapping(self, name: str) -> dict[Any, Any]:
        key = "round." + name
        r = self.live()
        if key not in self.copied:
            r[name] = dict(r[name])
            self.copied.add(key)
        value: dict[Any, Any] = r[name]
        return value

    def new_round(self, **values: Any) -> None:
        """A new round's fields: ``values`` over the defaults, fresh (owned) empty mappings."""
        r = _ROUND_DEFAULTS.copy()
        r.update(values)
        for name in _ROUND_MAPPINGS:
            r[name] = {}
        self.round = r
        self.copied.update("round." + name for name in _ROUND_MAPPINGS)

    def credit(self, player_id: str, amount: int) -> None:
        balances = self.mapping("balances")
        balances[player_id] = balances.get(player_id, 0) + amount

    def freeze(self) -> TableState:
        table = self.table
        if self.round is not None:
            table["round"] = _frozen(RoundState, self.round)
        return _frozen(TableState, table)


def _frozen(cls: type[_S], fields: dict[str, Any]) -> _S:
    """An instance of a frozen state dataclass holding ``fields`` (every field, in order)."""
    state = _new(cls)
    _set(state, "__dict__", fields)
    return state


def _place(seat: int | None) -> int:
    return DEALER_PLACE if seat is None else seat


def _table_opened(d: _Draft, e: TableOpened) -> None:
    d.table.update(table_id=e.table_id, rules=e.rules)


def _rules_changed(d: _Draft, e: RulesChanged) -> None:
    d.table["rules"] = e.rules  # the live round keeps its own copy (RoundState.rules)


def _player_seated(d: _Draft, e: PlayerSeated) -> None:
    d.mapping("seats")[e.seat] = e.player_id
    d.mapping("balances").setdefault(e.player_id, 0)


def _player_left(d: _Draft, e: PlayerLeft) -> None:
    d.mapping("seats").pop(e.seat, None)
    if d.table["balances"].get(e.player_id, 0) == 0:
        d.mapping("balances").pop(e.player_id, None)


def _chips_bought_in(d: _Draft, e: ChipsBoughtIn) -> None:
    d.credit(e.player_id, e.amount)
    d.table["bought_in"] += e.amount


def _chips_cashed_out(d: _Draft, e: ChipsCashedOut) -> None:
    d.credit(e.player_id, -e.amount)
    d.table["cashed_out"] += e.amount


def _round_started(d: _Draft, e: RoundStarted) -> None:
    rules: TableRules | None = d.table["rules"]
    if rules is None or rules.version != e.rules_version:
        held = None if rules is None else rules.version
        raise DomainError(f"round {e.round} names rules version {e.rules_version}, held {held}")
    phase: Phase = "offering_bank" if e.bank_order else "open_for_bets"
    d.new_round(number=e.round, rules=rules, phase=phase, bank_order=e.bank_order)
    d.table["last_round"] = e.round


def _offers_done(r: dict[str, Any]) -> bool:
    return bool(r["offers_made"] >= len(r["bank_order"]))


def _bank_offered(d: _Draft, e: BankOffered) -> None:
    r = d.live()
    r["offers_made"] += 1
    r["offered_seat"] = e.seat if e.eligible else None
    if not e.eligible and _offers_done(r):
        r["phase"] = "open_for_bets"  # nobody could take it: the dealer banks
    d.table["bank_pointer"] = e.seat


def _bank_declined(d: _Draft, e: BankDeclined) -> None:
    r = d.live()
    r["offered_seat"] = None
    if _offers_done(r):
        r["phase"] = "open_for_bets"


def _bank_accepted(d: _Draft, e: BankAccepted) -> None:
    d.live().update(
        offered_seat=None,
        banker_place=e.seat,
        banker_player=e.player_id,
        co_bank=e.co_bank,
        phase="open_for_bets",
    )


def _bet_placed(d: _Draft, e: BetPlaced) -> None:
    place = _place(e.seat)
    d.round_mapping("wagers")[place] = Wager(place, e.player_id, e.amount, e.position)
    if e.player_id is not None:
        d.credit(e.player_id, -e.amount)


def _side_bet_placed(d: _Draft, e: SideBetPlaced) -> None:
    side_bets = d.round_mapping("side_bets")
    side_bets[e.seat] = (*side_bets.get(e.seat, ()), SideBet(e.bet, e.amount, e.player_id))
    d.credit(e.player_id, -e.amount)


def _take_side_bet(d: _Draft, seat: int, bet: SideBet) -> None:
    side_bets = d.round_mapping("side_bets")
    bets = list(side_bets.get(seat, ()))
    bets.remove(bet)
    if bets:
        side_bets[seat] = tuple(bets)
    else:
        side_bets.pop(seat)


def _wager_returned(d: _Draft, e: WagerReturned) -> None:
    if e.kind == "side":  # a side bet goes back with its seat's main wager (R-BANK-3)
        assert e.seat is not None and e.player_id is not None and e.bet is not None
        _take_side_bet(d, e.seat, SideBet(e.bet, e.amount, e.player_id))
    else:
        place = _place(e.seat)
        d.round_mapping("returned")[place] = d.round_mapping("wagers").pop(place)
    if e.player_id is not None:
        d.credit(e.player_id, e.amount)


def _bets_closed(d: _Draft, e: BetsClosed) -> None:
    d.live()["phase"] = "bets_closed"


def _stacks_dealt(d: _Draft, e: StacksDealt) -> None:
    deal = Deal(
        None if e.deck is None else cards_of(e.deck),
        tuple(cards_of(stack) for stack in e.stacks),
        cards_of(e.unused),
    )
    d.live().update(deal=deal, phase="dealt")


def _dice_rolled(d: _Draft, e: DiceRolled) -> None:
    d.live().update(dice=e.faces, first_position=e.first_position)


def _stacks_assigned(d: _Draft, e: StacksAssigned) -> None:
    hands = {_place(a.seat): cards_of(a.cards) for a in e.assignments if a.holder != "dead"}
    d.live().update(hands=hands, phase="dice_rolled")
    d.copied.add("round.hands")


def _played(d: _Draft, seat: int | None, hand: PlayedHand) -> None:
    played = d.round_mapping("played")
    played[_place(seat)] = hand
    r = d.live()
    if r["phase"] == "dice_rolled" and r["wagers"].keys() - _DEALER_ONLY <= played.keys():
        r["phase"] = "hands_set"  # every player's hand is set (the house hand is the banker's)


def _hand_set(d: _Draft, e: HandSet) -> None:
    _played(d, e.seat, PlayedHand(cards_of(e.back), cards_of(e.front)))


def _foul_reset(d: _Draft, e: FoulReset) -> None:
    _played(d, e.seat, PlayedHand(cards_of(e.back), cards_of(e.front)))


def _hand_forfeited(d: _Draft, e: HandForfeited) -> None:
    _played(d, e.seat, PlayedHand(cards_of(e.back), cards_of(e.front), forfeited=True))


def _banker_hand_set(d: _Draft, e: BankerHandSet) -> None:
    hand = PlayedHand(cards_of(e.back), cards_of(e.front))
    d.live().update(banker_hand=hand, phase="banker_hand_set")


def _round_settled(d: _Draft, e: RoundSettled) -> None:
    house = e.banker.house_share
    for result in e.results:
        if result.player_id is None:  # the house hand against a player-banker
            house += result.net
        else:
            d.credit(result.player_id, result.wager + result.net)
    d.table["house_result"] += house
    if e.banker.player_id is not None:
        d.credit(e.banker.player_id, e.banker.net)
        d.table["last_bank_was_player"] = True
    else:  # R-BANK-1 eligibility looks at the last dealer-banked round's wagers
        wagers = {r.player_id: r.wager for r in e.results if r.player_id is not None}
        d.table.update(last_bank_was_player=False, last_dealer_wagers=wagers)
        d.copied.add("last_dealer_wagers")
    d.live()["phase"] = "settled"


def _commission_taken(d: _Draft, e: CommissionTaken) -> None:
    # The chips already moved in round_settled (net includes commission); this is the record.
    d.table["commission"] += e.amount


def _side_bet_settled(d: _Draft, e: SideBetSettled) -> None:
    _take_side_bet(d, e.seat, SideBet(e.bet, e.amount, e.player_id))
    d.credit(e.player_id, e.amount + e.payout)
    d.table["house_result"] -= e.payout  # the house banks every side bet (R-BANK-5)


def _envy_paid(d: _Draft, e: EnvyPaid) -> None:
    d.credit(e.player_id, e.amount)
    d.table["house_result"] -= e.amount


def _meter_changed(d: _Draft, e: MeterChanged) -> None:
    # The meter is house money set aside: no chips move and no result changes here. A hit's
    # chips move in its side_bet_settled; a contribution was the player's wager, already on the
    # layout and the house's once the wager is settled.
    d.table["meter"] += e.amount
    if e.reason in ("seed", "reset"):
        d.table["meter_seeded"] += e.amount
    elif e.reason == "contribution" and e.seat is not None:
        d.round_mapping("contributions")[e.seat] = e.amount
    elif e.reason == "return" and e.seat is not None:
        d.round_mapping("contributions").pop(e.seat, None)


def _round_voided(d: _Draft, e: RoundVoided) -> None:
    for returned in e.returned:
        if returned.player_id is not None:
            d.credit(returned.player_id, returned.amount)
    d.live().update(phase="voided", wagers={}, side_bets={})
    d.copied.update(("round.wagers", "round.side_bets"))


def _round_closed(d: _Draft, e: RoundClosed) -> None:
    d.live()["phase"] = "closed"


_HANDLERS: dict[type[Any], Callable[[_Draft, Any], None]] = {
    TableOpened: _table_opened,
    RulesChanged: _rules_changed,
    PlayerSeated: _player_seated,
    PlayerLeft: _player_left,
    ChipsBoughtIn: _chips_bought_in,
    ChipsCashedOut: _chips_cashed_out,
    RoundStarted: _round_started,
    BankOffered: _bank_offered,
    BankAccepted: _bank_accepted,
    BankDeclined: _bank_declined,
    BetPlaced: _bet_placed,
    SideBetPlaced: _side_bet_placed,
    WagerReturned: _wager_returned,
    BetsClosed: _bets_closed,
    StacksDealt: _stacks_dealt,
    DiceRolled: _dice_rolled,
    StacksAssigned: _stacks_assigned,
    HandSet: _hand_set,
    FoulReset: _foul_reset,
    HandForfeited: _hand_forfeited,
    BankerHandSet: _banker_hand_set,
    RoundSettled: _round_settled,
    CommissionTaken: _commission_taken,
    SideBetSettled: _side_bet_settled,
    EnvyPaid: _envy_paid,
    MeterChanged: _meter_changed,
    RoundVoided: _round_voided,
    RoundClosed: _round_closed,
}


def evolve(state: TableState, event: Event) -> TableState:
    """Apply one event; the result's ``version`` counts the events folded."""
    return fold((event,), state)


def fold(events: Iterable[Event], state: TableState | None = None) -> TableState:
    """The state after ``events``, from scratch or from ``state``."""
    draft = _Draft(TableState() if state is None else state)
    handlers = _HANDLERS
    count = 0
    for event in events:
        handlers[type(event)](draft, event)
        count += 1
    draft.table["version"] += count
    return draft.freeze()
