#!/usr/bin/env bash
# The main job on the embedded default (paigow.db here, or $PAIGOW_DB): play a short table session
# through the service and the store (opener, buy-ins for cash and markers, fills and credits, closer,
# the count), then show the books and the regulator's proof of the same file.
# Installs the runtime only (requirements/runtime.lock), the first time.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/bootstrap.sh" runtime
# The console script caches bytecode outside the tree, even where PYTHONDONTWRITEBYTECODE is set
# (entrypoints/cli/launch.py): only the first command compiles.
paigow="$root/.venv/bin/paigow"

echo "== paigow simulate: a gaming day of 200 rounds, six players, House Way fr, Fortune side bets"
"$paigow" simulate --rounds 200 --players 6 --fortune

echo
echo "== paigow report: the floor's books, one row per table and gaming day (every figure: --view accounting)"
"$paigow" report --day all

echo
echo "== paigow audit verify: replay every event and check chain, procedure, rules and money"
"$paigow" audit verify
