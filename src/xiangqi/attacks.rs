//! Attack tables, all computed at compile time.
//!
//! Sliding pieces (rook, cannon, the kings' flying-general line) use a pair of
//! occupancy masks: the normal one (square index rank*9+file) and a rotated one
//! (index file*10+rank), so that the occupancy of any rank *or* file is a shift and a
//! mask away. A small table per line turns that occupancy into the attacked points.

use super::bitboard::{Bitboard, BOARD_MASK};
use super::types::{Color, File, Square};

/// Occupancy in both orientations; a move toggles one bit in each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occupancy {
    pub normal: u128,
    pub rotated: u128,
}

impl Occupancy {
    pub const EMPTY: Occupancy = Occupancy {
        normal: 0,
        rotated: 0,
    };

    #[inline]
    pub fn toggle(&mut self, sq: Square) {
        self.normal ^= 1u128 << sq.index();
        self.rotated ^= 1u128 << ROTATED_INDEX[sq.index()];
    }

    #[inline]
    pub fn contains(&self, sq: Square) -> bool {
        self.normal >> sq.index() & 1 != 0
    }

    #[inline]
    pub fn bitboard(&self) -> Bitboard {
        Bitboard(self.normal)
    }

    /// The occupancy after a piece moves from `from` to `to` (capturing or not).
    #[inline]
    pub fn after_move(mut self, from: Square, to: Square) -> Occupancy {
        self.toggle(from);
        if !self.contains(to) {
            self.toggle(to);
        }
        self
    }
}

/// Rotated index of each square: file * 10 + rank.
pub const ROTATED_INDEX: [u8; 90] = {
    let mut t = [0u8; 90];
    let mut sq = 0;
    while sq < 90 {
        t[sq] = ((sq % 9) * 10 + sq / 9) as u8;
        sq += 1;
    }
    t
};

/// For a line of `len` points and a piece at `pos`, the points a rook reaches
/// (`jump == false`) or a cannon captures on (`jump == true`) given the line's occupancy.
const fn line_attacks(len: u32, pos: u32, occ: u32, jump: bool) -> u16 {
    let mut out = 0u16;
    let mut dir = 0;
    while dir < 2 {
        let mut screened = false;
        let mut p = pos as i32;
        loop {
            p += if dir == 0 { 1 } else { -1 };
            if p < 0 || p >= len as i32 {
                break;
            }
            let occupied = occ >> p & 1 != 0;
            if !jump {
                out |= 1 << p;
                if occupied {
                    break;
                }
            } else if occupied {
                if screened {
                    out |= 1 << p;
                    break;
                }
                screened = true;
            }
        }
        dir += 1;
    }
    out
}

/// Line tables indexed by the occupancy of a line's inner points only: the end points are
/// taken as occupied. A slide always stops at an end anyway, and a jump target on an end is
/// kept only if it is really occupied (callers mask jumps with the occupancy), so the
/// answers are exact while the tables stay a quarter of the size, and in cache.
const fn line_table<const LEN: usize, const INNER: usize>(jump: bool) -> [[u16; INNER]; LEN] {
    let mut t = [[0u16; INNER]; LEN];
    let ends = 1 | 1 << (LEN - 1);
    let mut pos = 0;
    while pos < LEN {
        let mut inner = 0;
        while inner < INNER {
            t[pos][inner] = line_attacks(LEN as u32, pos as u32, (inner as u32) << 1 | ends, jump);
            inner += 1;
        }
        pos += 1;
    }
    t
}

static RANK_SLIDE: [[u16; 128]; 9] = line_table::<9, 128>(false);
static RANK_JUMP: [[u16; 128]; 9] = line_table::<9, 128>(true);
static FILE_SLIDE: [[u16; 256]; 10] = line_table::<10, 256>(false);
static FILE_JUMP: [[u16; 256]; 10] = line_table::<10, 256>(true);

