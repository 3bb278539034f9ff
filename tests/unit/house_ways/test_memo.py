"""The rank-pattern memo (``house_ways.memo``) gives exactly what ``decide(analyse(cards))`` gives.

Random hands (with and without the joker) and hands built to hold a straight (where the wheel rank
matters) go through a fresh memo, then hands of the same rank patterns with other suits, so most of
the second pass is replayed from the memo: split (front and back tuples, both strengths) and
clause must equal the definition's, for every built-in House Way and both wheel ranks.
"""

from __future__ import annotations

import random
from itertools import combinations_with_replacement
from typing import Any

import pytest

from table_core.cards import FULL_DECK, JOKER, Card, parse_cards
from table_core.hands import WHEEL_RANKS, WheelRank, tables_for
from table_core.house_ways import BUILT_IN, HouseWay, get_house_way, set_by_house_way
from table_core.house_ways.memo import memoised, rank_pattern
from table_core.house_ways.shape import _holds_straight_or_flush, analyse

HANDS = 6_000


def _hands(rng: random.Random, count: int) -> list[list[Card]]:
    """Half the hands hold the joker, so joker patterns are well covered."""
    out = []
    for n in range(count):
        if n % 2:
            out.append([JOKER, *rng.sample(FULL_DECK[:52], 6)])
        else:
            out.append(rng.sample(FULL_DECK[:52], 7))
        rng.shuffle(out[-1])
    return out


def _straights(rng: random.Random, count: int) -> list[list[Card]]:
    """Five ranks in a row (the wheel included; with the joker, one of them missing) and two more
    cards: the straight clauses, decided by ranks when no flush can be formed."""
    out = []
    for n in range(count):
        low = rng.randrange(1, 11)  # 1: the wheel, its ace played low
        ranks = [14 if r == 1 else r for r in range(low, low + 5)]
        cards = [(r - 2) * 4 + rng.randrange(4) for r in ranks]
        if n % 2:
            cards[rng.randrange(5)] = JOKER
        rest = [c for c in FULL_DECK if c not in cards]
        out.append([*cards, *rng.sample(rest, 7 - len(cards))])
        rng.shuffle(out[-1])
    return out


def _resuited(rng: random.Random, cards: list[Card]) -> list[Card]:
    """The same ranks (and joker) with other suits, in a shuffled order."""
    by_rank: dict[int, int] = {}
    for c in cards:
        if c != JOKER:
            by_rank[c >> 2] = by_rank.get(c >> 2, 0) + 1
    out = [JOKER] if JOKER in cards else []
    for rank, count in by_rank.items():
        out.extend(rank * 4 + suit for suit in rng.sample(range(4), count))
    rng.shuffle(out)
    return out


