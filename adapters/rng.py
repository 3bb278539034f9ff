"""Deck-and-dice sources for electronic tables (R-DEAL-4).

``SecureDeckAndDice`` is the only source a real table uses: the operating system's cryptographic
generator, a Fisher-Yates shuffle and dice drawn with ``secrets.randbelow`` (rejection sampling,
so no modulo bias). ``SeededDeckAndDice`` replays a seed, for simulations and tests only.
Either way the values enter the core as command inputs and are recorded in the events.
"""

from __future__ import annotations

import random
import secrets

from table_core.cards import FULL_DECK, Card


class SecureDeckAndDice:
    def shuffled_deck(self) -> list[Card]:
        deck = list(FULL_DECK)
        for i in range(len(deck) - 1, 0, -1):
            j = secrets.randbelow(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        return deck

    def roll_dice(self) -> tuple[int, int, int]:
        return (secrets.randbelow(6) + 1, secrets.randbelow(6) + 1, secrets.randbelow(6) + 1)


class SeededDeckAndDice:
    """Reproducible decks and dice for ``paigow simulate --seed`` (never a live table)."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def shuffled_deck(self) -> list[Card]:
        return self._rng.sample(FULL_DECK, len(FULL_DECK))

    def roll_dice(self) -> tuple[int, int, int]:
        rng = self._rng
        return (rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6))