/// Spreads a 10-bit set of ranks onto file a (bit r goes to square r*9).
static FILE_SPREAD: [u128; 1024] = {
    let mut t = [0u128; 1024];
    let mut m = 0;
    while m < 1024 {
        let mut r = 0;
        while r < 10 {
            if m >> r & 1 != 0 {
                t[m] |= 1u128 << (r * 9);
            }
            r += 1;
        }
        m += 1;
    }
    t
};

/// File and rank of each square, so that the hot lookups need no division.
static FILE_RANK: [(u8, u8); 90] = {
    let mut t = [(0u8, 0u8); 90];
    let mut i = 0;
    while i < 90 {
        t[i] = ((i % 9) as u8, (i / 9) as u8);
        i += 1;
    }
    t
};

/// A square's file and rank, and the inner occupancy of its rank and file.
#[inline]
fn line_keys(sq: Square, occ: &Occupancy) -> (usize, usize, usize, usize) {
    let (f, r) = FILE_RANK[sq.index()];
    let (f, r) = (f as usize, r as usize);
    let rank_occ = (occ.normal >> (r * 9 + 1)) as usize & 127;
    let file_occ = (occ.rotated >> (f * 10 + 1)) as usize & 255;
    (f, r, rank_occ, file_occ)
}

#[inline]
fn line_lookup(sq: Square, occ: &Occupancy, rank_t: &[[u16; 128]; 9], file_t: &[[u16; 256]; 10]) -> u128 {
    let (f, r, rank_occ, file_occ) = line_keys(sq, occ);
    let on_rank = (rank_t[f][rank_occ] as u128) << (r * 9);
    let on_file = FILE_SPREAD[file_t[r][file_occ] as usize] << f;
    on_rank | on_file
}

/// Points a rook on `sq` reaches: empty points up to and including the first piece each way.
#[inline]
pub fn rook_attacks(sq: Square, occ: &Occupancy) -> Bitboard {
    Bitboard(line_lookup(sq, occ, &RANK_SLIDE, &FILE_SLIDE))
}

/// Points a cannon on `sq` captures on: the first piece beyond exactly one screen each way.
#[inline]
pub fn cannon_captures(sq: Square, occ: &Occupancy) -> Bitboard {
    Bitboard(line_lookup(sq, occ, &RANK_JUMP, &FILE_JUMP) & occ.normal)
}

/// Rook attacks and cannon captures from one square at once, sharing the line lookups.
#[inline]
pub fn slider_attacks(sq: Square, occ: &Occupancy) -> (Bitboard, Bitboard) {
    let (f, r, rank_occ, file_occ) = line_keys(sq, occ);
    let slide =
        ((RANK_SLIDE[f][rank_occ] as u128) << (r * 9)) | (FILE_SPREAD[FILE_SLIDE[r][file_occ] as usize] << f);
    let jump =
        ((RANK_JUMP[f][rank_occ] as u128) << (r * 9)) | (FILE_SPREAD[FILE_JUMP[r][file_occ] as usize] << f);
    (Bitboard(slide), Bitboard(jump & occ.normal))
}

/// Points along `sq`'s file up to and including the first piece each way (the flying general).
#[inline]
pub fn file_attacks(sq: Square, occ: &Occupancy) -> Bitboard {
    let (f, r) = FILE_RANK[sq.index()];
    let file_occ = (occ.rotated >> (f as usize * 10 + 1)) as usize & 255;
    Bitboard(FILE_SPREAD[FILE_SLIDE[r as usize][file_occ] as usize] << f)
}

const fn sq_bit(sq: Option<Square>) -> u128 {
    match sq {
        Some(s) => 1u128 << s.index(),
        None => 0,
    }
}

const ORTHO: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
const DIAG: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, -1), (-1, 1)];

/// A leg (or eye) point, as a one-bit mask, and the targets it gates when empty.
/// Off-board legs have an empty mask and no targets.
#[derive(Clone, Copy)]
pub(crate) struct Gated {
    pub leg: u128,
    pub targets: u128,
}

const NO_GATE: Gated = Gated { leg: 0, targets: 0 };

