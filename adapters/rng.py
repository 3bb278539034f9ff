"""Deck-and-dice sources for electronic tables (R-DEAL-4).

``SecureDeckAndDice`` is the only source a real table uses: the operating system's cryptographic
generator (``os.urandom``, what ``secrets`` reads), a Fisher-Yates shuffle and dice, each index
drawn uniformly by rejection sampling (no modulo bias). ``SeededDeckAndDice`` replays a seed, for
simulations and tests only. Either way the values enter the core as command inputs and are
recorded in the events.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence

from table_core.cards import FULL_DECK, Card

_DRAW = 1 << 32  # each draw is 32 bits of the OS's generator
#: Fisher-Yates over the 53 cards: for i = 52 .. 1, a j uniform in 0 .. i.
_SHUFFLE_BOUNDS = tuple(range(len(FULL_DECK), 1, -1))
_DICE_BOUNDS = (6, 6, 6)


def uniform_below(bounds: Sequence[int]) -> list[int]:
    """One integer uniform in ``0 .. bound - 1`` for each bound, from the OS's cryptographic
    generator. The draws are read in one ``os.urandom`` call (``secrets.randbelow`` made one
    system call per index: 52 for a shuffle); a draw at or past the largest multiple of the bound
    below 2^32 is rejected and the next one taken, so ``draw % bound`` has no bias."""
    out = []
    draws = memoryview(os.urandom(4 * len(bounds))).cast("I")
    k = 0
    for bound in bounds:
        limit = _DRAW - _DRAW % bound
        while True:
            if k == len(draws):  # rejections used the draws up (odds about 1 in 10^8 a draw)
                draws = memoryview(os.urandom(4 * len(bounds))).cast("I")
                k = 0
            draw = draws[k]
            k += 1
            if draw < limit:
                out.append(draw % bound)
                break
    return out


class SecureDeckAndDice:
    #: What the draws come from, as ``service_started`` names the source (R5/R19).
    draws_from = "os.urandom"

    def shuffled_deck(self) -> list[Card]:
        deck = list(FULL_DECK)
        for bound, j in zip(_SHUFFLE_BOUNDS, uniform_below(_SHUFFLE_BOUNDS), strict=True):
            i = bound - 1
            deck[i], deck[j] = deck[j], deck[i]
        return deck

    def roll_dice(self) -> tuple[int, int, int]:
        a, b, c = uniform_below(_DICE_BOUNDS)
        return (a + 1, b + 1, c + 1)


class SeededDeckAndDice:
    """Reproducible decks and dice for ``paigow simulate --seed`` (never a live table)."""

    draws_from = "random.Random(seed)"

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def shuffled_deck(self) -> list[Card]:
        return self._rng.sample(FULL_DECK, len(FULL_DECK))

    def roll_dice(self) -> tuple[int, int, int]:
        rng = self._rng
        return (rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6))
