"""A House Way certified over all 154,143,080 hands, and the certificate that says so (issue 32).

The core decides and counts (``table_core.house_ways.certify``); this room shares the rank
patterns among worker processes, adds their tallies up and writes the certificate: one JSON
figure a line (so two certificates diff line by line) and a summary for a person. Nothing in a
certificate depends on the run (no time, no machine), so the same file always gives the same
certificate, byte for byte, and its SHA-256 names it (the install records that digest).

A way that reads suits only through straights and flushes (``suit_blind``) is decided once per
suit class, weighted; any other way is decided on every hand.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from math import comb
from typing import Any, TypeVar

from table_core.cards import DECK_SIZE, RANK_CHARS
from table_core.hands import CATEGORY_NAMES
from table_core.house_ways import HouseWay, digest_of, get_house_way
from table_core.house_ways.certify import FAILURES, Tally, tally_hands, tally_patterns
from table_core.house_ways.hand_classes import Pattern, hands_from, rank_patterns
from table_core.house_ways.shape import FAMILIES
from table_core.table.house_way_install import installed_way

FORMAT = "paigow-house-way-certificate/1"
ALL_HANDS = comb(DECK_SIZE, 7)
#: Work is handed out in this many parts per worker, so one slow part does not hold the run.
PARTS_PER_JOB = 16

Report = Callable[[int], None]
T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class WaySource:
    """Where a House Way comes from: a file's text, or a Python built-in by name (``text``
    None). Worker processes rebuild the way from it (a way's ``decide`` does not travel)."""

    name: str
    text: str | None = None

    @property
    def digest(self) -> str | None:
        """SHA-256 of the file's UTF-8 bytes (the file's name in the log)."""
        return None if self.text is None else digest_of(self.text)

    def way(self) -> HouseWay:
        if self.text is None:
            return get_house_way(self.name)
        return installed_way(self.text)


def _pattern_part(source: WaySource, patterns: Sequence[Pattern]) -> Tally:
    return tally_patterns(source.way(), patterns)


def _hands_part(source: WaySource, first: int) -> Tally:
    """Every hand whose lowest card is ``first`` (cards by code, the joker 52)."""
    return tally_hands(source.way(), hands_from(first))


def parts_of(items: Sequence[T], count: int) -> list[list[T]]:
    """``items`` dealt round-robin into ``count`` parts (neighbouring patterns cost alike)."""
    return [list(items[k::count]) for k in range(count) if items[k::count]]


def fork_context() -> multiprocessing.context.BaseContext:
    """Workers forked from this process: the way's modules are loaded once."""
    return multiprocessing.get_context("fork")


def run_parts(
    function: Callable[..., R], fixed: tuple[Any, ...], items: Sequence[Any], jobs: int
) -> Iterator[R]:
    """``function(*fixed, item)`` for each item, on ``jobs`` processes, results in item order."""
    if jobs <= 1:
        for item in items:
            yield function(*fixed, item)
        return
    with ProcessPoolExecutor(max_workers=jobs, mp_context=fork_context()) as pool:
        futures = [pool.submit(function, *fixed, item) for item in items]
        for future in futures:
            yield future.result()


def tally_way(source: WaySource, jobs: int = 1, report: Report | None = None) -> Tally:
    """Every hand of the deck decided by ``source``'s way and counted, on ``jobs`` processes;
    ``report`` hears the hands counted so far."""
    total = Tally()
    if source.way().by_rank_pattern:
        parts = parts_of(rank_patterns(), max(jobs, 1) * PARTS_PER_JOB)
        results = run_parts(_pattern_part, (source,), parts, jobs)
    else:
        results = run_parts(_hands_part, (source,), range(DECK_SIZE - 6), jobs)
    for tally in results:
        total.merge(tally)
        if report is not None:
            report(total.hands)
    return total


@dataclass(frozen=True)
class Certificate:
    """The figures of one certification, in the order the certificate lists them."""

    figures: dict[str, Any]

    @property
    def certified(self) -> bool:
        return bool(self.figures["certified"])

    @cached_property
    def text(self) -> str:
        """JSON, one figure a line."""
        lines = [f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in self.figures.items()]
        return "{\n" + ",\n".join(lines) + "\n}\n"

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    def summary(self) -> str:
        return summary_text(self.figures)


def certificate(source: WaySource, tally: Tally, way: HouseWay) -> Certificate:
    failures = {kind: tally.failures[kind] for kind in FAILURES if tally.failures[kind]}
    hands_ok = tally.hands == ALL_HANDS
    figures: dict[str, Any] = {
        "format": FORMAT,
        "house_way": way.name,
        "file_sha256": source.digest,
        "certified": hands_ok and not failures,
        "hands": tally.hands,
        "enumeration": "suit_classes" if way.by_rank_pattern else "every_hand",
        "decisions": tally.decisions,
        "failures": failures,
        "failure_examples": {kind: tally.examples[kind] for kind in failures},
        "unreachable_clauses": [clause for clause in way.clauses if not tally.clauses[clause]],
        "clauses": {clause: tally.clauses[clause] for clause in way.clauses},
        "families": {each: tally.families[each] for each in FAMILIES},
        "banker_back": {name: tally.back[name] for name in CATEGORY_NAMES if tally.back[name]},
        "banker_front": {name: tally.front[name] for name in ("one_pair", "high_card")},
        "banker_front_high_card": {
            rank: tally.front_high[rank] for rank in reversed(RANK_CHARS) if tally.front_high[rank]
        },
    }
    undocumented = sorted(set(tally.clauses) - set(way.clauses))
    if undocumented:
        figures["undocumented_clauses"] = {c: tally.clauses[c] for c in undocumented}
    return Certificate(figures)


def certify(source: WaySource, jobs: int = 1, report: Report | None = None) -> Certificate:
    """Certify ``source``'s way over every hand (R-HW-5: it never fouls; every hand has its
    clause)."""
    return certificate(source, tally_way(source, jobs, report), source.way())


def _share(count: int, hands: int) -> str:
    return f"{count:>12,}  {count / hands:>8.4%}" if hands else f"{count:>12,}"


def summary_text(f: dict[str, Any]) -> str:
    """The certificate for a person: verdict first, then each figure."""
    hands = f["hands"]
    verdict = "CERTIFIED" if f["certified"] else "NOT CERTIFIED"
    digest = f["file_sha256"] or "(a Python built-in: no file)"
    out = [
        f"House Way {f['house_way']}: {verdict}",
        f"file SHA-256 {digest}",
        f"{hands:,} of {ALL_HANDS:,} hands ({f['enumeration']}: {f['decisions']:,} decisions)",
    ]
    if f["failures"]:
        out.append("failures (hands):")
        for kind, count in f["failures"].items():
            out.append(f"  {kind}: {count:,}")
            out += [f"    {line}" for line in f["failure_examples"][kind]]
    unreachable = f["unreachable_clauses"]
    out.append(f"unreachable clauses: {', '.join(unreachable) if unreachable else 'none'}")
    for title, key in (
        ("hands per clause", "clauses"),
        ("hands per family (R-HW-3)", "families"),
        ("banker's back", "banker_back"),
        ("banker's front", "banker_front"),
        ("banker's front, high card", "banker_front_high_card"),
    ):
        out.append(f"{title}:")
        width = max((len(k) for k in f[key]), default=0)
        out += [f"  {name:<{width}}  {_share(count, hands)}" for name, count in f[key].items()]
    return "\n".join(out) + "\n"
