"""The house's shape, read from the code's own imports: circles, folder shares, the layers' rules.

    python scripts/house_map.py            # the summary; exit 1 on a circle or a broken layer rule
    python scripts/house_map.py --json     # the same as one JSON object
    python scripts/house_map.py --edges    # every import arrow between project files

Every import counts, a function's lazy import included (a circle closed at run time is still a
circle a reader must hold in mind). A module's import of a package counts as an arrow to the
package's ``__init__.py``; ``from package import name`` counts as an arrow to ``package/name.py``
when that file exists, else to the package. Tests, fixtures and generated files are not rooms.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Top-level folders holding the project's code (tests are not the house's rooms).
CODE_FOLDERS = (
    "table_core",
    "eventlog",
    "audit",
    "service_layer",
    "entrypoints",
    "adapters",
    "migrations",
    "benchmarks",
    "scripts",
)
#: The packages whose imports make the graph (the others import them, nothing imports those).
PACKAGES = ("table_core", "eventlog", "audit", "adapters", "service_layer", "entrypoints")
#: Who may import whom: a package (or a subfolder) and the project packages it may use.
LAYERS: dict[str, tuple[str, ...]] = {
    "table_core": ("table_core",),
    "eventlog": ("eventlog", "table_core"),
    "audit": ("audit", "eventlog", "table_core"),
    "adapters": ("adapters", "eventlog", "table_core"),
    "service_layer": ("service_layer", "adapters", "audit", "eventlog", "table_core"),
    "entrypoints": ("entrypoints", "service_layer", "adapters", "audit", "eventlog", "table_core"),
}
#: The share of the code no single top-level folder may pass.
LARGEST_SHARE = 0.30


def module_files() -> dict[str, Path]:
    """Every module of the packages, by dotted name."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported_names(path: Path, module: str, files: dict[str, Path]) -> Iterator[str]:
    """Every project module ``module`` (at ``path``) imports, relative imports resolved:
    ``from a.b import c`` names ``a.b.c`` when that is a module, else ``a.b``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield sub if sub in files else base


def graph(files: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the project modules it imports (itself excluded)."""
    return {
        name: {t for t in imported_names(path, name, files) if t in files and t != name}
        for name, path in files.items()
    }


def circles(arrows: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        work = [(start, iter(sorted(arrows[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            advanced = False
            for target in targets:
                if target not in index:
                    index[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(arrows[target]))))
                    advanced = True
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for name in sorted(arrows):
        if name not in index:
            visit(name)
    return sorted(found)


def layer_breaks(arrows: dict[str, set[str]]) -> list[str]:
    """Imports a layer's rules refuse: ``module -> target``."""
    broken = []
    for name, targets in sorted(arrows.items()):
        rule = _rule_for(name)
        if rule is None:
            continue
        for target in sorted(targets):
            if not any(target == allowed or target.startswith(allowed + ".") for allowed in rule):
                broken.append(f"{name} -> {target}")
    return broken


def _rule_for(module: str) -> tuple[str, ...] | None:
    owners = [p for p in LAYERS if module == p or module.startswith(p + ".")]
    return LAYERS[max(owners, key=len)] if owners else None


def folder_lines() -> dict[str, int]:
    """Lines of Python code in each top-level code folder."""
    return {
        folder: sum(len(p.read_text().splitlines()) for p in (ROOT / folder).rglob("*.py"))
        for folder in CODE_FOLDERS
        if (ROOT / folder).is_dir()
    }


def summary() -> dict[str, object]:
    files = module_files()
    arrows = graph(files)
    lines = folder_lines()
    total = sum(lines.values())
    largest = max(lines, key=lambda folder: lines[folder])
    return {
        "modules": len(files),
        "arrows": sum(len(targets) for targets in arrows.values()),
        "circles": circles(arrows),
        "layer_breaks": layer_breaks(arrows),
        "lines": total,
        "folders": {folder: lines[folder] for folder in sorted(lines, key=lambda f: -lines[f])},
        "largest_folder": largest,
        "largest_share": round(lines[largest] / total, 3),
    }


def _print(report: dict[str, object]) -> None:
    folders = report["folders"]
    assert isinstance(folders, dict)
    total = report["lines"]
    assert isinstance(total, int)
    print(f"{report['modules']} modules, {report['arrows']} import arrows, {total:,} lines")
    for folder, count in folders.items():
        print(f"  {folder + '/':<14}{count:>7,}  {count / total:6.1%}")
    print(f"largest folder: {report['largest_folder']}/ at {report['largest_share']:.1%}")
    for title, rows in (("circles", report["circles"]), ("layer breaks", report["layer_breaks"])):
        assert isinstance(rows, list)
        print(f"{title}: {len(rows)}")
        for row in rows:
            print(f"  {' <-> '.join(row) if isinstance(row, list) else row}")


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.add_argument("--edges", action="store_true", help="every import arrow, one a line")
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.edges:
        arrows = graph(module_files())
        for name in sorted(arrows):
            for target in sorted(arrows[name]):
                print(f"{name} -> {target}")
        return 0
    report = summary()
    if args.json:
        print(json.dumps(report))
    else:
        _print(report)
    share = report["largest_share"]
    assert isinstance(share, float)
    failed = report["circles"] or report["layer_breaks"] or share > LARGEST_SHARE
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
