"""The table's state as a left fold of its events: ``evolve(state, event) -> state``.

``evolve`` only applies facts; every rule is checked in ``decide`` (the phase modules beside this
one) before a fact is emitted, so replaying a stored stream never re-judges history.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import MISSING, fields
from typing import Any, get_args

from table_core._speed import slot_setter
from table_core.cards import Card
from table_core.custody_events import CustodyEvent
from table_core.dealing import DEALER_PLACE, Deal
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
    HouseWayInstalled,
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
from table_core.table.custody import apply_custody
from table_core.table.inventory import HANDLERS as BOOKS_HANDLERS
from table_core.table.inventory import sold_from_tray
from table_core.table.state import (
    InstalledHouseWay,
    Phase,
    PlayedHand,
    RoundState,
    SideBet,
    TableState,
    Wager,
    cards_of,
)

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
_ROUND_DEFAULTS: dict[str, Any] = {each.name: each.default for each in fields(RoundState)}
assert {each.name for each in fields(RoundState) if each.default_factory is not MISSING} == set(
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
        round_fields = self.round
        if round_fields is None:
            state: RoundState | None = self.table["round"]
            if state is None:
                raise DomainError("a round event arrived with no round started")
            self.round_source = state.__dict__
            round_fields = self.round = self.round_source.copy()
        return round_fields

    def round_mapping(self, name: str) -> dict[Any, Any]:
        round_fields = self.round
        if round_fields is None:
            round_fields = self.live()
        value: dict[Any, Any] = round_fields[name]
        source = self.round_source
        if source is not None and value is source[name]:
            value = round_fields[name] = dict(value)
        return value

    def new_round(self, **values: Any) -> None:
        """A new round's fields: ``values`` over the defaults, fresh (owned) empty mappings."""
        round_fields = _ROUND_DEFAULTS.copy()
        round_fields.update(values)
        for name in _ROUND_MAPPINGS:
            round_fields[name] = {}
        self.round = round_fields
        self.round_source = None

    def credit(self, player_id: str, amount: int) -> None:
        balances = self.mapping("balances")
        balances[player_id] = balances.get(player_id, 0) + amount


# A frozen state holding a field dict (every field, in order): ``_new(cls)``, then the
# ``__dict__`` descriptor's own setter (table_core/_speed.py, ``slot_setter``).
_set_table_fields = slot_setter(TableState, "__dict__")
_set_round_fields = slot_setter(RoundState, "__dict__")


@functools.lru_cache(maxsize=4096)
def _wager(place: int, player_id: str | None, amount: int, position: int) -> Wager:
    """Wagers by their four values: the same player at the same seat wagers the same amount round
    after round, and a frozen dataclass costs more to build than to look up (values are immutable,
    so wagers may be shared). Bounded and safe under threads (``lru_cache``)."""
    return Wager(place, player_id, amount, position)


def _place(seat: int | None) -> int:
    return DEALER_PLACE if seat is None else seat


def _table_opened(draft: _Draft, event: TableOpened) -> None:
    draft.table.update(table_id=event.table_id, rules=event.rules)


def _rules_changed(draft: _Draft, event: RulesChanged) -> None:
    draft.table["rules"] = event.rules  # the live round keeps its own copy (RoundState.rules)


def _house_way_installed(draft: _Draft, event: HouseWayInstalled) -> None:
    draft.mapping("house_ways")[event.digest] = InstalledHouseWay(
        event.name, event.text, event.certificate_digest
    )


def _player_seated(draft: _Draft, event: PlayerSeated) -> None:
    draft.mapping("seats")[event.seat] = event.player_id
    draft.mapping("balances").setdefault(event.player_id, 0)
    if event.card is not None:  # a carded player: a rating opens (issue 18)
        draft.mapping("ratings")[event.player_id] = event.at


def _player_left(draft: _Draft, event: PlayerLeft) -> None:
    draft.mapping("seats").pop(event.seat, None)
    if draft.table["balances"].get(event.player_id, 0) == 0:
        draft.mapping("balances").pop(event.player_id, None)


def _chips_bought_in(draft: _Draft, event: ChipsBoughtIn) -> None:
    draft.credit(event.player_id, event.amount)
    draft.table["bought_in"] += event.amount
    sold_from_tray(draft, event)


def _chips_cashed_out(draft: _Draft, event: ChipsCashedOut) -> None:
    draft.credit(event.player_id, -event.amount)
    draft.table["cashed_out"] += event.amount


def _round_started(draft: _Draft, event: RoundStarted) -> None:
    rules: TableRules | None = draft.table["rules"]
    if rules is None or rules.version != event.rules_version:
        held = None if rules is None else rules.version
        raise DomainError(
            f"round {event.round} names rules version {event.rules_version}, held {held}"
        )
    phase: Phase = "offering_bank" if event.bank_order else "open_for_bets"
    draft.new_round(number=event.round, rules=rules, phase=phase, bank_order=event.bank_order)
    draft.table["last_round"] = event.round


