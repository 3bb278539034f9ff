"""Golden House Way vectors, written by hand from docs/rules.md before the code ran on them.

Each ``golden/<house way>.json`` is a list of ``{"cards", "back", "front", "rule", "why"}``. A
vector matches when the clause id is the same, the front holds the same ranks (``JK`` apart), and
both hands have the same strength: suits only matter where they change a hand's value.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from table_core.cards import JOKER, parse_cards, rank_of
from table_core.hands import five_card_strength, two_card_strength
from table_core.house_ways import BUILT_IN, get_house_way, set_by_house_way

GOLDEN = Path(__file__).parent / "golden"


def _ranks(cards: list[int]) -> Counter[str]:
    return Counter("JK" if c == JOKER else str(rank_of(c)) for c in cards)


def _vectors() -> list[tuple[str, dict[str, str]]]:
    out = []
    for path in sorted(GOLDEN.glob("*.json")):
        for vector in json.loads(path.read_text()):
            out.append((path.stem, vector))
    return out


VECTORS = _vectors()


@pytest.mark.parametrize(
    ("house_way", "vector"), VECTORS, ids=[f"{hw}:{v['rule']}:{v['cards']}" for hw, v in VECTORS]
)
def test_house_way_sets_golden_hand(house_way: str, vector: dict[str, str]) -> None:
    cards = parse_cards(vector["cards"], 7)
    back, front = parse_cards(vector["back"], 5), parse_cards(vector["front"], 2)
    assert sorted(back + front) == sorted(cards), "vector's split must use its seven cards"
    split = set_by_house_way(cards, house_way)
    assert split.rule == vector["rule"]
    assert _ranks(list(split.front)) == _ranks(front)
    assert two_card_strength(split.front) == two_card_strength(front)
    assert five_card_strength(split.back) == five_card_strength(back)


@pytest.mark.parametrize("house_way", BUILT_IN)
def test_every_clause_has_three_golden_vectors(house_way: str) -> None:
    clauses = get_house_way(house_way).clauses
    seen = Counter(v["rule"] for hw, v in VECTORS if hw == house_way)
    thin = {clause: seen[clause] for clause in clauses if seen[clause] < 3}
    assert thin == {}
