//! Correction history: how far searches have found the static evaluation off, by pawn
//! structure and by material (and, with the knob `search_correction_pieces`, by where each
//! side's other pieces stand, Stockfish's non-pawn correction), so that the next evaluation
//! of a position like it is corrected before pruning decisions rely on it (Stockfish's
//! correction history).

use crate::xiangqi::board::Board;
use crate::xiangqi::eval::Score;
use crate::xiangqi::types::{Color, Role};

/// Entries per table and side (a power of two).
const SIZE: usize = 1 << 14;
/// Entries stay within ±LIMIT; a correction is the sum of its entries (the placement ones
/// weighed by the knob) over [`GRAIN`].
const LIMIT: i32 = 1024;
const GRAIN: i32 = 32;
/// The placement entries' weight is given in 32nds of a pawn or material entry.
const PIECES_UNIT: i32 = 32;

/// The tables, per side to move.
pub struct Correction {
    pawns: Box<[[i16; SIZE]; 2]>,
    material: Box<[[i16; SIZE]; 2]>,
    /// By where one colour's king, advisors, elephants, horses, rooks and cannons stand: a
    /// table per colour (the second index), so that each side's setup is learnt apart.
    pieces: Box<[[[i16; SIZE]; 2]; 2]>,
}

impl Correction {
    /// Tables that correct nothing yet.
    pub fn new() -> Correction {
        Correction {
            pawns: Box::new([[0; SIZE]; 2]),
            material: Box::new([[0; SIZE]; 2]),
            pieces: Box::new([[[0; SIZE]; 2]; 2]),
        }
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        *self.pawns = [[0; SIZE]; 2];
        *self.material = [[0; SIZE]; 2];
        *self.pieces = [[[0; SIZE]; 2]; 2];
    }

    /// The correction to add to the static evaluation of `board` (side to move's view), with
    /// the placement tables weighed `pieces` 32nds of the others (0 leaves them out).
    #[inline]
    pub fn get(&self, board: &Board, pieces: i32) -> Score {
        let (side, p, m) = indices(board);
        let base = i32::from(self.pawns[side][p]) + i32::from(self.material[side][m]);
        if pieces == 0 {
            return base / GRAIN;
        }
        let [red, black] = placements(board);
        let placed = i32::from(self.pieces[side][0][red]) + i32::from(self.pieces[side][1][black]);
        (base * PIECES_UNIT + placed * pieces) / (GRAIN * PIECES_UNIT)
    }

    /// Learns from a node searched to `depth` whose score `searched` is better evidence than
    /// its (corrected) static evaluation `eval`; the placement tables only where `pieces`
    /// (their weight, as in [`Correction::get`]) uses them.
    #[inline]
    pub fn update(&mut self, board: &Board, depth: i32, searched: Score, eval: Score, pieces: i32) {
        let bonus = ((searched - eval) * depth / 8).clamp(-LIMIT / 4, LIMIT / 4);
        let (side, p, m) = indices(board);
        let learn = |e: &mut i16| {
            let v = i32::from(*e);
            *e = (v + bonus - v * bonus.abs() / LIMIT) as i16;
        };
        learn(&mut self.pawns[side][p]);
        learn(&mut self.material[side][m]);
        if pieces != 0 {
            let [red, black] = placements(board);
            learn(&mut self.pieces[side][0][red]);
            learn(&mut self.pieces[side][1][black]);
        }
    }
}

impl Default for Correction {
    fn default() -> Correction {
        Correction::new()
    }
}

/// The side to move and the two tables' indices for `board`.
#[inline]
fn indices(board: &Board) -> (usize, usize, usize) {
    let (red, black) = (
        board.pieces(Color::Red, Role::Pawn).0,
        board.pieces(Color::Black, Role::Pawn).0,
    );
    let pawns = fold(red, 1, M1) ^ fold(black, M2, 0x1656_67B1_9E37_79F9);
    let mut counts = 0u64;
    for (c, color) in Color::ALL.into_iter().enumerate() {
        for (r, role) in Role::ALL[1..].iter().enumerate() {
            counts |= u64::from(board.pieces(color, *role).count()) << (4 * (r + 6 * c));
        }
    }
    (board.turn().index(), index(pawns), index(counts))
}

