"""The settings are read from the environment in one place (issue 35): the composition root
(entrypoints/bootstrap.py, for a ``paigow serve`` worker) and the command line's entry
(entrypoints/cli/main.py, where the arguments are parsed). Everything else receives the settings,
or the values it needs, as arguments: a test can hand any part its own settings, and a value is
never read twice in one command with two answers.

An AST pass over the code's packages: a call of ``load_settings`` (or a ``Settings()`` made from
the environment) anywhere else fails here."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODE = ("table_core", "eventlog", "audit", "adapters", "service_layer", "entrypoints", "migrations")
#: Where ``load_settings()`` may be called, once each.
READERS = {"entrypoints/bootstrap.py", "entrypoints/cli/main.py"}
#: Where ``Settings(...)`` may be built: ``load_settings`` itself.
BUILDERS = {"adapters/settings.py"}


def _called(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def calls(name: str) -> list[tuple[str, int]]:
    """Every call of ``name`` (``name(...)`` or ``module.name(...)``) in the code: (file, line)."""
    found = []
    for package in CODE:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and _called(node) == name:
                    found.append((str(path.relative_to(ROOT)), node.lineno))
    return found


def test_the_settings_are_read_at_the_composition_root_and_the_command_line_entry_only() -> None:
    found = calls("load_settings")
    assert [where for where, _ in found if where not in READERS] == []
    assert sorted(where for where, _ in found) == sorted(READERS)  # once in each


def test_no_code_builds_settings_from_the_environment_by_itself() -> None:
    assert [where for where, _ in calls("Settings") if where not in BUILDERS] == []


def test_the_guard_sees_a_call_through_a_module() -> None:
    tree = ast.parse("import adapters.settings as s\ns.load_settings()\nload_settings()")
    names = [_called(n) for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert names == ["load_settings", "load_settings"]
