"""A fixed, seeded sample of seven-card hands that reaches every House Way family (issue 32).

Uniform random hands seldom hold five aces, four of a kind or a straight beside three of a kind,
so the sample mixes five kinds of hands in turn: uniform hands, hands with the joker, hands with
four to six cards of one suit (flushes), five ranks in a row with two more cards of those ranks
(straights with pairs and trips), and hands drawn rank by rank with aces and kings favoured
(five aces, four of a kind, full houses). The same seed gives the same hands on every machine.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from table_core.cards import FULL_DECK, JOKER, Card

_REAL = FULL_DECK[:52]


def _flush(rng: random.Random) -> list[Card]:
    suit = rng.randrange(4)
    cards = rng.sample([c for c in _REAL if c & 3 == suit], rng.choice((4, 5, 6)))
    return cards + rng.sample([c for c in FULL_DECK if c not in cards], 7 - len(cards))


def _straight(rng: random.Random) -> list[Card]:
    low = rng.randrange(1, 11)  # 1: the wheel, its ace played low
    ranks = [14 if r == 1 else r for r in range(low, low + 5)]
    cards = [(r - 2) * 4 + rng.randrange(4) for r in ranks]
    if rng.random() < 0.4:
        cards[rng.randrange(5)] = JOKER
    same = [c for c in FULL_DECK if c not in cards and (c == JOKER or (c >> 2) + 2 in ranks)]
    other = [c for c in FULL_DECK if c not in cards]
    return cards + rng.sample(same if rng.random() < 0.6 else other, 2)


def _many_equal(rng: random.Random) -> list[Card]:
    cards: set[Card] = {JOKER} if rng.random() < 0.4 else set()
    one_suit = rng.random() < 0.5
    while len(cards) < 7:
        rank = rng.choice((14, 14, 13, 2, *(rng.randrange(2, 15) for _ in range(3))))
        free = [c for c in _REAL if (c >> 2) + 2 == rank and c not in cards]
        take = min(rng.choice((1, 2, 3, 4)), 7 - len(cards), len(free))
        if one_suit:
            free.sort(key=lambda c: c & 3 != 0)
            cards.update(free[:take])
        else:
            cards.update(rng.sample(free, take))
    return list(cards)


def fixed_sample(count: int, seed: object = 7) -> Iterator[list[Card]]:
    """``count`` hands, the five kinds in turn, each hand in a shuffled order."""
    rng = random.Random(str(seed))
    for n in range(count):
        kind = n % 5
        if kind == 0:
            cards = rng.sample(FULL_DECK, 7)
        elif kind == 1:
            cards = [JOKER, *rng.sample(_REAL, 6)]
        elif kind == 2:
            cards = _flush(rng)
        elif kind == 3:
            cards = _straight(rng)
        else:
            cards = _many_equal(rng)
        rng.shuffle(cards)
        yield cards
