"""The project's files speak to its readers about the project, never as a diary of its making.

Every tracked text file (docs, code, tests, docstrings, scripts, settings) is read for words that
belong to how the work was done rather than to what the project is: numbered work sessions, the
people or programs who did the work, the place it was done. The git history is where history
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

#: Each pattern, and what it catches. Case does not matter.
FORBIDDEN = {
    r"\bsessions?\s+\d": "a numbered work session",
    r"\bsessions'": "work sessions' possessions",
    r"\bhelpers?\b": "a helper (say function, tool or what it does)",
    r"\bsub-?agents?\b": "a subagent",
    r"(?<!user-)(?<!user )\bagents?\b": "an agent (a User-Agent header is fine)",
    r"\bworkplace\b": "the workplace",
    r"\bthe\s+CEO\b": "the CEO",
    r"\bthe\s+lead(?:'s)?\b": "the lead",
    r"\bfarm-studio\b": "a workplace tool",
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


def test_no_tracked_file_speaks_of_sessions_helpers_or_the_workplace() -> None:
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
    diary = [
        "measured in session 6 on the quiet machine",
        "Sessions 3 and 4 made it faster",
        "while other sessions' tests ran",
        "Helpers of the projection tests",
        "the helper who moved the code",
        "a subagent wrote it",
        "for the lead's decision",
        "A decision for the\n  lead: accept the cost",
        "the CEO asked",
        "at the workplace",
        "`farm-studio look` draws it",
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
