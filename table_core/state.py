"""The table's state as a left fold of its events: ``evolve(state, event) -> state``.

``evolve`` only applies facts; every rule is checked in ``decide`` (table.py) before a fact is
emitted, so replaying a stored stream never re-judges history. The state is immutable: each event
gives a new state and never changes the old one, so a caller may keep any earlier state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from operator import attrgetter, itemgetter
from typing import Any, Literal

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


class _Draft:
    """Built by ``fold`` (no ``__init__``: one Python call less per command). A mapping still
    the very object the state before holds is copied before its first change; any other (copied
    or created by an event) is the draft's own."""

    __slots__ = ("round", "round_source", "source", "table")

    table: dict[str, Any]
    #: The state before: its fields (never changed).
    source: dict[str, Any]
    #: The round's fields once an event changes it, else ``None``.
    round: dict[str, Any] | None
    #: The fields of the round ``round`` was copied from (``None``: a round this draft started).
    round_source: dict[str, Any] | None

    def mapping(self, name: str) -> dict[Any, Any]:
        """A table mapping (``balances``, ``seats``…) that this draft may change."""
        value: dict[Any, Any] = self.table[name]
        if value is self.source[name]:
            value = self.table[name] = dict(value)
        return value

    def live(self) -> dict[str, Any]:
        """The round's fields, which this draft may change (not its mappings: ``round_mapping``)."""
        r = self.round
        if r is None:
            state: RoundState | None = self.table["round"]
            if state is None:
                raise DomainError("a round event arrived with no round started")
            self.round_source = state.__dict__
            r = self.round = self.round_source.copy()
        return r

    def round_mapping(self, name: str) -> dict[Any, Any]:
        r = self.round
        if r is None:
            r = self.live()
        value: dict[Any, Any] = r[name]
        source = self.round_source
        if source is not None and value is source[name]:
            value = r[name] = dict(value)
        return value

    def new_round(self, **values: Any) -> None:
        """A new round's fields: ``values`` over the defaults, fresh (owned) empty mappings."""
        r = _ROUND_DEFAULTS.copy()
        r.update(values)
        for name in _ROUND_MAPPINGS:
            r[name] = {}
        self.round = r
        self.round_source = None

    def credit(self, player_id: str, amount: int) -> None:
        balances = self.mapping("balances")
        balances[player_id] = balances.get(player_id, 0) + amount


# A frozen state holding a field dict (every field, in order): ``_new(cls)``, then the
# ``__dict__`` descriptor's own setter (``object.__setattr__`` looks it up on every call).
_set_table_fields = TableState.__dict__["__dict__"].__set__
_set_round_fields = RoundState.__dict__["__dict__"].__set__


#: Wagers by their four values: the same player at the same seat wagers the same amount round
#: after round, and a frozen dataclass costs more to build than to look up (values are immutable,
#: so wagers may be shared). Cleared when it grows past its bound.
_WAGERS: dict[tuple[int, str | None, int, int], Wager] = {}


def _wager(place: int, player_id: str | None, amount: int, position: int) -> Wager:
    key = (place, player_id, amount, position)
    wager = _WAGERS.get(key)
    if wager is None:
        if len(_WAGERS) >= 4096:
            _WAGERS.clear()
        wager = _WAGERS[key] = Wager(place, player_id, amount, position)
    return wager


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
    f = e.__dict__
    seat, player_id, amount = f["seat"], f["player_id"], f["amount"]
    place = DEALER_PLACE if seat is None else seat
    d.round_mapping("wagers")[place] = _wager(place, player_id, amount, f["position"])
    if player_id is not None:
        d.credit(player_id, -amount)


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
    f = e.__dict__
    deck = f["deck"]
    deal = Deal(
        None if deck is None else cards_of(deck),
        tuple(map(cards_of, f["stacks"])),
        cards_of(f["unused"]),
    )
    d.live().update(deal=deal, phase="dealt")