/// Each colour's placement index: a hash of where its pieces other than pawns stand.
#[inline]
fn placements(board: &Board) -> [usize; 2] {
    Color::ALL.map(|color| {
        let mut key = 0u64;
        for role in &Role::ALL[..6] {
            let b = board.pieces(color, *role).0;
            // The rotation makes the same points of two roles hash apart.
            key = key.rotate_left(29) ^ fold(b, M1, M2);
        }
        index(key)
    })
}

/// Odd multipliers that spread a bitboard's halves over the key.
const M1: u64 = 0x9E37_79B9_7F4A_7C15;
const M2: u64 = 0xC2B2_AE3D_27D4_EB4F;

/// A 90-point bitboard folded to 64 bits, its low and high halves multiplied apart.
#[inline]
fn fold(bits: u128, low: u64, high: u64) -> u64 {
    (bits as u64).wrapping_mul(low) ^ ((bits >> 64) as u64).wrapping_mul(high)
}

/// A table index from a 64-bit key.
#[inline]
fn index(x: u64) -> usize {
    (x.wrapping_mul(0xFF51_AFD7_ED55_8CCD) >> (64 - SIZE.trailing_zeros())) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_towards_the_searched_score_within_its_bound() {
        let mut c = Correction::new();
        let board = Board::startpos();
        assert_eq!(c.get(&board, 0), 0);
        c.update(&board, 8, 200, 0, 0);
        let once = c.get(&board, 0);
        assert!(
            once > 0,
            "a search above the evaluation raises the correction ({once})"
        );
        for _ in 0..1000 {
            c.update(&board, 20, 5000, 0, 0);
        }
        assert!(
            c.get(&board, 0) <= 2 * LIMIT / GRAIN,
            "entries stay within their limit"
        );
        for _ in 0..1000 {
            c.update(&board, 20, -5000, 0, 0);
        }
        assert!(c.get(&board, 0) < 0 && c.get(&board, 0) >= -2 * LIMIT / GRAIN);
        c.clear();
        assert_eq!(c.get(&board, 0), 0);
    }

    #[test]
    fn each_side_to_move_has_its_own_entries() {
        let mut c = Correction::new();
        let red = Board::startpos();
        let mut black = red.clone();
        black.make_null();
        c.update(&red, 8, 400, 0, 0);
        assert!(c.get(&red, 0) > 0);
        assert_eq!(c.get(&black, 0), 0);
    }

    #[test]
    fn placement_tables_learn_only_where_weighed_and_tell_setups_apart() {
        let mut c = Correction::new();
        let board = Board::startpos();
        // Weighed 0, the placement tables neither learn nor count.
        c.update(&board, 8, 400, 0, 0);
        let plain = c.get(&board, 0);
        assert_eq!(c.get(&board, 32), plain, "unlearnt placement entries add nothing");
        c.clear();
        c.update(&board, 8, 400, 0, 32);
        assert_eq!(
            c.get(&board, 0),
            plain,
            "the pawn and material tables learn as before"
        );
        assert!(
            c.get(&board, 32) > plain,
            "learnt placement entries add to the correction"
        );
        assert!(c.get(&board, 64) > c.get(&board, 32), "and weigh by the knob");
        // Same pawns and material, a red horse elsewhere: black's entry is shared, red's not.
        let moved =
            Board::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C4NC1/9/RNBAKAB1R w").unwrap();
        assert_eq!(c.get(&moved, 0), plain);
        let half = c.get(&moved, 32);
        assert!(
            half > plain && half < c.get(&board, 32),
            "{plain} < {half} < {}",
            c.get(&board, 32)
        );
    }
}
