#!/usr/bin/env bash
# The README's methods table: every tuning method's output at one game budget (the weight file
# the row ships) and at wall-clock budgets (the champion its run had after each of HOURS hours
# of tuning, `qitune export --hours`; HOURS is one figure or several with commas, e.g.
# 0.333,1), each measured by GAMES games at NODES nodes a move on held-out openings against
# the hand-set weights. Prints the table as Markdown; writes the
# plot of the runs' validations against tuning games within the table's budget of 144,000
# (`qitune report --compare --games`) to SVG when given.
# Usage: scripts/methods-table.sh [RUNS] [HOURS] [GAMES] [NODES] [SVG]
# RUNS holds the rows' run folders (default experiments); a row whose run folder is missing
# gets no wall-clock figure.
set -euo pipefail
runs=${1:-experiments}
hours=${2:-0.5}
[[ $hours =~ ^[0-9.]+(,[0-9.]+)*$ ]] || { echo "methods-table: HOURS '$hours' is not a list of numbers" >&2; exit 2; }
IFS=',' read -r -a budgets <<<"$hours"
games=${3:-2000}
nodes=${4:-2000}
svg=${5:-}
[[ -d "$runs" ]] && runs=$(realpath "$runs")
[[ -n "$svg" ]] && svg=$(realpath -m "$svg")
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/qitune
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# label | configuration | run folder under RUNS | weight file the row ships
rows=(
    "paper GA|xiangqi-paper.json|xiangqi-paper|examples/xiangqi-paper-171.json"
    "improved GA, 26 scalars|xiangqi-hand-set.json|xiangqi-hand-set|examples/xiangqi-ga-scalars.json"
    "GA, mirrored twins|xiangqi-ga-twins-all.json|xiangqi-ga-twins-all|examples/xiangqi-ga-best.json"
    "SPSA|xiangqi-spsa.json|xiangqi-spsa|examples/xiangqi-spsa.json"
    "fitting on positions|xiangqi-texel.json|xiangqi-texel|examples/xiangqi-texel.json"
    "GA, then SPSA|xiangqi-ga-then-spsa.json|xiangqi-ga-then-spsa|examples/xiangqi-ga-then-spsa.json"
    "fit to a mentor, then SPSA|xiangqi-best-mentor-spsa.json|xiangqi-best-mentor-spsa|examples/xiangqi-best-tuned.json"
)

"$bin" params | awk 'NR > 1 && $2 ~ /^-?[0-9]+$/ {print $1, $2}' >"$tmp/defaults"

# Elo ± interval (wins-losses-draws) of weight file $1 against the hand-set weights. A champion
# already measured (the same values once defaults are filled in, as when a run finished within
# a budget and its last champion is the shipped file) is not played again.
measure() {
    local key
    key=$(python3 -c 'import hashlib, json, sys
defaults = dict(line.split() for line in open(sys.argv[2]))
given = json.load(open(sys.argv[1]))["params"]
values = {k: str(v) for k, v in given.items() if str(v) != defaults.get(k)}
print(hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest())' "$1" "$tmp/defaults")
    if [[ ! -f "$tmp/$key" ]]; then
        "$bin" match --a "$1" --b examples/xiangqi-hand-set.json --games "$games" --nodes "$nodes" \
            --positions positions/xiangqi-holdout.epd --json "$tmp/m.json" --force --quiet >/dev/null
        python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))
print("%+.1f ± %.1f (%d-%d-%d)" % (m["elo"], m["elo_error"], m["wins"], m["losses"], m["draws"]), end="")' \
            "$tmp/m.json" >"$tmp/$key"
    fi
    cat "$tmp/$key"
}

head="| method (configuration) | weight file | tuning games | against hand-set |"
rule="| --- | --- | --- | --- |"
for h in "${budgets[@]}"; do
    head+=" after $h h of tuning |"
    rule+=" --- |"
done
echo "$head"
echo "$rule"
compare=()
for row in "${rows[@]}"; do
    IFS='|' read -r label config run weights <<<"$row"
    [[ -f "$weights" ]] || { echo "methods-table: $weights is missing" >&2; exit 1; }
    # A run in stages counts every stage's games (the export's tuning_games).
    spent=$(python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))["provenance"]
print(format(p.get("tuning_games", p["games"]), ","))' "$weights")
    full=$(measure "$weights")
    line="| $label (\`$config\`) | \`$weights\` | $spent | $full |"
    [[ -d "$runs/$run" ]] && compare+=("$runs/$run")
    for h in "${budgets[@]}"; do
        timed="(no run folder $runs/$run)"
        if [[ -d "$runs/$run" ]]; then
            if "$bin" export --run "$runs/$run" --hours "$h" --out "$tmp/h.json" --force \
                >/dev/null 2>"$tmp/err"; then
                timed=$(measure "$tmp/h.json")
            else
                timed="($(tr -d '\n' <"$tmp/err"))"
            fi
        fi
        line+=" $timed |"
    done
    echo "$line"
done
if [[ -n "$svg" && ${#compare[@]} -gt 0 ]]; then
    "$bin" report --compare "${compare[@]}" --games 144000 --out "$svg" --force >/dev/null
    echo "plot: $svg"
fi
