#!/usr/bin/env bash
# Scores a player against the random weight sets random:FIRST..LAST (the paper's random
# players), one match each at an equal node budget, and prints each score, the mean, the
# weakest set and how many sets it scores 95% or more against.
# Usage: scripts/random-players.sh [PLAYER] [FIRST] [LAST] [GAMES] [NODES] [POSITIONS] [GAME]
# GAME is xiangqi (the default) or amazons; NODES is then UCT playouts a move.
set -euo pipefail
player=${1:-default}
first=${2:-1}
last=${3:-20}
games=${4:-200}
nodes=${5:-2000}
positions=${6:-}
game=${7:-xiangqi}
name=$player
# Paths given by the user are relative to where they ran the script.
[[ -f "$player" ]] && player=$(realpath "$player")
[[ -n "$positions" ]] && positions=$(realpath "$positions")
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/qitune
json=$(mktemp)
trap 'rm -f "$json"' EXIT
for seed in $(seq "$first" "$last"); do
    "$bin" match --game "$game" --a "$player" --b "random:$seed" --games "$games" --nodes "$nodes" \
        ${positions:+--positions "$positions"} --json "$json" --force >/dev/null
    printf 'random:%-5s %.4f\n' "$seed" "$(sed -n 's/^ *"score": \([0-9.]*\),*$/\1/p' "$json")"
done | awk -v player="$name" '
    { print; sum += $2; n++; if (n == 1 || $2 < min) { min = $2; weakest = $1 } if ($2 >= 0.95) good++ }
    END { if (n == 0) exit 1
          printf "%s: mean %.4f over %d sets; weakest %s at %.3f; %d of %d sets at 0.95 or more\n",
          player, sum / n, n, weakest, min, good + 0, n }'
