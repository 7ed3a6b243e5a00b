#!/usr/bin/env python3
"""Where the depth goes: the nodes each engine spends to complete each depth of its
iterative deepening, on the same positions, and the effective branching factor.

Each engine speaks UCI (qitune's `engine` does; so does Pikafish-HCE) and searches every
position once with `go depth D` on a fresh hash (`ucinewgame`); the `info depth d ... nodes
n` line that ends each iteration gives the nodes spent to complete depth d. An engine may
carry option values (e.g. a qitune knob switched off), so one study compares a search with
each of its prunings off in turn.

Usage: scripts/depth-study.py POSITIONS COUNT OUT.csv PLAYER...
  PLAYER is NAME:DEPTH:COMMAND[:OPTION=VALUE,...], e.g.
    'qitune:14:target/release/qitune engine'
    'no-probcut:14:target/release/qitune engine:search_probcut_margin=0'
    'pikafish:22:/opt/pikafish/src/pikafish:Threads=1,Hash=16'
The first COUNT positions of POSITIONS (FEN a line) are searched. OUT.csv gets a row per
(player, position, depth): nodes and milliseconds; running the same command again after a
stop goes on from the rows already there (a file written before the seldepth column keeps
its columns). The summary printed at the end gives, per player and depth, the geometric
mean of the nodes over the positions that completed that depth, the mean seldepth, and the
effective branching factor: the ratio of a depth's mean to the previous depth's.
Hash 16 MB and one thread for every player unless its options say otherwise.
"""

import csv
import math
import shlex
import subprocess
import sys
from pathlib import Path


def usage(message):
    sys.exit(f"error: {message}\nusage: scripts/depth-study.py POSITIONS COUNT OUT.csv PLAYER... (see its top)")


def parse_player(text):
    parts = text.split(":", 3)
    if len(parts) < 3:
        usage(f"'{text}' is not NAME:DEPTH:COMMAND[:OPTION=VALUE,...]")
    name, depth, command = parts[:3]
    if not name or "," in name:
        usage(f"'{text}': the name must be non-empty and without commas")
    if not depth.isdigit() or not 1 <= int(depth) <= 60:
        usage(f"'{text}': depth '{depth}' is not a whole number from 1 to 60")
    options = {"Hash": "16", "Threads": "1"}
    if len(parts) == 4 and parts[3]:
        for item in parts[3].split(","):
            key, sep, value = item.partition("=")
            if not sep or not key:
                usage(f"'{text}': option '{item}' is not OPTION=VALUE")
            options[key] = value
    return name, int(depth), shlex.split(command), options


class Engine:
    def __init__(self, name, command, options):
        self.name = name
        try:
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
            )
        except OSError as e:
            sys.exit(f"error: {name}: cannot start {command[0]}: {e}")
        self.send("uci")
        offered = set()
        for line in self.lines_until("uciok"):
            if line.startswith("option name "):
                offered.add(line[len("option name "):].split(" type ")[0].lower())
        for key, value in options.items():
            # An engine ignores an option it does not have: a misspelt knob would study nothing.
            if key.lower() not in offered:
                sys.exit(f"error: {name} has no option '{key}'")
            self.send(f"setoption name {key} value {value}")
        self.send("isready")
        list(self.lines_until("readyok"))

    def send(self, line):
        self.process.stdin.write(line + "\n")

    def lines_until(self, last):
        for line in self.process.stdout:
            line = line.strip()
            yield line
            if line == last or line.startswith(last + " "):
                return
        sys.exit(f"error: {self.name} ended before saying '{last}'")

    def iterations(self, fen, depth):
        """(depth, nodes, ms, seldepth or "") at the end of each completed iteration."""
        self.send("ucinewgame")
        self.send("isready")
        list(self.lines_until("readyok"))
        self.send(f"position fen {fen}")
        self.send(f"go depth {depth}")
        done = {}
        for line in self.lines_until("bestmove"):
            words = line.split()
            if not words or words[0] != "info" or "depth" not in words or "nodes" not in words:
                continue
            if "currmove" in words or "upperbound" in words or "lowerbound" in words:
                continue
            d = int(words[words.index("depth") + 1])
            nodes = int(words[words.index("nodes") + 1])
            ms = int(words[words.index("time") + 1]) if "time" in words else 0
            sel = int(words[words.index("seldepth") + 1]) if "seldepth" in words else ""
            done[d] = (nodes, ms, sel)
        return sorted((d, n, ms, sel) for d, (n, ms, sel) in done.items())

    def close(self):
        try:
            self.send("quit")
            self.process.wait(timeout=5)
        except Exception:
            self.process.kill()


