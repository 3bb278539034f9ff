"""The table aggregate: ``decide(state, command) -> [events]`` and the round state machine.

``decide`` checks a command against the rules and the state and answers the facts it causes, or
raises :class:`~table_core.errors.DomainError` and emits nothing. The state is a fold of the facts
(state.py). A round moves::

    offering_bank (rotating bank only) -> open_for_bets -> bets_closed -> dealt -> dice_rolled
    -> hands_set -> banker_hand_set -> settled -> closed;  voided from any phase before settled.

A command in the wrong phase raises :class:`WrongState`, which names the phase.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from operator import itemgetter
from typing import Any, TypeVar

from pydantic import BaseModel

from table_core import commands as c
from table_core._fast_events import trusted
from table_core.banking import (
    SEAT_EMPTY,
    bank_eligibility,
    bank_order,
    banker_commission,
    co_bank_shares,
    cover,
)
from table_core.cards import FULL_DECK, Card, card_text
from table_core.commands import Command
from table_core.dealing import (
    ASSIGNMENT_ORDER,
    DEALER_PLACE,
    POSITIONS,
    SEATS,
    STACK_SIZE,
    STACK_SLICES,
    Deal,
    check_dice,
    deal_deck,
    deal_hands,
    first_position,
    position_of,
    to_card,
)
from table_core.errors import CardError, ConfigurationError, DomainError
from table_core.events import (
    Actor,
    BankAccepted,
    BankDeclined,
    BankerHandSet,
    BankerResult,
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
    ReturnedWager,
    RoundClosed,
    RoundSettled,
    RoundStarted,
    RoundVoided,
    RulesChanged,
    SeatResult,
    SideBetPlaced,
    SideBetSettled,
    StackAssignment,
    StacksAssigned,
    StacksDealt,
    TableOpened,
    VariantOverride,
    WagerReturned,
)
from table_core.hands import five_card_strength, tables_for, two_card_strength
from table_core.house_ways import get_house_way, set_by_house_way
from table_core.rules import SUPPORTED_VARIANTS, CommissionRules, TableRules, Variant
from table_core.settlement import MainWagerSettlement, settlement_index, settlement_table
from table_core.side_bets import (
    NOTHING,
    EnvyHand,
    envy_payments,
    meter_contribution,
    progressive_payout,
    require_side_bets_playable,
    settle_side_bet,
)
from table_core.split import check_same_cards, make_split, value_split
from table_core.state import (
    FINISHED,
    RoundState,
    SideBet,
    TableState,
    Wager,
    evolve,
    fold,
)
from table_core.variants import (
    Override,
    settle_main_wager_variant,
    variant_commission,
    variant_override,
)

__all__ = [
    "DomainError",
    "NotAllowed",
    "TableState",
    "WrongState",
    "decide",
    "evolve",
    "execute",
    "fold",
]

# The house does not pay itself commission on its own hand against a player-banker (R-BANK-2).
_HOUSE_HAND_COMMISSION = CommissionRules(rate_bp=0)

_DEALER_ROLES = frozenset({"dealer", "floor", "system"})
_CAGE_ROLES = frozenset({"cage", "dealer", "floor"})
_PLAYER_PROXIES = frozenset({"dealer", "floor"})  # may act for a player at a live table

_BASIS = {"percent": "percent_of_win", "flat": "flat_per_win", "flat_always": "flat_per_hand"}

#: How ``round_settled`` names a banker hand that decided every main wager (R-VAR-1).
_OVERRIDES: dict[tuple[Variant, Override], VariantOverride] = {
    ("ez", "push"): "ez_queen_high_push",
    ("ez", "banker_wins"): "ez_queen_high_banker_wins",
    ("commission_free", "push"): "commission_free_nine_high_push",
}
PROGRESSIVE = "progressive"


class WrongState(DomainError):
    """A command the current state does not accept; ``state`` names that state."""

    def __init__(self, action: str, state: str) -> None:
        super().__init__(f"cannot {action} in state {state}")
        self.action = action
        self.state = state


class NotAllowed(DomainError):
    """The actor's role may not give this command."""


# --- small helpers --------------------------------------------------------------------------------


_TEXT = tuple(card_text(x) for x in FULL_DECK)
_SOURCES = ("electronic", "live")
_M = TypeVar("_M", bound=BaseModel)

# The trusted constructors (_fast_events.trusted) of what decide builds, bound once.
_new_bank_declined = trusted(BankDeclined)
_new_bank_offered = trusted(BankOffered)
_new_banker_hand_set = trusted(BankerHandSet)
_new_banker_result = trusted(BankerResult)
_new_bet_placed = trusted(BetPlaced)
_new_bets_closed = trusted(BetsClosed)
_new_commission_taken = trusted(CommissionTaken)
_new_dice_rolled = trusted(DiceRolled)
_new_envy_paid = trusted(EnvyPaid)
_new_foul_reset = trusted(FoulReset)
_new_hand_forfeited = trusted(HandForfeited)
_new_hand_set = trusted(HandSet)
_new_meter_changed = trusted(MeterChanged)
_new_round_closed = trusted(RoundClosed)
_new_round_settled = trusted(RoundSettled)
_new_round_started = trusted(RoundStarted)
_new_seat_result = trusted(SeatResult)
_new_side_bet_settled = trusted(SideBetSettled)
_new_stack_assignment = trusted(StackAssignment)
_new_stacks_assigned = trusted(StacksAssigned)
_new_wager_returned = trusted(WagerReturned)


def _trusted_if(ok: bool, cls: type[_M]) -> Callable[..., _M]:
    """Events are built with ``trusted`` (_fast_events.py) from what decide computed; one that
    carries a command's own value skips validation only when that value is already of the schema's
    type (``ok``), so a float amount still fails validation as it always did."""
    return trusted(cls) if ok else cls


