"""Regenerate docs/house-ways.md from the House Ways' own clause tables (run after changing one)."""

from __future__ import annotations

from pathlib import Path

from adapters.cli.commands.house_way import clause_table
from table_core.house_ways import BUILT_IN

DOC = Path(__file__).resolve().parent.parent / "docs" / "house-ways.md"

HEADER = """# House Ways: every clause id

Generated from the code by `python scripts/gen_house_way_docs.py` (a test checks it is current);
`paigow house-way clauses` prints the same table. The rule text is the section "The House Way" of
[rules.md](rules.md#the-house-way) (R-HW-1..6); clause ids are stable: they are recorded in events
and read by audits.

An id is `<house way>.<family>.<detail>`; the family is the R-HW-3 step that selected the hand
(`five_aces`, `four_of_a_kind`, `straights`, `full_house`, `trips`, `three_pairs`, `two_pairs`,
`one_pair`, `no_pair`). When a clause sends the hand to another ("use the two-pair rule"), the id
recorded is the deciding clause's own. Where a clause leaves a choice, R-HW-4 decides: the best
front, then the best back; on an exact tie a real ace goes front and the joker stays back.
Choices made where the text is silent are in [decisions.md](decisions.md) and in the "why" of the
golden vectors (`tests/unit/house_ways/golden/`).

"""


def render() -> str:
    return HEADER + clause_table(list(BUILT_IN))


if __name__ == "__main__":
    DOC.write_text(render())
    print(f"wrote {DOC}")
