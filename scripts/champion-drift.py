#!/usr/bin/env python3
"""How far a run's champions move: for every STEP-th generation's champion, the mean distance
of every weight with a range (search and clock knobs aside), each as a share of its range,
from a reference weight file, from
one chosen generation's champion, and from the champion STEP generations before. A run
whose selection sees only noise random-walks: the distance from a fixed generation keeps
growing while the distance from the reference does not shrink. Usage:

    python3 scripts/champion-drift.py RUN [STEP] [REFERENCE.json] [FIXED_GENERATION]

RUN is a run folder (runs/NAME, experiments/NAME); STEP defaults to 50, REFERENCE to
examples/xiangqi-hand-set.json and FIXED_GENERATION to STEP. The ranges come from
`qitune params` (target/release/qitune, else qitune on the PATH)."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def ranges(game):
    binary = ROOT / "target" / "release" / "qitune"
    command = str(binary) if binary.exists() else shutil.which("qitune")
    if command is None:
        sys.exit("no qitune binary: build it with cargo build --release")
    text = subprocess.run(
        [command, "params", "--game", game], capture_output=True, text=True, check=True
    ).stdout
    out = {}
    for line in text.splitlines():
        m = re.match(r"(\S+)\s+(-?\d+)\s+\[(-?\d+), (-?\d+)\]", line)
        if m and not m.group(1).startswith(("search_", "time_")):
            default, low, high = (int(m.group(i)) for i in (2, 3, 4))
            if high > low:
                out[m.group(1)] = (default, high - low)
    return out


def load(path):
    try:
        return json.loads(Path(path).read_text())["params"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"cannot read the weights in {path}: {e}")


def main():
    args = sys.argv[1:]
    if not 1 <= len(args) <= 4:
        sys.exit(__doc__)
    run = Path(args[0])
    try:
        step = int(args[1]) if len(args) > 1 else 50
        fixed = int(args[3]) if len(args) > 3 else step
    except ValueError:
        sys.exit("STEP and FIXED_GENERATION must be whole numbers")
    if step < 1:
        sys.exit("STEP must be at least 1")
    reference = load(args[2] if len(args) > 2 else ROOT / "examples" / "xiangqi-hand-set.json")
    champions = run / "champions"
    if not champions.is_dir():
        sys.exit(f"{run} has no champions folder: is it a run folder?")
    config = json.loads((run / "config.json").read_text())
    spec = ranges(config.get("game", "xiangqi"))

    def champion(g):
        # step-NNNN.json, or gen-NNNN.json in run folders of format 1.
        for path in (champions / f"step-{g:04d}.json", champions / f"gen-{g:04d}.json"):
            if path.exists():
                return load(path)
        return None

    def distance(a, b):
        return sum(abs(a.get(n, d) - b.get(n, d)) / width for n, (d, width) in spec.items()) / len(spec)

    anchor = champion(fixed)
    if anchor is None:
        sys.exit(f"{run} has no champion of generation {fixed}")
    print(f"mean distance of {len(spec)} weights, as a share of each range")
    print("generation  from reference  from generation %d  from %d before" % (fixed, step))
    previous = None
    g = step
    while (c := champion(g)) is not None:
        before = f"{distance(c, previous):.3f}" if previous is not None else "-"
        print(f"{g:10}  {distance(c, reference):14.3f}  {distance(c, anchor):18.3f}  {before:>14}")
        previous, g = c, g + step


if __name__ == "__main__":
    main()
