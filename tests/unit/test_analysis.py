"""The game measurement's pure core (issue 8): hand-built rounds worked out by hand.

Every hand is set by the House Way named (``fr`` unless said) and settled by R-PAY-1: both hands
win, the player wins even money less 5% commission (R-PAY-2); one wins, push; otherwise the player
loses, and a copy goes to the banker (R-SET-3). Wagers are 10.00 (1,000 minor units).
"""

from __future__ import annotations

import pytest

from table_core.analysis import Z95, EdgeSettings, RoundOutcome, RoundPlayer, Tally
from table_core.cards import Card, parse_cards
from table_core.errors import ConfigurationError
from table_core.rules import CommissionRules

# fr no pair: the ace back, K-9 front.
BANKER_ACE_HIGH = "As Kd 9c 7h 5s 3d 2c"
# fr one pair: queens back, J-8 front: beats the ace-high back, loses the front to K-9.
PAIR_OF_QUEENS = "Qs Qh Jd 8c 6s 4h 2d"
# fr two pairs with aces: split, aces back and kings front: both hands beat the banker's.
ACES_AND_KINGS = "Ac Ad Kc Kh 8d 6h 4s"
# The banker's ranks in other suits: the same split, both hands copy.
BANKER_COPY = "Ah Ks 9d 7c 5d 3s 2s"


def cards(text: str) -> list[Card]:
    return parse_cards(text, 7)


def dealer_round(**settings: object) -> RoundOutcome:
    player = RoundPlayer(EdgeSettings("fr", **settings))  # type: ignore[arg-type]
    return player.play(
        cards(BANKER_ACE_HIGH),
        [cards(PAIR_OF_QUEENS), cards(ACES_AND_KINGS), cards(BANKER_COPY)],
    )


def test_a_dealer_banked_round_sets_every_hand_by_the_house_way_and_settles_it() -> None:
    outcome = dealer_round()
    assert outcome.banker_rule == "fr.no_pair.default"
    assert set(outcome.banker.front) == set(parse_cards("Kd 9c"))
    assert [seat.rule for seat in outcome.seats] == [
        "fr.one_pair.default",
        "fr.two_pairs.split_aces",
        "fr.no_pair.default",
    ]
    assert set(outcome.seats[1].split.front) == set(parse_cards("Kc Kh"))
    results = [(s.settled.back, s.settled.front, s.settled.result) for s in outcome.seats]
    assert results == [
        ("win", "loss", "push"),  # queens beat ace-high; J-8 loses to K-9
        ("win", "win", "win"),  # aces and kings win both
        ("copy", "copy", "loss"),  # R-SET-3: both copies go to the banker
    ]
    assert [s.settled.net for s in outcome.seats] == [0, 950, -1_000]
    assert [s.settled.commission for s in outcome.seats] == [0, 50, 0]  # 5% of 1,000
    # The bank pays 1,000 and takes the copied 1,000; the house's gain is the commission.
    assert outcome.bank_result == 0
    assert outcome.banker_commission == 0  # the dealer pays no commission
    assert not any(s.house for s in outcome.seats)


def test_the_profile_commission_rules_are_the_ones_charged() -> None:
    flat = CommissionRules(mode="flat", fee=25)
    outcome = dealer_round(commission=flat)
    assert [s.settled.commission for s in outcome.seats] == [0, 25, 0]
    assert outcome.seats[1].settled.net == 975
    # R-PAY-2 rounding to the chip unit: 5% of 1,010 is 50.5, half up to 51.
    odd = dealer_round(wager=1_010)
    assert odd.seats[1].settled.commission == 51
    assert odd.seats[1].settled.net == 959


def test_the_banker_is_set_by_the_banker_house_way() -> None:
    # 6-6 4-4 K 8 3: fr keeps two low pairs together (K-8 front); es splits (fours front).
    seven = cards("6s 6h 4d 4c Kh 8s 3d")
    player = cards("Ts 9h 7d 5c 3c 2h Jc")  # fr no pair: the jack back, T-9 front
    fr_banker = RoundPlayer(EdgeSettings("fr")).play(seven, [player])
    es_banker = RoundPlayer(EdgeSettings("fr", banker_house_way="es")).play(seven, [player])
    assert fr_banker.banker_rule == "fr.two_pairs.keep_both"
    assert es_banker.banker_rule == "es.two_pairs.split"
    assert es_banker.seats[0].rule == "fr.no_pair.default"
    # Two pair back beats jack-high either way; T-9 loses to K-8 and to the pair of fours.
    assert fr_banker.seats[0].settled.result == es_banker.seats[0].settled.result == "loss"


def player_banked_rounds() -> tuple[RoundOutcome, RoundOutcome]:
    player = RoundPlayer(EdgeSettings("fr", banking="player"))
    # The player-banker's queens (J-8 front) against a player's ace-high (push: back loses, K-9
    # front wins) and the house hand's aces and kings (wins both: no commission for the house).
    first = player.play(
        cards(PAIR_OF_QUEENS), [cards(BANKER_ACE_HIGH)], house=cards(ACES_AND_KINGS)
    )
    # The player-banker's aces and kings beat both: R-BANK-4 commission on the 2,000 net win.
    second = player.play(
        cards(ACES_AND_KINGS), [cards(PAIR_OF_QUEENS)], house=cards(BANKER_ACE_HIGH)
    )
    return first, second


def test_a_player_banker_pays_commission_on_the_round_net_win_only() -> None:
    first, second = player_banked_rounds()
    assert [(s.settled.result, s.house) for s in first.seats] == [("push", False), ("win", True)]
    house = first.seats[1].settled
    assert (house.net, house.commission) == (1_000, 0)  # the house does not pay itself
    assert (first.bank_result, first.banker_commission, first.banker_net) == (-1_000, 0, -1_000)
    assert [s.settled.result for s in second.seats] == ["loss", "loss"]
    assert (second.bank_result, second.banker_commission, second.banker_net) == (2_000, 100, 1_900)


