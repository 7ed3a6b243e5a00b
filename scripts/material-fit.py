#!/usr/bin/env python3
"""What the games say each piece is worth: a logistic fit of the result on material.

Reads Xiangqi games from PGN files (qitune's own: a [FEN] tag and ICCS moves), takes one
position from each quiet stretch (the third ply in a row without a capture), and fits Red's
score (1, 1/2, 0) as a logistic function of the material counts, Red's minus Black's: rooks,
cannons, horses, advisors, elephants, pawns on their own half and crossed pawns, plus Red's
edge for moving first. With --player NAME (the [Red]/[Black] tag of one engine), one more
term is +1 when that engine plays Red and -1 when it plays Black, so that the weaker engine's
losses are not charged to whatever material it tends to keep.

The coefficients are in logits a piece; the last column gives them in crossed pawns (each
divided by the crossed pawn's). Saturation shrinks the large ones (a game a rook down is lost
whether the rook is worth 9 pawns or 12), so compare fits with each other, not with an
evaluation's values.

Usage: scripts/material-fit.py [--player NAME] GAMES.pgn...
   e.g. scripts/material-fit.py --player default experiments/pikafish-*/games.pgn.gz
"""
import gzip
import math
import re
import sys


def open_text(path):
    """A PGN file, plain or gzipped (the archived game records are kept as .pgn.gz)."""
    return gzip.open(path, "rt", encoding="utf-8") if str(path).endswith(".gz") else open(path, encoding="utf-8")


TERMS = ["rook", "cannon", "horse", "advisor", "elephant", "pawn", "crossed pawn"]
ROLE = {"r": 0, "c": 1, "n": 2, "h": 2, "a": 3, "b": 4, "e": 4}


def games(path):
    """Yields (tags, moves) for each game of a PGN file."""
    tags, moves = {}, []
    with open_text(path) as f:
        for line in f:
            line = line.strip()
            tag = re.match(r'\[(\w+) "(.*)"\]', line)
            if tag:
                if moves:
                    yield tags, moves
                    tags, moves = {}, []
                tags[tag.group(1)] = tag.group(2)
            elif line:
                moves += [t for t in line.split() if re.fullmatch(r"[a-i]\d[a-i]\d", t)]
    if moves:
        yield tags, moves


def board_of(fen):
    board = {}
    for row, text in enumerate(fen.split()[0].split("/")):
        file = 0
        for ch in text:
            if ch.isdigit():
                file += int(ch)
            else:
                board[(file, 9 - row)] = ch
                file += 1
    return board


def material(board):
    x = [0] * len(TERMS)
    for (_, rank), piece in board.items():
        red = piece.isupper()
        sign = 1 if red else -1
        role = piece.lower()
        if role == "p":
            crossed = rank >= 5 if red else rank <= 4
            x[6 if crossed else 5] += sign
        elif role in ROLE:
            x[ROLE[role]] += sign
    return x


def samples(paths, player):
    rows = []
    for path in paths:
        for tags, moves in games(path):
            score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(tags.get("Result"))
            if score is None or "FEN" not in tags:
                continue
            extra = [1.0]
            if player:
                if player not in (tags.get("Red"), tags.get("Black")):
                    continue
                extra.append(1.0 if tags.get("Red") == player else -1.0)
            board, quiet = board_of(tags["FEN"]), 0
            for mv in moves:
                src = (ord(mv[0]) - 97, int(mv[1]))
                dst = (ord(mv[2]) - 97, int(mv[3]))
                if src not in board:
                    sys.exit(f"error: {path}: move {mv} starts on an empty point")
                quiet = 0 if dst in board else quiet + 1
                board[dst] = board.pop(src)
                if quiet == 3:
                    rows.append((material(board) + extra, score))
    return rows


def fit(rows, n):
    """Newton's method on the logistic log-likelihood (a small ridge keeps it invertible)."""
    w = [0.0] * n
    for _ in range(25):
        grad = [0.0] * n
        hess = [[1e-6 * (i == j) for j in range(n)] for i in range(n)]
        for x, y in rows:
            p = 1 / (1 + math.exp(-sum(a * b for a, b in zip(w, x))))
            for i in range(n):
                grad[i] += (y - p) * x[i]
                for j in range(n):
                    hess[i][j] += p * (1 - p) * x[i] * x[j]
        step = solve(hess, grad)
        w = [a + b for a, b in zip(w, step)]
        if max(abs(s) for s in step) < 1e-9:
            break
    return w


def solve(a, b):
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[pivot] = m[pivot], m[c]
        for r in range(n):
            if r != c and m[c][c]:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] if m[i][i] else 0.0 for i in range(n)]


def main(argv):
    player = None
    if argv[:1] == ["--player"]:
        if len(argv) < 2:
            sys.exit("error: --player needs the engine's name as the PGN's [Red]/[Black] tags give it")
        player, argv = argv[1], argv[2:]
    if not argv:
        sys.exit(__doc__.strip().split("\n\n")[-1])
    for path in argv:
        try:
            open_text(path).close()
        except OSError as e:
            sys.exit(f"error: cannot read {path}: {e.strerror}")
    rows = samples(argv, player)
    if not rows:
        sys.exit("error: no quiet position in those games" + (f" with {player} playing" if player else ""))
    names = TERMS + ["Red moves first"] + ([f"{player} plays Red"] if player else [])
    w = fit(rows, len(names))
    print(f"{len(rows)} quiet positions from {' '.join(argv)}")
    print(f"{'term':24s} {'logits':>8s} {'crossed pawns':>14s}")
    for name, v in zip(names, w):
        ratio = f"{v / w[6]:14.2f}" if name in TERMS else ""
        print(f"{name:24s} {v:8.3f} {ratio}")


if __name__ == "__main__":
    main(sys.argv[1:])