_text_of = _TEXT.__getitem__


def _text(cards: Sequence[Card]) -> tuple[str, ...]:
    if len(cards) > 1:  # one C call (an itemgetter of one index answers the item, not a tuple)
        text: tuple[str, ...] = itemgetter(*cards)(_TEXT)
        return text
    return tuple(map(_text_of, cards))


def _require(actor: Actor, roles: frozenset[str], action: str) -> None:
    if actor.role not in roles:
        raise NotAllowed(f"a {actor.role} may not {action}")


def _require_player(actor: Actor, player_id: str, action: str) -> None:
    if actor.role == "player" and actor.id == player_id:
        return
    if actor.role not in _PLAYER_PROXIES:
        raise NotAllowed(f"{actor.role} {actor.id} may not {action} for player {player_id}")


def _opened(s: TableState, action: str) -> TableRules:
    if s.rules is None:
        raise WrongState(action, s.phase)
    return s.rules


def _live_round(s: TableState, action: str, phase: str, other_phase: str = "") -> RoundState:
    """The round, which must be in ``phase`` (or ``other_phase``)."""
    r = s.round
    if s.rules is None or r is None or (r.phase != phase and r.phase != other_phase):
        raise WrongState(action, s.phase)
    return r


def _seat(s: TableState, player_id: str) -> int:
    for seat, seated in s.seats.items():  # s.seat_of(player_id), one call less
        if seated == player_id:
            return seat
    raise DomainError(f"player {player_id} is not seated at table {s.table_id}")


def _env(s: TableState, cmd: Command) -> dict[str, Any]:
    env: dict[str, Any] = {"table_id": s.table_id, "actor": cmd.actor, "at": cmd.at}
    if s.round is not None:
        env["round"] = s.round.number
    return env


def _check_playable(rules: TableRules) -> None:
    """A profile the table can deal now: a known House Way, a known variant, side bets it can pay.

    The profile's own validation already refuses most of this; checking again here also refuses a
    profile built without validation (``model_construct``), as a domain error naming the clause.
    """
    get_house_way(rules.hand.house_way)  # raises ConfigurationError (R-HW-1)
    if rules.variant not in SUPPORTED_VARIANTS:
        known = ", ".join(SUPPORTED_VARIANTS)
        raise ConfigurationError(f"unknown variant {rules.variant} ({known})", rule="R-VAR-1")
    if rules.queen_high_pai_gow not in ("push", "banker_wins"):
        raise ConfigurationError(
            f"queen_high_pai_gow is push or banker_wins, got {rules.queen_high_pai_gow}",
            rule="R-VAR-1",
        )
    require_side_bets_playable(rules.side_bets)  # R-VAR-5: no insurance without its pay table


def _seed_meter(s: TableState, env: dict[str, Any], rules: TableRules) -> list[Event]:
    """R-VAR-6: a table that offers the progressive opens its meter at the reset value at least;
    the house funds the difference (a table fact, ``round=None``)."""
    table = rules.side_bets.progressive
    if PROGRESSIVE not in rules.side_bets.offered or table is None or s.meter >= table.reset:
        return []
    seed = table.reset - s.meter
    return [MeterChanged(**env, reason="seed", amount=seed, meter=table.reset)]


def _fee_held(rules: TableRules) -> int:
    """R-PAY-2 ``flat_always``: the fee due on a live wager whatever the result, which a player
    must keep at hand. The variants without commission charge none (R-VAR-1)."""
    commission = rules.hand.commission
    if commission.mode == "flat_always" and rules.variant == "commission":
        return commission.fee
    return 0


def _held(s: TableState, player_id: str) -> int:
    """Chips a player may not cash out during a live round: a player-banker's whole balance
    (R-BANK-3 coverage) or, under ``flat_always``, the fee due on a live wager (R-PAY-2)."""
    r = s.round
    if r is None or not r.live:
        return 0
    if r.banker_player == player_id:
        return s.balances.get(player_id, 0)
    if any(w.player_id == player_id for w in r.wagers.values()):
        return _fee_held(r.rules)
    return 0


def _in_action(s: TableState, player_id: str) -> bool:
    r = s.round
    if r is None or not r.live:
        return False
    offered = None if r.offered_seat is None else s.seats.get(r.offered_seat)
    wagered = any(w.player_id == player_id for w in r.wagers.values())
    return wagered or player_id in (r.banker_player, offered)


def _side_returns(r: RoundState) -> list[ReturnedWager]:
    return [
        ReturnedWager(
            seat=seat, player_id=bet.player_id, amount=bet.amount, kind="side", bet=bet.bet
        )
        for seat, bet in r.side_bets_in_order()
    ]


def _returns(r: RoundState) -> tuple[ReturnedWager, ...]:
    """Every wager still on the layout, as a void returns it: main wagers, then side bets."""
    main = [
        ReturnedWager(
            seat=None if w.place == DEALER_PLACE else w.place,
            player_id=w.player_id,
            amount=w.amount,
        )
        for w in r.wagers_in_order()
    ]
    return (*main, *_side_returns(r))


def _progressive_of(r: RoundState, seat: int) -> SideBet:
    return next(bet for bet in r.side_bets[seat] if bet.bet == PROGRESSIVE)


def _void(
    s: TableState,
    r: RoundState,
    env: dict[str, Any],
    reason: str,
    misdeal: dict[str, Any] | None = None,
) -> list[Event]:
    """A void after bets were taken: every bet back, and each locked progressive wager's
    contribution back out of the meter (R-VAR-6), so the void changes no one's money.
    ``misdeal`` holds what a refused deal reported, recorded on the void (see ``_misdeal``)."""
    events: list[Event] = [
        RoundVoided(**env, reason=reason, returned=_returns(r), **(misdeal or {}))
    ]
    meter = s.meter
    seats = sorted(r.contributions, key=lambda seat: position_of(seat, r.banker_place))
    for seat in seats:
        amount = r.contributions[seat]
        meter -= amount
        events.append(
            MeterChanged(
                **env,
                reason="return",
                amount=-amount,
                meter=meter,
                seat=seat,
                player_id=_progressive_of(r, seat).player_id,
            )
        )
    return events


