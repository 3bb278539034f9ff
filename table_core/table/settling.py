"""Settlement: main wagers against the banker under the round's variant (R-PAY, R-VAR-1) with
commission (R-PAY-2, R-BANK-4), side bets (R-VAR-2..6), Envy (R-VAR-3); then closing the
round.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from table_core._speed import trusted
from table_core.banking import banker_commission, co_bank_shares
from table_core.commands import CloseRound, Settle
from table_core.dealing import DEALER_PLACE, position_of
from table_core.events import (
    BankerResult,
    CommissionTaken,
    EnvyPaid,
    Event,
    MeterChanged,
    RoundClosed,
    RoundSettled,
    SeatResult,
    SideBetSettled,
    VariantOverride,
)
from table_core.hands import FiveCardTables, five_card_strength, tables_for, two_card_strength
from table_core.rules import CommissionRules, Variant
from table_core.settlement import MainWagerSettlement, settlement_index, settlement_table
from table_core.side_bets import (
    NOTHING,
    EnvyHand,
    SideBetRules,
    SideBetSettlement,
    capped_payouts,
    envy_payments,
    progressive_payout,
    settle_side_bet,
)
from table_core.table.guards import (
    DEALER_ROLES,
    PROGRESSIVE,
    envelope,
    live_round,
    require,
    require_tray_covers,
)
from table_core.table.inventory import tray_change
from table_core.table.state import PlayedHand, RoundState, SideBet, TableState, Wager
from table_core.variants import (
    Override,
    settle_main_wager_variant,
    variant_commission,
    variant_override,
)

# The house does not pay itself commission on its own hand against a player-banker (R-BANK-2).
_HOUSE_HAND_COMMISSION = CommissionRules(rate_bp=0)

_BASIS = {"percent": "percent_of_win", "flat": "flat_per_win", "flat_always": "flat_per_hand"}

#: How ``round_settled`` names a banker hand that decided every main wager (R-VAR-1).
_OVERRIDES: dict[tuple[Variant, Override], VariantOverride] = {
    ("ez", "push"): "ez_queen_high_push",
    ("ez", "banker_wins"): "ez_queen_high_banker_wins",
    ("commission_free", "push"): "commission_free_nine_high_push",
}


_new_banker_result = trusted(BankerResult)
_new_commission_taken = trusted(CommissionTaken)
_new_envy_paid = trusted(EnvyPaid)
_new_meter_changed = trusted(MeterChanged)
_new_round_closed = trusted(RoundClosed)
_new_round_settled = trusted(RoundSettled)
_new_seat_result = trusted(SeatResult)
_new_side_bet_settled = trusted(SideBetSettled)


def settle(state: TableState, cmd: Settle) -> list[Event]:
    """Main wagers against the banker under the round's variant (R-PAY, R-VAR-1), commission,
    then every side bet on its seven cards (R-VAR-2..6) and the Envy bonuses (R-VAR-3)."""
    round_state = live_round(state, "settle", "banker_hand_set")
    require(cmd.actor, DEALER_ROLES, "settle")
    env = envelope(state, cmd)
    main = _settle_main_wagers(round_state, env)
    offered = round_state.rules.side_bets
    if not round_state.side_bets and (offered.envy is None or "fortune" not in offered.offered):
        events = main  # what the two below answer: no side bet to settle, no Envy to pay
    else:
        events = [*main, *_settle_side_bets(state, round_state, env), *_envy(round_state, env)]
    if state.books != "untracked":  # issue 18: the tray pays; a fill must come first
        require_tray_covers(state, -tray_change(events), f"round {round_state.number}'s payouts")
    return events


#: ``settlement_table(amount, rules)`` by amount and rules object (a table's rules are one object
#: round after round), each kept with its rules so that their id is not reused; bounded (cleared
#: at 1,024: a floor has a few wager amounts and rules). Safe under threads: each entry is one
#: atomic dict store of a value the same whichever thread computes it. Not ``lru_cache``: it would
#: hash the rules object on every call, where this looks up its id.
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


def _settle_main_wagers(round_state: RoundState, env: dict[str, Any]) -> list[Event]:
    """Every main wager against the banker's hand (R-PAY-1, R-VAR-1), in position order: the
    round's result and the commission each player and the player-banker pay (R-PAY-2, R-BANK-4)."""
    assert round_state.banker_hand is not None
    tables = tables_for(round_state.rules.hand.wheel_rank)
    variant = round_state.rules.variant
    # ez and commission_free charge none, the player-banker's R-BANK-4 commission included.
    commission_rules = variant_commission(variant, round_state.rules.hand.commission)
    banker = _BankerHand(
        five_card_strength(round_state.banker_hand.back, tables),
        two_card_strength(round_state.banker_hand.front),
    )
    # R-VAR-1: the banker's hand may decide every main wager; judged once for the round.
    override = variant_override(
        variant,
        round_state.hands[round_state.banker_place],
        banker.front,
        round_state.rules.queen_high_pai_gow,
    )
    results: list[SeatResult] = []
    commissions: list[Event] = []
    for wager in round_state.wagers_in_order():
        hand = round_state.played[wager.place]
        rules = _HOUSE_HAND_COMMISSION if wager.place == DEALER_PLACE else commission_rules
        settled = _settle_one(wager.amount, hand, banker, tables, rules, variant, override)
        results.append(_seat_result(wager, hand.forfeited, settled))
        if settled.commission and wager.player_id is not None:
            commissions.append(_player_commission(env, wager, settled, commission_rules))
    bank_result = -sum(result.payout for result in results)  # copies already went to the banker
    banker_result, banker_fee = _banker_result(round_state, bank_result, commission_rules, env)
    if banker_fee is not None:
        commissions.append(banker_fee)
    settled_event = _new_round_settled(
        table_id=env["table_id"],
        actor=env["actor"],
        at=env["at"],
        round=env["round"],
        results=tuple(results),
        banker=banker_result,
        variant=variant,
        override=None if override is None else _OVERRIDES[(variant, override)],
    )
    return [settled_event, *commissions]


