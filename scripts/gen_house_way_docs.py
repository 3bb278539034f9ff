"""Regenerate docs/house-ways.md from the House Ways' own clause tables (run after changing one)."""

from __future__ import annotations

from pathlib import Path

from entrypoints.cli.commands.house_way import clause_table
from scripts import house_way_file_doc, house_way_tools_doc
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


CHANGES = """
## What changed, and why

- **fr straights and flushes, clarified.** The rulebook clarified two points of
  the `fr` straight clause ([rules.md](rules.md#fr-the-french-documents-house-way)); the clause ids
  are the same, the decisions of a few hands changed:
  - exception (a) counts pairs as R-HW-2 does (A + JK is a pair of aces). Three pairs can stand
    beside a straight or flush only when the joker pairs a single ace; such a hand meets (a)
    (aces with any other pair) and takes the three-pair rule, recorded as
    `fr.three_pairs.highest_pair_front`. `As 3s 2s JK 4s 4d 2c` now sets `As JK` front and
    `4s 4d 3s 2s 2c` back (before: the wheel straight flush back, `4d 2c` front, by
    `fr.straights.keep_straight_flush`); `As JK 3d 3c 4h 4s 2c` sets `As JK` front (before:
    `fr.straights.best_front`, `4h 3c` front).
  - exceptions (b) and (c) give up a straight flush (a royal flush) for a plain straight or flush
    whose front is better and jack-high (king-high) or better, and any pair counts as better than
    jack-high. Before, a pair front counted by its rank, so a pair below jacks never qualified.
    `7s 8s Js Ts 9s Qd 7c` now sets `7s 7c` front and the queen-high straight back, by
    `fr.straights.give_up_straight_flush` (before: the jack-high straight flush back, `Qd 7c`
    front, by `fr.straights.keep_straight_flush`).

  The three hands are golden vectors (`tests/unit/house_ways/golden/fr.json`), and so is the one
  the old doubtful reading had kept (`8s 9s Ts Js Qs 8h Kh`: now the 9-K straight back and the
  eights front). The memo by rank pattern gives the same decisions as the direct path on them
  (`tests/unit/house_ways/test_memo.py`). Over 2,000,000 random hands (seed 7) the memo and the
  direct path agree on every hand, and 674 hands are set differently than before: 448 three-pair
  hands now take the three-pair rule (440 from `fr.straights.best_front`, 6 from
  `keep_royal_flush`, 2 from `keep_straight_flush`), 217 straight flushes and 9 royal flushes
  are given up for a pair front. The large-sample check (`benchmarks/ci_house_way_large_sample.py`,
  2,000,000 hands, seed 7) sets every hand by every House Way without a foul.
"""


def render() -> str:
    return (
        HEADER
        + clause_table(list(BUILT_IN))
        + "\n"
        + house_way_file_doc.render()
        + house_way_tools_doc.render()
        + CHANGES
    )


if __name__ == "__main__":
    DOC.write_text(render())
    print(f"wrote {DOC}")
