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
# pip runs from the Python that makes the venv when it can (`pip --python`, pip 22.3+): a venv
# without its own pip is made in a second where ensurepip takes half a minute on a busy machine.
pip=(.venv/bin/python -m pip)
if [ ! -x .venv/bin/python ]; then
  pip_help="$("$python" -m pip --help 2>/dev/null || true)"
  if [[ "$pip_help" == *"--python <python>"* ]]; then
    "$python" -m venv --without-pip .venv
  else
    "$python" -m venv .venv
  fi
fi
.venv/bin/python -c 'import pip' 2>/dev/null || pip=("$python" -m pip --python .venv/bin/python)
quiet_pip() {
  # pip's own warnings about index folders a machine's pip configuration names but lacks are
  # noise here; anything else it says goes to standard error as it comes.
  "${pip[@]}" install --quiet --no-compile "$@" 2>&1 |
    { grep -v -e 'is ignored: it is neither a file nor a directory' >&2 || true; }
}
# Every file checked against the lock's hashes; then the project itself, editable and with no
# dependency of its own to resolve (the lock brought them, and setuptools to build with).
quiet_pip --require-hashes -r "$lock"
quiet_pip --no-deps --no-build-isolation -e .
touch "$stamp"
