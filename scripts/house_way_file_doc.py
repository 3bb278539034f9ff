"""The section "Write your casino's House Way" of docs/house-ways.md, its vocabulary rendered from
``table_core.house_ways.spec_words`` (so every word the interpreter knows is described)."""

from __future__ import annotations

from table_core.house_ways.spec_words import (
    CARD_CONDITIONS,
    CLAUSE_KEYS,
    JOKER_WORDS,
    KEEPS,
    OTHER_FRONTS,
    PAIR_FRONTS,
    RESULT_CONDITIONS,
    STRAIGHT_FLUSH_BACKS,
)

INTRO = """
## Write your casino's House Way

A casino's own House Way is a TOML file, written without Python: its `name`, then the clauses of
each family of R-HW-3, in the casino's order. `paigow` reads it with the standard library's
`tomllib`, validates every word, and sets hands with a small interpreter: no code in the file is
ever run. The four built-in House Ways are written this way too
(`table_core/house_ways/fr.toml`, `es.toml`, `trump_plaza.toml`, `foxwoods.toml`), and they set
every one of the 154,143,080 seven-card hands exactly as the Python ways above, split and clause
id (`benchmarks/bench_house_way_files.py`; a fixed sample of 2,000,000 hands in CI,
`benchmarks/ci_house_way_large_sample.py`).

How a hand is set:

1. R-HW-3 picks the family of the seven cards (five aces, four of a kind, straights and flushes,
   full house, trips, three pairs, two pairs, one pair, no pair); the joker counts as an ace in
   every shape (R-HW-2).
2. That family's clauses are tried in the file's order. The first one whose conditions (`when`)
   all hold, and whose `front` the hand can make, decides: its two cards go front, the other five
   back, and its `id` is recorded. A front the hand cannot make (`"pair of kings"` without two
   kings) passes the hand to the next clause.
3. A clause with `use = "<family>"` sends the hand to that family's clauses instead, which record
   their own id ("with two pairs, the two-pair rule"). Sending never makes a loop: the file is
   refused if it could.
4. Where a front leaves a choice (which two of three aces, which straight to keep), R-HW-4
   decides: the best front, then the best back; on an exact tie a real ace goes front.

Each clause id is `<name>.<family>.<detail>` (lower-case letters, digits and `_`), unique in the
file: it is what events record and audits read. A clause whose front can foul is accepted when the
file is read; certifying the file finds the hands (R-HW-5), and a table never plays a foul.

### The words

Ranks are written `2` to `10` (or `T`), `J`, `Q`, `K`, `A`; a rank condition takes one rank, a
range (`"7-10"`) or a floor (`"J+"`: jacks or better). Counts take a number, a range (`"1-2"`) or
a floor (`"1+"`).
"""

EXAMPLE = """
### A worked example: a casino that keeps two low pairs together

[lakeside.toml](examples/lakeside.toml) is a whole House Way file. Its two-pair clauses keep two
pairs of sixes or lower together, where most ways split them:

```toml
[[two_pairs]]
id = "lakeside.two_pairs.low_pairs_together"
text = "Two pairs, both sixes or lower: both pairs stay back, the two highest singles go front."
when = { high_pair = "2-6" }
front = "two highest singles"

[[two_pairs]]
id = "lakeside.two_pairs.ace_front"
text = "Sevens to tens over a lower pair, with a single ace: the ace and next single front."
when = { high_pair = "7-10", single_ace = true }
front = "two highest singles"

[[two_pairs]]
id = "lakeside.two_pairs.split"
text = "Two pairs otherwise: split, the lower pair goes front."
front = "lower pair"
```

`5s 5h 3d 3c Kh 9d 4c` is set with `Kh 9d` front and both pairs back, by
`lakeside.two_pairs.low_pairs_together`. Its straight clauses show `use` and `keep`:

```toml
[[straights]]
when = { pair_count = 2 }
use = "two_pairs"

[[straights]]
id = "lakeside.straights.pair_front"
text = "Straight or flush with one pair: the pair front if a straight or flush stays back."
front = "highest pair"
keep = "straight or flush"
```

### When a file is refused

Every problem is one line with the file's line number, and nothing of the file is used:

```text
mine.toml:8: unknown family 'fourofakind' (families: "five_aces", "four_of_a_kind", ...)
mine.toml:12: clause id 'other.two_pairs.split' must start with the way's name: mine.two_pairs.
mine.toml:14: bad rank range 'K-7': the higher rank comes second
mine.toml:20: unknown front 'the big ones' (known: "highest pair", "lower pair", ...)
```
"""


def _table(title: str, rows: dict[str, str], quoted: bool = False) -> str:
    lines = [f"| {title} | meaning |", "| --- | --- |"]
    for word, meaning in rows.items():
        shown = f'`"{word}"`' if quoted else f"`{word}`"
        lines.append(f"| {shown} | {meaning} |")
    return "\n".join(lines) + "\n"


def render() -> str:
    """The whole section, Markdown."""
    conditions = "| condition | value | meaning |\n| --- | --- | --- |\n" + "".join(
        f"| `{word}` | {value} | {meaning} |\n"
        for word, (value, meaning) in CARD_CONDITIONS.items()
    )
    parts = [
        INTRO,
        "Keys of a clause (`[[<family>]]`):\n\n" + _table("key", CLAUSE_KEYS),
        "Conditions (`when = { ... }`), tested on the seven cards:\n\n" + conditions,
        "`straight_flush_back` values:\n\n" + _table("value", STRAIGHT_FLUSH_BACKS, quoted=True),
        "Conditions tested on the split the clause would set (a clause whose split fails them"
        " passes the hand on):\n\n" + _table("condition", RESULT_CONDITIONS),
        "Fronts that name a pair (when the rank holds three or more cards, R-HW-4 picks the"
        " two):\n\n" + _table("front", PAIR_FRONTS, quoted=True),
        "Other fronts:\n\n" + _table("front", OTHER_FRONTS, quoted=True),
        'Backs to keep (`keep`; `front_beats`), with a pair front or `"best front"`:\n\n'
        + _table("keep", KEEPS, quoted=True),
        "`joker` values:\n\n" + _table("joker", JOKER_WORDS, quoted=True),
        EXAMPLE,
    ]
    return "\n".join(part.strip("\n") + "\n" for part in parts)
