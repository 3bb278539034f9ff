"""The project's files speak to its readers about the project, never as a diary of its making.

Every tracked text file (docs, code, tests, docstrings, scripts, settings) is read for words that
belong to how the work was done rather than to what the project is: a numbered stint of work,
the people or programs who did the work, the place it was done. The git history is where history
lives. Product vocabulary stays free: a floor session and its cookie, the ``floor_sessions``
table, a player's or a simulation's session, a database session.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
THIS = Path(__file__).resolve()

#: Each pattern, and what it catches. Case does not matter. (A letter in brackets keeps the
#: diary's own words out of this file's text.)
FORBIDDEN = {
    r"\bs[e]ssions?\s+\d": "a numbered stint of work",
    r"\bs[e]ssions'": "a stint's possessions",
    r"\bh[e]lpers?\b": "who did the work (say function, tool or what it does)",
    r"\bsub-?[a]gents?\b": "who did the work",
    r"(?<!user-)(?<!user )\b[a]gents?\b": "who did the work (a User-Agent header is fine)",
    r"\bw[o]rkplace\b": "where the work was done",
    r"\bthe\s+C[E]O\b": "who asked for the work",
    r"\bthe\s+l[e]ad(?:'s)?\b": "who decides on the work",
    r"\bf[a]rm-studio\b": "a tool of the work",
}
#: Searched over a whole file, so that two words split across lines are still found.
PATTERN = re.compile("|".join(f"(?:{p})" for p in FORBIDDEN), re.IGNORECASE)


def _tracked() -> list[Path]:
    """The repository's tracked files (git), else every file outside ``.git`` and ``.venv``."""
    try:
        names = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout.split(b"\0")
        return [ROOT / name.decode() for name in names if name]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv"}
        return [
            p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.relative_to(ROOT).parts)
        ]


def _text(path: Path) -> str | None:
    """The file's text, or None for a binary file (a NUL byte, or not UTF-8) or a missing one."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _findings(text: str) -> Iterator[tuple[int, str]]:
    for match in PATTERN.finditer(text):
        yield text.count("\n", 0, match.start()) + 1, " ".join(match.group(0).split())


def test_no_tracked_file_reads_as_a_diary() -> None:
    found = []
    for path in _tracked():
        if path.resolve() == THIS or ".venv" in path.relative_to(ROOT).parts:
            continue
        text = _text(path)
        if text is None:
            continue
        for number, word in _findings(text):
            found.append(f"{path.relative_to(ROOT)}:{number}: {word!r}")
    assert not found, "diary words in the repository's files:\n" + "\n".join(found)


def test_the_check_tells_diary_words_from_product_vocabulary() -> None:
    """Guards the test itself: it catches the diary and leaves the product's words alone."""
    # A "~" splits each diary word here, so that this file does not read as a diary itself.
    diary = [
        line.replace("~", "")
        for line in [
            "measured in ses~sion 6 on the quiet machine",
            "Ses~sions 3 and 4 made it faster",
            "while other ses~sions' tests ran",
            "Hel~pers of the projection tests",
            "the hel~per who moved the code",
            "a sub~agent wrote it",
            "for the le~ad's decision",
            "A decision for the\n  le~ad: accept the cost",
            "the C~EO asked",
            "at the work~place",
            "`farm~-studio look` draws it",
        ]
    ]
    product = [
        "the floor session's cookie expires",
        "a row of floor_sessions",
        "mixed_session plays four tables",
        "a simulation session of 200 rounds",
        "every session ends when the server restarts",
        "no triggers for this session",
        "the User-Agent header and a user agent string",
        "the leader killed five times",
    ]
    assert [line for line in diary if not PATTERN.search(line)] == []
    assert [line for line in product if PATTERN.search(line)] == []
