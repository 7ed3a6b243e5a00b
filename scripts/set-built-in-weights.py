#!/usr/bin/env python3
"""Writes a weight file's evaluation weights into the game's eval.rs as the built-in defaults:
for Xiangqi (src/xiangqi/eval/params.rs) the scalar list and the piece-square values, for the
Amazons (src/amazons/eval.rs) every `Spec::weight`. Usage:

    python3 scripts/set-built-in-weights.py WEIGHTS.json

Every evaluation parameter must be in the file (champion and exported files list them all);
the search and clock knobs are not touched. Check the result with `cargo test` and
`qitune bench` (the node count changes: say `Bench: N` in the commit)."""

import json
import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
EVAL = SRC / "xiangqi" / "eval" / "params.rs"
AMAZONS_EVAL = SRC / "amazons" / "eval.rs"
FILES = "abcdefghi"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    doc = json.loads(Path(sys.argv[1]).read_text())
    params = doc.get("params", {})

    def value(name):
        if name not in params:
            sys.exit(f"{sys.argv[1]}: '{name}' is missing; the built-ins need every evaluation weight")
        return int(params[name])

    if doc.get("game") == "amazons":
        amazons(value)
    elif doc.get("game") == "xiangqi":
        xiangqi(value)
    else:
        sys.exit(f"{sys.argv[1]}: not a Xiangqi or Amazons weight file")


def amazons(value):
    # `Spec::weight("name", default, min, max, bits)`: the default is rewritten.
    src = AMAZONS_EVAL.read_text()
    src = re.sub(r'Spec::weight\("(\w+)", -?\d+,',
                 lambda m: f'Spec::weight("{m.group(1)}", {value(m.group(1))},', src)
    AMAZONS_EVAL.write_text(src)
    print(f"{AMAZONS_EVAL}: the built-in weights are now {sys.argv[1]}'s")


def xiangqi(value):
    src = EVAL.read_text()

    # Scalars: `name = default, [min, max], bits;` inside scalar_specs! { ... }.
    start = src.index("scalar_specs! {")
    end = src.index("\n}", start)
    def literal(v):  # Rust's style: 10_000, never 1_00
        return f"{v:_}" if abs(v) >= 10_000 else str(v)

    block = re.sub(r"(\n    )(\w+) = [-\d_]+,",
                   lambda m: f"{m.group(1)}{m.group(2)} = {literal(value(m.group(2)))},", src[start:end])
    src = src[:start] + block + src[end:]

    # Tables of files a..e, one row a rank; a pawn before the river stands only on a, c, e.
    for const, role, first in (("HORSE_PST", "horse", 0), ("ROOK_PST", "rook", 0),
                               ("CANNON_PST", "cannon", 0), ("PAWN_PST", "pawn", 3)):
        m = re.search(rf"const {const}: \[\[i32; 5\]; (\d+)\] = \[\n(.*?)\n\];", src, re.S)
        rows = []
        for r in range(int(m.group(1))):
            rank = first + r
            cells = ["0" if role == "pawn" and rank <= 4 and f % 2 == 1 else str(value(f"pst_{role}_{FILES[f]}{rank}"))
                     for f in range(5)]
            rows.append("    [" + ", ".join(cells) + "],")
        src = src[: m.start(2)] + "\n".join(rows) + src[m.end(2):]

    # Kings, advisors and elephants: the few points are literals in default_pst.
    king = ", ".join(f"[{value(f'pst_king_d{r}')}, {value(f'pst_king_e{r}')}]" for r in range(3))
    src, n = re.subn(r"\[\[-?\d+, -?\d+\], \[-?\d+, -?\d+\], \[-?\d+, -?\d+\]\]\[r\]\[f - 3\]",
                     f"[{king}][r][f - 3]", src)
    assert n == 1, "the king's table"
    for role, points in (("advisor", [(3, 0), (4, 1), (3, 2)]),
                         ("elephant", [(2, 0), (0, 2), (4, 2), (2, 4)])):
        for f, r in points:
            src, n = re.subn(rf"\({f}, {r}\) => -?\d+,", f"({f}, {r}) => {value(f'pst_{role}_{FILES[f]}{r}')},", src)
            assert n == 1, f"{role} at ({f}, {r})"
    EVAL.write_text(src)
    print(f"{EVAL}: the built-in weights are now {sys.argv[1]}'s")


main()
