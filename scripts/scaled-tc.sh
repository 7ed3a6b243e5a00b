#!/usr/bin/env bash
# Prints a clock for scripts/versus.sh scaled to a reference machine's speed, the way fishtest
# scales its clocks: a score against Pikafish-HCE moves with how many nodes each engine
# searches in the time, so a match is played at the clock that gives Pikafish-HCE the nodes
# it had at 5 s + 0.05 s on the fastest machine these matches ran on (its `bench 16 1 13` at
# 1.71 M nodes a second). The speed is the median of five benches, taken on an idle machine.
#
# Usage: scripts/scaled-tc.sh PIKAFISH [BASE_TC] [REFERENCE_NPS]
#   e.g. TC=$(scripts/scaled-tc.sh /opt/pikafish/src/pikafish) scripts/versus.sh ...
set -euo pipefail
(($# >= 1 && $# <= 3)) || { echo "usage: scripts/scaled-tc.sh PIKAFISH [BASE_TC] [REFERENCE_NPS]" >&2; exit 2; }
engine=$1 tc=${2:-5+0.05} reference=${3:-1710000}
[[ -x $engine ]] || { echo "error: '$engine' is not an executable" >&2; exit 2; }
[[ $tc =~ ^[0-9]+(\.[0-9]+)?\+[0-9]+(\.[0-9]+)?$ ]] || { echo "error: BASE_TC '$tc' is not of the form BASE+INCREMENT" >&2; exit 2; }
[[ $reference =~ ^[1-9][0-9]*$ ]] || { echo "error: REFERENCE_NPS '$reference' is not a positive number" >&2; exit 2; }
speeds=()
for _ in 1 2 3 4 5; do
    # A bench that fails leaves nps empty, which the check below reports.
    nps=$("$engine" bench 16 1 13 2>&1 | awk -F: '/Nodes\/second/ {gsub(/ /, "", $2); print $2}') || nps=
    [[ $nps =~ ^[0-9]+$ ]] || { echo "error: '$engine bench 16 1 13' printed no nodes a second" >&2; exit 1; }
    speeds+=("$nps")
done
median=$(printf '%s\n' "${speeds[@]}" | sort -n | sed -n 3p)
echo "benches ${speeds[*]}: median $median nodes a second, reference $reference" >&2
python3 -c "
scale = $reference / $median
base, inc = (float(x) for x in '$tc'.split('+'))
print(f'{base * scale:.2f}+{inc * scale:.4f}')
"
