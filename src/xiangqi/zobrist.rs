//! Zobrist keys, generated at compile time from a fixed SplitMix64 stream so that
//! hashes are identical across builds and machines.

use super::types::{Color, Piece, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

static PIECE_SQUARE: [[u64; 90]; 14] = {
    let mut t = [[0u64; 90]; 14];
    let mut state = 0x5149_5455_4E45_u64; // "QITUNE"
    let mut p = 0;
    while p < 14 {
        let mut s = 0;
        while s < 90 {
            let (next, key) = splitmix(state);
            state = next;
            t[p][s] = key;
            s += 1;
        }
        p += 1;
    }
    t
};

/// Key toggled when Black is to move.
pub const BLACK_TO_MOVE: u64 = splitmix(0x000B_1AC4).1;

/// The key of a piece standing on a square.
#[inline]
pub fn piece_key(piece: Piece, sq: Square) -> u64 {
    PIECE_SQUARE[piece.index()][sq.index()]
}

/// The key of the side to move.
#[inline]
pub fn turn_key(color: Color) -> u64 {
    match color {
        Color::Red => 0,
        Color::Black => BLACK_TO_MOVE,
    }
}
