"""The running process's code identity (R5/R19): the digest of the checkout its packages were
imported from (``eventlog/code_identity.py``), checked against what the process actually loaded.

The checkout is the directory holding the packages ``adapters``, ``audit``, ``eventlog`` and
``table_core`` as this process imported them; Alembic reads ``migrations/`` beside them
(``adapters/store/migrate.py``). Its digest covers every file of the five packages, loaded or
not, so it is the same whatever a process imported, and a later lazy import reads a file the
digest covered.

Honest, too: every module of those packages in ``sys.modules`` must have been loaded from source
by Python's own file loader from a file the digest covers. A module loaded from elsewhere (a
package shadowed by another path, a ``.pyc`` without its source, an extension module, a module
put in ``sys.modules`` by hand, a namespace package outside the tree) refuses the start
(:class:`CodeIdentityRefused`: one line, exit status 2). What the process did to its modules in
memory after loading them, and a bytecode cache forged beside an unchanged source, are beyond
what the files can show (docs/audit.md "Software change control").
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.machinery import SourceFileLoader
from pathlib import Path
from typing import Any

from eventlog.code_identity import CodeDigest, CodeIdentityError, compute
from eventlog.provenance import software_version
from table_core.ports import StoreError

#: The packages a process imports (``migrations`` is read by Alembic from beside them).
IMPORTED = ("adapters", "audit", "entrypoints", "eventlog", "service_layer", "table_core")


class CodeIdentityRefused(StoreError):
    """The running code cannot be identified honestly: the service does not start."""


@dataclass(frozen=True)
class RunningCode:
    """The checkout this process runs (``root``) and its identity."""

    root: Path
    code: CodeDigest

    def summary(self) -> dict[str, Any]:
        return {**self.code.summary(), "software_version": software_version()}


def running_code(modules: Mapping[str, Any] | None = None) -> RunningCode:
    """The identity of the code this process runs; :class:`CodeIdentityRefused` when a module of
    its packages did not come from a file the digest covers (``modules``: ``sys.modules``)."""
    root = checkout_root()
    try:
        code = _tree(str(root))
    except CodeIdentityError as error:
        raise CodeIdentityRefused(f"the running code cannot be identified: {error}") from None
    found = strays(root, code, sys.modules if modules is None else modules)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise CodeIdentityRefused(
            f"{found[0]}{more}: the code's digest would not describe what runs; nothing was "
            "written (R5/R19)"
        )
    return RunningCode(root, code)


def checkout_root() -> Path:
    """The one directory the imported packages come from."""
    roots: dict[str, Path] = {}
    for name in IMPORTED:
        paths = list(getattr(importlib.import_module(name), "__path__", []))
        if len(paths) != 1:
            raise CodeIdentityRefused(
                f"package {name} is spread over {len(paths)} directories: the code's digest "
                "covers one checkout; nothing was written (R5/R19)"
            )
        roots[name] = Path(os.path.realpath(paths[0])).parent
    if len(set(roots.values())) != 1:
        where = ", ".join(f"{name} from {root}" for name, root in roots.items())
        raise CodeIdentityRefused(
            f"the packages come from different directories ({where}): the code's digest covers "
            "one checkout; nothing was written (R5/R19)"
        )
    return roots[IMPORTED[0]]


@cache
def _tree(root: str) -> CodeDigest:
    """The checkout's digest, read once per process (the tree a process starts from)."""
    return compute(Path(root))


def strays(root: Path, code: CodeDigest, modules: Mapping[str, Any]) -> list[str]:
    """Each module of the packages in ``modules`` that no covered file explains, as a sentence."""
    found = []
    for name, module in sorted(modules.items(), key=lambda item: item[0]):
        if name.partition(".")[0] not in IMPORTED or module is None:
            continue
        problem = _stray(root, code, module)
        if problem is not None:
            found.append(f"module {name} {problem}")
    return found


def _stray(root: Path, code: CodeDigest, module: Any) -> str | None:
    file = getattr(module, "__file__", None)
    if file is None:  # a namespace package (the floor's templates): directories only
        paths = list(getattr(module, "__path__", None) or [])
        if not paths:
            return "has no file (made in memory)"
        for path in paths:
            if _covered_dir(root, path) is None:
                return f"is a namespace over {path}, outside the checkout {root}"
        return None
    relative = _relative(root, str(file))
    if relative is None:
        return f"was loaded from {file}, outside the checkout {root}"
    if not relative.endswith(".py"):
        return f"was loaded from {relative}, not from a Python source file"
    if relative not in code.files:
        return f"was loaded from {relative}, a file the digest does not cover"
    loader = getattr(getattr(module, "__spec__", None), "loader", None)
    if type(loader) is not SourceFileLoader:
        return f"was loaded by {type(loader).__name__}, not Python's source file loader"
    return None


@cache
def _relative(root: Path, file: str) -> str | None:
    """``file`` relative to ``root`` (symbolic links resolved, once a process: every service
    started in it checks the same modules), or ``None`` outside it."""
    real = Path(os.path.realpath(file))
    try:
        return real.relative_to(root).as_posix()
    except ValueError:
        return None


def _covered_dir(root: Path, path: str) -> str | None:
    relative = _relative(root, path)
    if relative is None or relative.partition("/")[0] not in IMPORTED:
        return None
    return relative


def rng_identity(source: Any, running: RunningCode | None) -> dict[str, Any] | None:
    """The deck-and-dice source ``service_started`` names: its class, what it draws from
    (``draws_from``, declared by the class: ``adapters/rng.py``) and its module's file with the
    SHA-256 the digest covered (``None``: not a file of the checkout)."""
    if source is None:
        return None
    kind = type(source)
    file = getattr(sys.modules.get(kind.__module__), "__file__", None)
    relative = None
    if running is not None and file:
        relative = _relative(running.root, str(file))
    digest = running.code.files.get(relative) if running and relative else None
    return {
        "class": f"{kind.__module__}.{kind.__qualname__}",
        "draws_from": getattr(kind, "draws_from", None),
        "file": relative if digest else None,
        "sha256": digest,
    }
