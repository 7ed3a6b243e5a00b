#!/usr/bin/env python3
"""How far ahead two engines see a mate coming: in the games of a PGN (ICCS moves, as `qitune
match --pgn` writes them) that PLAYER lost by checkmate, takes the positions 4, 8, 12 and 16
plies before the mate (PLAYER to move) and asks each engine, over UCI, for a search of MS
milliseconds from there; counts the positions where its last score is a mate against it.
Positions where either engine answers without a search (a single legal reply) are left
out, so both are counted on the same positions. Usage:

    python3 scripts/mate-horizon.py GAMES.pgn PLAYER MS GAMES "ENGINE A" "ENGINE B"

PLAYER is the name in the PGN's Red and Black tags; GAMES is how many of its checkmate
losses to take, in file order; each engine is a command line, e.g.
`python3 scripts/mate-horizon.py experiments/pikafish-20s/games.pgn.gz default 300 40
"target/release/qitune engine" /opt/pikafish/src/pikafish`."""

import gzip
import re
import shlex
import subprocess
import sys


def open_text(path):
    """A PGN file, plain or gzipped (the archived game records are kept as .pgn.gz)."""
    return gzip.open(path, "rt", encoding="utf-8") if str(path).endswith(".gz") else open(path, encoding="utf-8")


START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
PLIES = (4, 8, 12, 16)


def losses(pgn, player):
    """(start FEN, moves) of each game `player` lost by checkmate."""
    for game in pgn.split("[Game ")[1:]:
        tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', game))
        if tags.get("Termination") != "checkmate" or player not in (tags.get("Red"), tags.get("Black")):
            continue
        if tags.get("Result") != ("0-1" if tags.get("Red") == player else "1-0"):
            continue
        body = re.sub(r"\[[^\]]*\]", "", game)
        yield tags.get("FEN", START), re.findall(r"\b[a-i][0-9][a-i][0-9]\b", body)


def sees_mate(command, fen, moves, ms):
    """True or False: whether the engine's last score is a mate against the side to move;
    None when it answered without one (a single legal reply)."""
    try:
        engine = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
    except OSError as e:
        sys.exit(f"error: cannot start {shlex.join(command)}: {e}")
    try:
        engine.stdin.write(f"uci\nsetoption name Hash value 16\nposition fen {fen} moves {' '.join(moves)}\n"
                           f"go movetime {ms}\n")
        engine.stdin.flush()
    except BrokenPipeError:
        sys.exit(f"error: {shlex.join(command)} ended before its search")
    score = None
    for line in engine.stdout:
        found = re.search(r"\bscore (cp|mate) (-?\d+)", line) if line.startswith("info") else None
        if found:
            score = found
        if line.startswith("bestmove"):
            break
    else:
        sys.exit(f"error: {shlex.join(command)} ended without a bestmove")
    try:
        engine.stdin.write("quit\n")
        engine.stdin.flush()
    except BrokenPipeError:
        pass  # it has already quit after its move
    engine.wait()
    return None if score is None else score.group(1) == "mate" and int(score.group(2)) < 0


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    path, player, ms, games, *commands = sys.argv[1:]
    if not (ms.isdigit() and games.isdigit() and int(ms) > 0 and int(games) > 0):
        sys.exit(f"error: MS and GAMES must be positive integers, not '{ms}' and '{games}'")
    try:
        pgn = open_text(path).read()
    except OSError as e:
        sys.exit(f"error: cannot read {path}: {e.strerror}")
    commands = [shlex.split(c) for c in commands]
    if not all(commands):
        sys.exit("error: an engine command is empty")
    seen = {n: [0, 0] for n in PLIES}
    count = dict.fromkeys(PLIES, 0)
    taken = 0
    for fen, moves in losses(pgn, player):
        if taken == int(games):
            break
        taken += 1
        for n in PLIES:
            if len(moves) < n:
                continue
            results = [sees_mate(c, fen, moves[:len(moves) - n], int(ms)) for c in commands]
            if None in results:
                continue
            count[n] += 1
            for i, r in enumerate(results):
                seen[n][i] += r
    if taken == 0:
        sys.exit(f"error: {path} has no game that '{player}' lost by checkmate")
    names = [shlex.join(c) for c in commands]
    print(f"{taken} checkmate losses of {player}, {ms} ms a search")
    for n in PLIES:
        print(f"{n:2} plies before the mate, {count[n]} positions: "
              + ", ".join(f"{name} sees it in {seen[n][i]}" for i, name in enumerate(names)))


if __name__ == "__main__":
    main()
