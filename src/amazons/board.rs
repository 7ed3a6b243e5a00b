//! The Game of the Amazons: a 10x10 board, four amazons a side. A move is a queen move of one
//! amazon and then an arrow shot, queen-like, from where it landed; the arrow's point is
//! blocked for the rest of the game. The side to move with no move loses.
//!
//! Squares: index = rank * 10 + file, rank 0 = rank "1" (White's side), file 0 = "a".
//! The 100 points fit a `u128`.

use std::fmt;

/// A side. White moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    White,
    Black,
}

impl Side {
    pub fn flip(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// All 100 points.
pub(crate) const BOARD: u128 = (1u128 << 100) - 1;

const fn file_mask(skip: u32) -> u128 {
    let mut m = 0u128;
    let mut s = 0;
    while s < 100 {
        if s % 10 != skip {
            m |= 1u128 << s;
        }
        s += 1;
    }
    m
}
const NOT_FILE_A: u128 = file_mask(0);
const NOT_FILE_J: u128 = file_mask(9);

/// The points one king step from a set (the set itself excluded).
#[inline]
pub(crate) fn king_spread(b: u128) -> u128 {
    let row = b | (b & NOT_FILE_A) >> 1 | (b & NOT_FILE_J) << 1;
    (row | row << 10 | row >> 10) & BOARD & !b
}

/// Every empty point a queen standing on any point of `from` reaches through `empty`, all
/// directions at once (Kogge-Stone occluded fills): a whole flood-fill level in a few shifts.
#[inline]
pub(crate) fn queen_fill(from: u128, empty: u128) -> u128 {
    // (shift, destinations that cannot be a wrap-around): E, NE, N, NW, W, SW, S, SE.
    const DIRS: [(i32, u128); 8] = [
        (1, NOT_FILE_A),
        (11, NOT_FILE_A),
        (10, BOARD),
        (9, NOT_FILE_J),
        (-1, NOT_FILE_J),
        (-11, NOT_FILE_J),
        (-10, BOARD),
        (-9, NOT_FILE_A),
    ];
    #[inline]
    fn shift(b: u128, s: i32) -> u128 {
        if s > 0 {
            b << s
        } else {
            b >> -s
        }
    }
    let mut out = 0;
    for (s, mask) in DIRS {
        let mut p = empty & mask;
        let mut g = from;
        g |= p & shift(g, s);
        p &= shift(p, s);
        g |= p & shift(g, 2 * s);
        p &= shift(p, 2 * s);
        g |= p & shift(g, 4 * s);
        p &= shift(p, 4 * s);
        g |= p & shift(g, 8 * s);
        out |= g;
    }
    out & empty
}

/// Rays from each square in each of the 8 directions (the square itself excluded).
/// Directions 0..4 increase the index (first blocker = lowest bit), 4..8 decrease it.
static RAYS: [[u128; 8]; 100] = {
    let mut t = [[0u128; 8]; 100];
    let mut sq = 0;
    while sq < 100 {
        let mut d = 0;
        while d < 8 {
            // E (+1), NE (+11), N (+10), NW (+9) increase the index; W, SW, S, SE decrease it.
            let (df, dr) = match d {
                0 => (1, 0),
                1 => (1, 1),
                2 => (0, 1),
                3 => (-1, 1),
                4 => (-1, 0),
                5 => (-1, -1),
                6 => (0, -1),
                _ => (1, -1),
            };
            let (mut f, mut r) = ((sq % 10) as i32 + df, (sq / 10) as i32 + dr);
            while f >= 0 && f < 10 && r >= 0 && r < 10 {
                t[sq][d] |= 1u128 << (r * 10 + f);
                f += df;
                r += dr;
            }
            d += 1;
        }
        sq += 1;
    }
    t
};

/// Empty points a queen on `sq` reaches through `occupied`.
#[inline]
pub fn queen_reach(sq: usize, occupied: u128) -> u128 {
    let rays = &RAYS[sq];
    let mut out = 0;
    for (d, &ray) in rays.iter().enumerate() {
        let blockers = ray & occupied;
        out |= if blockers == 0 {
            ray
        } else if d < 4 {
            ray ^ RAYS[blockers.trailing_zeros() as usize][d]
        } else {
            ray ^ RAYS[127 - blockers.leading_zeros() as usize][d]
        };
    }
    out & !occupied
}

/// A move: the amazon's from and to points and the arrow's point.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: u8,
    pub to: u8,
    pub arrow: u8,
}

fn square_name(sq: u8) -> String {
    format!("{}{}", (b'a' + sq % 10) as char, sq / 10 + 1)
}

fn parse_square(s: &str) -> Option<u8> {
    let b = s.as_bytes();
    let file = b.first()?.to_ascii_lowercase().checked_sub(b'a')?;
    let rank: u8 = s.get(1..)?.parse().ok()?;
    (file < 10 && (1..=10).contains(&rank)).then(|| (rank - 1) * 10 + file)
}

impl fmt::Display for Move {
    /// `d1-d7/g7`: from, to, and the arrow.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}-{}/{}",
            square_name(self.from),
            square_name(self.to),
            square_name(self.arrow)
        )
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why an Amazons FEN or move text was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AmazonsError {
    #[error("the board has {0} ranks; an Amazons FEN has 10 separated by '/'")]
    RankCount(usize),
    #[error("rank {rank} covers {width} files; every rank covers 10")]
    RankWidth { rank: usize, width: u32 },
    #[error("'{0}' is not an Amazons piece (Q white amazon, q black amazon, * arrow)")]
    BadPiece(char),
    #[error("'{0}' is not a side to move (expected w or b)")]
    BadSide(String),
    #[error("{side} has {count} amazons; each side has 4")]
    AmazonCount { side: &'static str, count: u32 },
    #[error("'{0}' is not an Amazons move (expected e.g. d1-d7/g7)")]
    Syntax(String),
    #[error("illegal move {0}")]
    Illegal(String),
}

/// An Amazons position.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    amazons: [u128; 2],
    arrows: u128,
    turn: Side,
}

/// The standard start position.
pub const START_FEN: &str = "3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 w";

impl Board {
    pub fn startpos() -> Board {
        Board::from_fen(START_FEN).expect("the start FEN is valid")
    }

