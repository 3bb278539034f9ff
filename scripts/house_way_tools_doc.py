"""The tools' part of docs/house-ways.md, "Write your casino's House Way": certify, diff, edge
and install (rendered by ``scripts/gen_house_way_docs.py`` after the file format's part)."""

from __future__ import annotations

TOOLS = r"""
### Certify

```text
$ paigow house-way certify lakeside.toml --jobs 2 --certificate lakeside.json
House Way lakeside: CERTIFIED
file SHA-256 …
154,143,080 of 154,143,080 hands (suit_classes: 448,409 decisions)
unreachable clauses: none
hands per clause: …
```

`paigow house-way certify FILE [--jobs N] [--certificate OUT] [--format summary|json]` decides
every one of the 154,143,080 seven-card hands of the 53-card deck with the file and checks that
each is decided by exactly one of its clauses (the first that holds, rule 2 above) and that no
split fouls (R-HW-5). It counts the hands each clause decides, lists the clauses no hand reaches,
and counts the banker's back by category, the banker's front as a pair or high card, and the
front's high card. FILE may also be a built-in's name (`fr`): its shipped file.

It exits 0 when the file certifies and 1 when it does not, with up to five example hands per
failure: a hand no clause decides (a family with a gap), a split that fouls, a clause id the file
does not list. An unreachable clause is listed but does not fail a file: it cannot set a hand
wrong, and some ways keep a clause for a hand this deck makes rare or impossible.

The words of a file read suits only through straights and flushes, so two hands that differ only
by renaming the suits are set alike. The certificate therefore decides one hand of each suit
class and counts it as many times as the class has hands, and among the hands of one rank pattern
that cannot form a flush it decides one (they are all set alike, as the rank-pattern memo
promises). `tests/unit/house_ways/test_hand_classes.py` proves the reduction against every hand of
small decks, and `tests/unit/house_ways/test_certify.py` a broken file's failures.

`--certificate OUT` writes the certificate: JSON, one figure a line (`format`, `house_way`,
`file_sha256`, `certified`, `hands`, `enumeration`, `decisions`, `failures`,
`failure_examples`, `unreachable_clauses`, `clauses`, `families`, `banker_back`, `banker_front`,
`banker_front_high_card`), and beside it `OUT` with `.txt` for a person. Each replaces only an
earlier certificate or summary: any other file there (the House Way file itself, by a typo), a
missing folder or an `OUT` ending in `.txt` is refused in one line before the hands are counted.
Nothing in it depends on the run, so one file always gives the same certificate, byte for byte:
its SHA-256 names it. The certificates of the four built-in files are in
[house-way-certificates](house-way-certificates/) (`fr.json`, `es.json`, `trump_plaza.json`,
`foxwoods.json`, each with its `.txt`); how long a certification takes is in
[benchmarks/README.md](../benchmarks/README.md).

### Diff

`paigow house-way diff A B [--jobs N] [--examples K] [--format table|json]` counts, over the same
154,143,080 hands, those the two ways set differently: their fronts hold different ranks (the
joker told apart from an ace) or their backs differ in value. Two splits that differ only in which
suit of a rank goes front play alike and are not counted. The count is given by the R-HW-3 family
of the hand and by the pair of clauses that decided it, with example hands, and the banker's front
(pair or high card, and high card) is counted for each way with the difference. `fr` against `es`:
8,326,332 hands, 4,909,032 of them two pairs; `es` puts a pair front 820,200 times more often.

### Edge

`paigow house-way edge FILE [--rounds N] [--seed S] [--variant V] [--banker-sample N]` measures
the house edge of a game whose banker plays FILE, by simulation with 95% intervals as
`paigow analyze edge` does ([game-figures.md](game-figures.md)): once with the players setting
their hands by the same file, once with players who set each hand for the most money against that
banker. That second player (`table_core/analysis_best.py`) values each legal split against a
sample of `--banker-sample` banker hands set by the file (a win pays less commission, a copy is
the banker's) and keeps the best: the best response to the way, card removal aside (the sample
does not know the player's own seven cards), so close to the optimal strategy but not exactly it.
Both measures deal the same rounds (one seed), so their difference is the way's cost to a player
who follows it.

### Install

A table plays a file once the floor installs it:

```text
$ paigow house-way install lakeside.toml --table PG-1 --reason "sign of 1 May" --key-file floor.key
{"table_id": "PG-1", "command_id": "cli-…", "version": 212, "replayed": false,
 "events": ["house_way_installed", "rules_changed"], "house_way": "lakeside",
 "file_sha256": "…", "certificate_sha256": "…"}
```

or over HTTP, `POST /house-ways` with `{"table_id", "text", "reason"}` and a floor key
([http.md](http.md#install-a-house-way-file)). The service certifies the file first; a file that
does not certify is refused with its failures and a first hand, nothing written. Then one command
records `house_way_installed` (the file's full text, its SHA-256, the certificate's SHA-256) and
the `rules_changed` that makes it the table's House Way from the next round, with the reason
([events.md](events.md#house_way_installed)). Changing a table's House Way is a rules change, the
floor's, as always: `rules_changed` back to a built-in, or to a file installed on the table before.

The rules profile names the file by its digest (`hand.house_way_digest`), and the table keeps the
texts installed on it, so every hand the House Way sets (the banker's, a player's asked for or
reset) is set by exactly that text, and `paigow audit verify` re-derives each from the log alone,
offline. A text edited in the log no longer matches the digest it was installed under: the audit
names the `house_way_installed` event. The floor's pit shows each table's House Way file (its
digest, certified) or "built-in", and the live table and the recall print each clause's words as
the file wrote them (`paigow audit recall` too: `clause_text`). Why the service certifies rather
than accept a certificate: [decisions.md](decisions.md#house-ways).
"""


def render() -> str:
    return TOOLS
