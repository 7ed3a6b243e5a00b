//! Move candidates: the cheap ordering that keeps a node's best few hundred moves, and the
//! random moves of playouts and openings.

use crate::amazons::board::{king_spread, queen_reach, Board, Move};
use crate::amazons::eval::Weights;
use rand::Rng;

/// A cheap ordering score: an amazon's room where it lands, and arrows that crowd the enemy's
/// amazons rather than one's own.
fn order_score(board: &Board, from: u8, to: u8, arrow: u8, occupied_after: u128) -> i32 {
    let room = queen_reach(to as usize, occupied_after).count_ones() as i32;
    let around = king_spread(1u128 << arrow);
    let near = |set: u128| (around & set).count_ones() as i32;
    let enemy = board.amazons(board.turn().flip());
    let own = (board.amazons(board.turn()) & !(1u128 << from)) | 1u128 << to;
    2 * room + 6 * near(enemy) - 3 * near(own)
}

/// The best `n` moves by the cheap ordering, best first.
pub fn candidate_moves(board: &Board, n: usize) -> Vec<Move> {
    let mut out = Vec::new();
    candidates_into(board, n, &mut Vec::new(), &mut out);
    out
}

/// [`candidate_moves`] into `out`, with `scored` as scratch: searches reuse both buffers.
pub fn candidates_into(board: &Board, n: usize, scored: &mut Vec<(i32, u32, Move)>, out: &mut Vec<Move>) {
    let occupied = board.occupied();
    scored.clear();
    board.for_each_step(|from, to, mut arrows| {
        let after = (occupied & !(1u128 << from)) | 1u128 << to;
        while arrows != 0 {
            let arrow = arrows.trailing_zeros() as u8;
            arrows &= arrows - 1;
            let mv = Move { from, to, arrow };
            let index = scored.len() as u32;
            scored.push((
                -order_score(board, from, to, arrow, after | 1u128 << arrow),
                index,
                mv,
            ));
        }
    });
    // Best score first, ties in generation order: a total order, so the choice is
    // deterministic; only the best n are sorted.
    if scored.len() > n && n > 0 {
        scored.select_nth_unstable_by_key(n - 1, |s| (s.0, s.1));
    }
    scored.truncate(n);
    scored.sort_unstable_by_key(|s| (s.0, s.1));
    out.clear();
    out.extend(scored.iter().map(|s| s.2));
}

/// The `k`-th legal move in generation order (k below the move count).
fn nth_move(board: &Board, mut k: u64) -> Option<Move> {
    let mut found = None;
    board.for_each_step(|from, to, arrows| {
        if found.is_some() {
            return;
        }
        let n = arrows.count_ones() as u64;
        if k < n {
            let mut a = arrows;
            for _ in 0..k {
                a &= a - 1;
            }
            found = Some(Move {
                from,
                to,
                arrow: a.trailing_zeros() as u8,
            });
        } else {
            k -= n;
        }
    });
    found
}

/// A uniformly random legal move, or `None` when the side to move has none.
pub fn random_move(board: &Board, rng: &mut impl Rng) -> Option<Move> {
    let n = board.count_moves();
    (n > 0).then(|| nth_move(board, rng.gen_range(0..n))).flatten()
}

/// The start position after up to `plies` uniformly random moves (fewer if the side to move
/// runs out of moves: `arrows().count_ones()` tells how many were played).
pub fn random_position(plies: u32, rng: &mut impl Rng) -> Board {
    let mut board = Board::startpos();
    for _ in 0..plies {
        match random_move(&board, rng) {
            Some(m) => board.play(m),
            None => break,
        }
    }
    board
}

/// A random move for playouts: a random amazon that can move, a random landing point, a
/// random arrow. Not uniform over all moves (an amazon with few moves gets its share), but
/// three queen lookups instead of a pass over every move.
pub fn playout_move(board: &Board, rng: &mut impl Rng) -> Option<Move> {
    let occupied = board.occupied();
    let mut movable = [0u8; 4];
    let mut n = 0;
    let mut mine = board.amazons(board.turn());
    while mine != 0 {
        let s = mine.trailing_zeros() as u8;
        mine &= mine - 1;
        if queen_reach(s as usize, occupied) != 0 {
            movable[n] = s;
            n += 1;
        }
    }
    if n == 0 {
        return None;
    }
    let from = movable[rng.gen_range(0..n)];
    let to = nth_bit(queen_reach(from as usize, occupied), rng);
    // A reachable point always has an arrow: at least back where the amazon came from.
    let without = (occupied & !(1u128 << from)) | 1u128 << to;
    let arrow = nth_bit(queen_reach(to as usize, without), rng);
    Some(Move { from, to, arrow })
}

/// A uniformly chosen set bit of a non-empty set.
fn nth_bit(mut set: u128, rng: &mut impl Rng) -> u8 {
    for _ in 0..rng.gen_range(0..set.count_ones()) {
        set &= set - 1;
    }
    set.trailing_zeros() as u8
}

/// A side with no move has lost: scored below any evaluation, sooner worse.
pub(super) const LOST: f64 = -10_000.0;

/// Every legal move scored by the evaluation after it (a move that leaves the opponent none
/// first), best first, ties in generation order; the best `n` are kept.
pub(super) fn moves_by_evaluation(
    board: &Board,
    plies_played: u32,
    weights: &Weights,
    n: usize,
) -> Vec<Move> {
    let mut all = Vec::new();
    board.for_each_step(|from, to, mut arrows| {
        while arrows != 0 {
            let arrow = arrows.trailing_zeros() as u8;
            arrows &= arrows - 1;
            all.push(Move { from, to, arrow });
        }
    });
    let mut b = board.clone();
    let mut scored: Vec<(f64, usize, Move)> = all
        .into_iter()
        .enumerate()
        .map(|(i, mv)| {
            b.play(mv);
            let v = if b.has_move() {
                -weights.evaluate(&b, plies_played + 1)
            } else {
                -LOST
            };
            b.unplay(mv);
            (v, i, mv)
        })
        .collect();
    scored.sort_unstable_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
    scored.truncate(n.max(1));
    scored.into_iter().map(|s| s.2).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn candidates_are_legal_and_ordered() {
        let b = Board::startpos();
        let c = candidate_moves(&b, 400);
        assert_eq!(c.len(), 400);
        assert!(c.iter().all(|&m| b.is_legal(m)));
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..50 {
            assert!(b.is_legal(random_move(&b, &mut rng).unwrap()));
            assert!(b.is_legal(playout_move(&b, &mut rng).unwrap()));
        }
    }
}
