#!/usr/bin/env bash
# Runs a perft suite (lines `FEN;depth;count[;source]`, `#` comments) through qitune and
# reports each line's result and speed. Usage: scripts/perft-suite.sh FILE [MAX_LEAVES]
set -euo pipefail
file=${1:?usage: scripts/perft-suite.sh FILE [MAX_LEAVES]}
max=${2:-50000000}
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/qitune
pass=0 fail=0 skip=0
while IFS=';' read -r fen depth expected _; do
    [[ -z "$fen" || "$fen" == \#* ]] && continue
    if (( expected > max )); then skip=$((skip + 1)); continue; fi
    got=$("$bin" perft --fen "$fen" --depth "$depth" 2>/tmp/qitune-perft.$$ | tail -n 1)
    speed=$(sed -n 's/.*(\(.*\))/\1/p' /tmp/qitune-perft.$$)
    if [[ "$got" == "$expected" ]]; then
        pass=$((pass + 1)); printf 'ok    %-12s depth %s  %s\n' "$expected" "$depth" "$speed"
    else
        fail=$((fail + 1)); printf 'FAIL  %s depth %s: expected %s, got %s\n' "$fen" "$depth" "$expected" "$got"
    fi
done < "$file"
rm -f /tmp/qitune-perft.$$
echo "$pass passed, $fail failed, $skip skipped"
(( fail == 0 ))