def _dice_rolled(d: _Draft, e: DiceRolled) -> None:
    d.live().update(dice=e.faces, first_position=e.first_position)


def _stacks_assigned(d: _Draft, e: StacksAssigned) -> None:
    hands = {}
    for assignment in e.assignments:
        a = assignment.__dict__
        if a["holder"] != "dead":
            seat = a["seat"]
            hands[DEALER_PLACE if seat is None else seat] = cards_of(a["cards"])
    d.live().update(hands=hands, phase="dice_rolled")


# ``PlayedHand(back, front, forfeited)`` through its slots' own setters: a frozen dataclass's
# ``__init__`` sets each field by ``object.__setattr__``, which looks the slot up every time.
_set_back = PlayedHand.__dict__["back"].__set__
_set_front = PlayedHand.__dict__["front"].__set__
_set_forfeited = PlayedHand.__dict__["forfeited"].__set__


def _played_hand(back: tuple[Card, ...], front: tuple[Card, ...], forfeited: bool) -> PlayedHand:
    hand: PlayedHand = _new(PlayedHand)
    _set_back(hand, back)
    _set_front(hand, front)
    _set_forfeited(hand, forfeited)
    return hand


def _played(d: _Draft, seat: int | None, hand: PlayedHand) -> None:
    played = d.round_mapping("played")
    played[DEALER_PLACE if seat is None else seat] = hand
    r = d.round  # set by round_mapping
    assert r is not None
    if r["phase"] == "dice_rolled":
        # Every player's hand is set (the house hand is the banker's); counted first, as the
        # set difference costs more and the count rules out all but the last hand.
        wagers = r["wagers"]
        players = len(wagers) - (DEALER_PLACE in wagers)
        if len(played) >= players and wagers.keys() - _DEALER_ONLY <= played.keys():
            r["phase"] = "hands_set"


def _hand_set(d: _Draft, e: HandSet) -> None:
    f = e.__dict__
    _played(d, f["seat"], _played_hand(cards_of(f["back"]), cards_of(f["front"]), False))


def _foul_reset(d: _Draft, e: FoulReset) -> None:
    _played(d, e.seat, _played_hand(cards_of(e.back), cards_of(e.front), False))


def _hand_forfeited(d: _Draft, e: HandForfeited) -> None:
    _played(d, e.seat, _played_hand(cards_of(e.back), cards_of(e.front), True))


def _banker_hand_set(d: _Draft, e: BankerHandSet) -> None:
    hand = _played_hand(cards_of(e.back), cards_of(e.front), False)
    d.live().update(banker_hand=hand, phase="banker_hand_set")


def _round_settled(d: _Draft, e: RoundSettled) -> None:
    banker = e.banker.__dict__
    results = [result.__dict__ for result in e.results]
    house = banker["house_share"]
    for result in results:
        if result["player_id"] is None:  # the house hand against a player-banker
            house += result["net"]
        else:
            d.credit(result["player_id"], result["wager"] + result["net"])
    d.table["house_result"] += house
    if banker["player_id"] is not None:
        d.credit(banker["player_id"], banker["net"])
        d.table["last_bank_was_player"] = True
    else:  # R-BANK-1 eligibility looks at the last dealer-banked round's wagers
        wagers = {r["player_id"]: r["wager"] for r in results if r["player_id"] is not None}
        d.table.update(last_bank_was_player=False, last_dealer_wagers=wagers)
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
    draft = _new(_Draft)
    draft.source = source = (TableState() if state is None else state).__dict__
    draft.table = table = source.copy()
    draft.round = draft.round_source = None
    handlers = _HANDLERS
    count = 0
    for event in events:
        handlers[type(event)](draft, event)
        count += 1
    table["version"] += count
    if draft.round is not None:
        table["round"] = new_round = _new(RoundState)
        _set_round_fields(new_round, draft.round)
    new = _new(TableState)
    _set_table_fields(new, table)
    return new