# --- the table ------------------------------------------------------------------------------------


def _open_table(s: TableState, cmd: c.OpenTable) -> list[Event]:
    if s.table_id is not None:
        raise WrongState("open the table", s.phase)  # already open
    _require(cmd.actor, frozenset({"floor", "system"}), "open a table")
    _check_playable(cmd.rules)
    env = {"table_id": cmd.table_id, "actor": cmd.actor, "at": cmd.at}
    return [TableOpened(**env, rules=cmd.rules), *_seed_meter(s, env, cmd.rules)]


def _change_rules(s: TableState, cmd: c.ChangeRules) -> list[Event]:
    rules = _opened(s, "change the rules")
    _require(cmd.actor, frozenset({"floor"}), "change the rules")
    if cmd.rules.version <= rules.version:
        raise DomainError(
            f"a new rules profile needs a version above {rules.version}, got {cmd.rules.version}"
        )
    if not cmd.reason.strip():
        raise DomainError("a rules change states its reason")
    _check_playable(cmd.rules)
    env = _env(s, cmd) | {"round": None}
    changed = RulesChanged(
        **env, rules=cmd.rules, reason=cmd.reason, applies_from_round=s.last_round + 1
    )
    return [changed, *_seed_meter(s, env, cmd.rules)]


def _seat_player(s: TableState, cmd: c.SeatPlayer) -> list[Event]:
    _opened(s, "seat a player")
    _require_player(cmd.actor, cmd.player_id, "take a seat")
    if cmd.seat not in SEATS:
        raise DomainError(f"seats are numbered 1..6, got {cmd.seat}", rule="R-DEAL-1")
    if cmd.seat in s.seats:
        raise DomainError(f"seat {cmd.seat} is taken by {s.seats[cmd.seat]}")
    if not cmd.player_id or s.seat_of(cmd.player_id) is not None:
        raise DomainError(f"player {cmd.player_id!r} is already seated or has no id")
    return [PlayerSeated(**_env(s, cmd) | {"round": None}, seat=cmd.seat, player_id=cmd.player_id)]


def _leave_seat(s: TableState, cmd: c.LeaveSeat) -> list[Event]:
    _opened(s, "leave a seat")
    _require_player(cmd.actor, cmd.player_id, "leave")
    seat = _seat(s, cmd.player_id)
    if _in_action(s, cmd.player_id):
        raise DomainError(f"player {cmd.player_id} has action in round {s.last_round}")
    env = _env(s, cmd) | {"round": None}
    events: list[Event] = []
    balance = s.balances.get(cmd.player_id, 0)
    if balance > 0:
        events.append(ChipsCashedOut(**env, player_id=cmd.player_id, amount=balance))
    events.append(PlayerLeft(**env, seat=seat, player_id=cmd.player_id))
    return events


def _buy_in(s: TableState, cmd: c.BuyIn) -> list[Event]:
    _opened(s, "buy in")
    _require(cmd.actor, _CAGE_ROLES, "sell chips")
    _seat(s, cmd.player_id)
    if cmd.amount <= 0:
        raise DomainError(f"a buy-in is a positive amount of minor units, got {cmd.amount}")
    env = _env(s, cmd) | {"round": None}
    return [ChipsBoughtIn(**env, player_id=cmd.player_id, amount=cmd.amount)]


def _cash_out(s: TableState, cmd: c.CashOut) -> list[Event]:
    _opened(s, "cash out")
    _require(cmd.actor, _CAGE_ROLES, "cash chips out")
    _seat(s, cmd.player_id)
    free = s.balances.get(cmd.player_id, 0) - _held(s, cmd.player_id)
    if not 0 < cmd.amount <= free:
        raise DomainError(f"player {cmd.player_id} can cash out 1..{free}, not {cmd.amount}")
    env = _env(s, cmd) | {"round": None}
    return [ChipsCashedOut(**env, player_id=cmd.player_id, amount=cmd.amount)]


# --- the bank -------------------------------------------------------------------------------------


def _offers(
    s: TableState, env: dict[str, Any], rules: TableRules, order: Sequence[int]
) -> list[Event]:
    """Offer the bank down ``order`` (R-BANK-1): ineligible seats pass on with their reason; the
    first eligible seat is asked and the offers stop there."""
    events: list[Event] = []
    for seat in order:
        player = s.seats.get(seat)
        if player is None:
            events.append(
                _new_bank_offered(
                    **env, seat=seat, player_id=None, eligible=False, reason=SEAT_EMPTY
                )
            )
            continue
        others = [other for other_seat, other in s.seats.items() if other_seat != seat]
        balance = s.balances.get(player, 0)
        verdict = bank_eligibility(player, balance, others, s.last_dealer_wagers, rules)
        events.append(
            _new_bank_offered(
                **env,
                seat=seat,
                player_id=player,
                eligible=verdict.eligible,
                reason=verdict.reason,
                balance=balance,
                required=verdict.required,
            )
        )
        if verdict.eligible:
            break
    return events


