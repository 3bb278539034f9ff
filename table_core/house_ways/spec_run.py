"""The bounded interpreter of a House Way file (issue 32): its words given meaning on a Shape.

A validated file compiles once into plain closures: per family (R-HW-3), the ordered clauses, each
a list of tests on the shape, a front to set (or a family to send the hand to) and tests on the
split it would set. The first clause whose tests hold and whose front can be set decides; a front
that names cards the hand lacks (no pair of kings, no second pair) passes the hand to the next
clause. Redirects form no loop (``spec`` refuses one), so a decision visits each clause at most
once: no loop, no recursion beyond the nine families, no code from the file.

The fronts are the House Ways' shared blocks of ``shape`` (``pair_front``, ``singles_front``,
``best``), so a file and a Python House Way that say the same thing set the very same cards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from table_core.cards import ACE, JOKER, card_text, rank_of
from table_core.errors import DomainError
from table_core.hands import ROYAL_ORDER, STRAIGHT_FLUSH, front_is_pair
from table_core.house_ways.shape import (
    KING,
    Candidate,
    Decision,
    Shape,
    best,
    best_front_keeping,
    family,
    front_of,
    pair_front,
    singles_front,
)
from table_core.house_ways.spec_model import Clause, Condition, WayFile
from table_core.house_ways.spec_words import parse_count, parse_rank, parse_ranks

Test = Callable[[Shape], bool]
ResultTest = Callable[[Shape, Candidate], bool]
Front = Callable[[Shape], Candidate | None]
Rule = Callable[[Shape], Decision | None]
T = TypeVar("T")


class NoClauseDecides(DomainError):
    """No clause of the family R-HW-3 selected decides this hand (a gap in the file)."""


# --- the backs a split may have to keep --------------------------------------------------------


def _kept(shape: Shape, keep: str) -> list[Candidate]:
    """The splits whose back is a straight, flush or straight flush, of the ``keep`` kind."""
    found = shape.straight_or_flush_splits()
    if keep == "straight flush":
        return [c for c in found if c.back_strength >> 20 == STRAIGHT_FLUSH]
    if keep == "plain straight or flush":
        return [c for c in found if c.back_strength >> 20 < STRAIGHT_FLUSH]
    return found


#: Per back to keep, the last shape asked and its best split keeping it: the clauses of one family
#: ask the same question of one hand several times (fr's straight flush clauses, four times).
#: One tuple per key, replaced whole, so a reader never pairs a shape with another's answer.
_LAST_BEST: dict[str, tuple[Shape, Candidate | None]] = {}


def _best_kept(shape: Shape, keep: str) -> Candidate | None:
    """R-HW-4: the best split keeping a ``keep`` back (None when none can be kept)."""
    last = _LAST_BEST.get(keep)
    if last is not None and last[0] is shape:
        return last[1]
    found = best(_kept(shape, keep))
    _LAST_BEST[keep] = (shape, found)
    return found


def _straight_flush_back(shape: Shape, value: str) -> bool:
    kept = _best_kept(shape, "straight flush")
    if value == "none" or value == "any":
        return (kept is None) == (value == "none")
    if kept is None:
        return False
    return ((kept.back_strength >> 16) & 15 == ROYAL_ORDER) == (value == "royal")


def _can_flush(shape: Shape) -> bool:
    suits = [0, 0, 0, 0]
    for c in shape.cards:
        if c != JOKER:
            suits[c & 3] += 1
    return max(suits) + shape.has_joker >= 5


def _can_straight(shape: Shape) -> bool:
    ranks = {rank_of(c) for c in shape.cards if c != JOKER}
    if ACE in ranks:
        ranks.add(1)  # the ace also plays low in the wheel
    window = max(len(ranks & set(range(low, low + 5))) for low in range(1, 11))
    return window + shape.has_joker >= 5


# --- conditions --------------------------------------------------------------------------------


def _in(ranks: frozenset[int], group: Callable[[Shape], tuple[int, ...]], at: int = 0) -> Test:
    return lambda shape: len(group(shape)) > at and group(shape)[at] in ranks


def _beside_quads(shape: Shape) -> tuple[int, ...]:
    return shape.trips or shape.pairs


def _shape_tests(when: Condition) -> list[Test]:
    """The tests on the shape alone, cheapest first."""
    tests: list[Test] = []
    if when.pair_count is not None:
        pairs = parse_count(when.pair_count)
        tests.append(lambda s: len(s.pairs) in pairs)
    if when.trips_count is not None:
        trips = parse_count(when.trips_count)
        tests.append(lambda s: len(s.trips) in trips)
    by_group: list[tuple[str | None, Callable[[Shape], tuple[int, ...]], int]] = [
        (when.high_pair, lambda s: s.pairs, 0),
        (when.low_pair, lambda s: s.pairs, 1),
        (when.trips_rank, lambda s: s.trips, 0),
        (when.quads_rank, lambda s: s.quads, 0),
        (when.other_pair, _beside_quads, 0),
        (when.high_single, lambda s: s.singles, 0),
    ]
    for value, group, at in by_group:
        if value is not None:
            tests.append(_in(parse_ranks(value), group, at))
    flags: list[tuple[bool | None, Test]] = [
        (when.single_ace, lambda s: s.single_ace),
        (when.holds_joker, lambda s: s.has_joker),
        (when.trips_above_pairs, lambda s: bool(s.trips) and all(s.trips[0] > p for p in s.pairs)),
        (when.flush, _can_flush),
        (when.straight, _can_straight),
    ]
    for wanted, test in flags:
        if wanted is not None:
            tests.append(_flag(test, wanted))
    if when.singles_include is not None:
        needed = [parse_rank(r) for r in when.singles_include]
        tests.append(lambda s: all(r in s.singles for r in needed))
    if when.any_of is not None:
        alternatives = [_shape_tests(each) for each in when.any_of]
        tests.append(lambda s: any(all(t(s) for t in each) for each in alternatives))
    if when.straight_flush_back is not None:
        value = when.straight_flush_back
        tests.append(lambda s: _straight_flush_back(s, value))
    return tests


def _flag(test: Test, wanted: bool) -> Test:
    return lambda shape: test(shape) == wanted


def _result_tests(when: Condition) -> list[ResultTest]:
    """The tests on the split a clause would set."""
    tests: list[ResultTest] = []
    if when.front_at_least is not None:
        need = parse_rank(when.front_at_least)
        tests.append(
            lambda _, c: front_is_pair(c.front_strength) or (c.front_strength >> 4) & 15 >= need
        )
    if when.front_beats is not None:
        keep = when.front_beats

        def beats(shape: Shape, chosen: Candidate) -> bool:
            rival = _best_kept(shape, keep)
            return rival is None or chosen.front_strength > rival.front_strength

        tests.append(beats)
    return tests


# --- fronts ------------------------------------------------------------------------------------

_PAIR_RANK: dict[str, Callable[[Shape], int | None]] = {
    "highest pair": lambda s: s.pairs[0] if s.pairs else None,
    "lower pair": lambda s: s.pairs[1] if len(s.pairs) > 1 else None,
    "pair of the three of a kind": lambda s: s.trips[0] if s.trips else None,
    "pair of the four of a kind": lambda s: s.quads[0] if s.quads else None,
    "pair beside the four of a kind": lambda s: _beside_quads(s)[0] if _beside_quads(s) else None,
    "pair of aces": lambda s: ACE if len(s.groups.get(ACE, ())) > 1 else None,
    "pair of kings": lambda s: KING if len(s.groups.get(KING, ())) > 1 else None,
}


def _ace_and_highest_other(shape: Shape, *, first: bool) -> Candidate | None:
    aces = shape.groups.get(ACE)
    other = next((r for r in shape.singles if r != ACE), None)
    if not aces or other is None:
        return None
    partner = shape.one_of(other)
    if first:
        return shape.candidate((aces[0], partner))
    return front_of(shape, *((ace, partner) for ace in aces))


_OTHER_FRONT: dict[str, Front] = {
    "two highest singles": lambda s: singles_front(s) if len(s.singles) > 1 else None,
    "second and third highest singles": lambda s: (
        singles_front(s, skip=1) if len(s.singles) > 2 else None
    ),
    "ace and highest other single": lambda s: _ace_and_highest_other(s, first=False),
    "first ace and highest other single": lambda s: _ace_and_highest_other(s, first=True),
    "best front": lambda s: best_front_keeping(s, lambda _: True),
}


def _pair_of(rank_of_front: Callable[[Shape], int | None], joker_front: bool) -> Front:
    def front(shape: Shape) -> Candidate | None:
        rank = rank_of_front(shape)
        if rank is None:
            return None
        group = shape.groups[rank]
        if joker_front and JOKER in group and len(group) > 2:
            return front_of(shape, *((c, JOKER) for c in group if c != JOKER))
        return pair_front(shape, rank)

    return front


def _pair_keeping(rank_of_front: Callable[[Shape], int | None], keep: str, joker: bool) -> Front:
    def front(shape: Shape) -> Candidate | None:
        rank = rank_of_front(shape)
        if rank is None:
            return None
        need_joker = joker and JOKER in shape.groups[rank]
        return best(
            c
            for c in _kept(shape, keep)
            if rank_of(c.front[0]) == rank == rank_of(c.front[1])
            and (not need_joker or JOKER in c.front)
        )

    return front


def _front(phrase: str, keep: str | None, joker: bool) -> Front:
    pair = _PAIR_RANK.get(phrase)
    if keep is None:
        return _pair_of(pair, joker) if pair is not None else _OTHER_FRONT[phrase]
    if pair is not None:
        return _pair_keeping(pair, keep, joker)
    return lambda shape: _best_kept(shape, keep)  # "best front": spec_model allows no other


def _first_found(options: Sequence[Callable[[Shape], T | None]]) -> Callable[[Shape], T | None]:
    """The first answer of ``options`` that is not None: the fronts of one clause, tried in
    order, and the clauses of one family (R-HW-3: the first that decides)."""
    if len(options) == 1:
        return options[0]
    ordered = tuple(options)

    def first(shape: Shape) -> T | None:
        for option in ordered:
            found = option(shape)
            if found is not None:
                return found
        return None

    return first


# --- clauses and families ----------------------------------------------------------------------


def _clause(clause: Clause, rules: dict[str, Rule]) -> Rule:
    tests = _shape_tests(clause.when)
    after = _result_tests(clause.when)
    if clause.use is not None:
        target = clause.use

        def send(shape: Shape) -> Decision | None:
            if not all(t(shape) for t in tests):
                return None
            found = rules[target](shape)
            if found is None or not all(t(shape, found[0]) for t in after):
                return None
            return found

        return send
    assert clause.front is not None and clause.id is not None
    joker = clause.joker == "front"
    front = _first_found([_front(p, clause.keep, joker) for p in clause.front])
    clause_id = clause.id

    def run(shape: Shape) -> Decision | None:
        if not all(t(shape) for t in tests):
            return None
        chosen = front(shape)
        if chosen is None or not all(t(shape, chosen) for t in after):
            return None
        return chosen, clause_id

    return run


def compile_way(way: WayFile) -> Callable[[Shape], Decision]:
    """The ``decide`` of a validated file: R-HW-3's family picks the first clause that decides."""
    rules: dict[str, Rule] = {}
    for name, clauses in way.families().items():
        rules[name] = _first_found([_clause(c, rules) for c in clauses])
    way_name = way.name

    def decide(shape: Shape) -> Decision:
        selected = family(shape)
        found = rules[selected](shape)
        if found is None:
            cards = " ".join(card_text(c) for c in shape.cards)
            raise NoClauseDecides(
                f"House Way {way_name}: no {selected} clause decides {cards}", rule="R-HW-3"
            )
        return found

    decide.__doc__ = f"The {way_name} split of ``shape`` and the id of the clause that decided it."
    return decide
