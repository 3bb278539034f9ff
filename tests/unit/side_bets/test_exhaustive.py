"""The exact figures of R-VAR-7 over all C(53,7) = 154,143,080 hands, through the classifier."""

from __future__ import annotations

from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

from table_core.side_bets import EMPERORS_TREASURE, FORTUNE_5000, FORTUNE_8000, PayTable
from table_core.side_bets.exhaustive import (
    TOTAL_HANDS,
    Exhaustive,
    exhaustive,
    rank_multisets,
    suit_classes,
    suit_patterns,
)
from table_core.side_bets.reference import CATEGORIES, FORTUNE_LINES, PAI_GOW


def test_suit_patterns_cover_every_suit_choice_once() -> None:
    seven_ranks = suit_patterns((1,) * 7)
    assert len(seven_ranks) == 715  # set partitions of 7 suits-to-be into at most 4 blocks
    assert sum(mult for _, mult in seven_ranks) == 4**7
    # after four of a kind every suit is alike again: three singles fall in 5 classes
    quads_and_three = suit_patterns((4, 1, 1, 1))
    assert len(quads_and_three) == 5
    assert sum(mult for _, mult in quads_and_three) == 4**3
    assert all(suits[:4] == (0, 1, 2, 3) for suits, _ in quads_and_three)


def test_rank_multisets_and_classes_add_up_to_the_deck() -> None:
    assert sum(1 for _ in rank_multisets(7)) == 49_205  # rank patterns of seven cards
    with_joker = list(suit_classes(with_joker=True))
    assert len(with_joker) == 962_988  # Burnside: suit classes of six of the 52 cards
    assert sum(mult for _, mult in with_joker) == comb(52, 6)
    assert all(cards[-1] == 52 for cards, _ in with_joker[:1000])


@pytest.fixture(scope="module")
def counted() -> Exhaustive:
    return exhaustive()


@pytest.mark.slow
def test_exhaustive_counts_equal_r_var_7(counted: Exhaustive) -> None:
    assert counted.total == TOTAL_HANDS == 154_143_080
    assert counted.suit_classes == (6_009_159, 962_988)
    assert counted.categories() == CATEGORIES
    assert counted.lines(FORTUNE_8000) == FORTUNE_LINES
    assert counted.pai_gow_by_highest_card() == PAI_GOW


@pytest.mark.slow
def test_default_fortune_edge_is_exactly_r_var_7(counted: Exhaustive) -> None:
    assert counted.house_win(FORTUNE_8000) == 11_970_096
    assert counted.house_edge(FORTUNE_8000) == Fraction(11_970_096, 154_143_080)
    # the 5000-top table differs on the 32 natural 7-card straight flushes only
    assert counted.house_win(FORTUNE_5000) == 11_970_096 + 32 * 3000


@pytest.mark.slow
def test_emperors_treasure_pays_pai_gow_lines_from_the_same_count(counted: Exhaustive) -> None:
    lines = counted.lines(EMPERORS_TREASURE)
    assert lines["royal_flush"] == 26_020 + 72  # no royal match line: paid as royals
    assert lines["pai_gow_nine_high"] == 31_080
    assert lines["nothing"] == 124_556_196 - 31_080 - 248_640 - 963_480
    pays = {str(line): n for line, n in EMPERORS_TREASURE.pays.items()}
    paid = sum(n * pays[line] for line, n in lines.items() if line != "nothing")
    assert counted.house_win(EMPERORS_TREASURE) == lines["nothing"] - paid


@pytest.mark.slow
def test_a_named_line_is_counted_exactly(counted: Exhaustive) -> None:
    """Washington's Emperor's Treasure card (issue 20): "royal flush plus ace-king suited" pays
    2,000. 12 natural royals x 3 other suits' A-K, and 60 joker royals (4 suits x 5 places for
    the joker) x 3: 72 hands, taken from the royal flushes (Fortune's lines do not move)."""
    path = (
        Path(__file__).parents[2] / "fixtures" / "pay_tables" / "washington_emperors_treasure.json"
    )
    washington = PayTable.model_validate_json(path.read_text())
    assert counted.named()["royal_flush_ace_king_suited"] == 72
    lines = counted.lines(washington)
    assert lines["royal_flush_ace_king_suited"] == 72
    assert lines["royal_flush"] == 26_020  # the royals, royal matches included, less those 72
    assert counted.house_win(washington) == counted.house_win(EMPERORS_TREASURE) - 72 * 1850
    assert counted.house_win(washington) == 6_296_736