def _start_round(s: TableState, cmd: c.StartRound) -> list[Event]:
    rules = _opened(s, "start a round")
    if s.round is not None and s.round.phase not in ("closed", "voided"):
        raise WrongState("start a round", s.phase)
    _require(cmd.actor, _DEALER_ROLES, "start a round")
    number = s.last_round + 1
    order: tuple[int, ...] = ()
    dealer_turn = rules.dealer_between and s.last_bank_was_player  # R-BANK-1 dealer_between
    if rules.banking == "rotating" and not dealer_turn:
        order = bank_order(s.seats, s.bank_pointer)
    started = _new_round_started(
        table_id=s.table_id,
        actor=cmd.actor,
        at=cmd.at,
        round=number,
        rules_version=rules.version,
        bank_order=order,
    )
    if not order:
        return [started]
    env = {"table_id": s.table_id, "actor": cmd.actor, "at": cmd.at, "round": number}
    return [started, *_offers(s, env, rules, order)]


def _offered(s: TableState, cmd: c.AcceptBank | c.DeclineBank, action: str) -> RoundState:
    r = _live_round(s, action, "offering_bank")
    _require_player(cmd.actor, cmd.player_id, action)
    if r.offered_seat is None or s.seats.get(r.offered_seat) != cmd.player_id:
        raise DomainError(f"the bank is offered to seat {r.offered_seat}, not {cmd.player_id}")
    return r


def _accept_bank(s: TableState, cmd: c.AcceptBank) -> list[Event]:
    r = _offered(s, cmd, "accept the bank")
    if cmd.co_bank and not r.rules.co_bank:
        raise DomainError("this table does not co-bank", rule="R-BANK-2")
    seat = _seat(s, cmd.player_id)
    others = [p for st, p in s.seats.items() if st != seat]
    balance = s.balances.get(cmd.player_id, 0)
    verdict = bank_eligibility(cmd.player_id, balance, others, s.last_dealer_wagers, r.rules)
    if not verdict.eligible:  # the balance changed since the offer
        raise DomainError(f"player {cmd.player_id} may not bank: {verdict.reason}", "R-BANK-1")
    return [
        _trusted_if(type(cmd.co_bank) is bool, BankAccepted)(
            **_env(s, cmd), seat=seat, player_id=cmd.player_id, co_bank=cmd.co_bank
        )
    ]


def _decline_bank(s: TableState, cmd: c.DeclineBank) -> list[Event]:
    r = _offered(s, cmd, "decline the bank")
    env = _env(s, cmd)
    declined = _new_bank_declined(**env, seat=_seat(s, cmd.player_id), player_id=cmd.player_id)
    return [declined, *_offers(s, env, r.rules, r.bank_order[r.offers_made :])]


# --- wagers ---------------------------------------------------------------------------------------


def _place_bet(s: TableState, cmd: c.PlaceBet) -> list[Event]:
    r = _live_round(s, "place a bet", "open_for_bets")
    player_id, amount, actor = cmd.player_id, cmd.amount, cmd.actor
    if actor.role != "player" or actor.id != player_id:  # else the player acts: allowed
        _require_player(actor, player_id, "place a bet")
    seat = _seat(s, player_id)
    if seat == r.banker_place:
        raise DomainError(f"player {player_id} banks this round and does not wager")
    if seat in r.wagers:
        raise DomainError(f"seat {seat} already has a main wager of {r.wagers[seat].amount}")
    rules = r.rules
    limits = rules.limits
    if not limits.min_bet <= amount <= limits.max_bet:
        raise DomainError(
            f"a bet at this table is {limits.min_bet}..{limits.max_bet}, got {amount}"
        )
    fee = _fee_held(rules)  # due whatever the result
    balance = s.balances.get(player_id, 0)
    if amount + fee > balance:
        extra = f" plus the {fee} fee" if fee else ""
        raise DomainError(f"player {player_id} has {balance}, short of {amount}{extra}")
    new = _new_bet_placed if type(amount) is int else BetPlaced  # see _trusted_if
    return [
        new(
            table_id=s.table_id,
            actor=actor,
            at=cmd.at,
            round=r.number,
            seat=seat,
            player_id=player_id,
            position=position_of(seat, r.banker_place),
            amount=amount,
        )
    ]


def _place_side_bet(s: TableState, cmd: c.PlaceSideBet) -> list[Event]:
    """A side bet with the seat's hand, before bets close (R-VAR-2..6). The seat needs a hand in
    action: its main wager, or the bank (a player-banker plays a hand too, and the house banks
    side bets whoever banks, R-BANK-5). One bet of each kind per seat per round."""
    r = _live_round(s, "place a side bet", "open_for_bets")
    _require_player(cmd.actor, cmd.player_id, "place a side bet")
    seat = _seat(s, cmd.player_id)
    side_bets = r.rules.side_bets
    if cmd.bet not in side_bets.offered:
        offered = ", ".join(sorted(side_bets.offered)) or "none"
        raise DomainError(
            f"this table does not take the {cmd.bet} side bet (offered: {offered})", "R-VAR-2"
        )
    if seat not in r.wagers and seat != r.banker_place:
        raise DomainError(
            f"seat {seat} has no hand in action: a side bet goes with the main wager", "R-VAR-2"
        )
    if any(bet.bet == cmd.bet for bet in r.side_bets.get(seat, ())):
        raise DomainError(f"seat {seat} already has a {cmd.bet} bet this round")
    if cmd.bet == PROGRESSIVE:
        assert side_bets.progressive is not None  # offered only with its table (R-VAR-6)
        fixed = side_bets.progressive.wager
        if cmd.amount != fixed:
            raise DomainError(f"the progressive wager is {fixed}, got {cmd.amount}", "R-VAR-6")
    else:
        limits = r.rules.side_bet_limits
        if not limits.min_bet <= cmd.amount <= limits.max_bet:
            raise DomainError(
                f"a {cmd.bet} bet at this table is {limits.min_bet}..{limits.max_bet}, "
                f"got {cmd.amount}"
            )
    balance = s.balances.get(cmd.player_id, 0)
    free = balance - (_fee_held(r.rules) if seat in r.wagers else 0)
    if cmd.amount > free:
        raise DomainError(f"player {cmd.player_id} has {free} free, short of {cmd.amount}")
    return [
        _trusted_if(type(cmd.amount) is int, SideBetPlaced)(
            **_env(s, cmd), seat=seat, player_id=cmd.player_id, bet=cmd.bet, amount=cmd.amount
        )
    ]


