"""The best response to a banker's House Way (``paigow house-way edge``'s optimal player)."""

from __future__ import annotations

from table_core.analysis_best import OPTIMAL, BestResponse
from table_core.cards import parse_cards
from table_core.hands import five_card_strength, two_card_strength


def strengths(back: str, front: str) -> tuple[int, int]:
    return five_card_strength(parse_cards(back)), two_card_strength(parse_cards(front))


BANKER = [
    strengths("Kc Kd 9s 5h 2c", "Qd Jc"),  # a pair of kings, queen-jack
    strengths("As 9d 7c 4h 3s", "Kh 2d"),  # ace high, king-deuce
]


def test_a_split_is_worth_its_wins_less_commission_less_its_losses() -> None:
    best = BestResponse(BANKER, commission=0.05)
    assert best.value(*strengths("Ac Ad 8s 7d 3c", "Kd Qs")) == (2 * 0.95) / 2  # beats both
    assert best.value(*strengths("Qc 9c 7d 4s 2h", "Jd 3c")) == -1.0  # loses both
    assert best.value(*strengths("Ac Ad 8s 7d 3c", "Jd 3c")) == 0.0  # one each: pushes
    # Copies are the banker's (R-SET-3): the first banker hand's own strengths lose to it, and
    # push against the second (the back wins, the queen-jack front loses to king-deuce).
    assert best.value(*strengths("Kh Ks 9c 5d 2s", "Qc Js")) == -0.5


def test_it_sets_the_split_worth_most_and_never_a_foul() -> None:
    best = BestResponse(BANKER, commission=0.05)
    split, rule = best(parse_cards("Ac Ad Kd Qs 8s 7d 3c"))
    assert rule == OPTIMAL and split.legal
    assert sorted(split.front) == sorted(parse_cards("Kd Qs"))  # wins both banker hands
