#!/usr/bin/env python3
"""The mean of a run's champions from generation FROM to TO, each weight rounded to the
nearest integer, written as a weight file with the last one's provenance: the iterate
averaging (Polyak-Ruppert) of SPSA and the fit, done after the run. Usage:

    python3 scripts/mean-champions.py RUN FROM TO OUT.json [EXPORTED.json]

RUN is a run folder (runs/NAME, runs/NAME/stage-2) whose champions/ holds every
generation's file (step-NNNN.json or gen-NNNN.json). With EXPORTED.json (the last one as
`qitune export` wrote it), its provenance (configuration, tuning games and hours, commit)
is kept in place of the champion's. Either way the provenance names the generations
averaged ("mean_of")."""

import json
import sys
from pathlib import Path


def champion(run, n):
    for prefix in ("step", "gen"):
        path = Path(run) / "champions" / f"{prefix}-{n:04}.json"
        if path.exists():
            return json.loads(path.read_text())
    sys.exit(f"error: {run} has no champion of generation {n}")


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    run, out = sys.argv[1], Path(sys.argv[4])
    try:
        first, last = int(sys.argv[2]), int(sys.argv[3])
    except ValueError:
        sys.exit("error: FROM and TO must be generation numbers")
    if not 1 <= first <= last:
        sys.exit(f"error: FROM {first} and TO {last} must satisfy 1 <= FROM <= TO")
    files = [champion(run, n) for n in range(first, last + 1)]
    names = files[-1]["params"].keys()
    for n, f in zip(range(first, last + 1), files):
        if f["params"].keys() != names:
            sys.exit(f"error: the champion of generation {n} has other parameters than that of {last}")
    mean = dict(files[-1])
    if len(sys.argv) == 6:
        try:
            exported = json.loads(Path(sys.argv[5]).read_text())
        except (OSError, ValueError) as e:
            sys.exit(f"error: cannot read {sys.argv[5]}: {e}")
        theirs = exported.get("params") if isinstance(exported, dict) else None
        if not isinstance(theirs, dict):
            sys.exit(f"error: {sys.argv[5]} is no weight file: it has no \"params\" object")
        # A knob added or retired since the run may be on one side only.
        shared = theirs.keys() & names
        if not shared or any(theirs[name] != files[-1]["params"][name] for name in shared):
            sys.exit(f"error: {sys.argv[5]} is not the champion of generation {last}")
        mean["provenance"] = exported.get("provenance", {})
    mean["provenance"] = dict(mean.get("provenance") or {}, mean_of=f"generations {first} to {last}")
    mean["params"] = {name: round(sum(f["params"][name] for f in files) / len(files)) for name in names}
    try:
        out.write_text(json.dumps(mean, indent=2) + "\n")
    except OSError as e:
        sys.exit(f"error: cannot write {out}: {e.strerror}")


if __name__ == "__main__":
    main()
