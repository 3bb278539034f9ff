"""The README's and docs' links work from a clone of the project alone (issue 16, item 8).

Every relative Markdown link in README.md and docs/*.md must name a file of the repository (and,
for a `#fragment` into a Markdown page, one of its headings as GitHub anchors them); no page may
point outside the repository, at `../shared/` least of all: a casino's engineer who clones the
project has only the project.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
_INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def _prose(text: str) -> str:
    """The page without its code blocks and code spans, where a bracket is not a link."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def _links(text: str) -> list[str]:
    prose = _prose(text)
    return _INLINE_LINK.findall(prose) + _REFERENCE.findall(prose)


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to
    hyphens, a repeated one numbered."""
    seen: dict[str, int] = {}
    anchors = set()
    for heading in _HEADING.findall(_FENCE.sub("", page.read_text(encoding="utf-8"))):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
        slug = re.sub(r"[^\w\- ]", "", text.replace("`", "").lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _problem(page: Path, target: str) -> str | None:
    if _SCHEME.match(target):
        return None  # a web address: not this test's business
    path_part, _, fragment = target.partition("#")
    path_part = path_part.split("?")[0]
    if "shared/" in path_part:
        return "points at ../shared/, which a clone does not have"
    resolved = (page.parent / path_part).resolve() if path_part else page
    if not resolved.is_relative_to(ROOT):
        return "points outside the repository"
    if not resolved.exists():
        return "no such file"
    if fragment and resolved.suffix == ".md" and fragment not in _anchors(resolved):
        return f"no heading #{fragment} in {resolved.relative_to(ROOT)}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves_inside_the_repository(page: Path) -> None:
    broken = [
        f"{target}: {problem}"
        for target in _links(page.read_text(encoding="utf-8"))
        if (problem := _problem(page, target))
    ]
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_no_page_refers_to_the_shared_folder(page: Path) -> None:
    lines = [
        number
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if "../shared" in line
    ]
    assert not lines, f"{page.relative_to(ROOT)} names ../shared on lines {lines}"


def test_the_checks_see_links_and_anchors() -> None:
    """Guards the test itself: it finds links outside code, and anchors as GitHub writes them."""
    text = "[a](docs/x.md#y) `[b](no.md)`\n```\n[c](no.md)\n```\n[d]: ../shared/RULES.md\n"
    assert _links(text) == ["docs/x.md#y", "../shared/RULES.md"]
    assert _problem(ROOT / "README.md", "../shared/RULES.md") is not None
    assert _problem(ROOT / "README.md", "docs/no-such-page.md") == "no such file"
    assert "the-rules-profile-in-table_opened-and-rules_changed" in _anchors(
        ROOT / "docs" / "events.md"
    )
