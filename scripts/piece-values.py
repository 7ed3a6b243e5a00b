#!/usr/bin/env python3
"""The piece values an outside engine's static evaluation implies: replays the games of a
PGN (ICCS moves, as `qitune match --pgn` writes them), asks a Stockfish-family engine that has
the `eval` command (Pikafish-HCE) for its static evaluation of every fifth position, and fits
that evaluation, by least squares, on the difference in each kind of piece (pawns before and
after the river apart). Positions in check and evaluations beyond 8 pawns are left out.
Prints each value in the engine's units and as a share of the rook. Usage:

    python3 scripts/piece-values.py GAMES.pgn ENGINE [ENGINE-ARGS...]

e.g. `python3 scripts/piece-values.py experiments/sprt/probcut-120/games.pgn.gz
/opt/pikafish/src/pikafish`."""

import gzip
import re
import subprocess
import sys


def open_text(path):
    """A PGN file, plain or gzipped (the archived game records are kept as .pgn.gz)."""
    return gzip.open(path, "rt", encoding="utf-8") if str(path).endswith(".gz") else open(path, encoding="utf-8")


START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
KINDS = [("rook", "R"), ("horse", "N"), ("cannon", "C"), ("advisor", "A"), ("elephant", "B"),
         ("pawn", "P"), ("crossed pawn", "X")]
EVERY = 5


def positions(pgn):
    """FENs of every EVERY-th position of each game (boards as lists of ranks, 9 first)."""
    for game in pgn.split("[Game ")[1:]:
        fen = re.search(r'\[FEN "([^"]+)"\]', game)
        fen = fen.group(1) if fen else START
        board = [list(re.sub(r"\d", lambda m: "." * int(m.group()), row)) for row in fen.split()[0].split("/")]
        if len(board) != 10 or any(len(row) != 9 for row in board):
            sys.exit(f"error: a game starts from a malformed FEN: {fen}")
        turn = fen.split()[1]
        moves = game.split("\n\n", 1)[1] if "\n\n" in game else ""
        for i, mv in enumerate(re.findall(r"\b([a-i][0-9][a-i][0-9])\b", moves)):
            (ff, fr, tf, tr) = (ord(mv[0]) - 97, int(mv[1]), ord(mv[2]) - 97, int(mv[3]))
            board[9 - tr][tf], board[9 - fr][ff] = board[9 - fr][ff], "."
            turn = "b" if turn == "w" else "w"
            if i % EVERY == EVERY - 1:
                yield board, turn


def fen_of(board, turn):
    rows = ("".join(row) for row in board)
    return "/".join(re.sub(r"\.+", lambda m: str(len(m.group())), r) for r in rows) + f" {turn} - - 0 1"


def features(board):
    """Red's count minus Black's of each kind, and a constant."""
    count = {}
    for i, row in enumerate(board):
        rank = 9 - i
        for piece in row:
            if piece == ".":
                continue
            kind = piece.upper()
            if kind == "P" and (rank >= 5) == piece.isupper():
                kind = "X"
            count[kind] = count.get(kind, 0) + (1 if piece.isupper() else -1)
    return [count.get(letter, 0) for _, letter in KINDS] + [1]


def solve(a, b):
    """Gaussian elimination with partial pivoting; a kind that never differs gets 0."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[p][c]) < 1e-9:
            continue
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] if abs(m[i][i]) > 1e-9 else 0.0 for i in range(n)]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("Usage:")[1].strip())
    try:
        pgn = open_text(sys.argv[1]).read()
    except OSError as e:
        sys.exit(f"error: {sys.argv[1]}: {e.strerror}")
    boards = list(positions(pgn))
    if not boards:
        sys.exit(f"error: {sys.argv[1]} has no games with moves")
    script = "uci\n" + "".join(f"position fen {fen_of(b, t)}\neval\n" for b, t in boards) + "quit\n"
    try:
        out = subprocess.run(sys.argv[2:], input=script, capture_output=True, text=True, check=False).stdout
    except OSError as e:
        sys.exit(f"error: {sys.argv[2]}: {e.strerror}")
    evals = [line for line in out.splitlines() if line.startswith("Final evaluation")]
    if len(evals) != len(boards):
        sys.exit(f"error: {sys.argv[2]} answered {len(evals)} of {len(boards)} 'eval' commands "
                 "(it needs the 'eval' command of Stockfish-family engines)")
    k = len(KINDS) + 1
    xtx = [[0.0] * k for _ in range(k)]
    xty = [0.0] * k
    used = 0
    for (board, _), line in zip(boards, evals):
        value = re.search(r"evaluation\s+([-+]?[0-9.]+)", line)
        if not value or abs(float(value.group(1))) > 8:
            continue
        x, y = features(board), float(value.group(1))
        used += 1
        for i in range(k):
            xty[i] += x[i] * y
            for j in range(k):
                xtx[i][j] += x[i] * x[j]
    values = solve(xtx, xty)
    print(f"{used} positions of {len(boards)} (the rest in check or beyond 8 pawns)")
    for (name, _), v in zip(KINDS, values):
        print(f"{name:13s} {v:7.3f}  {v / values[0]:.3f} of a rook")


if __name__ == "__main__":
    main()
