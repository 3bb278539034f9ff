"""The versioned rules profile: a change by the floor applies from the next round, and every round
records the version it was played under, so a replay applies the rules in force at the time."""

from __future__ import annotations

import pytest

from table_core import commands as c
from table_core.errors import ConfigurationError, DomainError
from table_core.events import FoulReset, HandForfeited, RoundStarted, RulesChanged, TableOpened
from table_core.rules import HouseRules, TableLimits, TableRules
from table_core.table import NotAllowed, fold

from .support import AT, CAGE, DEALER, FLOOR, TABLE, Script, player, rules, set_by
from .test_round_dealer_banked import DECK

D = {"actor": DEALER, "at": AT}
FORFEIT = rules(version=2, hand={"foul_policy": "forfeit"})
FOULED = "Ac Jd 7c 5s 3h / Qs Qh"  # ana's queens in front: a foul (see test_fouls_and_commission)


def ana_to_the_dice(table: Script) -> None:
    table(c.StartRound(**D))
    table(c.PlaceBet(player_id="ana", amount=1_000, **D))
    table.run([c.CloseBets(**D), c.DealCards(deck=DECK, **D), c.RollDice(faces=(2, 3, 5), **D)])


def test_a_rules_change_in_a_round_applies_from_the_next_round() -> None:
    table = Script()
    table(c.OpenTable(table_id=TABLE, rules=rules(), actor=FLOOR, at=AT))
    table(c.SeatPlayer(seat=1, player_id="ana", **D))
    table(c.BuyIn(player_id="ana", amount=10_000, actor=CAGE, at=AT))
    ana_to_the_dice(table)
    (changed,) = table(c.ChangeRules(rules=FORFEIT, reason="casino policy", actor=FLOOR, at=AT))
    assert changed == RulesChanged(table_id=TABLE, actor=FLOOR, at=AT, rules=FORFEIT,
                                   reason="casino policy", applies_from_round=2)  # fmt: skip
    (reset,) = table(set_by("ana", FOULED))
    assert isinstance(reset, FoulReset)  # round 1 still plays under version 1 (reset)
    table.run([c.SetBankerHand(**D), c.Settle(**D), c.CloseRound(**D)])

    ana_to_the_dice(table)
    started = [e for e in table.events if isinstance(e, RoundStarted)]
    assert [(e.round, e.rules_version) for e in started] == [(1, 1), (2, 2)]
    (forfeited,) = table(set_by("ana", FOULED))
    assert isinstance(forfeited, HandForfeited)

    replayed = fold(table.events)
    assert replayed == table.state
    assert replayed.round is not None and replayed.round.rules == FORFEIT


def test_only_the_floor_changes_rules_with_a_reason_and_a_higher_version() -> None:
    table = Script()
    table(c.OpenTable(table_id=TABLE, rules=rules(), actor=FLOOR, at=AT))
    with pytest.raises(NotAllowed):
        table(c.ChangeRules(rules=FORFEIT, reason="faster game", **D))
    with pytest.raises(DomainError, match="version above 1, got 1"):
        table(c.ChangeRules(rules=rules(), reason="again", actor=FLOOR, at=AT))
    with pytest.raises(DomainError, match="reason"):
        table(c.ChangeRules(rules=FORFEIT, reason=" ", actor=FLOOR, at=AT))
    with pytest.raises(NotAllowed):
        table(c.ChangeRules(rules=FORFEIT, reason="mine", actor=player("ana"), at=AT))


@pytest.mark.parametrize(
    ("profile", "rule"),
    [
        (TableRules(hand=HouseRules(house_way="no_such_way")), "R-HW-1"),
        # every variant of R-VAR-1 is dealt now: only an unknown one is refused
        (rules().model_copy(update={"variant": "double_hand"}), "R-VAR-1"),
    ],
)
def test_a_table_cannot_open_under_a_profile_it_cannot_deal(profile: TableRules, rule: str) -> None:
    table = Script()
    with pytest.raises(ConfigurationError) as refused:
        table(c.OpenTable(table_id=TABLE, rules=profile, actor=FLOOR, at=AT))
    assert refused.value.rule == rule
    table(c.OpenTable(table_id=TABLE, rules=rules(), actor=FLOOR, at=AT))
    with pytest.raises(ConfigurationError):
        table(c.ChangeRules(rules=profile.model_copy(update={"version": 5}), reason="try",
                            actor=FLOOR, at=AT))  # fmt: skip


@pytest.mark.parametrize(
    "changes",
    [
        {"variant": "ez"},
        {"variant": "ez", "queen_high_pai_gow": "banker_wins"},
        {"variant": "commission_free"},
    ],
)
def test_a_table_opens_under_every_variant(changes: dict[str, object]) -> None:
    table = Script()
    (opened,) = table(c.OpenTable(table_id=TABLE, rules=rules(**changes), actor=FLOOR, at=AT))
    assert isinstance(opened, TableOpened) and opened.rules.variant == changes["variant"]
    assert table.state.rules == rules(**changes)


def test_the_old_placeholder_side_bet_list_reads_as_no_side_bets() -> None:
    # profiles stored before side bets were dealt hold ``side_bets: []`` (nothing offered)
    stored = TableRules().model_dump(mode="json") | {"side_bets": []}
    assert TableRules.model_validate(stored) == TableRules()
    with pytest.raises(ValueError, match="retired placeholder"):
        TableRules.model_validate(stored | {"side_bets": [{"bet": "fortune", "lines": []}]})


def test_the_profile_defaults_and_its_json_form() -> None:
    profile = TableRules()
    assert profile.hand.house_way == "fr"
    assert (profile.banking, profile.dealer_between, profile.co_bank) == ("dealer", True, False)
    assert profile.house_wager_amount == profile.limits.min_bet == 1_000
    assert TableRules.model_validate(profile.model_dump(mode="json")) == profile
    with pytest.raises(ValueError, match="max_bet 500 is below min_bet 1000"):
        TableLimits(min_bet=1_000, max_bet=500)


def test_bets_respect_the_limits_and_the_balance() -> None:
    table = Script()
    table(c.OpenTable(table_id=TABLE, rules=rules(), actor=FLOOR, at=AT))
    table(c.SeatPlayer(seat=1, player_id="ana", **D))
    table(c.BuyIn(player_id="ana", amount=3_000, actor=CAGE, at=AT))
    table(c.StartRound(**D))
    for amount, message in (
        (999, "a bet at this table is 1000..100000, got 999"),
        (100_001, "a bet at this table is 1000..100000, got 100001"),
        (3_001, "player ana has 3000, short of 3001"),
    ):
        with pytest.raises(DomainError) as refused:
            table(c.PlaceBet(player_id="ana", amount=amount, **D))
        assert str(refused.value) == message
    with pytest.raises(DomainError, match="not seated"):
        table(c.PlaceBet(player_id="zoe", amount=1_000, **D))
    with pytest.raises(NotAllowed):
        table(c.PlaceBet(player_id="ana", amount=1_000, actor=player("bruno"), at=AT))
    table(c.PlaceBet(player_id="ana", amount=3_000, actor=player("ana"), at=AT))
    with pytest.raises(DomainError, match="already has a main wager of 3000"):
        table(c.PlaceBet(player_id="ana", amount=1_000, **D))