def _contributions(s: TableState, r: RoundState, env: dict[str, Any]) -> list[Event]:
    """R-VAR-6: each progressive wager still on the layout is locked as bets close and its share
    goes to the meter, one event per wager (none for a share of 0: nothing changes)."""
    table = r.rules.side_bets.progressive
    if table is None:
        return []
    share = meter_contribution(table, 1)
    events: list[Event] = []
    meter = s.meter
    for seat, bet in r.side_bets_in_order():
        if bet.bet == PROGRESSIVE and share:
            meter += share
            events.append(
                _new_meter_changed(
                    **env,
                    reason="contribution",
                    amount=share,
                    meter=meter,
                    seat=seat,
                    player_id=bet.player_id,
                )
            )
    return events


def _close_bets(s: TableState, cmd: c.CloseBets) -> list[Event]:
    r = _live_round(s, "close bets", "open_for_bets")
    _require(cmd.actor, _DEALER_ROLES, "close bets")
    if not r.wagers:
        raise DomainError("no wager placed: take bets or void the round")
    env = _env(s, cmd)
    events: list[Event] = []
    in_play = r.wagers_in_order()
    kept = r  # the round as bets close: side bets of returned wagers gone
    if r.player_banked:
        house_amount = r.rules.house_wager_amount
        if house_amount > 0:  # R-BANK-2: the dealer's position plays the house's hand
            house = Wager(
                DEALER_PLACE, None, house_amount, position_of(DEALER_PLACE, r.banker_place)
            )
            events.append(
                _new_bet_placed(
                    **env, seat=None, player_id=None, position=house.position, amount=house_amount
                )
            )
            in_play = sorted([*in_play, house], key=lambda w: w.position)
        banker = r.banker_player or ""
        accepted, returned = cover(
            [(w, w.amount) for w in in_play], s.balances.get(banker, 0), r.co_bank
        )
        for w in returned:
            seat = None if w.place == DEALER_PLACE else w.place
            events.append(
                _new_wager_returned(
                    **env, seat=seat, player_id=w.player_id, position=w.position, amount=w.amount
                )
            )
            # The seat's hand is dead now: its side bets have nothing to resolve on.
            for bet in r.side_bets.get(w.place, ()):
                events.append(
                    _new_wager_returned(
                        **env,
                        seat=seat,
                        player_id=bet.player_id,
                        position=w.position,
                        amount=bet.amount,
                        kind="side",
                        bet=bet.bet,
                    )
                )
        in_play = accepted
        gone = {w.place for w in returned}
        side_bets = {seat: bets for seat, bets in r.side_bets.items() if seat not in gone}
        kept = replace(r, side_bets=side_bets)
    events.append(
        _new_bets_closed(
            table_id=s.table_id,
            actor=cmd.actor,
            at=cmd.at,
            round=r.number,
            banker_seat=r.banker_place if r.player_banked else None,
            banker_player_id=r.banker_player,
            co_bank=r.co_bank,
            in_action=sum(w.amount for w in in_play),
        )
    )
    if not in_play:  # only the player-banker's own side bets can be left to return
        reason = "no wager in action: the bank covered none (R-BANK-3)"
        events.append(RoundVoided(**env, reason=reason, returned=tuple(_side_returns(kept))))
        return events
    return [*events, *_contributions(s, kept, env)]


# --- dealing --------------------------------------------------------------------------------------


def _deal(s: TableState, cmd: c.DealCards) -> list[Event]:
    r = _live_round(s, "deal", "bets_closed")
    _require(cmd.actor, _DEALER_ROLES, "deal")
    if (cmd.deck is None) == (cmd.hands is None):
        raise DomainError("report either the deck order or the seven hands", rule="R-DEAL-2")
    try:
        deal: Deal = deal_deck(cmd.deck) if cmd.deck is not None else deal_hands(cmd.hands or ())
    except CardError as error:  # a misdeal voids the round: every wager is returned
        return _void(s, r, _env(s, cmd), f"misdeal: {error.message}", _misdeal(cmd))
    if deal.deck is None:
        deck = None
        stacks = tuple(_text(stack) for stack in deal.stacks)
        unused = _text(deal.unused)
    else:  # the stacks and the unused cards are cut from the deck (deal_deck): cut its text
        deck = _text(deal.deck)
        stacks = tuple(map(deck.__getitem__, STACK_SLICES))
        unused = deck[POSITIONS * STACK_SIZE :]
    dealt = _trusted_if(type(cmd.source) is str and cmd.source in _SOURCES, StacksDealt)
    return [
        dealt(
            table_id=s.table_id,
            actor=cmd.actor,
            at=cmd.at,
            round=r.number,
            source=cmd.source,
            deck=deck,
            stacks=stacks,
            unused=unused,
        )
    ]


def _misdeal(cmd: c.DealCards) -> dict[str, Any]:
    """What a refused deal reported, for the void: without it a regulator could not tell a real
    misdeal from a round voided on a good deck. The audit deals it again (``audit/rederive.py``)."""
    if cmd.deck is not None:
        return {"reported_deck": _reported(cmd.deck), "rule": _misdeal_rule(cmd)}
    hands = tuple(_reported(hand) for hand in cmd.hands or ())
    return {"reported_hands": hands, "rule": _misdeal_rule(cmd)}


def _reported(values: Sequence[c.CardInput]) -> tuple[str, ...]:
    """Each card as reported: its canonical text when it is a card (R-CARD-2), else the token as
    given (``str`` of a value that is not even text), so the record shows the fault itself."""
    out = []
    for value in values:
        try:
            out.append(card_text(to_card(value)))
        except CardError:
            out.append(value if isinstance(value, str) else str(value))
    return tuple(out)