def summary(rows, players, count):
    print(f"nodes to complete each depth (geometric mean over the positions that completed it, of {count})")
    print("and the effective branching factor (each depth's mean over the previous one's)\n")
    for name, _, _, options in players:
        extra = {k: v for k, v in options.items() if k not in ("Hash", "Threads")}
        label = name + (" (" + ", ".join(f"{k}={v}" for k, v in extra.items()) + ")" if extra else "")
        print(f"{label}")
        print("| depth | positions | nodes | ms | seldepth | EBF |")
        print("|---:|---:|---:|---:|---:|---:|")
        by_depth = {}
        for r in rows:
            if r["player"] == name:
                sel = int(r["seldepth"]) if r.get("seldepth") else None
                by_depth.setdefault(int(r["depth"]), []).append((int(r["nodes"]), int(r["ms"]), sel))
        previous = None
        for d in sorted(by_depth):
            values = by_depth[d]
            mean = math.exp(sum(math.log(max(n, 1)) for n, _, _ in values) / len(values))
            ms = sum(m for _, m, _ in values) / len(values)
            sels = [s for _, _, s in values if s is not None]
            sel = f"{sum(sels) / len(sels):.1f}" if sels else ""
            ebf = f"{mean / previous:.2f}" if previous else ""
            print(f"| {d} | {len(values)} | {mean:,.0f} | {ms:,.0f} | {sel} | {ebf} |")
            previous = mean
        print()


def main():
    args = sys.argv[1:]
    if len(args) < 4:
        usage("give POSITIONS, COUNT, OUT.csv and at least one PLAYER")
    positions_path, count, out = Path(args[0]), args[1], Path(args[2])
    if not count.isdigit() or int(count) < 1:
        usage(f"COUNT '{count}' is not a positive whole number")
    count = int(count)
    try:
        fens = [l.strip() for l in positions_path.read_text().splitlines() if l.strip() and not l.startswith("#")]
    except OSError as e:
        usage(f"cannot read the positions '{positions_path}': {e}")
    fens = fens[:count]
    players = [parse_player(p) for p in args[3:]]
    names = [p[0] for p in players]
    if len(set(names)) != len(names):
        usage("two players have the same name")

    fields = ["player", "position", "depth", "nodes", "ms", "seldepth"]
    rows = []
    if out.exists():
        with out.open() as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            fields = reader.fieldnames or fields
    done = {(r["player"], int(r["position"])) for r in rows}
    new_file = not out.exists()
    with out.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        if new_file:
            writer.writeheader()
        for name, depth, command, options in players:
            todo = [i for i in range(len(fens)) if (name, i) not in done]
            if not todo:
                continue
            engine = Engine(name, command, options)
            for n, i in enumerate(todo, 1):
                found = engine.iterations(fens[i], depth)
                for d, nodes, ms, sel in found:
                    row = {"player": name, "position": i, "depth": d, "nodes": nodes, "ms": ms, "seldepth": sel}
                    writer.writerow(row)
                    rows.append({k: str(v) for k, v in row.items()})
                # A position is written whole, so a stop loses at most the one under way.
                f.flush()
                print(f"\r{name}: {n}/{len(todo)}", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
            engine.close()
    summary(rows, players, len(fens))


if __name__ == "__main__":
    main()
