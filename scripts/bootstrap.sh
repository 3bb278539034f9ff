#!/usr/bin/env bash
# Creates .venv and installs the project from its hash-pinned lock, once; again when the lock
# changes. `bash scripts/bootstrap.sh runtime` (scripts/demo.sh): what `paigow` needs to run;
# `bash scripts/bootstrap.sh dev` (scripts/test.sh, CI): the same pins plus the test and lint
# tools. The locks come from pyproject.toml: `bash scripts/lock.sh` regenerates them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
tier="${1:-dev}"
lock="requirements/$tier.lock"
[ -f "$lock" ] || { echo "bootstrap: no lock $lock (runtime or dev)" >&2; exit 2; }
python="${PYTHON:-python3}"
stamp=".venv/.installed-$tier"
# Up to date: this tier (or the dev tier, which holds every runtime pin) installed from the
# lock as it stands.
for done in "$stamp" .venv/.installed-dev; do
  if [ -x .venv/bin/paigow ] && [ -f "$done" ] && [ ! "$lock" -nt "$done" ] &&
    [ ! pyproject.toml -nt "$done" ]; then
    exit 0
  fi
done
echo "installing paigow into .venv (first run only)…" >&2
[ -x .venv/bin/python ] || "$python" -m venv .venv
# Every file checked against the lock's hashes; then the project itself, editable and with no
# dependency of its own to resolve (the lock brought them, and setuptools to build with).
.venv/bin/python -m pip install --quiet --no-compile --require-hashes -r "$lock"
.venv/bin/python -m pip install --quiet --no-compile --no-deps --no-build-isolation -e .
touch "$stamp"
