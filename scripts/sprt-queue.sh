#!/usr/bin/env bash
# Runs the SPRTs of experiments/sprt/queue one after another (a line each: NAME KNOB=VALUE...,
# as scripts/sprt.sh takes them; '#' starts a comment). A test already decided is skipped, the
# one under way goes on from its games, so the same command resumes the queue after a stop,
# a crash or the end of a sitting. Environment: as scripts/sprt.sh.
#
# Usage: scripts/sprt-queue.sh
set -euo pipefail
cd "$(dirname "$0")/.."
queue=experiments/sprt/queue
[[ -r $queue ]] || { echo "error: $queue is missing: a line NAME KNOB=VALUE... per test" >&2; exit 2; }
# The queue is read on descriptor 3, so that nothing the tests run reads it from stdin.
while read -r -u 3 name settings; do
    [[ -z $name || $name == \#* ]] && continue
    result=experiments/sprt/$name/result.json
    if [[ -r $result ]] && grep -q '"decision": "H' "$result"; then
        echo "$name: decided ($(grep -o '"decision": "H[01]"' "$result"))"
        continue
    fi
    echo "$name: $settings"
    # shellcheck disable=SC2086 # the settings are separate words
    scripts/sprt.sh "$name" $settings
done 3<"$queue"
