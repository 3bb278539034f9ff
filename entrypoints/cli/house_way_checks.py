"""``paigow house-way certify`` and ``diff``: a House Way file checked and compared on every hand.

FILE is a House Way file (TOML, docs/house-ways.md); a built-in's name (``fr``) reads the file the
package ships for it. The enumeration and the counts live in ``table_core.house_ways`` (the
classes, the tallies) and ``service_layer.house_way_certificates`` (the worker processes, the
certificate).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from entrypoints.cli.progress import Progress
from service_layer.house_way_certificates import (
    ALL_HANDS,
    FORMAT,
    PARTS_PER_JOB,
    WaySource,
    certify,
    parts_of,
    run_parts,
)
from table_core.cards import DECK_SIZE, RANK_CHARS
from table_core.errors import ConfigurationError
from table_core.house_ways import BUILT_IN
from table_core.house_ways.compare import DiffTally, diff_classes
from table_core.house_ways.hand_classes import Pattern, hand_classes, hands_from, rank_patterns


def source_for(text: str) -> WaySource:
    """A path to a House Way file, or a built-in's name (its shipped file)."""
    path = Path(text)
    if path.is_file():
        from adapters.house_way_files import read_house_way_file

        spec = read_house_way_file(path)
        return WaySource(spec.name, spec.text)
    if text in BUILT_IN:
        from adapters.house_way_files import built_in_text

        return WaySource(text, built_in_text(text))
    known = ", ".join(BUILT_IN)
    raise ConfigurationError(f"{text}: no such file, nor a built-in House Way ({known})")


def register_verbs(verbs: Any, positive: Callable[[str], int]) -> None:
    certify_verb = verbs.add_parser(
        "certify",
        help="check a House Way file on all 154,143,080 hands; write its certificate",
    )
    certify_verb.add_argument("file", metavar="FILE", help="a House Way file, or a built-in's name")
    certify_verb.add_argument("--jobs", type=positive, default=1, help="worker processes")
    certify_verb.add_argument(
        "--certificate", metavar="OUT", help="write the certificate (JSON) to OUT"
    )
    certify_verb.add_argument("--format", choices=("summary", "json"), default="summary")
    certify_verb.set_defaults(handler=run_certify)

    diff = verbs.add_parser("diff", help="every hand two House Ways set differently")
    diff.add_argument("first", metavar="A", help="a House Way file, or a built-in's name")
    diff.add_argument("second", metavar="B", help="a House Way file, or a built-in's name")
    diff.add_argument("--jobs", type=positive, default=1, help="worker processes")
    diff.add_argument("--examples", type=int, default=5, help="hands to show")
    diff.add_argument("--format", choices=("table", "json"), default="table")
    diff.set_defaults(handler=run_diff)


def certificate_problem(out: Path) -> str | None:
    """Why the certificate (``out``) and its summary (``out`` with ``.txt``) may not be written
    there, said before the hour of work: each replaces only an earlier one of its kind."""
    summary = out.with_suffix(".txt")
    if out == summary:
        return f"--certificate {out}: name it .json, its summary goes beside it as .txt"
    if out.is_dir():
        return f"--certificate {out} is a folder: name the certificate's file"
    if not out.parent.is_dir():
        return f"--certificate {out}: no folder {out.parent}"
    for path, kind, starts in ((out, "certificate", f'  "format": "{FORMAT}"'),
                               (summary, "certificate's summary", "House Way "),):  # fmt: skip
        try:
            with path.open("r", encoding="utf-8", errors="replace") as handle:
                head = handle.read(200)
        except FileNotFoundError:
            continue
        except OSError as error:
            return f"--certificate {out}: cannot read {path}: {error.strerror}"
        if not any(line.startswith(starts) for line in head.splitlines()[:2]):
            return f"{path} exists and is no House Way {kind}: it is never written over"
    return None


def run_certify(args: argparse.Namespace) -> int:
    if args.certificate:
        problem = certificate_problem(Path(args.certificate))
        if problem is not None:
            raise ConfigurationError(problem)
    source = source_for(args.file)
    progress = Progress(ALL_HANDS, f"certify {source.name}")
    done = certify(source, args.jobs, progress.update)
    progress.close()
    if args.certificate:
        out = Path(args.certificate)
        out.write_text(done.text)
        out.with_suffix(".txt").write_text(done.summary())
    if args.format == "json":
        print(json.dumps({**done.figures, "certificate_sha256": done.digest}))
    else:
        print(done.summary(), end="")
        print(f"certificate SHA-256 {done.digest}")
    return 0 if done.certified else 1


