"""Shared script pieces for the table aggregate's tests: actors, a fixed time, a test House Way.

``test_way`` is a tiny House Way whose choices a reader can work out by hand: no pair, the highest
card back and the next two front; one pair, the pair back and the two highest others front
(both as ``fr`` and ``es`` have it); anything else, the best legal front (R-HW-4).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from table_core.cards import card_text, parse_cards
from table_core.commands import Command, SetHand
from table_core.events import Actor, Event
from table_core.house_ways import register
from table_core.house_ways.shape import Candidate, Shape, best_front_keeping, two_highest_front
from table_core.rules import HouseRules, TableLimits, TableRules
from table_core.table import TableState, decide, fold

AT = datetime(2025, 3, 14, 21, 30, tzinfo=UTC)
TABLE = "PG-04"
FLOOR = Actor(id="floor-marie", role="floor")
DEALER = Actor(id="dealer-lucas", role="dealer")
CAGE = Actor(id="cage-1", role="cage")
SYSTEM = Actor(id="shuffler-9", role="system")

TEST_WAY = "test_way"
TEST_WAY_CLAUSES = {
    "test_way.no_pair": "no pair: the highest card back, the next two highest front",
    "test_way.one_pair": "one pair: the pair back, the two highest other cards front",
    "test_way.best_front": "anything else: the best legal front, then the best back (R-HW-4)",
}


def _test_way(shape: Shape) -> tuple[Candidate, str]:
    plain = not (shape.fives or shape.quads or shape.trips or shape.has_straight_or_flush)
    if plain and not shape.pairs:
        return two_highest_front(shape, exclude_ranks=shape.singles[:1]), "test_way.no_pair"
    if plain and len(shape.pairs) == 1:
        return two_highest_front(shape, exclude_ranks=shape.pairs), "test_way.one_pair"
    chosen = best_front_keeping(shape, lambda c: True)
    assert chosen is not None
    return chosen, "test_way.best_front"


register(TEST_WAY, TEST_WAY_CLAUSES, _test_way)


def player(player_id: str) -> Actor:
    return Actor(id=player_id, role="player")


def rules(hand: dict[str, object] | None = None, **changes: object) -> TableRules:
    """The test profile: ``test_way``, limits 10.00..1,000.00, deck custody not required (these
    tests are about the round's rules and deal from a shuffler's deck without custody facts;
    R20's own tests, test_deck_custody.py, require it), otherwise the defaults."""
    hand_rules = HouseRules.model_validate({"house_way": TEST_WAY, **(hand or {})})
    limits = TableLimits(min_bet=1_000, max_bet=100_000)
    return TableRules.model_validate(
        {"hand": hand_rules, "limits": limits, "deck_custody_required": False, **changes}
    )


def cards(text: str) -> tuple[str, ...]:
    """Hand text as events record it: canonical, in the order given."""
    return tuple(card_text(c) for c in parse_cards(text))


class Script:
    """Runs commands through ``decide`` and keeps the live state and every event emitted."""

    def __init__(self, state: TableState | None = None) -> None:
        self.state = state or TableState()
        self.events: list[Event] = []

    def __call__(self, command: Command) -> list[Event]:
        new = decide(self.state, command)
        self.state = fold(new, self.state)
        self.events.extend(new)
        return new

    def run(self, commands: Iterable[Command]) -> list[Event]:
        out: list[Event] = []
        for command in commands:
            out.extend(self(command))
        return out


def set_by(name: str, split: str) -> SetHand:
    """The player ``name`` sets ``"back cards / front cards"``."""
    back, front = split.split("/")
    return SetHand(
        player_id=name, back=back.split(), front=front.split(), actor=player(name), at=AT
    )
