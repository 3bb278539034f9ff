"""The edge analysis' fast paths give exactly what the definitions give (issue 8).

``RoundPlayer`` sets hands through the rank-pattern memo and, in the commission game, settles a
wager by one lookup in ``settlement_table``; here every round is also played with the memo off and
every seat settled again by ``settle_main_wager`` / ``settle_main_wager_variant``.
"""

from __future__ import annotations

import random

import pytest

from table_core.analysis import EdgeSettings, RoundPlayer
from table_core.cards import FULL_DECK
from table_core.rules import CommissionRules
from table_core.settlement import settle_main_wager, settlement_index, settlement_table
from table_core.variants import no_commission, settle_main_wager_variant

RULES = [
    CommissionRules(),
    CommissionRules(rate_bp=450, rounding_unit=25, rounding="down"),
    CommissionRules(rate_bp=500, rounding_unit=100, rounding="up"),
    CommissionRules(mode="flat", fee=300),
    CommissionRules(mode="flat_always", fee=100),
]


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("wager", [1, 25, 1_000, 1_234, 100_000])
def test_settlement_table_is_settle_main_wager(rules: CommissionRules, wager: int) -> None:
    table = settlement_table(wager, rules)
    strengths = [0, 1, 2, 256, 300, 1 << 20, (1 << 20) + 1]
    for pb in strengths:
        for pf in strengths:
            for bb in strengths:
                for bf in strengths:
                    expected = settle_main_wager(pb, pf, bb, bf, wager, rules)
                    assert table[settlement_index(pb, pf, bb, bf)] == expected


@pytest.mark.parametrize(
    "settings",
    [
        EdgeSettings("fr"),
        EdgeSettings("es", banker_house_way="trump_plaza", commission=RULES[1]),
        EdgeSettings("foxwoods", variant="commission_free"),
        EdgeSettings("trump_plaza", variant="ez", queen_high_pai_gow="banker_wins"),
        EdgeSettings("fr", banking="player", house_wager=500, commission=RULES[4]),
    ],
)
def test_round_player_equals_the_definitions(settings: EdgeSettings) -> None:
    rng = random.Random(settings.house_way)
    fast, plain = RoundPlayer(settings), RoundPlayer(settings, memo=False)
    house_wager = settings.house_wager or settings.wager
    for _ in range(1_500):
        deck = rng.sample(FULL_DECK, 53)
        banker, players = deck[:7], [deck[i : i + 7] for i in range(7, 42, 7)]
        house = deck[42:49] if settings.banking == "player" else None
        outcome = fast.play(banker, players, house)
        assert outcome == plain.play(banker, players, house)
        bb, bf = outcome.banker.back_strength, outcome.banker.front_strength
        for seat in outcome.seats:
            wager = house_wager if seat.house else settings.wager
            rules = no_commission() if seat.house else settings.commission
            expected = settle_main_wager_variant(
                seat.split.back_strength,
                seat.split.front_strength,
                bb,
                bf,
                wager,
                rules,
                variant=settings.variant,
                override=outcome.override,
            )
            assert seat.settled == expected