@pytest.mark.parametrize("wheel", WHEEL_RANKS)
@pytest.mark.parametrize("house_way", BUILT_IN)
def test_memoised_decisions_equal_the_definition(house_way: str, wheel: WheelRank) -> None:
    rng = random.Random(f"{house_way}-{wheel}")
    tables = tables_for(wheel)
    decide = get_house_way(house_way).decide
    memo: dict[int, tuple[Any, ...]] = {}
    set_cards = memoised(decide, tables, memo)
    first = _hands(rng, HANDS) + _straights(rng, HANDS // 2)
    again = [_resuited(rng, cards) for cards in first]
    replayed = 0
    for hands in (first, again, _hands(rng, HANDS)):
        for cards in hands:
            key, flush = rank_pattern(cards)
            replayed += bool(not flush and memo.get(key))
            assert set_cards(cards) == decide(analyse(cards, tables)), cards
    assert replayed > HANDS // 2  # the second pass is mostly replayed, not decided again
    assert memo and len(memo) < 67_600


def test_patterns_are_bounded() -> None:
    """Rank patterns of seven cards: up to four of a rank, with or without the joker."""
    patterns = sum(
        max(combo.count(r) for r in combo) <= 4
        for n in (7, 6)
        for combo in combinations_with_replacement(range(13), n)
    )
    assert patterns == 67_600


def test_shared_memo_through_set_hand_and_the_registry() -> None:
    rng = random.Random(8)
    for cards in _hands(rng, 500):
        for name in BUILT_IN:
            way = get_house_way(name)
            chosen, clause = way.decide(analyse(cards, tables_for("second")))
            assert way.setter()(cards) == (chosen, clause)
            split = set_by_house_way(cards, name)
            assert (sorted(split.back), sorted(split.front), split.rule) == (
                sorted(chosen.back),
                sorted(chosen.front),
                clause,
            )


def test_a_casino_way_is_not_memoised_unless_it_says_so() -> None:
    """A custom House Way may read suits: by default every hand goes through its decide."""
    fr = get_house_way("fr")
    calls = []

    def decide(shape: Any) -> Any:
        calls.append(shape)
        return fr.decide(shape)

    way = HouseWay("memo_test", fr.clauses, decide)  # registered with the default: not memoised
    cards = [0, 5, 10, 15, 20, 33, 50]
    setter = way.setter()
    setter(cards)
    setter(cards)
    assert len(calls) == 2


def test_analyse_folds_the_exact_straight_or_flush_check() -> None:
    """``analyse`` computes ``has_straight_or_flush`` in its grouping pass: the same answer as
    ``_holds_straight_or_flush`` (the rank and suit counts, one card at a time)."""
    rng = random.Random(5)
    for cards in _hands(rng, 20_000) + _straights(rng, 5_000):
        assert analyse(cards).has_straight_or_flush == _holds_straight_or_flush(cards), cards


#: Issue 20 (fr straights (a), (b)/(c) clarified): the changed hands and rank-pattern mates with
#: other suits, the mates chosen so that no flush can be formed (the memo replays those).
CLARIFIED = [
    ("As 3s 2s JK 4s 4d 2c", "fr.three_pairs.highest_pair_front"),  # a flush can be formed
    ("Ah 3d 2s JK 4s 4c 2h", "fr.three_pairs.highest_pair_front"),  # same ranks, no flush
    ("As JK 3d 3c 4h 4s 2c", "fr.three_pairs.highest_pair_front"),  # no flush: memoised
    ("Ad JK 3s 3h 4c 4d 2s", "fr.three_pairs.highest_pair_front"),
    ("7s 8s Js Ts 9s Qd 7c", "fr.straights.give_up_straight_flush"),  # a flush can be formed
    ("7s 8h Jd Tc 9s Qd 7c", "fr.straights.best_front"),  # no flush: the pair front, straight back
]


@pytest.mark.parametrize("wheel", WHEEL_RANKS)
def test_memo_and_direct_path_agree_on_the_clarified_fr_hands(wheel: WheelRank) -> None:
    """R-HW-3 fr straights (a), (b): the memo (first decision, then replayed by rank pattern) and
    ``decide(analyse(cards))`` give the same split and clause on the hands issue 20 changed."""
    tables = tables_for(wheel)
    way = get_house_way("fr")
    memo: dict[int, tuple[Any, ...]] = {}
    set_cards = memoised(way.decide, tables, memo)
    direct = way.setter(tables, memo=False)
    for _ in range(2):  # the second pass replays the no-flush hands from the memo
        for text, clause in CLARIFIED:
            cards = parse_cards(text, 7)
            assert set_cards(cards) == direct(cards) == decide_of(way, cards, tables), text
            assert set_cards(cards)[1] == clause, text
    for text, _ in CLARIFIED:
        key, flush = rank_pattern(parse_cards(text, 7))
        assert flush or key in memo, text  # every no-flush hand went through the memo
    front = set_by_house_way(parse_cards("Ad JK 3s 3h 4c 4d 2s", 7), "fr").front
    assert sorted(front) == sorted(parse_cards("Ad JK", 2))


def decide_of(way: HouseWay, cards: list[Card], tables: Any) -> Any:
    return way.decide(analyse(cards, tables))
