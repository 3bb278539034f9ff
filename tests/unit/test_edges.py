"""The house edges that ratings' theoretical win uses (table_core/edges.py, issue 18): the side
bets' figures are recomputed here from R-VAR-7's exact line counts and the pay tables, the main
wagers' looked up by House Way and variant."""

from __future__ import annotations

from fractions import Fraction

from table_core import edges
from table_core.rules import TableRules
from table_core.side_bets import SideBetRules
from table_core.side_bets.pay_tables import EMPERORS_TREASURE, FORTUNE_5000, FORTUNE_8000
from table_core.side_bets.reference import FORTUNE_LINES, PAI_GOW


def _edge(pays: dict[str, int]) -> Fraction:
    """The house's win per unit over all 154,143,080 hands, from the Fortune classes (each hand's
    best Fortune line): right for a table that pays Fortune's lines."""
    lines = list(FORTUNE_LINES)  # best first
    paid, won = 0, 0
    for line, count in FORTUNE_LINES.items():
        if line == "nothing":
            continue
        held = lines[lines.index(line) :]  # a royal match is a royal flush too, and so on down
        best = next((pays[h] for h in held if h in pays), None)
        if best is not None:
            paid += count * best
            won += count
    for line, count in PAI_GOW.items():  # no-pair hands: only a table that lists them pays
        if line in pays:
            paid += count * pays[line]
            won += count
    return Fraction(edges.TOTAL_HANDS - won - paid, edges.TOTAL_HANDS)


def test_the_side_bet_edges_are_the_exact_counts() -> None:
    for table in (FORTUNE_8000, FORTUNE_5000):
        assert edges.SIDE[table.name] == _edge(dict(table.pays)), table.name
    assert edges.SIDE["fortune_8000"] == Fraction(11_970_096, 154_143_080)  # docs/side-bets.md
    # Emperor's Treasure pays lines the Fortune classes do not separate (a straight with trips is
    # one class there): its figure is the exhaustive count's own (docs/side-bets.md).
    assert edges.SIDE[EMPERORS_TREASURE.name] == Fraction(6_429_936, 154_143_080)


def test_main_edges_by_house_way_and_variant() -> None:
    rules = TableRules().model_dump(mode="json")
    assert edges.main_edge(rules) == (Fraction(2_692, 100_000), "analyze edge fr")
    ez = TableRules(variant="ez").model_dump(mode="json")
    assert edges.main_edge(ez)[0] == Fraction(2_762, 100_000)
    fortune = TableRules(side_bets=SideBetRules(offered=frozenset({"fortune"})))
    assert edges.side_edge(fortune.model_dump(mode="json"), "fortune") == edges.SIDE["fortune_8000"]
    assert edges.side_edge(rules, "progressive") is None
