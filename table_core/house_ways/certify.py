"""A House Way checked on every hand (issue 32): the counts a certificate states.

:func:`tally_classes` decides each weighted class of hands (``hand_classes``) once and counts, by
the class's weight: the clause that decided it, the R-HW-3 family, the banker's back category, the
front's category and high card, and every failure, with example hands. A failure is a hand no
clause decides (the way raises), a clause the way does not list, a split that is not the seven
cards, or a split that fouls (R-HW-5). Tallies of disjoint classes add up (``merge``), so the
patterns may be shared among processes; the process pool lives outside the core.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from table_core.cards import RANK_CHARS, Card, card_text
from table_core.errors import DomainError
from table_core.hands import CATEGORY_NAMES, FiveCardTables, is_legal_split, tables_for
from table_core.house_ways import Decide, HouseWay
from table_core.house_ways.hand_classes import HandClass, Pattern, hand_classes
from table_core.house_ways.shape import Decision, analyse, family

#: Failure kinds, as the certificate names them.
NO_CLAUSE = "no_clause_decides"
UNDOCUMENTED = "undocumented_clause"
NOT_THE_CARDS = "split_not_the_cards"
FOUL = "split_fouls"
FAILURES = (NO_CLAUSE, UNDOCUMENTED, NOT_THE_CARDS, FOUL)


def hand_text(cards: Iterable[Card]) -> str:
    return " ".join(card_text(c) for c in cards)


def front_high_card(front_strength: int) -> str:
    """The front's highest rank as a rank character (a pair's rank for a pair, R-LO-1)."""
    return RANK_CHARS[((front_strength >> 4) & 15) - 2]


def front_category(front_strength: int) -> str:
    return "one_pair" if front_strength >= 256 else "high_card"


@dataclass
class Tally:
    """Hands counted by what the House Way did with them (every count is a number of hands)."""

    hands: int = 0
    decisions: int = 0
    clauses: Counter[str] = field(default_factory=Counter)
    families: Counter[str] = field(default_factory=Counter)
    back: Counter[str] = field(default_factory=Counter)
    front: Counter[str] = field(default_factory=Counter)
    front_high: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    #: Per failure kind, up to ``keep`` example lines: the hand, then what went wrong.
    examples: dict[str, list[str]] = field(default_factory=dict)
    keep: int = 5

    def merge(self, other: Tally) -> Tally:
        self.hands += other.hands
        self.decisions += other.decisions
        for mine, theirs in (
            (self.clauses, other.clauses),
            (self.families, other.families),
            (self.back, other.back),
            (self.front, other.front),
            (self.front_high, other.front_high),
            (self.failures, other.failures),
        ):
            mine.update(theirs)
        for kind, lines in other.examples.items():
            kept = self.examples.setdefault(kind, [])
            kept.extend(lines[: max(0, self.keep - len(kept))])
        return self

    def fail(self, kind: str, weight: int, line: str) -> None:
        self.failures[kind] += weight
        kept = self.examples.setdefault(kind, [])
        if len(kept) < self.keep:
            kept.append(line)

    def add(self, way: HouseWay, cards: tuple[Card, ...], weight: int, decision: Decision) -> None:
        """Count one decided class (``cards`` its representative, ``weight`` its hands)."""
        self.hands += weight
        self.decisions += 1
        chosen, clause = decision
        self.clauses[clause] += weight
        shown = hand_text(cards)
        if clause not in way.clauses:
            self.fail(UNDOCUMENTED, weight, f"{shown}: {clause} is not a clause of {way.name}")
        if len(chosen.front) != 2 or sorted((*chosen.front, *chosen.back)) != sorted(cards):
            set_as = f"{hand_text(chosen.back)} / {hand_text(chosen.front)}"
            self.fail(NOT_THE_CARDS, weight, f"{shown}: {clause} set {set_as}")
            return
        if not is_legal_split(chosen.back_strength, chosen.front_strength):
            set_as = f"{hand_text(chosen.back)} / {hand_text(chosen.front)}"
            self.fail(FOUL, weight, f"{shown}: {clause} sets {set_as}, a foul (R-HW-5)")
        self.back[CATEGORY_NAMES[chosen.back_strength >> 20]] += weight
        self.front[front_category(chosen.front_strength)] += weight
        self.front_high[front_high_card(chosen.front_strength)] += weight


def decide_safely(
    decide: Decide, cards: tuple[Card, ...], tables: FiveCardTables
) -> Decision | str:
    """The way's decision, or one line saying why it gave none (a hand no clause decides)."""
    try:
        return decide(analyse(cards, tables))
    except (DomainError, ValueError, LookupError, AssertionError) as error:
        return str(error).splitlines()[0] if str(error) else type(error).__name__


def tally_classes(
    way: HouseWay, classes: Iterable[HandClass], tables: FiveCardTables | None = None
) -> Tally:
    """Decide each class once and count it by its weight."""
    tables = tables or tables_for("second")
    tally = Tally()
    decide = way.decide
    for cards, weight in classes:
        tally.families[family(analyse(cards, tables))] += weight
        decision = decide_safely(decide, cards, tables)
        if isinstance(decision, str):
            tally.hands += weight
            tally.decisions += 1
            tally.fail(NO_CLAUSE, weight, f"{hand_text(cards)}: {decision}")
            continue
        tally.add(way, cards, weight, decision)
    return tally


def tally_patterns(
    way: HouseWay, patterns: Iterable[Pattern], tables: FiveCardTables | None = None
) -> Tally:
    """Every hand of ``patterns`` by suit class (sound only for a way that reads suits through
    straights and flushes alone: ``way.by_rank_pattern``)."""
    if not way.by_rank_pattern:
        raise DomainError(f"House Way {way.name} reads suits: certify it on every hand")
    return tally_classes(way, (c for p in patterns for c in hand_classes(p)), tables)


def tally_hands(
    way: HouseWay, hands: Iterable[tuple[Card, ...]], tables: FiveCardTables | None = None
) -> Tally:
    """Every hand of ``hands`` one by one (a way that reads suits otherwise)."""
    return tally_classes(way, ((cards, 1) for cards in hands), tables)
