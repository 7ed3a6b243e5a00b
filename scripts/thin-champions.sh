#!/usr/bin/env bash
# Thins the champions of an archived run folder to those its figures need: every EVERY-th
# step's, every validated one, the last, and the ones `qitune export` picks for the budgets
# the results compare methods at (--hours 1/3, 0.5, 1 and 2; --games 24,000 and 144,000).
# The report joins the champions kept, the run still resumes (a step needs only the last
# one), and an export of a champion thinned out names it as missing.
# Usage: scripts/thin-champions.sh RUN [EVERY]   (EVERY defaults to 50)
set -euo pipefail
(($# >= 1)) || { echo "usage: scripts/thin-champions.sh RUN [EVERY]" >&2; exit 2; }
run=$(realpath "$1")
every=${2:-50}
[[ $every =~ ^[1-9][0-9]*$ ]] || { echo "error: EVERY must be a positive whole number, not '$every'" >&2; exit 2; }
[[ -f $run/config.json && -d $run/champions ]] || { echo "error: $run is no run folder" >&2; exit 2; }
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-target}/release/qitune
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

declare -A keep
# The step of the champion an export picks, from its weight file's provenance (a GA's, or
# any run of format 1, says "generation"; a twins' "step" there is its step size).
picked() {
    "$bin" export --run "$run" "$@" --out "$tmp/w.json" --force >/dev/null 2>&1 || return 0
    python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["provenance"]; print(p.get("generation", p.get("step")))' "$tmp/w.json"
}
# Champions are step-NNNN.json, or gen-NNNN.json in folders of format 1.
shopt -s nullglob
champions=("$run"/champions/step-*.json "$run"/champions/gen-*.json)
for budget in "--hours 0.3333" "--hours 0.5" "--hours 1" "--hours 2" "--games 24000" "--games 144000" "--best"; do
    # shellcheck disable=SC2086
    step=$(picked $budget)
    [[ -n $step ]] && keep[$step]=1
done
if [[ -f $run/validation.csv ]]; then
    while IFS=, read -r step _; do keep[$step]=1; done < <(tail -n +2 "$run/validation.csv")
fi
last=0
for file in "${champions[@]}"; do
    step=$((10#$(basename "$file" .json | cut -d- -f2)))
    ((step > last)) && last=$step
done
keep[$last]=1
removed=0
for file in "${champions[@]}"; do
    step=$((10#$(basename "$file" .json | cut -d- -f2)))
    if ((step % every != 0)) && [[ -z ${keep[$step]:-} ]]; then
        rm "$file"
        removed=$((removed + 1))
    fi
done
echo "$run: $removed champions removed, $(find "$run/champions" -name '*-[0-9]*.json' | wc -l) kept"
