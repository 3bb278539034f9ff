#!/usr/bin/env bash
# The whole test suite (unit, integration on SQLite and PostgreSQL, end to end) in parallel:
# pytest-xdist, one worker per core (-n auto; a module with a module-scoped fixture stays on one
# worker: tests/conftest.py). Arguments go to pytest:
#   bash scripts/test.sh -m quick      the inner loop: the quick tier (docs/testing.md)
#   bash scripts/test.sh tests/unit    one folder; -n 0 runs in this process (for a debugger)
# Installs the dev lock (requirements/dev.lock) the first time.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/bootstrap.sh" dev
cd "$root"
# Bytecode cached outside the tree: where the machine forbids writing it (PYTHONDONTWRITEBYTECODE),
# every pytest worker and every `paigow` process an e2e test starts would compile every module
# again (docs/testing.md, "Bytecode"; its cost: benchmarks/README.md).
export PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX="${PYTHONPYCACHEPREFIX:-${TMPDIR:-/tmp}/paigow-pycache}"
exec .venv/bin/python -m pytest -n auto --dist loadgroup "$@"
