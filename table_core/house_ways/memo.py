"""House Way decisions memoised by rank pattern (issue 8: the edge analysis sets millions).

When no flush can be formed from the seven cards (about 96% of hands), no five of them are of one
suit (the joker's four included), so every split's two strengths depend on the ranks alone (the
joker counted apart; straights are a matter of ranks), and a House Way's clause logic never looks
at suits: its tie-breaks (R-HW-4) follow the card order, in which the cards of one rank sort by
their codes. Two hands of the same rank pattern therefore get the same decision, read as
positions in a canonical order of the cards: :func:`memoised` stores the first decision of each
pattern (front positions, back positions, both strengths, clause id) and replays it on the next
hand of that pattern. ``decide(analyse(cards))`` stays the definition: hands that may hold a
flush, and the first hand of each pattern, go through it, and tests/unit/house_ways/test_memo.py
compares both over many random hands (and hands built to hold straights).

Only House Ways registered with ``by_rank_pattern=True`` (the built-ins) are memoised: a casino's
own clause logic might look at suits. The memo is a plain dict per House Way and wheel rank,
bounded by the number of rank patterns (67,600 with the joker), deterministic and free of I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

from table_core.cards import Card
from table_core.hands import FiveCardTables, tables_for
from table_core.house_ways.shape import Candidate, Decision, Shape, analyse

Decide = Callable[[Shape], Decision]
SetCards = Callable[[Sequence[Card]], Decision]

#: Per card, one integer to sum over the seven: its suit as 1 in that suit's nibble (bits 0-15;
#: the joker adds 1 to every suit, since it completes a flush of any), and its rank as 1 in a
#: 3-bit count field from bit 16 (rank r at bit 16 + 3 * (r - 2); the joker in its own field, bit
#: 55). Fields never carry: a suit holds at most 7 of the seven, a rank at most 4.
CARD_VALUE: tuple[int, ...] = (
    *((1 << 4 * (c & 3)) + (1 << (16 + 3 * (c >> 2))) for c in range(52)),
    0x1111 + (1 << 55),
)
#: A flush can be formed when a suit nibble (joker included) reaches 5: adding 3 sets its bit 3.
_FLUSH_ADD, _FLUSH_BITS = 0x3333, 0x8888
_RANK_SHIFT = 16

#: Memos by (decide, wheel rank): rank pattern (sum of CARD_VALUE >> 16) -> entry.
_MEMOS: dict[tuple[Decide, str], dict[int, tuple[Any, ...]]] = {}
_SETTERS: dict[tuple[Decide, str], SetCards] = {}
#: Shared getters and clause strings: the entries hold references, not copies.
_GETTERS: dict[tuple[int, ...], Callable[[Sequence[Card]], tuple[Card, ...]]] = {}
_CLAUSES: dict[str, str] = {}


def rank_pattern(cards: Sequence[Card]) -> tuple[int, bool]:
    """The memo key of seven cards and whether a flush can be formed (for tests and tools)."""
    total = sum(CARD_VALUE[c] for c in cards)
    return total >> _RANK_SHIFT, bool((total + _FLUSH_ADD) & _FLUSH_BITS)


def memoised_patterns(decide: Decide, wheel_rank: str = "second") -> int:
    """How many rank patterns the shared memo of ``decide`` holds (for benchmarks)."""
    return len(_MEMOS.get((decide, wheel_rank), ()))


def _getter(positions: tuple[int, ...]) -> Callable[[Sequence[Card]], tuple[Card, ...]]:
    found = _GETTERS.get(positions)
    if found is None:
        found = _GETTERS[positions] = itemgetter(*positions)
    return found


def _entry(decision: Decision, cards: Sequence[Card]) -> tuple[Any, ...]:
    """A decision as positions in the canonical order (card codes low to high, the joker last).

    Any order that sorts the cards of a rank by their code maps one hand of a pattern onto another
    exactly as the Shape's order does, so a plain ``sorted`` is canonical enough and the cheapest.
    """
    chosen, clause = decision
    ordered = sorted(cards)
    front = _getter(tuple(ordered.index(c) for c in chosen.front))
    back = _getter(tuple(ordered.index(c) for c in chosen.back))
    clause = _CLAUSES.setdefault(clause, clause)
    return (front, back, chosen.front_strength, chosen.back_strength, clause)


def memoised(
    decide: Decide, tables: FiveCardTables, memo: dict[int, tuple[Any, ...]] | None = None
) -> SetCards:
    """``cards -> decide(analyse(cards, tables))``, replayed from the memo where that is exact.

    The cards must be seven distinct valid cards (the caller checks or deals them). ``memo``
    (tests only) replaces the shared memo of ``decide`` and the wheel rank of ``tables``.
    """
    wheel = tables.wheel_rank
    if tables is not tables_for(wheel):  # hand-built tables: no shared memo can be trusted
        if memo is None:
            return lambda cards: decide(analyse(cards, tables))
    elif memo is None:
        setter = _SETTERS.get((decide, wheel))
        if setter is not None:
            return setter
        memo = _MEMOS.setdefault((decide, wheel), {})
    store = memo

    def set_cards(
        cards: Sequence[Card],
        _value: tuple[int, ...] = CARD_VALUE,
        _get: Callable[[int], tuple[Any, ...] | None] = store.get,
        _new: Any = tuple.__new__,  # Candidate(...) without the named tuple's Python __new__
    ) -> Decision:
        a, b, c, d, e, f, g = cards
        total = _value[a] + _value[b] + _value[c] + _value[d] + _value[e] + _value[f] + _value[g]
        if (total + 0x3333) & 0x8888:  # _FLUSH_ADD, _FLUSH_BITS: a flush can be formed
            return decide(analyse(cards, tables))
        entry = _get(total >> 16)  # _RANK_SHIFT
        if entry:
            front, back, front_strength, back_strength, clause = entry
            ordered = sorted(cards)
            chosen = (front(ordered), back(ordered), front_strength, back_strength)
            return _new(Candidate, chosen), clause
        decision = decide(analyse(cards, tables))
        store[total >> 16] = _entry(decision, cards)  # the first hand of this pattern
        return decision

    if memo is _MEMOS.get((decide, wheel)):
        _SETTERS[(decide, wheel)] = set_cards
    return set_cards
