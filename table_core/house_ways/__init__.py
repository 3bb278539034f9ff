"""House Ways (R-HW-1..6): named, pure, deterministic rules that set seven cards.

Each House Way is a module with ``NAME``, ``CLAUSES`` (clause id -> what it says, in rule order)
and ``decide(shape) -> (Candidate, clause id)`` (``shape.by_family``: the clause family picks the
module's rule); :func:`set_by_house_way` validates the cards, runs the House Way and checks that
its split is legal (R-HW-5). ``REGISTRY`` maps names to modules; a casino's own House Way is one
more module registered with :func:`register`. The built-ins are memoised by rank pattern
(``house_ways.memo``), which gives exactly what their ``decide`` gives.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import import_module

from table_core.cards import Card, card_text, check_distinct
from table_core.errors import CardError, ConfigurationError, DomainError
from table_core.hands import FiveCardTables, is_legal_split, tables_for
from table_core.house_ways.memo import SetCards, memoised
from table_core.house_ways.shape import Candidate, Shape, analyse
from table_core.split import DISPLAY_KEY, Split, display_order

Decide = Callable[[Shape], tuple[Candidate, str]]

BUILT_IN = ("fr", "es", "trump_plaza", "foxwoods")
_new_split = tuple.__new__  # Split(...) without the named tuple's Python-level __new__


@dataclass(frozen=True)
class HouseWay:
    name: str
    clauses: Mapping[str, str]
    decide: Decide
    #: With no straight or flush possible, ``decide`` reads only ranks and card order, never suits
    #: (so ``house_ways.memo`` may replay it by rank pattern).
    by_rank_pattern: bool = False

    def setter(self, tables: FiveCardTables | None = None, *, memo: bool = True) -> SetCards:
        """``cards -> decide(analyse(cards, tables))`` for seven distinct valid cards, memoised
        when the House Way allows it (``memo=False``: never, for comparisons)."""
        tables = tables or tables_for("second")
        if memo and self.by_rank_pattern:
            return memoised(self.decide, tables)
        decide = self.decide
        return lambda cards: decide(analyse(cards, tables))


REGISTRY: dict[str, HouseWay] = {}


def digest_of(text: str) -> str:
    """SHA-256 hex of a House Way file's UTF-8 bytes (what events and certificates record)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def register(
    name: str, clauses: Mapping[str, str], decide: Decide, *, by_rank_pattern: bool = False
) -> HouseWay:
    """Register a House Way; its clause ids must start with ``name.`` (stable ids, R-HW-1).

    ``by_rank_pattern=True`` promises that, when no straight or flush can be formed, ``decide``
    reads only the Shape's ranks and card order (no suits), so its decisions may be memoised.
    """
    for clause in clauses:
        if not clause.startswith(f"{name}."):
            raise ConfigurationError(f"clause {clause!r} of House Way {name!r} must start {name}.")
    way = HouseWay(name, dict(clauses), decide, by_rank_pattern)
    REGISTRY[name] = way
    return way


def get_house_way(name: str) -> HouseWay:
    """The House Way called ``name``: built-ins load on first use."""
    if name not in REGISTRY and name in BUILT_IN:
        module = import_module(f"table_core.house_ways.{name}")
        # tests/unit/house_ways/test_memo.py checks the by-rank-pattern promise of each built-in.
        register(module.NAME, module.CLAUSES, module.decide, by_rank_pattern=True)
    if name not in REGISTRY:
        known = ", ".join(sorted(set(BUILT_IN) | set(REGISTRY)))
        raise ConfigurationError(f"unknown House Way: {name!r} (known: {known})", rule="R-HW-1")
    return REGISTRY[name]


#: Per House Way name, the way, the tables and the setter ``set_by_house_way`` last used (a table
#: sets seven hands a round with the same three).
_SETTERS: dict[str, tuple[HouseWay, FiveCardTables | None, SetCards]] = {}


def set_by_house_way(
    cards: Sequence[Card], house_way: str | HouseWay, tables: FiveCardTables | None = None
) -> Split:
    """Set seven cards by ``house_way``: the split and the id of the clause that decided it (the
    House Way's own setting, R-HW-1; a player's own split is the table's ``SetHand`` command).
    ``house_way`` is a registered name or the way itself (a casino's file installed on a table,
    issue 32, which is in no registry)."""
    if len(cards) != 7:
        raise CardError(f"a House Way sets 7 cards, got {len(cards)}")
    check_distinct(cards)
    if isinstance(house_way, HouseWay):
        way = house_way
        house_way = way.name
    else:
        way = REGISTRY.get(house_way) or get_house_way(house_way)
    last = _SETTERS.get(house_way)
    if last is not None and last[0] is way and last[1] is tables:
        setter = last[2]
    else:
        setter = way.setter(tables)
        _SETTERS[house_way] = (way, tables, setter)
    chosen, clause = setter(cards)
    if clause not in way.clauses:
        raise DomainError(f"House Way {house_way} answered an undocumented clause {clause!r}")
    if not is_legal_split(chosen.back_strength, chosen.front_strength):  # chosen.legal
        # R-HW-5: a House Way never fouls; a bug here must not reach a table
        shown = " ".join(card_text(c) for c in cards)
        raise DomainError(f"House Way {house_way} fouled {shown} by {clause}", rule="R-HW-5")
    a, b = chosen.front  # display_order of two cards, without sorting
    front = (a, b) if DISPLAY_KEY[a] <= DISPLAY_KEY[b] else (b, a)
    return _new_split(Split, (display_order(chosen.back), front, clause))
