"""The four built-in House Ways written as files (issue 32) set every hand as the Python ways do.

The Python modules stay the reference: a fixed sample of hands (random hands, hands with the
joker, hands built to hold a flush or a straight, hands of many equal ranks for the rare families)
is set by both, without the rank-pattern memo, and the split (front, back, both strengths) and
clause id must be the same. benchmarks/bench_house_way_files.py does the same on every hand of
the 53-card deck.
"""

from __future__ import annotations

import pytest

from adapters.house_way_files import built_in_text
from scripts.house_way_sample import fixed_sample
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
    differ = [
        cards
        for cards in fixed_sample(HANDS, seed=name)
        if python_way(analyse(cards, tables)) != file_way(analyse(cards, tables))
    ]
    assert differ == []
