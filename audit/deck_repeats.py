"""R-DEAL-4: an electronic deal's deck order never repeats in a log.

A uniform shuffle of 53 cards from a cryptographic generator repeats an order with odds of about
one in 53! (4 x 10^69) per pair of deals: two electronic ``stacks_dealt`` with the same ``deck``
mean a source that does not shuffle (an unshuffled deck, a replayed or stuck generator). Each deal
is kept as a 64-bit fingerprint of its order and the deal's position, in an open-addressing table
of two flat arrays of 8 bytes a slot, one to two thirds full: 24 to 48 bytes a deal;
a fingerprint met again is a finding naming both positions, so a reader can compare the two
decks. Two different orders share a fingerprint with odds of about n^2 / 2^65 for n deals (one in
37 million for a million deals).

Live deals are the dealer's or a shuffler's report and are not judged here.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Mapping
from typing import Any

_START = 1 << 10  # slots at first: the table doubles as deals come


class DeckRepeats:
    """Remembers each electronic deal's order; :meth:`seen` names the earlier deal of a repeat."""

    def __init__(self) -> None:
        self._keys = array("Q", bytes(8 * _START))  # 0: an empty slot
        self._positions = array("q", bytes(8 * _START))
        self._count = 0

    def seen(self, payload: Mapping[str, Any], position: int) -> int | None:
        """Record the deal at ``position``; the position of an earlier deal of the same order,
        or ``None`` (a live deal, or one whose deck is not recorded: ``None`` too)."""
        deck = payload.get("deck")
        if payload.get("source") != "electronic" or not isinstance(deck, list):
            return None
        try:
            text = " ".join(deck).encode()
        except TypeError:  # not cards: the table's re-derivation reports the payload
            return None
        key = int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") or 1
        keys = self._keys
        mask = len(keys) - 1
        slot = key & mask
        while True:  # linear probing: one pass finds the key or the free slot it goes to
            found = keys[slot]
            if found == key:
                return self._positions[slot]
            if found == 0:
                break
            slot = (slot + 1) & mask
        self._count += 1
        if 3 * self._count > 2 * len(keys):
            self._grow()
            self._put(key, position)
        else:
            keys[slot] = key
            self._positions[slot] = position
        return None

    def _put(self, key: int, position: int) -> None:
        keys, mask = self._keys, len(self._keys) - 1
        slot = key & mask
        while keys[slot]:
            slot = (slot + 1) & mask
        keys[slot] = key
        self._positions[slot] = position

    def _grow(self) -> None:
        old = zip(self._keys, self._positions, strict=True)
        size = 2 * len(self._keys)
        self._keys = array("Q", bytes(8 * size))
        self._positions = array("q", bytes(8 * size))
        for key, position in old:
            if key:
                self._put(key, position)