def _offers_done(round_fields: dict[str, Any]) -> bool:
    return bool(round_fields["offers_made"] >= len(round_fields["bank_order"]))


def _bank_offered(draft: _Draft, event: BankOffered) -> None:
    round_fields = draft.live()
    round_fields["offers_made"] += 1
    round_fields["offered_seat"] = event.seat if event.eligible else None
    if not event.eligible and _offers_done(round_fields):
        round_fields["phase"] = "open_for_bets"  # nobody could take it: the dealer banks
    draft.table["bank_pointer"] = event.seat


def _bank_declined(draft: _Draft, event: BankDeclined) -> None:
    round_fields = draft.live()
    round_fields["offered_seat"] = None
    if _offers_done(round_fields):
        round_fields["phase"] = "open_for_bets"


def _bank_accepted(draft: _Draft, event: BankAccepted) -> None:
    draft.live().update(
        offered_seat=None,
        banker_place=event.seat,
        banker_player=event.player_id,
        co_bank=event.co_bank,
        phase="open_for_bets",
    )


def _bet_placed(draft: _Draft, event: BetPlaced) -> None:
    event_fields = event.__dict__
    seat, player_id, amount = (
        event_fields["seat"],
        event_fields["player_id"],
        event_fields["amount"],
    )
    place = DEALER_PLACE if seat is None else seat
    draft.round_mapping("wagers")[place] = _wager(
        place, player_id, amount, event_fields["position"]
    )
    if player_id is not None:
        draft.credit(player_id, -amount)


def _side_bet_placed(draft: _Draft, event: SideBetPlaced) -> None:
    side_bets = draft.round_mapping("side_bets")
    side_bets[event.seat] = (
        *side_bets.get(event.seat, ()),
        SideBet(event.bet, event.amount, event.player_id),
    )
    draft.credit(event.player_id, -event.amount)


def _take_side_bet(draft: _Draft, seat: int, bet: SideBet) -> None:
    side_bets = draft.round_mapping("side_bets")
    bets = list(side_bets.get(seat, ()))
    bets.remove(bet)
    if bets:
        side_bets[seat] = tuple(bets)
    else:
        side_bets.pop(seat)


def _wager_returned(draft: _Draft, event: WagerReturned) -> None:
    if event.kind == "side":  # a side bet goes back with its seat's main wager (R-BANK-3)
        assert event.seat is not None and event.player_id is not None and event.bet is not None
        _take_side_bet(draft, event.seat, SideBet(event.bet, event.amount, event.player_id))
    else:
        place = _place(event.seat)
        draft.round_mapping("returned")[place] = draft.round_mapping("wagers").pop(place)
    if event.player_id is not None:
        draft.credit(event.player_id, event.amount)


def _bets_closed(draft: _Draft, event: BetsClosed) -> None:
    draft.live()["phase"] = "bets_closed"


def _stacks_dealt(draft: _Draft, event: StacksDealt) -> None:
    event_fields = event.__dict__
    deck = event_fields["deck"]
    deal = Deal(
        None if deck is None else cards_of(deck),
        tuple(map(cards_of, event_fields["stacks"])),
        cards_of(event_fields["unused"]),
    )
    draft.live().update(deal=deal, phase="dealt")


def _dice_rolled(draft: _Draft, event: DiceRolled) -> None:
    draft.live().update(dice=event.faces, first_position=event.first_position)


def _stacks_assigned(draft: _Draft, event: StacksAssigned) -> None:
    hands = {}
    for assignment in event.assignments:
        assignment_fields = assignment.__dict__
        if assignment_fields["holder"] != "dead":
            seat = assignment_fields["seat"]
            hands[DEALER_PLACE if seat is None else seat] = cards_of(assignment_fields["cards"])
    draft.live().update(hands=hands, phase="dice_rolled")


# ``PlayedHand(back, front, forfeited)`` through its slots' own setters: a frozen dataclass's
# ``__init__`` sets each field by ``object.__setattr__`` (table_core/_speed.py, ``slot_setter``).
_set_back = slot_setter(PlayedHand, "back")
_set_front = slot_setter(PlayedHand, "front")
_set_forfeited = slot_setter(PlayedHand, "forfeited")


def _played_hand(back: tuple[Card, ...], front: tuple[Card, ...], forfeited: bool) -> PlayedHand:
    hand: PlayedHand = _new(PlayedHand)
    _set_back(hand, back)
    _set_front(hand, front)
    _set_forfeited(hand, forfeited)
    return hand


