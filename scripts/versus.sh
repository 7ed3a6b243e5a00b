#!/usr/bin/env bash
# Two players of qitune match (a base and a candidate) against the same opponent, on the
# same positions, interleaved: the positions go in chunks, each chunk played by both, the
# order alternating (base first, then candidate first), so that a machine that speeds up or
# slows down during the hour weighs on both alike. The score against a much stronger outside
# engine moves with the machine's speed; a change is judged against its base played beside
# it. Each chunk keeps its PGN and JSON in DIR, so the same command goes on after a stop.
# BASE '-' plays the candidate alone: a long match cut into chunks that resume.
#
# Usage: scripts/versus.sh DIR BASE CANDIDATE OPPONENT POSITIONS [CHUNK]
#   e.g. scripts/versus.sh /tmp/vs default cand.json pikafish.json openings.epd
# Environment: TC (default 5+0.05), HASH (16), THREADS (2). CHUNK: positions a chunk (10).
set -euo pipefail
usage() {
    echo "usage: scripts/versus.sh DIR BASE CANDIDATE OPPONENT POSITIONS [CHUNK] (see the comment at its top)" >&2
    exit 2
}
(($# == 5 || $# == 6)) || usage
dir=$1 base=$2 cand=$3 opponent=$4 positions=$5 chunk=${6:-10}
[[ $chunk =~ ^[1-9][0-9]*$ ]] || { echo "error: CHUNK '$chunk' is not a positive number" >&2; exit 2; }
[[ -r $positions ]] || { echo "error: cannot read the positions file '$positions'" >&2; exit 2; }
for player in "$base" "$cand" "$opponent"; do
    [[ $player != *.json || -r $player ]] || { echo "error: cannot read the player '$player'" >&2; exit 2; }
done
qitune=$(dirname "$0")/../target/release/qitune
[[ -x $qitune ]] || { echo "error: $qitune is missing: run cargo build --release" >&2; exit 2; }
mkdir -p "$dir"
grep -v '^\s*\(#\|$\)' "$positions" >"$dir/positions.epd" || true
total=$(wc -l <"$dir/positions.epd")
((total > 0)) || { echo "error: '$positions' has no positions" >&2; exit 2; }
chunks=$(((total + chunk - 1) / chunk))
declare -A player=([base]=$base [candidate]=$cand)
names=(base candidate)
[[ $base != - ]] || names=(candidate)
play() { # NAME CHUNK-FILE INDEX
    local out=$dir/$1-$3
    [[ -s $out.json ]] && return
    "$qitune" match --a "${player[$1]}" --b "$opponent" --tc "${TC:-5+0.05}" --hash "${HASH:-16}" \
        --threads "${THREADS:-2}" --positions "$2" --games $((2 * $(wc -l <"$2"))) \
        --pgn "$out.pgn" --json "$out.json.part" --force --quiet >/dev/null
    mv "$out.json.part" "$out.json"
}
for ((i = 0; i < chunks; i++)); do
    part=$dir/chunk-$i.epd
    sed -n "$((i * chunk + 1)),$(((i + 1) * chunk))p" "$dir/positions.epd" >"$part"
    order=("${names[@]}")
    ((i % 2 == 0 || ${#names[@]} == 1)) || order=(candidate base)
    for name in "${order[@]}"; do
        play "$name" "$part" "$i"
    done
    echo "chunk $((i + 1)) of $chunks done" >&2
done
python3 - "$dir" "$chunks" "${names[@]}" <<'EOF'
import json, math, sys
folder, chunks, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
elo = lambda p: -400 * math.log10(1 / p - 1) if 0 < p < 1 else math.copysign(math.inf, p - 0.5)
bound = lambda p: elo(min(max(p, 1e-9), 1 - 1e-9))
for name in names:
    results = [json.load(open(f"{folder}/{name}-{i}.json")) for i in range(chunks)]
    w, l, d = (sum(r[key] for r in results) for key in ("wins", "losses", "draws"))
    faults = sum(r["time_forfeits"] + r["illegal_moves"] + r["false_draw_claims"] for r in results)
    n = w + l + d
    s = (w + d / 2) / n
    sd = math.sqrt((w * (1 - s) ** 2 + l * s ** 2 + d * (0.5 - s) ** 2) / n / n)
    lo, hi = bound(s - 1.96 * sd), bound(s + 1.96 * sd)
    print(f"{name:9}  {w}-{l}-{d}  {n} games  {100 * s:.1f}%  Elo {elo(s):+.1f} (95% {lo:+.1f} to {hi:+.1f})  {faults} forfeits, illegal moves or false claims")
    # Each side's mean depth and time a move, weighted by moves, over the chunks that carry
    # them (a chunk's figures cover the games that run played).
    for side, who in (("a", name), ("b", "opponent")):
        figures = [f for r in results if (f := r.get("clock", {}).get(side))]
        weighted = lambda rows, key: sum(f[key] * f["moves"] for f in rows) / sum(f["moves"] for f in rows)
        if figures:
            depths = [f for f in figures if f["mean_depth"] is not None]
            depth = f"mean depth {weighted(depths, 'mean_depth'):.1f}, " if depths else ""
            moves = sum(f["moves"] for f in figures)
            print(f"  {who:9}  {depth}{weighted(figures, 'mean_ms'):.0f} ms a move over {moves} moves, longest {max(f['longest_ms'] for f in figures):.0f} ms")
EOF