def _misdeal_rule(cmd: c.DealCards) -> str:
    """The clause the refused deal breaks, found in ``deal_deck``/``deal_hands``' own order so it
    names the fault the reason names: an unknown or duplicate card is R-CARD-2; a deck of distinct
    cards that are not 53 is R-CARD-1; not seven hands, or a hand not of seven, is R-DEAL-2."""
    if cmd.deck is not None:
        cards = _cards_or_none(cmd.deck)
        return "R-CARD-1" if cards is not None and len(set(cards)) == len(cards) else "R-CARD-2"
    hands = cmd.hands or ()
    if len(hands) != POSITIONS:
        return "R-DEAL-2"
    if any(_cards_or_none(hand) is None for hand in hands):
        return "R-CARD-2"
    if any(len(hand) != STACK_SIZE for hand in hands):
        return "R-DEAL-2"
    return "R-CARD-2"  # seven hands of seven with a card seen twice


def _cards_or_none(values: Sequence[c.CardInput]) -> list[Card] | None:
    try:
        return [to_card(value) for value in values]
    except CardError:
        return None


def _roll_dice(s: TableState, cmd: c.RollDice) -> list[Event]:
    r = _live_round(s, "roll the dice", "dealt")
    _require(cmd.actor, _DEALER_ROLES, "roll the dice")
    faces = check_dice(cmd.faces)
    total = sum(faces)
    first = first_position(total)
    assert r.deal is not None  # the dealt phase holds the deal
    table_id, actor, at, number = s.table_id, cmd.actor, cmd.at, r.number
    stacks, banker, wagers = r.deal.stacks, r.banker_place, r.wagers
    assignments = []
    for position, place, stack in ASSIGNMENT_ORDER[banker][first]:
        if place == banker:
            holder, player = "banker", r.banker_player
        elif place in wagers:
            holder = "house" if place == DEALER_PLACE else "player"
            player = wagers[place].player_id
        else:  # an empty seat, a player without a wager, or a wager returned: a dead stack
            holder, player = "dead", None
        assignments.append(
            _new_stack_assignment(
                position=position,
                stack=stack,
                seat=None if place == DEALER_PLACE else place,
                player_id=player,
                holder=holder,
                cards=_text(stacks[stack - 1]),
            )
        )
    return [
        _new_dice_rolled(
            table_id=table_id,
            actor=actor,
            at=at,
            round=number,
            faces=faces,
            total=total,
            first_position=first,
        ),
        _new_stacks_assigned(
            table_id=table_id, actor=actor, at=at, round=number, assignments=tuple(assignments)
        ),
    ]


# --- setting hands --------------------------------------------------------------------------------


def _cards(values: Sequence[c.CardInput]) -> list[Card]:
    return [to_card(v) for v in values]


def _set_hand(s: TableState, cmd: c.SetHand) -> list[Event]:
    r = _live_round(s, "set a hand", "dice_rolled")
    actor = cmd.actor
    if actor.role != "player" or actor.id != cmd.player_id:  # else the player acts: allowed
        _require_player(actor, cmd.player_id, "set a hand")
    seat = _seat(s, cmd.player_id)
    wager = r.wagers.get(seat)
    if wager is None or seat == DEALER_PLACE:  # r.player_places(), without sorting them
        raise DomainError(f"player {cmd.player_id} has no hand in action this round")
    if seat in r.played:
        raise DomainError(f"seat {seat}'s hand is already set")
    seven = r.hands[seat]
    rules = r.rules.hand
    tables = tables_for(rules.wheel_rank)
    if cmd.back is None and cmd.front is None:
        way = set_by_house_way(seven, rules.house_way, tables)
        return [
            _new_hand_set(
                table_id=s.table_id,
                actor=cmd.actor,
                at=cmd.at,
                round=r.number,
                seat=seat,
                position=wager.position,
                back=_text(way.back),
                front=_text(way.front),
                by="house_way",
                reason="player_asked",
                rule=way.rule,
            )
        ]
    env = {
        "table_id": s.table_id,
        "actor": cmd.actor,
        "at": cmd.at,
        "round": r.number,
        "seat": seat,
        "position": wager.position,
    }
    if cmd.back is None or cmd.front is None:
        raise DomainError("give both the back and the front, or neither for the House Way")
    split = make_split(_cards(cmd.back), _cards(cmd.front))
    check_same_cards(split, seven)
    if value_split(split, tables).legal:
        return [
            _new_hand_set(
                **env,
                back=_text(split.back),
                front=_text(split.front),
                by="player",
                reason="player_set",
            )
        ]
    if rules.foul_policy == "forfeit":  # R-SET-2: the main wager loses
        return [_new_hand_forfeited(**env, back=_text(split.back), front=_text(split.front))]
    way = set_by_house_way(seven, rules.house_way, tables)  # R-SET-2 reset
    assert way.rule is not None
    return [
        _new_foul_reset(
            **env,
            player_back=_text(split.back),
            player_front=_text(split.front),
            back=_text(way.back),
            front=_text(way.front),
            rule=way.rule,
        )
    ]


