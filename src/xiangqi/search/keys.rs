//! Move-ordering keys: a move, its ordering score and its place in the generated list packed
//! into one integer that sorts like the score, so that ordering moves is sorting plain
//! integers and the keys of a ply double as the list of moves tried.

use crate::xiangqi::moves::{Move, MAX_MOVES};

/// A move, its ordering score and its place in the generated list in one integer that
/// sorts like the score, ties going to the move generated first.
#[inline]
pub fn order_key(score: i32, index: usize, mv: Move) -> i64 {
    (score as i64) << 24 | ((MAX_MOVES - 1 - index) as i64) << 16 | mv.raw() as i64
}

/// The ordering score in a key.
#[inline]
pub fn order_score(key: i64) -> i32 {
    (key >> 24) as i32
}

/// The move in a key.
#[inline]
pub fn key_move(key: i64) -> Move {
    Move::from_raw(key as u16).expect("an ordering key holds a move")
}

/// How many moves [`pick`] selects one by one before it sorts the rest.
pub const PICKED: usize = 3;

/// Puts the best of `keys[i..]` at `i` and returns its move, so that `keys[..=i]` lists
/// the moves in the order tried. The first few are picked one by one (most cut-offs come
/// early); past them, the rest is sorted once.
#[inline]
pub fn pick(keys: &mut [i64], i: usize) -> Move {
    let n = keys.len();
    if i < PICKED {
        let mut best = i;
        for j in i + 1..n {
            if keys[j] > keys[best] {
                best = j;
            }
        }
        keys.swap(i, best);
    } else if i == PICKED {
        keys[PICKED..n].sort_unstable_by(|a, b| b.cmp(a));
    }
    key_move(keys[i])
}
