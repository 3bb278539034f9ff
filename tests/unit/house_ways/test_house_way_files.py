"""The four built-in House Ways written as files (issue 32) set every hand as the Python ways do.

The Python modules stay the reference: a fixed sample of hands (random hands, hands with the
joker, hands built to hold a flush or a straight, hands of many equal ranks for the rare families)
is set by both, without the rank-pattern memo, and the split (front, back, both strengths) and
clause id must be the same. benchmarks/bench_house_way_files.py does the same on every hand of
the 53-card deck.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from adapters.house_way_files import built_in_text
from scripts.house_way_sample import fixed_sample
from table_core.cards import JOKER, Card
from table_core.hands import tables_for
from table_core.house_ways import BUILT_IN, get_house_way
from table_core.house_ways.shape import analyse
from table_core.house_ways.spec import house_way_from_text, parse_house_way

HANDS = 12_500  # per House Way: 50,000 over the four


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_file_names_the_python_ways_clauses(name: str) -> None:
    spec = parse_house_way(built_in_text(name))
    assert spec.name == name
    assert dict(spec.clauses) == dict(get_house_way(name).clauses)
    assert spec.suit_blind


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_file_sets_every_sampled_hand_as_the_python_way(name: str) -> None:
    tables = tables_for("second")
    python_way = get_house_way(name).decide
    file_way = house_way_from_text(built_in_text(name)).decide
    differ, decided = [], Counter[str]()
    for cards in fixed_sample(HANDS, seed=name):
        by_file = file_way(analyse(cards, tables))
        decided[by_file[1]] += 1
        if python_way(analyse(cards, tables)) != by_file:
            differ.append(cards)
    assert differ == []
    # The sample reaches every clause, so no clause is compared on nothing.
    assert [clause for clause in get_house_way(name).clauses if not decided[clause]] == []


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_memoised_file_way_sets_hands_as_the_python_way(name: str) -> None:
    """The file reads suits only through straights and flushes (``suit_blind``), so the rank
    pattern memo replays it exactly: hands of one pattern with other suits follow the first."""
    text = built_in_text(name)
    file_way = house_way_from_text(text)
    assert house_way_from_text(text) is file_way  # cached by digest: one memo per file
    assert file_way.by_rank_pattern
    set_by_file = file_way.setter(memo=True)
    python_way = get_house_way(name).decide
    tables = tables_for("second")
    hands = list(fixed_sample(2_000, seed=f"memo-{name}"))
    rng = random.Random(name)
    again = [_resuited(rng, cards) for cards in hands]
    differ = [
        cards for cards in hands + again if set_by_file(cards) != python_way(analyse(cards, tables))
    ]
    assert differ == []


def _resuited(rng: random.Random, cards: list[Card]) -> list[Card]:
    """The same ranks (and joker) with other suits."""
    out = [JOKER] if JOKER in cards else []
    ranks = [c >> 2 for c in cards if c != JOKER]
    for rank in set(ranks):
        out.extend(rank * 4 + suit for suit in rng.sample(range(4), ranks.count(rank)))
    return out