def _set_banker_hand(s: TableState, cmd: c.SetBankerHand) -> list[Event]:
    r = _live_round(s, "set the banker's hand", "dice_rolled", "hands_set")
    _require(cmd.actor, _DEALER_ROLES, "set the banker's hand")
    house_way = r.rules.hand.house_way
    tables = tables_for(r.rules.hand.wheel_rank)
    table_id, actor, at, number = s.table_id, cmd.actor, cmd.at, r.number
    events: list[Event] = []
    for wager in r.wagers_in_order():
        place = wager.place
        if place in r.played:
            continue
        way = set_by_house_way(r.hands[place], house_way, tables)
        events.append(
            _new_hand_set(
                table_id=table_id,
                actor=actor,
                at=at,
                round=number,
                seat=None if place == DEALER_PLACE else place,
                position=wager.position,
                back=_text(way.back),
                front=_text(way.front),
                by="house_way",
                reason="house_hand" if place == DEALER_PLACE else "not_set",
                rule=way.rule,
            )
        )
    way = set_by_house_way(r.hands[r.banker_place], house_way, tables)
    assert way.rule is not None
    events.append(
        _new_banker_hand_set(
            table_id=table_id,
            actor=actor,
            at=at,
            round=number,
            seat=r.banker_place if r.player_banked else None,
            player_id=r.banker_player,
            back=_text(way.back),
            front=_text(way.front),
            house_way=house_way,
            rule=way.rule,
        )
    )
    return events


# --- settlement -----------------------------------------------------------------------------------


def _settle(s: TableState, cmd: c.Settle) -> list[Event]:
    """Main wagers against the banker under the round's variant (R-PAY, R-VAR-1), commission,
    then every side bet on its seven cards (R-VAR-2..6) and the Envy bonuses (R-VAR-3)."""
    r = _live_round(s, "settle", "banker_hand_set")
    _require(cmd.actor, _DEALER_ROLES, "settle")
    env = _env(s, cmd)
    main = _settle_main_wagers(r, env)
    offered = r.rules.side_bets
    if not r.side_bets and (offered.envy is None or "fortune" not in offered.offered):
        return main  # what the two below answer: no side bet to settle, no Envy to pay
    return [*main, *_settle_side_bets(s, r, env), *_envy(r, env)]


#: ``settlement_table(amount, rules)`` by amount and rules object (a table's rules are one object
#: round after round), each kept with its rules so that their id is not reused; bounded.
_SETTLEMENTS: dict[tuple[int, int], tuple[CommissionRules, tuple[MainWagerSettlement, ...]]] = {}


def _settlements(amount: int, rules: CommissionRules) -> tuple[MainWagerSettlement, ...]:
    """The nine ways a wager of ``amount`` settles in the commission game, as
    ``settle_main_wager`` settles them, in ``settlement_index`` order."""
    found = _SETTLEMENTS.get((amount, id(rules)))
    if found is None or found[0] is not rules:
        if len(_SETTLEMENTS) >= 1024:
            _SETTLEMENTS.clear()
        found = _SETTLEMENTS[(amount, id(rules))] = (rules, settlement_table(amount, rules))
    return found[1]


def _settle_main_wagers(r: RoundState, env: dict[str, Any]) -> list[Event]:
    assert r.banker_hand is not None
    table_id, actor, at, number = env["table_id"], env["actor"], env["at"], env["round"]
    tables = tables_for(r.rules.hand.wheel_rank)
    variant = r.rules.variant
    # ez and commission_free charge none, the player-banker's R-BANK-4 commission included.
    commission_rules = variant_commission(variant, r.rules.hand.commission)
    banker_back = five_card_strength(r.banker_hand.back, tables)
    banker_front = two_card_strength(r.banker_hand.front)
    # R-VAR-1: the banker's hand may decide every main wager; judged once for the round.
    override = variant_override(
        variant, r.hands[r.banker_place], banker_front, r.rules.queen_high_pai_gow
    )
    results: list[SeatResult] = []
    commissions: list[Event] = []
    for wager in r.wagers_in_order():
        hand = r.played[wager.place]
        house_hand = wager.place == DEALER_PLACE
        back = five_card_strength(hand.back, tables)
        front = two_card_strength(hand.front)
        rules = _HOUSE_HAND_COMMISSION if house_hand else commission_rules
        if variant == "commission" and not hand.forfeited:  # no override in this game
            settled = _settlements(wager.amount, rules)[
                settlement_index(back, front, banker_back, banker_front)
            ]
        else:
            settled = settle_main_wager_variant(
                back,
                front,
                banker_back,
                banker_front,
                wager.amount,
                rules,
                variant=variant,
                override=override,
                forfeited=hand.forfeited,
            )
        payout = settled.net + settled.commission
        results.append(
            _new_seat_result(
                seat=None if house_hand else wager.place,
                player_id=wager.player_id,
                position=wager.position,
                wager=wager.amount,
                back=settled.back,
                front=settled.front,
                result=settled.result,
                forfeited=hand.forfeited,
                payout=payout,
                commission=settled.commission,
                net=settled.net,
            )
        )
        if settled.commission and wager.player_id is not None:
            commissions.append(
                _new_commission_taken(
                    table_id=table_id,
                    actor=actor,
                    at=at,
                    round=number,
                    seat=wager.place,
                    player_id=wager.player_id,
                    payer="player",
                    amount=settled.commission,
                    basis=_BASIS[commission_rules.mode],
                    basis_amount=wager.amount,
                    clause="R-PAY-2",
                )
            )
    bank_result = -sum(x.payout for x in results)  # copies already went to the banker
    if r.player_banked:
        house_share, player_share = co_bank_shares(bank_result) if r.co_bank else (0, bank_result)
        fee = banker_commission(player_share, commission_rules)  # R-BANK-4
        banker = _new_banker_result(
            seat=r.banker_place,
            player_id=r.banker_player,
            result=bank_result,
            co_bank=r.co_bank,
            house_share=house_share,
            player_share=player_share,
            commission=fee,
            net=player_share - fee,
        )
        if fee:
            commissions.append(
                _new_commission_taken(
                    **env,
                    seat=r.banker_place,
                    player_id=r.banker_player or "",
                    payer="banker",
                    amount=fee,
                    basis="banker_net_win",
                    basis_amount=player_share,
                    clause="R-BANK-4",
                )
            )
    else:
        banker = _new_banker_result(
            seat=None,
            player_id=None,
            result=bank_result,
            house_share=bank_result,
            player_share=0,
            commission=0,
            net=0,
        )
    settled_event = _new_round_settled(
        table_id=table_id,
        actor=actor,
        at=at,
        round=number,
        results=tuple(results),
        banker=banker,
        variant=variant,
        override=None if override is None else _OVERRIDES[(variant, override)],
    )
    return [settled_event, *commissions]


