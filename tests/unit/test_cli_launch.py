"""The ``paigow`` console script caches bytecode outside the checkout, whatever
``PYTHONDONTWRITEBYTECODE`` says (``entrypoints/cli/launch.py``), and ``paigow --help`` does not
load the simulator, the service or the store."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from entrypoints.cli.launch import cache_bytecode, cache_dir

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("table_core", "eventlog", "service_layer", "entrypoints", "adapters", "audit")
PAIGOW = Path(sys.executable).with_name("paigow")


def test_the_cache_is_the_given_prefix_else_the_users_cache_folder() -> None:
    assert cache_dir({"PYTHONPYCACHEPREFIX": "/x/pyc", "XDG_CACHE_HOME": "/y"}) == "/x/pyc"
    assert cache_dir({"XDG_CACHE_HOME": "/y"}) == "/y/paigow/pycache"
    assert cache_dir({"PYTHONPYCACHEPREFIX": ""}) == os.path.join(
        os.path.expanduser("~"), ".cache", "paigow", "pycache"
    )


def test_a_cache_folder_that_cannot_be_written_leaves_pythons_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))  # no folder can be made under a file
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache_bytecode()
    assert (sys.pycache_prefix, sys.dont_write_bytecode) == (None, True)
    assert os.environ["PYTHONDONTWRITEBYTECODE"] == "1"


def test_the_console_script_writes_bytecode_to_the_cache_and_none_in_the_tree(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    env.update(PYTHONDONTWRITEBYTECODE="1", XDG_CACHE_HOME=str(tmp_path))
    before = _pycaches()
    done = subprocess.run(
        [str(PAIGOW), "evaluate", "--help"], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    cached = tmp_path / "paigow" / "pycache"
    mirrored = cached / str(ROOT / "entrypoints" / "cli").lstrip("/")
    assert any(mirrored.glob("main.cpython-*.pyc")), sorted(cached.rglob("*.pyc"))[:5]
    assert _pycaches() == before  # nothing written in the checkout


def _pycaches() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("__pycache__"))


def test_the_help_loads_no_simulator_service_or_store() -> None:
    probe = (
        "import sys\n"
        "from entrypoints.cli.main import build_parser\n"
        "build_parser([])\n"
        "print(sorted(m for m in sys.modules if m.startswith(('entrypoints.simulation',"
        " 'service_layer.service', 'sqlalchemy', 'alembic'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip() == "[]"


def test_simulate_offers_the_strategies_the_session_plays() -> None:
    from entrypoints.cli.commands.simulate import STRATEGIES
    from entrypoints.simulation import STRATEGIES as PLAYED

    assert STRATEGIES == PLAYED
