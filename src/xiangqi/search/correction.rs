//! Correction history: how far searches have found the static evaluation off, by pawn
//! structure and by material, so that the next evaluation of a position like it is
//! corrected before pruning decisions rely on it (Stockfish's correction history).

use crate::xiangqi::board::Board;
use crate::xiangqi::eval::Score;
use crate::xiangqi::types::{Color, Role};

/// Entries per table and side (a power of two).
const SIZE: usize = 1 << 14;
/// Entries stay within ±LIMIT; a correction is the sum of two entries over [`GRAIN`].
const LIMIT: i32 = 1024;
const GRAIN: i32 = 32;

/// The tables, per side to move.
pub struct Correction {
    pawns: Box<[[i16; SIZE]; 2]>,
    material: Box<[[i16; SIZE]; 2]>,
}

impl Correction {
    /// Tables that correct nothing yet.
    pub fn new() -> Correction {
        Correction {
            pawns: Box::new([[0; SIZE]; 2]),
            material: Box::new([[0; SIZE]; 2]),
        }
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        *self.pawns = [[0; SIZE]; 2];
        *self.material = [[0; SIZE]; 2];
    }

    /// The correction to add to the static evaluation of `board` (side to move's view).
    #[inline]
    pub fn get(&self, board: &Board) -> Score {
        let (side, p, m) = indices(board);
        (i32::from(self.pawns[side][p]) + i32::from(self.material[side][m])) / GRAIN
    }

    /// Learns from a node searched to `depth` whose score `searched` is better evidence than
    /// its (corrected) static evaluation `eval`.
    #[inline]
    pub fn update(&mut self, board: &Board, depth: i32, searched: Score, eval: Score) {
        let bonus = ((searched - eval) * depth / 8).clamp(-LIMIT / 4, LIMIT / 4);
        let (side, p, m) = indices(board);
        let learn = |e: &mut i16| {
            let v = i32::from(*e);
            *e = (v + bonus - v * bonus.abs() / LIMIT) as i16;
        };
        learn(&mut self.pawns[side][p]);
        learn(&mut self.material[side][m]);
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
    let pawns = (red as u64)
        ^ ((red >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (black as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ ((black >> 64) as u64).wrapping_mul(0x1656_67B1_9E37_79F9);
    let mut counts = 0u64;
    for (c, color) in Color::ALL.into_iter().enumerate() {
        for (r, role) in Role::ALL[1..].iter().enumerate() {
            counts |= u64::from(board.pieces(color, *role).count()) << (4 * (r + 6 * c));
        }
    }
    (board.turn().index(), index(pawns), index(counts))
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
        assert_eq!(c.get(&board), 0);
        c.update(&board, 8, 200, 0);
        let once = c.get(&board);
        assert!(
            once > 0,
            "a search above the evaluation raises the correction ({once})"
        );
        for _ in 0..1000 {
            c.update(&board, 20, 5000, 0);
        }
        assert!(
            c.get(&board) <= 2 * LIMIT / GRAIN,
            "entries stay within their limit"
        );
        for _ in 0..1000 {
            c.update(&board, 20, -5000, 0);
        }
        assert!(c.get(&board) < 0 && c.get(&board) >= -2 * LIMIT / GRAIN);
        c.clear();
        assert_eq!(c.get(&board), 0);
    }

    #[test]
    fn each_side_to_move_has_its_own_entries() {
        let mut c = Correction::new();
        let red = Board::startpos();
        let mut black = red.clone();
        black.make_null();
        c.update(&red, 8, 400, 0);
        assert!(c.get(&red) > 0);
        assert_eq!(c.get(&black), 0);
    }
}