# --- diff ---------------------------------------------------------------------------------------


def _diff_patterns(first: WaySource, second: WaySource, patterns: list[Pattern]) -> DiffTally:
    classes = (c for p in patterns for c in hand_classes(p))
    return diff_classes(first.way(), second.way(), classes)


def _diff_hands(first: WaySource, second: WaySource, low: int) -> DiffTally:
    hands = ((cards, 1) for cards in hands_from(low))
    return diff_classes(first.way(), second.way(), hands)


def diff_ways(
    first: WaySource, second: WaySource, jobs: int, report: Callable[[int], None]
) -> DiffTally:
    """Every hand, by suit class when both ways read suits only through flushes."""
    total = DiffTally()
    if first.way().by_rank_pattern and second.way().by_rank_pattern:
        parts = parts_of(rank_patterns(), jobs * PARTS_PER_JOB)
        results = run_parts(_diff_patterns, (first, second), parts, jobs)
    else:
        results = run_parts(_diff_hands, (first, second), range(DECK_SIZE - 6), jobs)
    for tally in results:
        total.merge(tally)
        report(total.hands)
    return total


def _side_by_side(
    counts: tuple[Counter[str], Counter[str]], keys: list[str], a: str, b: str
) -> dict[str, dict[str, int]]:
    """Each key's count for both ways and their difference (the second's less the first's),
    keys neither way counted left out."""
    first, second = counts
    return {
        key: {a: first[key], b: second[key], "difference": second[key] - first[key]}
        for key in keys
        if first[key] or second[key]
    }


def diff_figures(first: WaySource, second: WaySource, tally: DiffTally) -> dict[str, Any]:
    ranks = list(reversed(RANK_CHARS))
    fronts = ["one_pair", "high_card"]
    a, b = first.name, second.name
    if a == b:
        b = f"{b} (B)"
    return {
        "first": a,
        "second": b,
        "first_sha256": first.digest,
        "second_sha256": second.digest,
        "hands": tally.hands,
        "different": tally.different,
        "by_family": dict(tally.by_family.most_common()),
        "by_clauses": [
            {"first": x, "second": y, "hands": n} for (x, y), n in tally.by_clauses.most_common()
        ],
        "examples": [{"cards": c, a: x, b: y} for c, x, y in tally.examples],
        "banker_front": _side_by_side(tally.front, fronts, a, b),
        "banker_front_high_card": _side_by_side(tally.front_high, ranks, a, b),
        "undecided": dict(tally.undecided),
    }


def run_diff(args: argparse.Namespace) -> int:
    first, second = source_for(args.first), source_for(args.second)
    progress = Progress(ALL_HANDS, f"diff {first.name} {second.name}")
    tally = diff_ways(first, second, args.jobs, progress.update)
    progress.close()
    tally.examples = tally.examples[: args.examples]
    figures = diff_figures(first, second, tally)
    if args.format == "json":
        print(json.dumps(figures))
    else:
        print_diff(figures)
    return 0


def print_diff(f: dict[str, Any]) -> None:
    a, b, hands = f["first"], f["second"], f["hands"]
    different = f["different"]
    print(f"{a} and {b} set {different:,} of {hands:,} hands differently ({different / hands:.4%})")
    if f["by_family"]:
        print("by family (R-HW-3):")
        for name, count in f["by_family"].items():
            print(f"  {name:<16} {count:>12,}")
    if f["by_clauses"]:
        print(f"by clause ({a} -> {b}):")
        for row in f["by_clauses"]:
            print(f"  {row['first']} -> {row['second']}: {row['hands']:,}")
    for example in f["examples"]:
        print(f"  {example['cards']}")
        print(f"    {a:>12}: {example[a]}")
        print(f"    {b:>12}: {example[b]}")
    print(f"banker's front ({b} minus {a}):")
    for name, row in {**f["banker_front"], **f["banker_front_high_card"]}.items():
        print(f"  {name:<10} {row[a]:>12,} {row[b]:>12,} {row['difference']:>+12,}")
    for name, count in f["undecided"].items():
        print(f"{name} sets no hand for {count:,} hands: certify it")