class _BankerHand(NamedTuple):
    """The strengths of the banker's back and front hands, which every wager is settled against."""

    back: int
    front: int


def _settle_one(
    amount: int,
    hand: PlayedHand,
    banker: _BankerHand,
    tables: FiveCardTables,
    rules: CommissionRules,
    variant: Variant,
    override: Override | None,
) -> MainWagerSettlement:
    """One main wager of ``amount`` on ``hand`` against the banker's (R-PAY-1, R-VAR-1)."""
    back = five_card_strength(hand.back, tables)
    front = two_card_strength(hand.front)
    if variant == "commission" and not hand.forfeited:  # no override in this game
        return _settlements(amount, rules)[settlement_index(back, front, banker.back, banker.front)]
    return settle_main_wager_variant(
        back,
        front,
        banker.back,
        banker.front,
        amount,
        rules,
        variant=variant,
        override=override,
        forfeited=hand.forfeited,
    )


def _seat_result(wager: Wager, forfeited: bool, settled: MainWagerSettlement) -> SeatResult:
    return _new_seat_result(
        seat=None if wager.place == DEALER_PLACE else wager.place,
        player_id=wager.player_id,
        position=wager.position,
        wager=wager.amount,
        back=settled.back,
        front=settled.front,
        result=settled.result,
        forfeited=forfeited,
        payout=settled.net + settled.commission,
        commission=settled.commission,
        net=settled.net,
    )


def _player_commission(
    env: dict[str, Any], wager: Wager, settled: MainWagerSettlement, rules: CommissionRules
) -> CommissionTaken:
    """R-PAY-2: the commission a player pays on a main wager, on the record."""
    assert wager.player_id is not None  # the house hand pays none
    return _new_commission_taken(
        table_id=env["table_id"],
        actor=env["actor"],
        at=env["at"],
        round=env["round"],
        seat=wager.place,
        player_id=wager.player_id,
        payer="player",
        amount=settled.commission,
        basis=_BASIS[rules.mode],
        basis_amount=wager.amount,
        clause="R-PAY-2",
    )


def _banker_result(
    round_state: RoundState, bank_result: int, rules: CommissionRules, env: dict[str, Any]
) -> tuple[BankerResult, CommissionTaken | None]:
    """The bank's result of the round: all the house's when the dealer banks; a player-banker's
    share (R-BANK-2 co-banking halves it) less the R-BANK-4 commission on a net win, with that
    commission's record."""
    if not round_state.player_banked:
        house_banked = _new_banker_result(
            seat=None,
            player_id=None,
            result=bank_result,
            house_share=bank_result,
            player_share=0,
            commission=0,
            net=0,
        )
        return house_banked, None
    house_share, player_share = (
        co_bank_shares(bank_result) if round_state.co_bank else (0, bank_result)
    )
    fee = banker_commission(player_share, rules)  # R-BANK-4
    banker = _new_banker_result(
        seat=round_state.banker_place,
        player_id=round_state.banker_player,
        result=bank_result,
        co_bank=round_state.co_bank,
        house_share=house_share,
        player_share=player_share,
        commission=fee,
        net=player_share - fee,
    )
    if not fee:
        return banker, None
    taken = _new_commission_taken(
        **env,
        seat=round_state.banker_place,
        player_id=round_state.banker_player or "",
        payer="banker",
        amount=fee,
        basis="banker_net_win",
        basis_amount=player_share,
        clause="R-BANK-4",
    )
    return banker, taken