/// Horse tables. Forward: from each square, four legs (orthogonal neighbours), each gating
/// the two targets beyond it. Reverse: for each square, its four diagonal neighbours, each the
/// leg of the two horse squares that would attack it through that leg.
const fn horse_table(reverse: bool) -> [[Gated; 4]; 90] {
    let mut t = [[NO_GATE; 4]; 90];
    let mut i = 0;
    while i < 90 {
        let sq = Square::new_unchecked(i as u32);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = if reverse { DIAG[d] } else { ORTHO[d] };
            if let Some(leg) = sq.offset(df, dr) {
                let (a, b) = if reverse {
                    ((2 * df, dr), (df, 2 * dr))
                } else if df == 0 {
                    ((1, 2 * dr), (-1, 2 * dr))
                } else {
                    ((2 * df, 1), (2 * df, -1))
                };
                t[i][d] = Gated {
                    leg: 1u128 << leg.index(),
                    targets: sq_bit(sq.offset(a.0, a.1)) | sq_bit(sq.offset(b.0, b.1)),
                };
            }
            d += 1;
        }
        i += 1;
    }
    t
}

static HORSE_FORWARD: [[Gated; 4]; 90] = horse_table(false);
static HORSE_REVERSE: [[Gated; 4]; 90] = horse_table(true);

/// Elephant moves: four eyes, each gating one target on the elephant's own side.
static ELEPHANT: [[Gated; 4]; 90] = {
    let mut t = [[NO_GATE; 4]; 90];
    let mut i = 0;
    while i < 90 {
        let sq = Square::new_unchecked(i as u32);
        let red_side = sq.on_own_side(Color::Red);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIAG[d];
            if let (Some(eye), Some(to)) = (sq.offset(df, dr), sq.offset(2 * df, 2 * dr)) {
                if to.on_own_side(Color::Red) == red_side {
                    t[i][d] = Gated {
                        leg: 1u128 << eye.index(),
                        targets: sq_bit(Some(to)),
                    };
                }
            }
            d += 1;
        }
        i += 1;
    }
    t
};

#[inline]
fn gated(table: &[Gated; 4], occ: u128) -> Bitboard {
    let mut out = 0;
    for g in table {
        if occ & g.leg == 0 {
            out |= g.targets;
        }
    }
    Bitboard(out)
}

/// Points a horse on `sq` can reach given the occupancy (legs must be empty).
#[inline]
pub fn horse_attacks(sq: Square, occ: &Occupancy) -> Bitboard {
    gated(&HORSE_FORWARD[sq.index()], occ.normal)
}

/// Points from which a horse would attack `sq` given the occupancy.
#[inline]
pub fn horse_attackers(sq: Square, occ: &Occupancy) -> Bitboard {
    gated(&HORSE_REVERSE[sq.index()], occ.normal)
}

/// Points an elephant on `sq` can reach (eyes must be empty; never across the river).
#[inline]
pub fn elephant_attacks(sq: Square, occ: &Occupancy) -> Bitboard {
    gated(&ELEPHANT[sq.index()], occ.normal)
}

const fn step_table(deltas: [(i32, i32); 4], palace_only: bool) -> [u128; 90] {
    let mut t = [0u128; 90];
    let mut i = 0;
    while i < 90 {
        let sq = Square::new_unchecked(i as u32);
        let mut d = 0;
        while d < 4 {
            if let Some(to) = sq.offset(deltas[d].0, deltas[d].1) {
                let ok = !palace_only
                    || (to.in_palace(Color::Red) && sq.in_palace(Color::Red))
                    || (to.in_palace(Color::Black) && sq.in_palace(Color::Black));
                if ok {
                    t[i] |= 1u128 << to.index();
                }
            }
            d += 1;
        }
        i += 1;
    }
    t
}

static KING_STEPS: [u128; 90] = step_table(ORTHO, true);
static ADVISOR_STEPS: [u128; 90] = step_table(DIAG, true);
/// Diagonal neighbours anywhere on the board.
static DIAG_NEIGHBOURS: [u128; 90] = step_table(DIAG, false);

