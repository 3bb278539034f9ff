#!/usr/bin/env bash
# Regenerates the hash-pinned lock files from pyproject.toml (and requirements/build.in):
#   requirements/runtime.lock  what `paigow` needs to run (scripts/demo.sh installs it)
#   requirements/dev.lock      the same pins plus the test and lint tools (scripts/test.sh, CI)
# Run it after changing a dependency in pyproject.toml and commit the three files together.
# It uses uv (`uv pip compile`); without one on PATH it installs uv into a scratch venv.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
uv="$(command -v uv || true)"
if [ -z "$uv" ]; then
  scratch="${TMPDIR:-/tmp}/paigow-uv"
  [ -x "$scratch/bin/uv" ] || { python3 -m venv "$scratch" && "$scratch/bin/pip" install -q 'uv>=0.5,<1'; }
  uv="$scratch/bin/uv"
fi
common=(--universal --python-version 3.11 --generate-hashes --quiet
  --custom-compile-command "bash scripts/lock.sh")
"$uv" pip compile pyproject.toml requirements/build.in "${common[@]}" -o requirements/runtime.lock
# The dev lock keeps every runtime pin exactly (-c): tests run what production runs.
"$uv" pip compile pyproject.toml requirements/build.in --extra dev -c requirements/runtime.lock \
  "${common[@]}" -o requirements/dev.lock
echo "requirements/runtime.lock and requirements/dev.lock regenerated"
