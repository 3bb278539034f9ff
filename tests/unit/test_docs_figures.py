"""Measured timing figures live only in ``benchmarks/README.md``.

Its table of figures (goal, latest figure, how it is reproduced) and its decisions are the one place
a measured speed, latency or duration is written. Every other page (``README.md``, ``docs/*.md``,
``deploy/**/README.md``) states the behaviour or the design reason and points there, so no page
keeps a figure that the next measurement makes wrong.

A setting's default or a configured duration is not a measurement: a line naming a setting
(``PAIGOW_…``, a timeout, ``Retry-After``) is left alone, and so is a match inside one of the
``ALLOWED`` phrases (a goal, the load a goal is set at, a polling period, histogram buckets).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: What a measured figure looks like, and what it is. Case does not matter; ``\s`` spans a
#: line break, so a figure wrapped over two lines is still found.
FORBIDDEN = {
    r"\b\d[\d,.]*\s*(?:rounds|events|requests|hands)\s*(?:/s|a\s+second|per\s+(?:CPU-)?second)\b": (
        "a measured rate"
    ),
    r"\b\d[\d.]*\s*(?:ms|µs)(?!\w)": "a measured latency",
    r"\btook\s+(?:about\s+)?\d[\d.]*\s*(?:s|seconds?|min|minutes?)\b": "a measured duration",
}
PATTERN = re.compile("|".join(f"(?:{p})" for p in FORBIDDEN), re.IGNORECASE)

#: Phrases whose numbers are goals or settings, not measurements: a match inside one is fine.
ALLOWED = re.compile(
    "|".join(
        (
            r"\bgoal\s+(?:is\s+|of\s+|under\s+)*\d[\d.]*\s*(?:ms|µs)",  # a goal
            r"\bat\s+\d[\d,]*\s+requests/s",  # the load the HTTP goal is set at
            r"\bevery\s+\d+\s*ms\b",  # a configured period
            r"\bbuckets\s+\d+\s*ms\b",  # a histogram's buckets
            r"\bby\s+1\s*ms\s+a\s+command\b",  # the simulated clock's step
        )
    ),
    re.IGNORECASE,
)

#: A line holding one of these names a setting or a limit: its numbers are configured.
SETTING_LINE = ("PAIGOW_", "timeout", "Retry-After")


def _pages() -> list[Path]:
    """Every page the rule covers: the README, docs/*.md and each deploy folder's README."""
    return sorted(
        [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "deploy").rglob("README.md")]
    )


def figures_in(text: str) -> list[tuple[int, str]]:
    """Each measured figure in ``text``: its line number and the words matched."""
    flat = text.replace("\n", " ")  # same offsets; a wrapped phrase reads as one
    allowed = [m.span() for m in ALLOWED.finditer(flat)]
    lines = text.split("\n")
    found = []
    for match in PATTERN.finditer(flat):
        start, end = match.span()
        if any(a <= start and end <= b for a, b in allowed):
            continue
        first = text.count("\n", 0, start)
        last = text.count("\n", 0, end)
        spanned = "\n".join(lines[first : last + 1]).lower()
        if any(word.lower() in spanned for word in SETTING_LINE):
            continue
        found.append((first + 1, match.group(0)))
    return found


def test_no_page_but_the_benchmarks_holds_a_measured_figure() -> None:
    pages = _pages()
    assert ROOT / "docs" / "http.md" in pages and ROOT / "deploy" / "ha" / "README.md" in pages
    problems = [
        f"{page.relative_to(ROOT)}:{line}: {words!r}"
        for page in pages
        for line, words in figures_in(page.read_text(encoding="utf-8"))
    ]
    assert not problems, (
        "measured figures belong in benchmarks/README.md (state the behaviour here and link it):\n"
        + "\n".join(problems)
    )


def test_the_check_catches_figures_and_spares_settings() -> None:
    bad = [
        "took 154 s (about 15,700 events a second)",
        "the fsync took 0.2 ms when the disk was quiet",
        "the whole suite took 13 minutes",
        "1,056-1,078 rounds per CPU-second",
        "2.9 -> 2.2 ms on PostgreSQL",
        "a lookup takes about 0.1 ms on SQLite, 0.3-0.4\n  ms on PostgreSQL",
        "the server answers 326 requests/s",
        "the core sets 100,000 hands/s",
        "a full collection paused requests for about 60 µs",
    ]
    for line in bad:
        assert figures_in(line), line
    fine = [
        "the floor page polls every 500 ms",
        "history on PostgreSQL (goal under 100 ms)",
        "p99 under the goal at 200 requests/s",
        "`PAIGOW_HTTP_TIMEOUT_MS` (default 250 ms)",
        "a connect_timeout of 200 ms",
        "histogram (buckets 1 ms .. 10 s)",
        "the clock steps by 1 ms a command",
        "`As Ks 7s 4s JK` sets the front",
        "the table reloads every 5 seconds; `Retry-After: 1`",
    ]
    for line in fine:
        assert not figures_in(line), line
    # A figure beside an allowed phrase on the same line is still found.
    assert figures_in("goal under 100 ms; measured 12 ms")