/// King steps inside the palace.
#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING_STEPS[sq.index()])
}

/// Advisor steps inside the palace.
#[inline]
pub fn advisor_attacks(sq: Square) -> Bitboard {
    Bitboard(ADVISOR_STEPS[sq.index()])
}

/// The four diagonal neighbours of a square (the legs of horses that attack it).
#[inline]
pub fn diagonal_neighbours(sq: Square) -> Bitboard {
    Bitboard(DIAG_NEIGHBOURS[sq.index()])
}

/// Points a pawn of `color` on `sq` attacks: forward, and sideways once across the river.
static PAWN_FORWARD: [[u128; 90]; 2] = {
    let mut t = [[0u128; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let color = if c == 0 { Color::Red } else { Color::Black };
        let fwd = if c == 0 { 1 } else { -1 };
        let mut i = 0;
        while i < 90 {
            let sq = Square::new_unchecked(i as u32);
            t[c][i] = sq_bit(sq.offset(0, fwd));
            if !sq.on_own_side(color) {
                t[c][i] |= sq_bit(sq.offset(1, 0)) | sq_bit(sq.offset(-1, 0));
            }
            i += 1;
        }
        c += 1;
    }
    t
};

/// Points from which a pawn of `color` attacks each square.
static PAWN_REVERSE: [[u128; 90]; 2] = {
    let mut t = [[0u128; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let mut from = 0;
        while from < 90 {
            let mut targets = PAWN_FORWARD[c][from];
            while targets != 0 {
                let to = targets.trailing_zeros() as usize;
                t[c][to] |= 1u128 << from;
                targets &= targets - 1;
            }
            from += 1;
        }
        c += 1;
    }
    t
};

#[inline]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN_FORWARD[color.index()][sq.index()])
}

/// Points from which a pawn of `color` would attack `sq`.
#[inline]
pub fn pawn_attackers(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN_REVERSE[color.index()][sq.index()])
}

static LINES: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut i = 0;
    while i < 90 {
        let mut j = 0;
        while j < 90 {
            if i != j && (i % 9 == j % 9 || i / 9 == j / 9) {
                t[i] |= 1u128 << j;
            }
            j += 1;
        }
        i += 1;
    }
    t
};

/// Points from which a horse could attack each square on an empty board.
static HORSE_ZONE: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut i = 0;
    while i < 90 {
        let mut d = 0;
        while d < 4 {
            t[i] |= HORSE_REVERSE[i][d].targets;
            d += 1;
        }
        i += 1;
    }
    t
};

/// The full lines (rank and file) through a square, the square itself excluded.
#[inline]
pub fn lines_through(sq: Square) -> Bitboard {
    Bitboard(LINES[sq.index()])
}

/// Points from which a horse could attack `sq` if no leg were blocked.
#[inline]
pub fn horse_zone(sq: Square) -> Bitboard {
    Bitboard(HORSE_ZONE[sq.index()])
}

/// The points of each file.
pub(crate) const FILE_MASKS: [u128; 9] = {
    let mut t = [0u128; 9];
    let mut f = 0;
    while f < 9 {
        let mut r = 0;
        while r < 10 {
            t[f] |= 1u128 << (r * 9 + f);
            r += 1;
        }
        f += 1;
    }
    t
};

/// The points of a file.
#[inline]
pub fn file_mask(file: File) -> Bitboard {
    Bitboard(FILE_MASKS[file.index() as usize])
}

/// Ranks 0..4: Red's side of the river.
pub const RED_HALF: Bitboard = Bitboard((1u128 << 45) - 1);

const NOT_FILE_A: u128 = !FILE_MASKS[0] & BOARD_MASK;
const NOT_FILE_I: u128 = !FILE_MASKS[8] & BOARD_MASK;