def _settle_side_bets(
    state: TableState, round_state: RoundState, env: dict[str, Any]
) -> list[Event]:
    """Every side bet on its seat's seven cards, whatever the split, a fouled or forfeited hand
    included (R-VAR-2), in position order from the banker. A "to 1" bet whose pay table has an
    aggregate cap pays its winners pro rata when their wins exceed it (R15). Progressive hits are
    paid one after another, each on the meter the last one left (R-VAR-6)."""
    rules = round_state.rules.side_bets
    events: list[Event] = []
    meter = state.meter
    placed = round_state.side_bets_in_order()
    odds = _odds_settlements(rules, round_state, placed)
    for index, (seat, bet) in enumerate(placed):
        seven = round_state.hands[seat]
        who = {"seat": seat, "player_id": bet.player_id, "bet": bet.bet, "amount": bet.amount}
        if bet.bet != PROGRESSIVE:
            settled, cap, paid = odds[index]
            won = settled.pays > 0
            events.append(
                _new_side_bet_settled(
                    **env,
                    **who,
                    line=settled.line if won else None,
                    pays=settled.pays if won else 0,
                    payout=paid,
                    pay_table=settled.pay_table,
                    aggregate_cap=cap,
                    reduction=settled.net - paid,
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


def _odds_settlements(
    rules: SideBetRules, round_state: RoundState, placed: list[tuple[int, SideBet]]
) -> dict[int, tuple[SideBetSettlement, int | None, int]]:
    """Each "to 1" side bet of ``placed`` (by index): its settlement on the seven cards, its pay
    table's aggregate cap and what it is paid (``net``; a win reduced pro rata when the bet's
    wins this round exceed the cap, R15, in settlement order)."""
    settled: dict[int, SideBetSettlement] = {}
    for index, (seat, bet) in enumerate(placed):
        if bet.bet != PROGRESSIVE:
            table = rules.pay_table(bet.bet)
            settled[index] = settle_side_bet(table, round_state.hands[seat], bet.amount)
    by_bet: dict[str, list[int]] = {}
    for index, one in settled.items():  # in settlement order
        by_bet.setdefault(one.bet, []).append(index)
    paid = {index: one.net for index, one in settled.items()}
    caps: dict[int, int | None] = {}
    for bet_name, indices in by_bet.items():
        cap = rules.pay_table(bet_name).aggregate_cap
        winners = [i for i in indices if settled[i].net > 0]
        shares = capped_payouts([settled[i].net for i in winners], cap)
        paid.update(zip(winners, shares, strict=True))
        caps.update((i, cap) for i in indices)
    return {index: (one, caps[index], paid[index]) for index, one in settled.items()}


def _envy(round_state: RoundState, env: dict[str, Any]) -> list[Event]:
    """R-VAR-3 Envy: each qualifying Fortune bettor is paid for every OTHER player's hand of four
    of a kind or better, never for their own, never for the dealer's (or the house hand's)."""
    rules = round_state.rules.side_bets
    if rules.envy is None or "fortune" not in rules.offered:
        return []
    fortune = {seat: bet for seat, bet in round_state.side_bets_in_order() if bet.bet == "fortune"}
    players = {wager.place: wager.player_id for wager in round_state.wagers.values()}
    players[round_state.banker_place] = round_state.banker_player
    places = sorted(
        round_state.hands, key=lambda place: position_of(place, round_state.banker_place)
    )
    hands = [
        EnvyHand(
            seat=place,
            cards=round_state.hands[place],
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


def close_round(state: TableState, cmd: CloseRound) -> list[Event]:
    round_state = live_round(state, "close the round", "settled")
    require(cmd.actor, DEALER_ROLES, "close the round")
    return [
        _new_round_closed(
            table_id=state.table_id, actor=cmd.actor, at=cmd.at, round=round_state.number
        )
    ]