def test_a_house_hand_needs_a_player_banker() -> None:
    with pytest.raises(ConfigurationError):
        RoundPlayer(EdgeSettings("fr")).play(
            cards(PAIR_OF_QUEENS), [cards(BANKER_ACE_HIGH)], house=cards(ACES_AND_KINGS)
        )


def test_commission_free_pushes_every_wager_on_a_nine_high_banker_front() -> None:
    banker = cards("Kc 9s 8d 6c 5h 3s 2d")  # fr no pair: king back, 9-8 front
    aces = cards("As Ah Kd Qd 7c 4s 3c")  # aces back, K-Q front: would win both
    commission = RoundPlayer(EdgeSettings("fr")).play(banker, [aces])
    assert commission.seats[0].settled.net == 950
    free = RoundPlayer(EdgeSettings("fr", variant="commission_free")).play(banker, [aces])
    assert free.override == "push"
    assert (free.seats[0].settled.result, free.seats[0].settled.net) == ("push", 0)


def test_ez_queen_high_pai_gow_pushes_or_goes_to_the_banker_by_the_profile() -> None:
    banker = cards("Qs Jd 9c 7h 5s 3d 2c")  # queen-high pai gow (R-VAR-1)
    aces = cards("As Ah Kd Kh 7c 4s 3c")
    push = RoundPlayer(EdgeSettings("fr", variant="ez")).play(banker, [aces])
    assert (push.override, push.seats[0].settled.net) == ("push", 0)
    banker_wins = RoundPlayer(
        EdgeSettings("fr", variant="ez", queen_high_pai_gow="banker_wins")
    ).play(banker, [aces])
    assert (banker_wins.seats[0].settled.result, banker_wins.seats[0].settled.net) == (
        "loss",
        -1_000,
    )
    # Any other banker hand: no commission in ez, so a win pays the full 1,000.
    other = RoundPlayer(EdgeSettings("fr", variant="ez")).play(cards(BANKER_ACE_HIGH), [aces])
    assert (other.seats[0].settled.result, other.seats[0].settled.net) == ("win", 1_000)


def test_unknown_settings_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="unknown House Way"):
        RoundPlayer(EdgeSettings("bellagio"))
    with pytest.raises(ConfigurationError, match="unknown variant"):
        RoundPlayer(EdgeSettings("fr", variant="spanish21"))  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        Tally().summary()  # no round played


def test_tally_counts_hands_and_the_house_edge_per_unit_wagered() -> None:
    tally = Tally()
    tally.add(dealer_round())
    figures = tally.summary()
    assert figures["party"] == "player"
    assert (figures["rounds"], figures["hands"]) == (1, 3)
    assert figures["win"] == figures["push"] == figures["loss"] == pytest.approx(1 / 3)
    # Players: 0 + 950 - 1,000 = -50 on 3,000 wagered: the house's edge is the commission.
    assert figures["expected_return"] == pytest.approx(-50 / 3_000)
    assert figures["edge"] == pytest.approx(50 / 3_000)
    assert figures["commission_per_unit"] == pytest.approx(50 / 3_000)
    assert figures["edge_ci95"] is None  # one round has no spread


def test_tally_interval_comes_from_the_spread_of_rounds() -> None:
    player = RoundPlayer(EdgeSettings("fr"))
    tally = Tally()
    tally.add(player.play(cards(BANKER_ACE_HIGH), [cards(BANKER_COPY)]))  # -1,000
    tally.add(player.play(cards(BANKER_ACE_HIGH), [cards(ACES_AND_KINGS)]))  # +950
    figures = tally.summary()
    assert (figures["win"], figures["push"], figures["loss"]) == (0.5, 0.0, 0.5)
    assert figures["edge"] == pytest.approx(0.025)
    # Sample variance of (-1,000, 950) is 1,901,250; its mean's standard error is 975 exactly.
    half = Z95 * 975 / 1_000
    assert figures["edge_ci95"] == pytest.approx([0.025 - half, 0.025 + half])
    assert figures["win_ci95"] == pytest.approx([0.5 - Z95 * 0.5, 0.5 + Z95 * 0.5])
    assert figures["push_ci95"] == [0.0, 0.0]  # no push in either round


def test_tally_of_a_player_banker_is_per_unit_of_action_banked() -> None:
    tally = Tally("player")
    for outcome in player_banked_rounds():
        tally.add(outcome)
    figures = tally.summary()
    assert figures["party"] == "player_banker"
    # Seen by the banker: push and loss in the first round, two wins in the second.
    assert (figures["win"], figures["push"], figures["loss"]) == (0.5, 0.25, 0.25)
    # -1,000 then +1,900 (after 100 commission) on 2,000 of action each round.
    assert figures["expected_return"] == pytest.approx(900 / 4_000)
    assert figures["edge"] == pytest.approx(-900 / 4_000)
    assert figures["commission_per_unit"] == pytest.approx(100 / 4_000)


def test_tally_refuses_rounds_that_stake_differently() -> None:
    player = RoundPlayer(EdgeSettings("fr"))
    tally = Tally()
    tally.add(player.play(cards(BANKER_ACE_HIGH), [cards(BANKER_COPY)]))
    with pytest.raises(ConfigurationError, match="same amount"):
        tally.add(player.play(cards(BANKER_ACE_HIGH), [cards(BANKER_COPY), cards(ACES_AND_KINGS)]))