/// Points attacked by a whole set of `color`'s pawns at once: forward, and sideways once
/// across the river.
#[inline]
pub fn pawn_attacks_all(color: Color, pawns: Bitboard) -> Bitboard {
    let (forward, crossed) = match color {
        Color::Red => (pawns.0 << 9, pawns.0 & !RED_HALF.0),
        Color::Black => (pawns.0 >> 9, pawns.0 & RED_HALF.0),
    };
    let sideways = ((crossed & NOT_FILE_A) >> 1) | ((crossed & NOT_FILE_I) << 1);
    Bitboard((forward | sideways) & BOARD_MASK)
}

/// Points attacked by a whole set of one colour's advisors, which stand on advisor points
/// (a diagonal step from one never wraps a file edge or reaches the other palace).
#[inline]
pub fn advisor_attacks_all(advisors: Bitboard) -> Bitboard {
    let a = advisors.0;
    Bitboard((a << 8 | a << 10 | a >> 8 | a >> 10) & PALACES)
}

/// Points attacked by a whole set of `color`'s elephants, which stand on elephant points:
/// two diagonal steps with an empty eye, never across the river.
#[inline]
pub fn elephant_attacks_all(color: Color, elephants: Bitboard, occ: &Occupancy) -> Bitboard {
    let empty = !occ.normal;
    let e = elephants.0;
    // Steps towards file i must not land on file a (a wrap), and the other way round.
    let up_right = ((e << 10) & empty & NOT_FILE_A) << 10 & NOT_FILE_A;
    let up_left = ((e << 8) & empty & NOT_FILE_I) << 8 & NOT_FILE_I;
    let down_right = ((e >> 8) & empty & NOT_FILE_A) >> 8 & NOT_FILE_A;
    let down_left = ((e >> 10) & empty & NOT_FILE_I) >> 10 & NOT_FILE_I;
    Bitboard(up_right | up_left | down_right | down_left) & own_half(color)
}

/// `color`'s side of the river.
#[inline]
pub fn own_half(color: Color) -> Bitboard {
    match color {
        Color::Red => RED_HALF,
        Color::Black => Bitboard(!RED_HALF.0 & BOARD_MASK),
    }
}

/// The wings: files a to d and f to i (the centre file belongs to neither).
pub const WINGS: [Bitboard; 2] = [
    Bitboard(FILE_MASKS[0] | FILE_MASKS[1] | FILE_MASKS[2] | FILE_MASKS[3]),
    Bitboard(FILE_MASKS[5] | FILE_MASKS[6] | FILE_MASKS[7] | FILE_MASKS[8]),
];

/// Each colour's palace.
pub const PALACE: [Bitboard; 2] = {
    let mut t = [Bitboard::EMPTY; 2];
    let mut i = 0;
    while i < 90 {
        let sq = Square::new_unchecked(i as u32);
        if sq.in_palace(Color::Red) {
            t[0].0 |= 1u128 << i;
        }
        if sq.in_palace(Color::Black) {
            t[1].0 |= 1u128 << i;
        }
        i += 1;
    }
    t
};

const PALACES: u128 = PALACE[0].0 | PALACE[1].0;

