"""Two House Ways on every hand: where they set it differently (``paigow house-way diff``).

Two ways set a hand differently when their fronts hold different ranks (the joker told apart
from a real ace) or their backs differ in value. Splits that differ only in which suit of a rank
goes front play alike, and this is what makes the count the same for every hand of a suit class,
so :func:`diff_classes` decides each weighted class once with each way (``hand_classes``).
Differences are counted by the R-HW-3 family of the hand and by the pair of clauses that decided
it; the banker's front distribution is counted for each way, so its difference is exact too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from table_core.cards import JOKER, card_text
from table_core.hands import FiveCardTables, tables_for
from table_core.house_ways import HouseWay
from table_core.house_ways.certify import decide_safely, front_category, front_high_card, hand_text
from table_core.house_ways.hand_classes import HandClass
from table_core.house_ways.shape import Candidate, analyse, family

_JOKER_APART = 15  # the joker's rank here, so that a joker front is not an ace front


def played_as(split: Candidate) -> tuple[tuple[int, ...], int]:
    """What a split plays as: its front's ranks and its back's value."""
    ranks = sorted(_JOKER_APART if c == JOKER else (c >> 2) + 2 for c in split.front)
    return tuple(ranks), split.back_strength


def split_text(split: Candidate, clause: str) -> str:
    back = " ".join(card_text(c) for c in split.back)
    return f"{back} / {' '.join(card_text(c) for c in split.front)} ({clause})"


@dataclass
class DiffTally:
    hands: int = 0
    different: int = 0
    by_family: Counter[str] = field(default_factory=Counter)
    #: (clause of the first way, clause of the second) -> hands set differently
    by_clauses: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: Per way (0: the first, 1: the second), the banker's front: category and high card.
    front: tuple[Counter[str], Counter[str]] = field(default_factory=lambda: (Counter(), Counter()))
    front_high: tuple[Counter[str], Counter[str]] = field(
        default_factory=lambda: (Counter(), Counter())
    )
    examples: list[tuple[str, str, str]] = field(default_factory=list)
    #: Hands a way could not set (a way that does not certify): one line each, a few kept.
    undecided: Counter[str] = field(default_factory=Counter)
    keep: int = 5

    def merge(self, other: DiffTally) -> DiffTally:
        self.hands += other.hands
        self.different += other.different
        self.by_family.update(other.by_family)
        self.by_clauses.update(other.by_clauses)
        self.undecided.update(other.undecided)
        for k in (0, 1):
            self.front[k].update(other.front[k])
            self.front_high[k].update(other.front_high[k])
        self.examples.extend(other.examples[: max(0, self.keep - len(self.examples))])
        return self


def diff_classes(
    first: HouseWay,
    second: HouseWay,
    classes: Iterable[HandClass],
    tables: FiveCardTables | None = None,
) -> DiffTally:
    """Decide each class with both ways and count, by the class's weight, where they differ."""
    tables = tables or tables_for("second")
    tally = DiffTally()
    ways = (first, second)
    for cards, weight in classes:
        tally.hands += weight
        decisions = [decide_safely(way.decide, cards, tables) for way in ways]
        for k, decision in enumerate(decisions):
            if isinstance(decision, str):
                tally.undecided[ways[k].name] += weight
                continue
            front_strength = decision[0].front_strength
            tally.front[k][front_category(front_strength)] += weight
            tally.front_high[k][front_high_card(front_strength)] += weight
        a, b = decisions
        if isinstance(a, str) or isinstance(b, str):
            continue
        if played_as(a[0]) == played_as(b[0]):
            continue
        tally.different += weight
        tally.by_family[family(analyse(cards, tables))] += weight
        tally.by_clauses[(a[1], b[1])] += weight
        if len(tally.examples) < tally.keep:
            tally.examples.append((hand_text(cards), split_text(*a), split_text(*b)))
    return tally
