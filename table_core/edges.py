"""The house edge of each bet, for players' ratings (issue 18): a versioned table the project
computed itself, each figure with its source.

- **Main wagers**: ``paigow analyze edge`` (docs/game-figures.md): 4,000,000 rounds per House Way,
  dealer banking, 5% commission, players set by the table's House Way; the variants from its
  1,000,000-hand runs. A combination without a figure of its own (another commission, a House Way
  pair the table does not list) takes its House Way's standard edge, and says so (``source``).
- **Side bets**: exact, over all C(53,7) = 154,143,080 hands (docs/side-bets.md, the exhaustive
  count of ``table_core/side_bets/exhaustive.py``, R-VAR-7): the house's win in hands over the
  total, by pay table name. A table without a figure here (the casino's own insurance table, the
  progressive, whose edge depends on the meter) has no theoretical win (``None``).

A new figure is a new ``VERSION``: ratings record the version they were computed under.
"""

from __future__ import annotations

from fractions import Fraction

VERSION = "2026-12-01.2"  # .2: fr re-measured after the clarified straights clauses
TOTAL_HANDS = 154_143_080

#: House Way -> main-wager edge (commission game, 5%, dealer banking): docs/game-figures.md.
MAIN: dict[str, Fraction] = {
    "trump_plaza": Fraction(2_719, 100_000),
    "foxwoods": Fraction(2_709, 100_000),
    "fr": Fraction(2_692, 100_000),
    "es": Fraction(2_773, 100_000),
}
#: (House Way, variant) -> edge, where the variant changes it (docs/game-figures.md).
VARIANTS: dict[tuple[str, str], Fraction] = {
    ("fr", "commission_free"): Fraction(2_488, 100_000),
    ("trump_plaza", "commission_free"): Fraction(2_473, 100_000),
    ("fr", "ez"): Fraction(2_762, 100_000),
    ("trump_plaza", "ez"): Fraction(2_789, 100_000),
}
#: Side-bet pay table name -> the house's win in hands (of TOTAL_HANDS): docs/side-bets.md.
SIDE: dict[str, Fraction] = {
    "fortune_8000": Fraction(11_970_096, TOTAL_HANDS),
    "fortune_5000": Fraction(12_066_096, TOTAL_HANDS),
    "emperors_treasure": Fraction(6_429_936, TOTAL_HANDS),
}


def main_edge(rules: dict[str, object]) -> tuple[Fraction | None, str]:
    """The main wager's edge under a rules profile (its JSON form) and where it comes from."""
    hand = rules.get("hand")
    house_way = hand.get("house_way") if isinstance(hand, dict) else None
    variant = rules.get("variant", "commission")
    if not isinstance(house_way, str) or house_way not in MAIN:
        return None, f"no figure for House Way {house_way!r}"
    if isinstance(variant, str) and (house_way, variant) in VARIANTS:
        return VARIANTS[(house_way, variant)], f"analyze edge {house_way} {variant}"
    if variant not in (None, "commission"):
        return MAIN[house_way], f"analyze edge {house_way} (standard game: no {variant} figure)"
    return MAIN[house_way], f"analyze edge {house_way}"


def side_edge(rules: dict[str, object], bet: str) -> Fraction | None:
    """The exact edge of ``bet`` under the profile's pay table, ``None`` without a figure."""
    side = rules.get("side_bets")
    table = side.get(bet) if isinstance(side, dict) else None
    name = table.get("name") if isinstance(table, dict) else None
    return SIDE.get(name) if isinstance(name, str) else None
