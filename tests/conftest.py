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

from pathlib import Path

import pytest
from hypothesis import settings

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
    }
)


def _quick(item: pytest.Item) -> bool:
    where = Path(str(item.fspath)).resolve().relative_to(TESTS).as_posix()
    if where.startswith("e2e/") or where in SLOW_INTEGRATION:
        return False
    return item.get_closest_marker("slow") is None


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
