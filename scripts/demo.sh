#!/usr/bin/env bash
# The main job on the embedded default: value hands, set them by the House Way, settle wagers.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/bootstrap.sh"
paigow="$root/.venv/bin/paigow"

echo "== paigow evaluate: five- and two-card hands (the joker is semi-wild)"
printf '%s\n' "As Ks JK 7d 2c" "9h Th Jh Qh JK" "As Ks 7s 4s JK" "Ah Ad Ac As JK" "JK Kd" |
  "$paigow" evaluate

echo "== paigow set-hand: the House Way sets seven cards, with the clause that decided"
printf '%s\n' "As Ad 7c 7h Kd 9s 2c" "Ks Qs Js Ts 9s 3d 3c" "JK Ah Ad Kc Kd 5s 2h" |
  "$paigow" set-hand --house-way fr

echo "== paigow settle: one main wager of 20.00 against the banker, 5% commission"
printf '%s\n' \
  '{"player": {"back": "As Ad Qd 7c 7h", "front": "JK 2c"}, "banker": {"back": "Kd Kh 9s 8d 3c", "front": "Qh Jc"}, "wager": 2000}' \
  '{"player": {"back": "9c 9d 5s 4h 2d", "front": "Ts Tc"}, "banker": {"back": "8s 8h 6d 5c 3h", "front": "Ac Kc"}, "wager": 2000}' |
  "$paigow" settle