/// Squares strictly between two squares on one rank or file (empty if not aligned).
pub fn between(a: Square, b: Square) -> Bitboard {
    if a.file() != b.file() && a.rank() != b.rank() {
        return Bitboard::EMPTY;
    }
    let mut occ = Occupancy::EMPTY;
    occ.toggle(a);
    occ.toggle(b);
    rook_attacks(a, &occ) & rook_attacks(b, &occ)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xiangqi::Role;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    fn names(bb: Bitboard) -> Vec<String> {
        let mut v: Vec<String> = bb.map(|s| s.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn rook_and_cannon_lines() {
        let mut occ = Occupancy::EMPTY;
        for s in ["e5", "e7", "e8", "b3", "h3"] {
            occ.toggle(sq(s));
        }
        let r = rook_attacks(sq("e3"), &occ);
        assert_eq!(
            names(r),
            ["b3", "c3", "d3", "e0", "e1", "e2", "e4", "e5", "f3", "g3", "h3"]
        );
        assert_eq!(names(cannon_captures(sq("e3"), &occ)), ["e7"]);
        assert_eq!(
            names(file_attacks(sq("e3"), &occ)),
            ["e0", "e1", "e2", "e4", "e5"]
        );
        assert_eq!(names(between(sq("e3"), sq("e8"))), ["e4", "e5", "e6", "e7"]);
        assert!(between(sq("e3"), sq("f8")).is_empty());
    }

    #[test]
    fn horse_legs() {
        let mut occ = Occupancy::EMPTY;
        occ.toggle(sq("b1"));
        // A horse on b0 with its leg b1 blocked reaches only d1 (via c0).
        assert_eq!(names(horse_attacks(sq("b0"), &occ)), ["d1"]);
        // From a horse's reverse view: e2 is attacked from d0 and f0 via d1/f1; b1 blocks nothing there.
        let att = horse_attackers(sq("e2"), &Occupancy::EMPTY);
        assert_eq!(names(att), ["c1", "c3", "d0", "d4", "f0", "f4", "g1", "g3"]);
        for from in Square::all() {
            for to in horse_attacks(from, &occ) {
                assert!(horse_attackers(to, &occ).contains(from), "{from}->{to}");
            }
        }
    }

    #[test]
    fn whole_set_attacks_match_the_tables() {
        let boards = [
            crate::xiangqi::START_FEN,
            "3k5/9/9/P1P1P1P1P/p8/8p/5p3/9/9/4K4 w",
            "2bak4/4a4/4b4/9/9/2B6/9/B8/4A4/3AK4 w",
            "3k5/9/b7b/9/9/6B2/9/8B/9/4K4 w",
            "4ka3/4a4/4b4/3N5/9/9/9/4B4/3NA4/4KA3 w",
        ];
        for fen in boards {
            let b = crate::xiangqi::Board::from_fen(fen).unwrap();
            let occ = b.occupancy();
            for color in Color::ALL {
                let each = |role, f: &dyn Fn(Square) -> Bitboard| {
                    b.pieces(color, role).fold(Bitboard::EMPTY, |acc, sq| acc | f(sq))
                };
                let pawns = b.pieces(color, Role::Pawn);
                assert_eq!(
                    pawn_attacks_all(color, pawns),
                    each(Role::Pawn, &|s| pawn_attacks(color, s))
                );
                let advisors = b.pieces(color, Role::Advisor);
                assert_eq!(
                    advisor_attacks_all(advisors),
                    each(Role::Advisor, &advisor_attacks)
                );
                let elephants = b.pieces(color, Role::Elephant);
                assert_eq!(
                    elephant_attacks_all(color, elephants, occ),
                    each(Role::Elephant, &|s| elephant_attacks(s, occ)),
                    "{fen} {color}"
                );
            }
        }
    }

    #[test]
    fn elephants_advisors_kings_pawns() {
        assert_eq!(names(elephant_attacks(sq("c4"), &Occupancy::EMPTY)), ["a2", "e2"]);
        assert_eq!(names(elephant_attacks(sq("c5"), &Occupancy::EMPTY)), ["a7", "e7"]);
        assert_eq!(names(advisor_attacks(sq("e1"))), ["d0", "d2", "f0", "f2"]);
        assert_eq!(names(advisor_attacks(sq("d0"))), ["e1"]);
        assert_eq!(names(king_attacks(sq("d9"))), ["d8", "e9"]);
        assert_eq!(names(pawn_attacks(Color::Red, sq("c3"))), ["c4"]);
        assert_eq!(names(pawn_attacks(Color::Red, sq("c5"))), ["b5", "c6", "d5"]);
        assert_eq!(names(pawn_attacks(Color::Black, sq("a4"))), ["a3", "b4"]);
        assert_eq!(names(pawn_attackers(Color::Red, sq("e6"))), ["d6", "e5", "f6"]);
    }
}
