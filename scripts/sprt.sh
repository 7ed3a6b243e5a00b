#!/usr/bin/env bash
# An SPRT of search knobs or a weight file against the built-in defaults at a real clock, both sides
# `qitune engine` played as outside engines (UCI, Hash 16 MB, one thread each), from the
# middlegame set (or POSITIONS) in random order. The test's files live in experiments/sprt/NAME/ (the two
# engine descriptions, games.pgn, result.json, and `bench`: the base's bench count when it
# began); running the same command again after a stop, a crash or the end of a sitting goes
# on from the games in games.pgn (a test already decided says so and stops), unless the base
# plays otherwise since (another bench count), which would mix two bases in one test.
#
# Usage: scripts/sprt.sh NAME [WEIGHTS.json] [KNOB=VALUE...]   (a weight file, knobs, or both)
#   e.g. scripts/sprt.sh probcut-120 search_probcut_margin=120
#        scripts/sprt.sh refine my-weights.json
# A weight file is copied into the test's folder (the candidate plays `qitune engine
# --weights` with the copy, so the test resumes without the original); knobs set after it
# override its values.
# Environment: TC (default 2+0.02), GAMES_AT_ONCE (default 2), BOUNDS (Elo0,Elo1; default
# 0,10; none plays MAX_GAMES games without stopping early, as a confirmation over a fixed
# number of games at a longer clock does), MAX_GAMES (default 20000), BASE (a weight file
# the base plays instead of the built-in set, copied as base-weights.json; e.g. a tuned set
# against the set it started from), POSITIONS (default positions/xiangqi-middlegames.epd; a
# tuned set is judged on positions/xiangqi-holdout.epd, which no tuning game used). The
# seed of the opening order comes from NAME.
set -euo pipefail
usage() {
    echo "usage: scripts/sprt.sh NAME [WEIGHTS.json] [KNOB=VALUE...] (see the comment at its top)" >&2
    exit 2
}
(($# >= 2)) || usage
name=$1
shift
[[ $name =~ ^[A-Za-z0-9._-]+$ ]] || { echo "error: NAME '$name' must be letters, digits, '.', '_' or '-'" >&2; exit 2; }
weights=
if [[ $1 == *.json ]]; then
    weights=$1
    shift
    [[ -r $weights ]] || { echo "error: cannot read the weight file '$weights'" >&2; exit 2; }
    weights=$(realpath "$weights")
fi
[[ -n $weights ]] || (($# >= 1)) || usage
base_weights=${BASE:-}
if [[ -n $base_weights ]]; then
    [[ -r $base_weights ]] || { echo "error: cannot read the base's weight file '$base_weights'" >&2; exit 2; }
    base_weights=$(realpath "$base_weights")
fi
positions=${POSITIONS:-positions/xiangqi-middlegames.epd}
[[ -r $positions ]] || { echo "error: cannot read the positions '$positions'" >&2; exit 2; }
positions=$(realpath "$positions")
options='"Hash": 16'
for setting in "$@"; do
    [[ $setting =~ ^([a-z_][a-z0-9_]*)=(-?[0-9]+)$ ]] || { echo "error: '$setting' is not KNOB=INTEGER" >&2; exit 2; }
    options+=", \"${BASH_REMATCH[1]}\": ${BASH_REMATCH[2]}"
done
cd "$(dirname "$0")/.."
cargo build --release --quiet
# An engine ignores an option it does not have, so a misspelt knob would test nothing.
known=$(target/release/qitune params | awk '{print $1}')
for setting in "$@"; do
    grep -qx "${setting%%=*}" <<<"$known" || { echo "error: '${setting%%=*}' is not a parameter of qitune params" >&2; exit 2; }
done
# The engine would only refuse a bad weight file at the first game: check it now.
loads() {
    local said
    said=$(target/release/qitune bench --weights "$1" 2>&1 >/dev/null) || { echo "$said" >&2; exit 2; }
}
[[ -z $weights ]] || loads "$weights"
[[ -z $base_weights ]] || loads "$base_weights"
dir=experiments/sprt/$name
# A decided test is a record, whether or not its games are still kept beside it.
if grep -qs '"decision": "H' "$dir/result.json"; then
    echo "$name: decided ($(grep -o '"decision": "H[01]"' "$dir/result.json")); the record is $dir/result.json"
    exit 0
fi
# So is one that played all its games without a decision (BOUNDS=none, or MAX_GAMES reached).
if grep -qs '"partial": false' "$dir/result.json"; then
    echo "$name: all its games played; the record is $dir/result.json"
    exit 0
fi
mkdir -p "$dir"
# A test goes on only while the base plays as it did when it began: the folder records the
# base's bench count (the behaviour's checksum), the defaults' or, with BASE, its weight
# file's, so that a base given by a file whose settings cover a change of the defaults goes on.
bench=$(target/release/qitune bench ${base_weights:+--weights "$base_weights"} 2>/dev/null | awk '/^bench:/ {print $2}')
# A fresh test may overwrite a result.json left by a stop before its first game.
go_on=(--force)
if [[ -s $dir/games.pgn ]]; then
    began=$(cat "$dir/bench" 2>/dev/null || echo unknown)
    [[ $began == "$bench" ]] || {
        echo "error: $dir began against a base of bench $began; it is now bench $bench: move the folder away or give the test a new name" >&2
        exit 2
    }
    go_on=(--resume)
else
    echo "$bench" >"$dir/bench"
fi
describe() {
    printf '{"name": "%s", "path": "../../../target/release/qitune", "args": [%s], "dir": ".", "protocol": "uci",\n "options": {%s}}\n' "$1" "$2" "$3"
}
args='"engine"'
if [[ -n $weights ]]; then
    [[ $weights -ef $dir/weights.json ]] || cp "$weights" "$dir/weights.json"
    args+=', "--weights", "weights.json"'
fi
describe "$name" "$args" "$options" >"$dir/candidate.json"
base_args='"engine"'
if [[ -n $base_weights ]]; then
    [[ $base_weights -ef $dir/base-weights.json ]] || cp "$base_weights" "$dir/base-weights.json"
    base_args+=', "--weights", "base-weights.json"'
fi
describe base "$base_args" '"Hash": 16' >"$dir/base.json"

seed=$(($(printf '%s' "$name" | cksum | cut -d' ' -f1) % 1000))
sprt=(--sprt="${BOUNDS:-0,10}")
[[ ${BOUNDS:-} != none ]] || sprt=()
exec target/release/qitune match --a "$dir/candidate.json" --b "$dir/base.json" \
    --tc "${TC:-2+0.02}" "${sprt[@]}" --games "${MAX_GAMES:-20000}" \
    --positions "$positions" --order random --seed "$seed" \
    --threads "${GAMES_AT_ONCE:-2}" --pgn "$dir/games.pgn" --json "$dir/result.json" "${go_on[@]}"
