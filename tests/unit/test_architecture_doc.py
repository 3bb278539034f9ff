"""docs/architecture.md stays true to the code: every file or folder it names exists, every route
it names is one the API serves, and the bet's file count is the one ``scripts/bet_path.py``
method gives (``tests/integration/test_bet_path.py`` runs the script)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"
TOPS = ("table_core", "eventlog", "audit", "adapters", "service_layer", "entrypoints", "migrations",
        "scripts", "tests", "benchmarks", "docs", "deploy")  # fmt: skip


def named_paths(text: str) -> list[str]:
    """Every `code` span that starts with one of the project's folders: a path the page names."""
    spans = re.findall(r"`([^`\s]+)`", text)
    return sorted({s for s in spans if s.split("/")[0] in TOPS and "/" in s})


def test_every_path_the_architecture_page_names_exists() -> None:
    paths = named_paths(PAGE.read_text())
    assert len(paths) > 40  # the page names the rooms: the check reads them
    assert [p for p in paths if not (ROOT / p).exists()] == []


def test_the_check_sees_a_path_that_is_not_there() -> None:
    assert named_paths("the room `adapters/bets.py` and `table_core/`") == [
        "adapters/bets.py",
        "table_core/",
    ]


def test_every_route_the_architecture_page_names_is_served() -> None:
    from entrypoints.http.command_routes import ROUTES

    text = PAGE.read_text()
    named = set(re.findall(r"`(?:POST|GET) (/[^`\s]+)`", text))
    served = {"/tables/{table_id}/" + path.lstrip("/") for path in ROUTES}
    pattern = {re.sub(r"\{[^}]+\}", "{}", p) for p in served}
    shown = {re.sub(r"/tables/[A-Z0-9-]+/", "/tables/{}/", n) for n in named}
    assert shown and shown <= pattern
