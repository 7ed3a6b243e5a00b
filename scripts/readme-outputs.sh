#!/usr/bin/env bash
# Replays the outputs of the README and docs/ that move with the engine's defaults (after a change that alters
# `qitune bench`), each into OUT/NAME.txt, for pasting back: the first run and its check at
# 2,000 nodes, the GA run from random weights with its export and round robin, the outside
# run's first step beside the embedded one's, `bench`, the engine transcript and the match
# against the material player. Takes about a quarter of an hour on 2 cores and must have the machine
# alone (the lines print games/s). The runs go to OUT/runs, never to runs/.
#
# Usage: scripts/readme-outputs.sh OUT
set -euo pipefail
(($# == 1)) || { echo "usage: scripts/readme-outputs.sh OUT" >&2; exit 2; }
out=$(realpath -m "$1")
[[ ! -e $out ]] || { echo "error: '$out' exists: name a new folder" >&2; exit 2; }
cd "$(dirname "$0")/.."
cargo build --release --quiet
mkdir -p "$out/runs"
q=$PWD/target/release/qitune
runs=$out/runs
step() { # NAME COMMAND...: the command's stdout and stderr into OUT/NAME.txt
    local name=$1
    shift
    echo "$(date +%T) $name"
    "$@" >"$out/$name.txt" 2>&1
}
step quick "$q" tune --config configs/xiangqi-quick.json --runs "$runs"
step quick-export "$q" export --run "$runs/xiangqi-quick" --best --out "$out/quick-best.json"
step quick-check "$q" match --a "$out/quick-best.json" --b examples/xiangqi-hand-set.json --games 2000 \
    --nodes 2000 --positions positions/xiangqi-holdout.epd --quiet
step ga-random "$q" tune --config configs/xiangqi-ga-random.json --runs "$runs"
step ga-export "$q" export --run "$runs/xiangqi-ga-random" --best --out "$out/evolved.json"
step ga-roundrobin "$q" roundrobin --run "$runs/xiangqi-ga-random" --gens 1,10-60:10 --random 2 --games-per-pair 40
step outside-1 "$q" tune --config configs/xiangqi-outside.json --generations 1 --threads 1 --runs "$runs"
step quick-1 "$q" tune --config experiments/configs/xiangqi-scalars-spsa.json --generations 1 --threads 1 --runs "$runs" --name quick-1
step bench "$q" bench
echo '{"game": "xiangqi", "format": 1, "params": {"search_probcut_margin": 0}}' >"$out/probcut.json"
step bench-probcut "$q" bench --weights "$out/probcut.json"
# The search answers after its own time; the input ends only once it has.
step engine "$q" engine < <(printf 'uci\nposition startpos moves h2e2 h9g7\ngo wtime 2000 btime 2000 winc 100 binc 100\n'; sleep 2)
step material "$q" match --a default --b material --games 200 --nodes 2000 --positions positions/xiangqi-middlegames.epd
echo "$(date +%T) done: $out"
