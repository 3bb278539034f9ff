"""Pay tables are data (R-VAR-2): the posted defaults, and what a table refuses to hold."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from table_core.cards import parse_cards
from table_core.errors import ConfigurationError
from table_core.side_bets import (
    EMPERORS_TREASURE,
    FORTUNE_5000,
    FORTUNE_8000,
    POKER_LINES,
    EnvyTable,
    PayTable,
    SideBetRules,
    get_pay_table,
    require_side_bets_playable,
    resolve_side_bet,
    settle_side_bet,
)

CASINO_INSURANCE = PayTable(
    name="casino_insurance",
    bet="insurance",
    pays={"pai_gow_nine_high": 100, "pai_gow_ten_high": 25, "pai_gow_ace_high": 1},
)


def test_fortune_default_table_is_r_var_3_top_down() -> None:
    assert list(FORTUNE_8000.pays) == list(POKER_LINES)
    assert list(FORTUNE_8000.pays.values()) == [8000, 2000, 1000, 400, 150, 50, 25, 5, 4, 3, 2]
    assert list(FORTUNE_5000.pays.values()) == [5000, 2000, 1000, 400, 150, 50, 25, 5, 4, 3, 2]


def test_emperors_treasure_is_r_var_4() -> None:
    assert EMPERORS_TREASURE.pays == {
        "natural_seven_card_straight_flush": 5000,
        "seven_card_straight_flush_with_joker": 1000,
        "five_aces": 500,
        "royal_flush": 150,
        "straight_flush": 50,
        "four_of_a_kind": 25,
        "full_house": 5,
        "flush": 4,
        "three_of_a_kind": 3,
        "straight": 2,
        "pai_gow_nine_high": 40,
        "pai_gow_ten_high": 5,
        "pai_gow_jack_high": 2,
    }


def test_envy_defaults_are_r_var_3_in_minor_units() -> None:
    envy = EnvyTable()
    assert envy.qualifying_bet == 500
    assert list(envy.amounts.values()) == [500_000, 100_000, 50_000, 25_000, 5_000, 2_000, 500]


def test_named_tables_and_insurance_has_none() -> None:
    assert get_pay_table("fortune") is FORTUNE_8000
    assert get_pay_table("fortune", "fortune_5000") is FORTUNE_5000
    assert get_pay_table("emperors_treasure") is EMPERORS_TREASURE
    with pytest.raises(ConfigurationError, match="unknown fortune pay table: 'emperors_treasure'"):
        get_pay_table("fortune", "emperors_treasure")
    with pytest.raises(ConfigurationError, match="casino supplies one") as refused:
        get_pay_table("insurance")
    assert refused.value.rule == "R-VAR-5"


def test_insurance_pays_the_casinos_table_on_a_pai_gow_by_highest_card() -> None:
    assert resolve_side_bet(CASINO_INSURANCE, parse_cards("9s 8h 7d 5c 4s 3h 2d")) == (
        "pai_gow_nine_high",
        100,
    )
    assert resolve_side_bet(CASINO_INSURANCE, parse_cards("JK Qs Th 8d 6c 3s 2h")) == (
        "pai_gow_ace_high",
        1,
    )
    # a pai gow line the casino does not post, and any made hand, lose
    assert resolve_side_bet(CASINO_INSURANCE, parse_cards("Qs Th 8d 6c 4s 3h 2d"))[1] == -1
    assert resolve_side_bet(CASINO_INSURANCE, parse_cards("Ks Kh 9s 9h 4d 4c 2s"))[1] == -1


def test_a_table_cannot_open_with_insurance_and_no_pay_table() -> None:
    with pytest.raises(ValidationError, match="no pay table"):
        SideBetRules(offered=frozenset({"fortune", "insurance"}))
    rules = SideBetRules(offered=frozenset({"fortune", "insurance"}), insurance=CASINO_INSURANCE)
    assert rules.pay_table("insurance") is CASINO_INSURANCE
    assert rules.pay_table("fortune") == FORTUNE_8000
    assert rules.pay_table("fortune").resolve(0) == ("natural_seven_card_straight_flush", 8000)
    # a profile built without validation (model_construct) is refused when the table opens
    unchecked = SideBetRules.model_construct(offered=frozenset({"insurance"}), insurance=None)
    with pytest.raises(ConfigurationError, match="no pay table") as refused:
        require_side_bets_playable(unchecked)
    assert refused.value.rule == "R-VAR-5"


def test_side_bet_rules_refuse_a_table_in_the_wrong_slot_and_bets_not_offered() -> None:
    with pytest.raises(ValidationError, match="fortune slot holds a emperors_treasure"):
        SideBetRules(fortune=EMPERORS_TREASURE)
    with pytest.raises(ValidationError, match="progressive jackpot is offered but has no table"):
        SideBetRules(offered=frozenset({"progressive"}))
    with pytest.raises(ConfigurationError, match="does not take the emperors_treasure bet"):
        SideBetRules(offered=frozenset({"fortune"})).pay_table("emperors_treasure")


def test_pay_tables_refuse_nonsense() -> None:
    with pytest.raises(ValidationError, match="flush pays 6, more than full_house above it"):
        PayTable(name="bad", bet="fortune", pays={"full_house": 5, "flush": 6})
    with pytest.raises(ValidationError, match="pays 0 to 1"):
        PayTable(name="bad", bet="fortune", pays={"straight": 0})
    with pytest.raises(ValidationError, match="insurance pays pai gow lines only, not flush"):
        PayTable(name="bad", bet="insurance", pays={"flush": 4, "pai_gow_nine_high": 50})
    with pytest.raises(ValidationError, match="at least one line"):
        PayTable(name="bad", bet="fortune", pays={})
    with pytest.raises(ValidationError, match="Envy pays four of a kind or better, not flush"):
        EnvyTable(amounts={"flush": 100})


def test_a_casino_file_in_any_order_is_read_in_rulebook_order_and_round_trips() -> None:
    table = PayTable.model_validate_json(
        '{"name": "casino", "bet": "fortune",'
        ' "pays": {"straight": 1, "flush": 3, "five_aces": 250}}'
    )
    assert list(table.pays) == ["five_aces", "flush", "straight"]
    assert PayTable.model_validate_json(table.model_dump_json()) == table
    # a royal + royal match on this table holds no posted line above the straight it contains
    assert resolve_side_bet(table, parse_cards("As Ks Qs Js Ts Kh Qh")) == ("flush", 3)


def test_settle_side_bet_pays_to_one_and_takes_a_losing_wager() -> None:
    quads = parse_cards("9s 9h 9d 9c 2s 5h Kd")
    won = settle_side_bet(FORTUNE_8000, quads, 500)
    assert (won.line, won.pays, won.net) == ("four_of_a_kind", 25, 12_500)
    lost = settle_side_bet(FORTUNE_8000, parse_cards("Ks Kh 9s 9h 4d 4c 2s"), 500)
    assert (lost.line, lost.pays, lost.net) == ("nothing", -1, -500)


WASHINGTON = (
    Path(__file__).parents[2] / "fixtures" / "pay_tables" / "washington_emperors_treasure.json"
)


def test_a_pay_table_file_names_the_royal_plus_ace_king_suited_line() -> None:
    """Issue 20: Washington's Emperor's Treasure card pays 2,000 for a "royal flush plus ace-king
    suited"; a casino's file says so with the named line, and a hand holding it is paid by it."""
    table = PayTable.model_validate_json(WASHINGTON.read_text())
    assert table.pays["royal_flush_ace_king_suited"] == 2000
    hand = parse_cards("As Ks Qs Js Ts Ad Kd", 7)
    assert resolve_side_bet(table, hand) == ("royal_flush_ace_king_suited", 2000)
    assert resolve_side_bet(EMPERORS_TREASURE, hand) == ("royal_flush", 150)
    assert resolve_side_bet(table, parse_cards("As Ks Qs Js Ts Kd Qd", 7)) == ("royal_flush", 150)


def test_the_named_line_must_pay_at_least_the_royal_it_holds() -> None:
    with pytest.raises(ValidationError, match="less than the royal_flush it holds"):
        PayTable(
            name="bad",
            bet="emperors_treasure",
            pays={"royal_flush_ace_king_suited": 100, "royal_flush": 150},
        )
