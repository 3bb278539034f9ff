"""The words of a House Way file (issue 32): ranks, conditions, fronts and the backs to keep.

Every word a file may use is listed here with what it means, in the rulebook's terms (R-HW-2: the
joker counts as an ace in every shape; R-HW-4: where a word leaves a choice, the best front, then
the best back). docs/house-ways.md renders these tables, so the vocabulary and its description
cannot drift apart. ``spec_run`` gives each word its meaning on a :class:`Shape`.

No word reads a suit except through a straight or a flush (``flush``, ``straight``, the backs to
keep): a way written in these words gives one decision per rank pattern when no flush can be
formed, so ``house_ways.memo`` may replay it and a certificate may count suit classes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from table_core.cards import ACE

#: Rank names in a file: 2-10 (or T), J, Q, K, A; the joker is an ace (R-HW-2).
RANK_BY_NAME: dict[str, int] = {
    **{str(r): r for r in range(2, 11)},
    "T": 10,
    "J": 11,
    "Q": 12,
    "K": 13,
    "A": ACE,
}
RANK_HELP = "a rank (2-10, J, Q, K, A), a range such as 7-10, or a floor such as J+"

#: ``straight_flush_back`` values: the straight flush kept back with the best front.
STRAIGHT_FLUSH_BACKS: dict[str, str] = {
    "none": "no straight flush can be kept back",
    "any": "a straight flush can be kept back",
    "royal": "keeping a straight flush back with the best front keeps a royal flush",
    "not royal": "keeping a straight flush back with the best front keeps one below a royal",
}
#: Condition words tested on the seven cards, by the value each takes: kind -> {word: what it
#: tests}. Ranks take RANK_HELP; a count a number, a range ("1-2") or a floor ("1+").
_CARD_CONDITIONS_BY_VALUE: dict[str, dict[str, str]] = {
    "a count": {
        "pair_count": "how many pairs (a pair of aces may be an ace and the joker)",
        "trips_count": "how many three of a kinds",
    },
    "ranks": {
        "high_pair": "the highest pair is of these ranks (false with no pair)",
        "low_pair": "the second highest pair is of these ranks (false with fewer than two pairs)",
        "trips_rank": "the highest three of a kind is of these ranks (false with none)",
        "quads_rank": "the four of a kind is of these ranks (false with none)",
        "other_pair": (
            "the three of a kind, or else the highest pair, beside the four of a kind is of these"
            " ranks (false with none)"
        ),
        "high_single": "the highest single card is of these ranks (false with no single)",
    },
    "true or false": {
        "single_ace": "an ace (or the joker) that is not part of a pair or more (R-HW-2)",
        "holds_joker": "the joker is among the seven cards",
        "trips_above_pairs": "a three of a kind ranks above every pair",
        "flush": "five cards of one suit can be formed (the joker completes any suit)",
        "straight": "five ranks in a row can be formed (the joker fills one gap; the wheel counts)",
    },
    "a list of ranks": {"singles_include": 'each of these ranks is a single card (`["A", "K"]`)'},
    "a list of tables": {"any_of": "at least one of the condition tables holds"},
    "a word": {
        "straight_flush_back": "which straight flush can be kept back: "
        + ", ".join(f'"{v}"' for v in STRAIGHT_FLUSH_BACKS),
    },
}
#: The same words in the same order: word -> (its value, what it tests).
CARD_CONDITIONS: dict[str, tuple[str, str]] = {
    word: (value, meaning)
    for value, words in _CARD_CONDITIONS_BY_VALUE.items()
    for word, meaning in words.items()
}
#: Conditions on the split the clause would set (tested after its front is chosen).
RESULT_CONDITIONS: dict[str, str] = {
    "front_at_least": (
        "the front this clause sets is a pair, or its high card is at least this rank"
    ),
    "front_beats": (
        "the front this clause sets beats the best front that keeps this back (a back to keep,"
        " below); true when no such back can be kept"
    ),
}
CONDITIONS: tuple[str, ...] = (*CARD_CONDITIONS, *RESULT_CONDITIONS)

#: ``keep`` values: which backs a clause's split must keep.
KEEPS: dict[str, str] = {
    "straight or flush": "a straight, flush or straight flush (six- and seven-card ones included)",
    "straight flush": "a straight flush (a royal flush included)",
    "plain straight or flush": "a straight or a flush that is not a straight flush",
}

#: ``front`` phrases naming a pair: which rank's two cards go front. When the rank holds three or
#: more cards (the joker among aces), R-HW-4 picks the two: the best back.
PAIR_FRONTS: dict[str, str] = {
    "highest pair": "the highest pair",
    "lower pair": "the second highest pair",
    "pair of the three of a kind": "two cards of the highest three of a kind",
    "pair of the four of a kind": "two cards of the four of a kind",
    "pair beside the four of a kind": (
        "two cards of the three of a kind, or else of the highest pair, beside the four of a kind"
    ),
    "pair of aces": "two aces (the joker counts)",
    "pair of kings": "two kings",
}
#: The other ``front`` phrases.
OTHER_FRONTS: dict[str, str] = {
    "two highest singles": "the two highest single cards",
    "second and third highest singles": "the second and third highest single cards",
    "ace and highest other single": (
        "an ace (the joker counts) and the highest single card that is not an ace; R-HW-4 picks"
        " the ace"
    ),
    "first ace and highest other single": (
        "the first ace in card order (spades, hearts, diamonds, clubs, then the joker) and the"
        " highest single card that is not an ace"
    ),
    "best front": (
        'the best front (R-HW-4) whose split does not foul; with "keep", the best front whose'
        " back keeps that"
    ),
}
FRONTS: tuple[str, ...] = (*PAIR_FRONTS, *OTHER_FRONTS)
#: Fronts that may go with ``keep``: chosen among the splits that keep the back.
KEEP_FRONTS: tuple[str, ...] = (*PAIR_FRONTS, "best front")
JOKER_WORDS: dict[str, str] = {
    "front": "when the joker is one of the cards a pair front may take, it goes front",
}

#: Keys of one clause.
CLAUSE_KEYS: dict[str, str] = {
    "id": "the clause's stable id, `<way>.<family>.<detail>` (recorded in events)",
    "text": "the clause as the casino prints it",
    "when": "a table of conditions that must all hold (none: always)",
    "front": "which two cards go front: a phrase, or a list of phrases tried in order",
    "keep": "the back the split must keep (optional)",
    "joker": '"front" (optional): the joker goes front with a pair of aces',
    "use": "instead of id, text and front: the family whose clauses decide (R-HW-3)",
}

_RANK = "|".join(sorted(RANK_BY_NAME, key=len, reverse=True))
_RANGE = re.compile(rf"^({_RANK})(?:(\+)|-({_RANK}))?$")
_COUNT = re.compile(r"^(\d)(?:(\+)|-(\d))?$")


def parse_ranks(text: str) -> frozenset[int]:
    """``"7-10"`` -> {7, 8, 9, 10}; ``"J+"`` -> {11, 12, 13, 14}; ``"A"`` -> {14}."""
    found = _RANGE.match(text)
    if not found:
        raise ValueError(f"bad rank {text!r}: expected {RANK_HELP}")
    low = RANK_BY_NAME[found[1]]
    high = ACE if found[2] else RANK_BY_NAME[found[3]] if found[3] else low
    if high < low:
        raise ValueError(f"bad rank range {text!r}: the higher rank comes second")
    return frozenset(range(low, high + 1))


def parse_rank(text: str) -> int:
    """One rank name."""
    if text not in RANK_BY_NAME:
        raise ValueError(f"bad rank {text!r}: expected 2-10, J, Q, K or A")
    return RANK_BY_NAME[text]


def parse_count(text: str) -> frozenset[int]:
    """``"2"`` -> {2}; ``"1+"`` -> {1, ..., 7}; ``"1-2"`` -> {1, 2}."""
    found = _COUNT.match(text)
    if not found:
        raise ValueError(f"bad count {text!r}: expected a number, a range such as 1-2, or 1+")
    low = int(found[1])
    high = 7 if found[2] else int(found[3]) if found[3] else low
    if high < low:
        raise ValueError(f"bad count range {text!r}: the higher number comes second")
    return frozenset(range(low, high + 1))


def known(words: Iterable[str]) -> str:
    """``(a, b)`` -> ``"a", "b"`` for an error line."""
    return ", ".join(f'"{w}"' for w in words)
