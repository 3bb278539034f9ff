"""Settings for the whole suite: Hypothesis's profile, the quick tier, and xdist's grouping.

- ``-m quick`` (``bash scripts/test.sh -m quick``): the inner loop, the unit tests and the fast
  integration tests, on SQLite and PostgreSQL. Every test is ``quick`` but the e2e tier (each
  test starts processes), those marked ``slow``, and the integration modules in
  ``SLOW_INTEGRATION`` (measured over a few seconds each on a 2-core machine).
- Under pytest-xdist (``scripts/test.sh`` runs ``-n auto --dist loadgroup``), the tests of a
  module with a module-scoped fixture stay on one worker, so an expensive fixture (a recorded
  session, an exhaustive count) is built once, not once per worker.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

_ROLES = pytest.StashKey[list[str]]()

# Hypothesis fails an example that runs longer than 200 ms by default: a timing check inside
# unit tests, which a shared, loaded machine trips at random. Speed is the benchmarks' business
# (benchmarks/); here an example may take as long as it takes.
settings.register_profile("paigow", deadline=None)
settings.load_profile("paigow")

TESTS = Path(__file__).resolve().parent

#: Integration modules left out of the quick tier: each takes seconds (servers, processes,
#: crashes, fuzzing, whole sessions).
SLOW_INTEGRATION = frozenset(
    {
        "integration/http/test_race.py",
        "integration/http/test_schemathesis.py",
        "integration/http/test_workers.py",
        "integration/http/test_server_gc.py",
        "integration/store/test_crash_safety.py",
        "integration/store/test_pg_chaos.py",
        "integration/store/test_verifier_fuzz.py",
        "integration/projections/test_resume.py",
        "integration/http/test_store_outage.py",
        "integration/store/test_atomic_creation.py",
        # whole simulations played, tampered with and audited, services restarted
        "integration/audit/test_insider.py",
        "integration/audit/test_insider_live.py",
        "integration/audit/test_follow.py",
        "integration/audit/test_key_trust.py",
        "integration/service/test_software_version.py",
        "integration/service/test_snapshots.py",
        "integration/http/test_floor_books.py",
    }
)


def _slow_path(path: Path) -> bool:
    where = path.resolve().relative_to(TESTS).as_posix()
    return where.startswith("e2e/") or where == "e2e" or where in SLOW_INTEGRATION


def _quick(item: pytest.Item) -> bool:
    return not _slow_path(Path(str(item.fspath))) and item.get_closest_marker("slow") is None


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under ``-m quick`` exactly, the modules that hold no quick test are not even imported:
    collecting them (the e2e tier, schemathesis building a test per API operation) took about
    a quarter of each worker's collection, for tests then deselected."""
    if config.getoption("markexpr", "") != "quick":
        return None
    try:
        return True if _slow_path(collection_path) else None
    except ValueError:  # a path outside tests/
        return None


def _module_scoped(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(d.scope == "module" for defs in info.name2fixturedefs.values() for d in defs)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    xdist = config.pluginmanager.hasplugin("xdist")
    for item in items:
        if _quick(item):
            item.add_marker(pytest.mark.quick)
        if xdist and _module_scoped(item):
            item.add_marker(pytest.mark.xdist_group(Path(str(item.fspath)).name))


# --- PostgreSQL roles --------------------------------------------------------------------------
# Migration 0008 creates an owner role and a service role; roles are cluster-wide, so each run of
# the suite names its own (children inherit the variables) and drops them at its end; those of a
# killed run (its pid gone) at the start of the next. Never the server's other roles. Under
# pytest-xdist the controller names them before its workers start (they inherit the variables
# and return early here) and drops them once every worker is done.
ROLE_PREFIX = "paigow_t_"


def _pg_admin() -> Any:
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(
        os.environ.get("PAIGOW_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    )
    return psycopg.connect(
        host=url.host,
        port=url.port or 5432,
        user=url.username,
        password=url.password,
        dbname=url.database,
        autocommit=True,
        connect_timeout=3,
    )


def drop_roles(admin: Any, names: list[str]) -> None:
    """Drop these roles and whatever they own or were granted in the test database."""
    for name in names:
        exists = admin.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).fetchone()
        if exists is None:
            continue
        admin.execute(f'REASSIGN OWNED BY "{name}" TO CURRENT_USER')
        admin.execute(f'DROP OWNED BY "{name}"')
        admin.execute(f'DROP ROLE "{name}"')


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def pytest_configure(config: Any) -> None:
    if os.environ.get("PAIGOW_PG_OWNER_ROLE", "").startswith(ROLE_PREFIX):
        return  # a pytest inside a test run: the outer run's roles
    tag = f"{ROLE_PREFIX}{os.getpid()}_{secrets.token_hex(3)}"
    os.environ["PAIGOW_PG_OWNER_ROLE"] = f"{tag}_owner"
    os.environ["PAIGOW_PG_SERVICE_ROLE"] = f"{tag}_service"
    config.stash[_ROLES] = [f"{tag}_owner", f"{tag}_service"]
    try:
        admin = _pg_admin()
    except Exception:
        return  # no server: nothing to clean
    with admin:
        stale = [
            name
            for (name,) in admin.execute(
                "SELECT rolname FROM pg_roles WHERE rolname LIKE %s", (ROLE_PREFIX + "%",)
            ).fetchall()
            if name[len(ROLE_PREFIX) :].split("_")[0].isdigit()
            and not _pid_alive(int(name[len(ROLE_PREFIX) :].split("_")[0]))
        ]
        with contextlib.suppress(Exception):  # another run cleaning the same ones: theirs
            drop_roles(admin, stale)


def pytest_unconfigure(config: Any) -> None:
    names = config.stash.get(_ROLES, None)
    if not names:
        return
    try:
        admin = _pg_admin()
    except Exception:
        return
    with admin:
        drop_roles(admin, names)