    /// Reads a FEN: ranks 10..1 separated by `/`, `Q`/`q` amazons, `*` arrows, digits (10
    /// allowed) for empty points, then `w` or `b`.
    pub fn from_fen(fen: &str) -> Result<Board, AmazonsError> {
        let mut fields = fen.split_whitespace();
        let placement = fields.next().unwrap_or("");
        let ranks: Vec<&str> = placement.split('/').collect();
        if ranks.len() != 10 {
            return Err(AmazonsError::RankCount(ranks.len()));
        }
        let mut b = Board {
            amazons: [0; 2],
            arrows: 0,
            turn: Side::White,
        };
        for (i, row) in ranks.iter().enumerate() {
            let rank = 9 - i as u32;
            let mut file = 0u32;
            let mut chars = row.chars().peekable();
            while let Some(c) = chars.next() {
                if let Some(d) = c.to_digit(10) {
                    let mut n = d;
                    if d == 1 && chars.peek() == Some(&'0') {
                        chars.next();
                        n = 10;
                    }
                    if n == 0 {
                        return Err(AmazonsError::BadPiece('0'));
                    }
                    file += n;
                    continue;
                }
                if file < 10 {
                    let bit = 1u128 << (rank * 10 + file);
                    match c {
                        'Q' => b.amazons[0] |= bit,
                        'q' => b.amazons[1] |= bit,
                        '*' => b.arrows |= bit,
                        other => return Err(AmazonsError::BadPiece(other)),
                    }
                } else if !matches!(c, 'Q' | 'q' | '*') {
                    return Err(AmazonsError::BadPiece(c));
                }
                file += 1;
            }
            if file != 10 {
                return Err(AmazonsError::RankWidth {
                    rank: 10 - i,
                    width: file,
                });
            }
        }
        b.turn = match fields.next() {
            None | Some("w") | Some("W") => Side::White,
            Some("b") | Some("B") => Side::Black,
            Some(other) => return Err(AmazonsError::BadSide(other.to_string())),
        };
        for (side, name) in [(0, "white"), (1, "black")] {
            let count = b.amazons[side].count_ones();
            if count != 4 {
                return Err(AmazonsError::AmazonCount { side: name, count });
            }
        }
        Ok(b)
    }

