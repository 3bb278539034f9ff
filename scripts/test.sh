#!/usr/bin/env bash
# The whole test suite (unit, integration on SQLite and PostgreSQL, end to end).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/bootstrap.sh"
cd "$root"
exec .venv/bin/python -m pytest "$@"