def _played(draft: _Draft, seat: int | None, hand: PlayedHand) -> None:
    played = draft.round_mapping("played")
    played[DEALER_PLACE if seat is None else seat] = hand
    round_fields = draft.round  # set by round_mapping
    assert round_fields is not None
    if round_fields["phase"] == "dice_rolled":
        # Every player's hand is set (the house hand is the banker's); counted first, as the
        # set difference costs more and the count rules out all but the last hand.
        wagers = round_fields["wagers"]
        players = len(wagers) - (DEALER_PLACE in wagers)
        if len(played) >= players and wagers.keys() - _DEALER_ONLY <= played.keys():
            round_fields["phase"] = "hands_set"


def _hand_set(draft: _Draft, event: HandSet) -> None:
    event_fields = event.__dict__
    _played(
        draft,
        event_fields["seat"],
        _played_hand(cards_of(event_fields["back"]), cards_of(event_fields["front"]), False),
    )


def _foul_reset(draft: _Draft, event: FoulReset) -> None:
    _played(draft, event.seat, _played_hand(cards_of(event.back), cards_of(event.front), False))


def _hand_forfeited(draft: _Draft, event: HandForfeited) -> None:
    _played(draft, event.seat, _played_hand(cards_of(event.back), cards_of(event.front), True))


def _banker_hand_set(draft: _Draft, event: BankerHandSet) -> None:
    hand = _played_hand(cards_of(event.back), cards_of(event.front), False)
    draft.live().update(banker_hand=hand, phase="banker_hand_set")


def _round_settled(draft: _Draft, event: RoundSettled) -> None:
    banker = event.banker.__dict__
    results = [result.__dict__ for result in event.results]
    house = banker["house_share"]
    for result in results:
        if result["player_id"] is None:  # the house hand against a player-banker
            house += result["net"]
        else:
            draft.credit(result["player_id"], result["wager"] + result["net"])
    draft.table["house_result"] += house
    if banker["player_id"] is not None:
        draft.credit(banker["player_id"], banker["net"])
        draft.table["last_bank_was_player"] = True
    else:  # R-BANK-1 eligibility looks at the last dealer-banked round's wagers
        wagers = {
            result["player_id"]: result["wager"]
            for result in results
            if result["player_id"] is not None
        }
        draft.table.update(last_bank_was_player=False, last_dealer_wagers=wagers)
    draft.live()["phase"] = "settled"


def _commission_taken(draft: _Draft, event: CommissionTaken) -> None:
    # The chips already moved in round_settled (net includes commission); this is the record.
    draft.table["commission"] += event.amount


def _side_bet_settled(draft: _Draft, event: SideBetSettled) -> None:
    _take_side_bet(draft, event.seat, SideBet(event.bet, event.amount, event.player_id))
    draft.credit(event.player_id, event.amount + event.payout)
    draft.table["house_result"] -= event.payout  # the house banks every side bet (R-BANK-5)


def _envy_paid(draft: _Draft, event: EnvyPaid) -> None:
    draft.credit(event.player_id, event.amount)
    draft.table["house_result"] -= event.amount


def _meter_changed(draft: _Draft, event: MeterChanged) -> None:
    # The meter is house money set aside: no chips move and no result changes here. A hit's
    # chips move in its side_bet_settled; a contribution was the player's wager, already on the
    # layout and the house's once the wager is settled.
    draft.table["meter"] += event.amount
    if event.reason in ("seed", "reset"):
        draft.table["meter_seeded"] += event.amount
    elif event.reason == "contribution" and event.seat is not None:
        draft.round_mapping("contributions")[event.seat] = event.amount
    elif event.reason == "return" and event.seat is not None:
        draft.round_mapping("contributions").pop(event.seat, None)


def _round_voided(draft: _Draft, event: RoundVoided) -> None:
    for returned in event.returned:
        if returned.player_id is not None:
            draft.credit(returned.player_id, returned.amount)
    draft.live().update(phase="voided", wagers={}, side_bets={})


def _round_closed(draft: _Draft, event: RoundClosed) -> None:
    draft.live()["phase"] = "closed"


def _custody(draft: _Draft, event: CustodyEvent) -> None:
    """A deck's chain of custody (R20): ``custody.apply_custody`` keeps the deck records."""
    apply_custody(draft.mapping("decks"), event)


_HANDLERS: dict[type[Any], Callable[[_Draft, Any], None]] = {
    TableOpened: _table_opened,
    RulesChanged: _rules_changed,
    HouseWayInstalled: _house_way_installed,
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
    **dict.fromkeys(get_args(CustodyEvent), _custody),
    **BOOKS_HANDLERS,  # the gaming day, the tray, the count (inventory.py)
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
