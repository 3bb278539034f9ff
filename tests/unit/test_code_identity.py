"""R5/R19: the code's identity (eventlog/code_identity.py, adapters/code_identity.py).

The digest is the checkout's files: the same tree in two places gives the same digest, whatever
their path, times or bytecode caches; one byte of the settlement, of the deck-and-dice source or
of the lock file changes it (and names the part). A module the running process loaded from a
file the digest does not cover is named.
"""

from __future__ import annotations

import os
import shutil
import sys
import types
from importlib.machinery import SourceFileLoader, SourcelessFileLoader
from pathlib import Path

import pytest

from adapters.code_identity import rng_identity, running_code, strays
from adapters.rng import SecureDeckAndDice
from eventlog.code_identity import LOCK_FILE, PACKAGES, CodeIdentityError, compute

ROOT = Path(__file__).resolve().parents[2]


def checkout(into: Path) -> Path:
    """A copy of this checkout's covered files at ``into`` (no bytecode caches)."""
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, into / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
    (into / LOCK_FILE).parent.mkdir(parents=True)
    shutil.copy(ROOT / LOCK_FILE, into / LOCK_FILE)
    return into


def flip_one_byte(path: Path, old: bytes, new: bytes) -> None:
    text = path.read_bytes()
    assert text.count(old) == 1 and len(old) == len(new)
    assert sum(a != b for a, b in zip(old, new, strict=True)) == 1
    path.write_bytes(text.replace(old, new, 1))


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return checkout(tmp_path_factory.mktemp("release"))


def test_two_copies_in_different_paths_have_one_digest(tree: Path, tmp_path: Path) -> None:
    other = checkout(tmp_path / "deep" / "elsewhere")
    first, second = compute(tree), compute(other)
    assert first.digest == second.digest == compute(ROOT).digest
    assert first.parts == second.parts
    assert len(first.digest) == 64 and first.recipe == "sha256sum-v1"
    assert set(first.parts) == {*PACKAGES, LOCK_FILE}
    assert "entrypoints/http/floor/templates/base.html" in first.files  # package data counts
    assert "migrations/versions/0001_event_store.py" in first.files


def test_bytecode_caches_and_file_times_do_not_count(tree: Path, tmp_path: Path) -> None:
    copy = checkout(tmp_path / "copy")
    (copy / "table_core" / "__pycache__").mkdir(exist_ok=True)
    (copy / "table_core" / "__pycache__" / "settlement.cpython-311.pyc").write_bytes(b"x")
    (copy / "adapters" / "stale.pyc").write_bytes(b"y")
    os.utime(copy / "table_core" / "settlement.py", (0, 0))
    assert compute(copy).digest == compute(tree).digest


@pytest.mark.parametrize(
    ("path", "old", "new", "part"),
    [
        # one byte of the commission's arithmetic (R-PAY-2), one of the shuffle's (R-DEAL-4)
        ("table_core/settlement.py", b"rate_bp, 10_000", b"rate_bp, 10_001", "table_core"),
        ("adapters/rng.py", b"deck[j], deck[i]\n", b"deck[j], deck[j]\n", "adapters"),
        (LOCK_FILE, b"alembic==", b"alembic>=", LOCK_FILE),
    ],
)
def test_one_byte_of_the_settlement_the_rng_or_the_lock_changes_the_digest(
    tree: Path, tmp_path: Path, path: str, old: bytes, new: bytes, part: str
) -> None:
    copy = checkout(tmp_path / "changed")
    flip_one_byte(copy / path, old, new)
    before, after = compute(tree), compute(copy)
    assert after.digest != before.digest
    assert {name for name in before.parts if before.parts[name] != after.parts[name]} == {part}
    assert {f for f in before.files if before.files[f] != after.files[f]} == {path}


def test_a_module_no_process_imports_counts_too(tree: Path, tmp_path: Path) -> None:
    copy = checkout(tmp_path / "extra")
    (copy / "adapters" / "never_imported.py").write_text("raise SystemExit('not run')\n")
    assert compute(copy).digest != compute(tree).digest


def test_a_tree_without_its_lock_or_with_a_link_is_refused(tmp_path: Path) -> None:
    copy = checkout(tmp_path / "broken")
    os.symlink(copy / "table_core" / "cards.py", copy / "table_core" / "linked.py")
    with pytest.raises(CodeIdentityError, match=r"linked\.py is not a regular file"):
        compute(copy)
    (copy / "table_core" / "linked.py").unlink()
    (copy / LOCK_FILE).unlink()
    with pytest.raises(CodeIdentityError, match=r"runtime\.lock is missing"):
        compute(copy)


def test_this_process_runs_code_the_digest_covers() -> None:
    running = running_code()
    assert running.root == ROOT.resolve()
    assert running.code.digest == compute(ROOT).digest
    assert strays(running.root, running.code, sys.modules) == []


def _module(name: str, file: str | None, loader: object = None) -> types.ModuleType:
    module = types.ModuleType(name)
    if file is not None:
        module.__file__ = file
    module.__spec__ = types.SimpleNamespace(loader=loader)  # type: ignore[assignment]
    return module


def test_a_module_loaded_from_elsewhere_is_named(tmp_path: Path) -> None:
    running = running_code()
    root = running.root
    good = str(root / "adapters" / "rng.py")
    elsewhere = tmp_path / "adapters" / "rng.py"
    modules = {
        "adapters.rng": _module("adapters.rng", good, SourceFileLoader("adapters.rng", good)),
        "adapters.shadow": _module(
            "adapters.shadow", str(elsewhere), SourceFileLoader("x", str(elsewhere))
        ),
        "table_core.compiled": _module(
            "table_core.compiled",
            str(root / "table_core" / "settlement.pyc"),
            SourcelessFileLoader("x", "y"),
        ),
        "audit.in_memory": _module("audit.in_memory", None),
        "eventlog.wrapped": _module("eventlog.wrapped", str(root / "eventlog" / "canonical.py")),
        "json": _module("json", "/anywhere/json.py"),  # not one of the packages
    }
    assert strays(root, running.code, modules) == [
        f"module adapters.shadow was loaded from {elsewhere}, outside the checkout {root}",
        "module audit.in_memory has no file (made in memory)",
        "module eventlog.wrapped was loaded by NoneType, not Python's source file loader",
        "module table_core.compiled was loaded from table_core/settlement.pyc, not from a "
        "Python source file",
    ]


def test_the_source_is_named_with_its_file_and_hash() -> None:
    running = running_code()
    assert rng_identity(SecureDeckAndDice(), running) == {
        "class": "adapters.rng.SecureDeckAndDice",
        "draws_from": "os.urandom",
        "file": "adapters/rng.py",
        "sha256": running.code.files["adapters/rng.py"],
    }
    assert rng_identity(None, running) is None