    /// The position as a FEN.
    pub fn fen(&self) -> String {
        let mut s = String::new();
        for rank in (0..10).rev() {
            let mut empty = 0;
            for file in 0..10 {
                let bit = 1u128 << (rank * 10 + file);
                let c = if self.amazons[0] & bit != 0 {
                    'Q'
                } else if self.amazons[1] & bit != 0 {
                    'q'
                } else if self.arrows & bit != 0 {
                    '*'
                } else {
                    empty += 1;
                    continue;
                };
                if empty > 0 {
                    s += &empty.to_string();
                    empty = 0;
                }
                s.push(c);
            }
            if empty > 0 {
                s += &empty.to_string();
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s.push_str(if self.turn == Side::White { " w" } else { " b" });
        s
    }

    pub fn turn(&self) -> Side {
        self.turn
    }

    /// Points holding an amazon or an arrow.
    #[inline]
    pub fn occupied(&self) -> u128 {
        self.amazons[0] | self.amazons[1] | self.arrows
    }

    pub fn amazons(&self, side: Side) -> u128 {
        self.amazons[side.index()]
    }

    pub fn arrows(&self) -> u128 {
        self.arrows
    }

    /// A 64-bit key of the position (amazons, arrows, side to move) for a hash table.
    #[inline]
    pub fn key(&self) -> u64 {
        fn mix(x: u128, k: u64) -> u64 {
            let v = (x as u64 ^ k).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ ((x >> 64) as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
            v ^ (v >> 29)
        }
        let k = mix(self.amazons[0], 0x243F_6A88_85A3_08D3)
            ^ mix(self.amazons[1], 0x1319_8A2E_0370_7344).rotate_left(21)
            ^ mix(self.arrows, 0xA409_3822_299F_31D0).rotate_left(42);
        (k ^ self.turn.index() as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9)
    }

    /// Plays a legal move.
    #[inline]
    pub fn play(&mut self, mv: Move) {
        let a = &mut self.amazons[self.turn.index()];
        *a ^= 1u128 << mv.from | 1u128 << mv.to;
        self.arrows |= 1u128 << mv.arrow;
        self.turn = self.turn.flip();
    }

    /// Takes back `mv`, the last move played.
    #[inline]
    pub fn unplay(&mut self, mv: Move) {
        self.turn = self.turn.flip();
        self.arrows &= !(1u128 << mv.arrow);
        let a = &mut self.amazons[self.turn.index()];
        *a ^= 1u128 << mv.from | 1u128 << mv.to;
    }

    /// Calls `f(from, to, arrows)` for every amazon step of the side to move, with the set
    /// of arrow points from its landing point: the moves without building them.
    #[inline]
    pub fn for_each_step(&self, mut f: impl FnMut(u8, u8, u128)) {
        let occupied = self.occupied();
        let mut mine = self.amazons[self.turn.index()];
        while mine != 0 {
            let from = mine.trailing_zeros() as usize;
            mine &= mine - 1;
            // The amazon leaves its point, so the arrow may pass through or land there.
            let without = occupied & !(1u128 << from);
            let mut targets = queen_reach(from, occupied);
            while targets != 0 {
                let to = targets.trailing_zeros() as usize;
                targets &= targets - 1;
                f(from as u8, to as u8, queen_reach(to, without | 1u128 << to));
            }
        }
    }

    /// The number of legal moves, counted without listing them.
    pub fn count_moves(&self) -> u64 {
        let mut n = 0;
        self.for_each_step(|_, _, arrows| n += arrows.count_ones() as u64);
        n
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut v = Vec::with_capacity(self.count_moves() as usize);
        self.for_each_step(|from, to, mut arrows| {
            while arrows != 0 {
                let arrow = arrows.trailing_zeros() as u8;
                arrows &= arrows - 1;
                v.push(Move { from, to, arrow });
            }
        });
        v
    }

    /// Whether the side to move has any move (without one it has lost).
    pub fn has_move(&self) -> bool {
        let occupied = self.occupied();
        let mut mine = self.amazons[self.turn.index()];
        while mine != 0 {
            let from = mine.trailing_zeros() as usize;
            mine &= mine - 1;
            // A reachable point always has an arrow: back to where the amazon came from.
            if queen_reach(from, occupied) != 0 {
                return true;
            }
        }
        false
    }

    /// Whether `mv` is legal here.
    pub fn is_legal(&self, mv: Move) -> bool {
        let (from, to, arrow) = (mv.from as usize, mv.to as usize, mv.arrow as usize);
        if from >= 100 || to >= 100 || arrow >= 100 || self.amazons[self.turn.index()] >> from & 1 == 0 {
            return false;
        }
        let occupied = self.occupied();
        queen_reach(from, occupied) >> to & 1 == 1
            && queen_reach(to, (occupied & !(1u128 << from)) | 1u128 << to) >> arrow & 1 == 1
    }

    /// Parses `d1-d7/g7` and checks it is legal here.
    pub fn parse_move(&self, text: &str) -> Result<Move, AmazonsError> {
        let syntax = || AmazonsError::Syntax(text.to_string());
        let (squares, arrow) = text.trim().split_once('/').ok_or_else(syntax)?;
        let (from, to) = squares.split_once('-').ok_or_else(syntax)?;
        let mv = Move {
            from: parse_square(from).ok_or_else(syntax)?,
            to: parse_square(to).ok_or_else(syntax)?,
            arrow: parse_square(arrow).ok_or_else(syntax)?,
        };
        if self.is_legal(mv) {
            Ok(mv)
        } else {
            Err(AmazonsError::Illegal(text.trim().to_string()))
        }
    }

    /// The colour-swapped position: the board turned upside down, sides exchanged.
    pub fn color_flipped(&self) -> Board {
        let flip = |bb: u128| {
            (0..100)
                .filter(|s| bb >> s & 1 == 1)
                .fold(0u128, |acc, s| acc | 1u128 << ((9 - s / 10) * 10 + s % 10))
        };
        Board {
            amazons: [flip(self.amazons[1]), flip(self.amazons[0])],
            arrows: flip(self.arrows),
            turn: self.turn.flip(),
        }
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({})", self.fen())
    }
}

/// Leaf count `depth` plies below `board`, the last ply counted without making moves.
pub fn perft(board: &mut Board, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => board.count_moves(),
        _ => {
            let mut n = 0;
            for mv in board.legal_moves() {
                board.play(mv);
                n += perft(board, depth - 1);
                board.unplay(mv);
            }
            n
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_and_text() {
        let b = Board::startpos();
        assert_eq!(b.fen(), START_FEN);
        assert_eq!(b.count_moves(), 2176);
        assert_eq!(b.legal_moves().len(), 2176);
        let mv = b.parse_move("d1-d7/g7").unwrap();
        assert_eq!(mv.to_string(), "d1-d7/g7");
        // The arrow may go back through the point the amazon left.
        assert!(b.parse_move("d1-d2/d1").is_ok());
        assert!(
            matches!(b.parse_move("d1-d10/d9"), Err(AmazonsError::Illegal(_))),
            "d10 is not reachable: d7 is black"
        );
        assert!(matches!(b.parse_move("d1d7g7"), Err(AmazonsError::Syntax(_))));
        assert!(b.parse_move("a4-a5/a6").is_ok());
        assert!(
            matches!(b.parse_move("a7-a6/a5"), Err(AmazonsError::Illegal(_))),
            "a black amazon on White's turn"
        );
    }

    #[test]
    fn fen_errors_are_named() {
        assert_eq!(Board::from_fen("3q2q3/10 w"), Err(AmazonsError::RankCount(2)));
        assert!(matches!(
            Board::from_fen("3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q2 w"),
            Err(AmazonsError::RankWidth { .. })
        ));
        assert_eq!(
            Board::from_fen("3q2x3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 w"),
            Err(AmazonsError::BadPiece('x'))
        );
        assert!(matches!(
            Board::from_fen("3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 x"),
            Err(AmazonsError::BadSide(_))
        ));
        assert!(matches!(
            Board::from_fen("3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2*3 w"),
            Err(AmazonsError::AmazonCount {
                side: "white",
                count: 3
            })
        ));
    }

    #[test]
    fn queen_fill_matches_single_queen_reach() {
        let mut b = Board::startpos();
        for mv in b.legal_moves().into_iter().step_by(211) {
            b.play(mv);
            let occ = b.occupied();
            let empty = !occ & BOARD;
            for set in [
                b.amazons(Side::White),
                b.amazons(Side::Black),
                b.arrows() | b.amazons(Side::White),
            ] {
                let mut expected = 0;
                let mut s = set;
                while s != 0 {
                    let sq = s.trailing_zeros() as usize;
                    s &= s - 1;
                    expected |= queen_reach(sq, occ);
                }
                assert_eq!(queen_fill(set, empty), expected, "{}", b.fen());
            }
        }
    }

    #[test]
    fn play_and_unplay_are_exact_and_flip_keeps_counts() {
        let mut b = Board::startpos();
        let before = b.clone();
        for mv in b.legal_moves().into_iter().step_by(97) {
            b.play(mv);
            assert_eq!(b.count_moves(), b.color_flipped().count_moves());
            b.unplay(mv);
            assert_eq!(b, before);
        }
    }
}