def _settle_side_bets(s: TableState, r: RoundState, env: dict[str, Any]) -> list[Event]:
    """Every side bet on its seat's seven cards, whatever the split, a fouled or forfeited hand
    included (R-VAR-2), in position order from the banker. Progressive hits are paid one after
    another, each on the meter the last one left (R-VAR-6)."""
    rules = r.rules.side_bets
    events: list[Event] = []
    meter = s.meter
    for seat, bet in r.side_bets_in_order():
        seven = r.hands[seat]
        who = {"seat": seat, "player_id": bet.player_id, "bet": bet.bet, "amount": bet.amount}
        if bet.bet != PROGRESSIVE:
            settled = settle_side_bet(rules.pay_table(bet.bet), seven, bet.amount)
            won = settled.pays > 0
            events.append(
                _new_side_bet_settled(
                    **env,
                    **who,
                    line=settled.line if won else None,
                    pays=settled.pays if won else 0,
                    payout=settled.net,
                    pay_table=settled.pay_table,
                )
            )
            continue
        assert rules.progressive is not None  # placed only where offered with its table
        hit = progressive_payout(rules.progressive, seven, meter)
        events.append(
            _new_side_bet_settled(
                **env,
                **who,
                line=None if hit.line == NOTHING else hit.line,
                pays=0,
                payout=hit.amount - bet.amount,
                pay_table=rules.progressive.name,
                from_meter=hit.from_meter,
            )
        )
        meter -= hit.from_meter
        if hit.from_meter:
            events.append(
                _new_meter_changed(
                    **env,
                    reason="hit",
                    amount=-hit.from_meter,
                    meter=meter,
                    seat=seat,
                    player_id=bet.player_id,
                    line=hit.line,
                )
            )
        if hit.meter_after != meter:  # below the reset value: the house re-seeds it
            events.append(
                _new_meter_changed(
                    **env, reason="reset", amount=hit.meter_after - meter, meter=hit.meter_after
                )
            )
            meter = hit.meter_after
    return events


def _envy(r: RoundState, env: dict[str, Any]) -> list[Event]:
    """R-VAR-3 Envy: each qualifying Fortune bettor is paid for every OTHER player's hand of four
    of a kind or better, never for their own, never for the dealer's (or the house hand's)."""
    rules = r.rules.side_bets
    if rules.envy is None or "fortune" not in rules.offered:
        return []
    fortune = {seat: bet for seat, bet in r.side_bets_in_order() if bet.bet == "fortune"}
    players = {w.place: w.player_id for w in r.wagers.values()}
    players[r.banker_place] = r.banker_player
    places = sorted(r.hands, key=lambda place: position_of(place, r.banker_place))
    hands = [
        EnvyHand(
            seat=place,
            cards=r.hands[place],
            fortune_wager=fortune[place].amount if place in fortune else 0,
            dealer=place == DEALER_PLACE,
        )
        for place in places
    ]
    return [
        _new_envy_paid(
            **env,
            seat=paid.seat,
            player_id=fortune[paid.seat].player_id,
            from_seat=paid.from_seat,
            from_player_id=players.get(paid.from_seat),
            line=paid.line,
            amount=paid.amount,
        )
        for paid in envy_payments(rules.envy, hands)
    ]


def _close_round(s: TableState, cmd: c.CloseRound) -> list[Event]:
    r = _live_round(s, "close the round", "settled")
    _require(cmd.actor, _DEALER_ROLES, "close the round")
    return [_new_round_closed(table_id=s.table_id, actor=cmd.actor, at=cmd.at, round=r.number)]


def _void_round(s: TableState, cmd: c.VoidRound) -> list[Event]:
    _opened(s, "void the round")
    if s.round is None or s.round.phase in FINISHED:
        raise WrongState("void the round", s.phase)
    _require(cmd.actor, _DEALER_ROLES, "void a round")
    if not cmd.reason.strip():
        raise DomainError("a void states its reason")
    return _void(s, s.round, _env(s, cmd), cmd.reason)


_DECIDERS: dict[type[Command], Callable[[TableState, Any], list[Event]]] = {
    c.OpenTable: _open_table,
    c.ChangeRules: _change_rules,
    c.SeatPlayer: _seat_player,
    c.LeaveSeat: _leave_seat,
    c.BuyIn: _buy_in,
    c.CashOut: _cash_out,
    c.StartRound: _start_round,
    c.AcceptBank: _accept_bank,
    c.DeclineBank: _decline_bank,
    c.PlaceBet: _place_bet,
    c.PlaceSideBet: _place_side_bet,
    c.CloseBets: _close_bets,
    c.DealCards: _deal,
    c.RollDice: _roll_dice,
    c.SetHand: _set_hand,
    c.SetBankerHand: _set_banker_hand,
    c.Settle: _settle,
    c.CloseRound: _close_round,
    c.VoidRound: _void_round,
}


def decide(state: TableState, command: Command) -> list[Event]:
    """The events ``command`` causes in ``state``, or :class:`DomainError` and nothing."""
    decider = _DECIDERS.get(type(command))
    if decider is None:
        raise DomainError(f"unknown command: {type(command).__name__}")
    return decider(state, command)


def execute(state: TableState, command: Command) -> tuple[TableState, list[Event]]:
    """Decide and apply: the new state and the events that made it."""
    events = decide(state, command)
    return fold(events, state), events
