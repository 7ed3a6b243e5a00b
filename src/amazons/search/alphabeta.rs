//! Alpha-beta by iterative deepening over the same evaluation, the classical searcher UCT is
//! compared with.

use super::candidates::{candidates_into, moves_by_evaluation, LOST};
use crate::amazons::board::{Board, Move};
use crate::amazons::eval::Weights;
use std::time::Instant;

/// What alpha-beta may spend on a move: the first limit reached stops it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AbLimits {
    pub depth: u32,
    /// Nodes (positions visited); the search is deterministic when only this and `depth` bind.
    pub nodes: u64,
    pub deadline: Option<Instant>,
    /// Moves searched at each node below the root, the best by the cheap ordering (after the
    /// table's move).
    pub width: usize,
    /// Moves searched at the root: the best of all legal moves by the evaluation after them.
    pub root_width: usize,
}

/// The outcome of an alpha-beta search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AbResult {
    pub best: Option<Move>,
    /// The best move's score for the side to move, in points of the evaluation.
    pub value: f64,
    /// The last depth completed.
    pub depth: u32,
    pub nodes: u64,
}

const TABLE_BITS: u32 = 16;

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    best: Option<Move>,
    depth: u8,
    /// 0 exact, 1 a lower bound (failed high), 2 an upper bound (failed low).
    bound: u8,
    value: f64,
}

/// Iterative-deepening alpha-beta over the evaluation: at the root the `root_width` best
/// moves by the evaluation (a full-width first ply), at each other node the table's move
/// first, then the `width` best moves by the cheap ordering; a table of 64 K entries keeps
/// each position's best move and bound between iterations. Per-ply move buffers are
/// allocated once a search.
struct AlphaBeta<'w> {
    weights: &'w Weights,
    limits: AbLimits,
    root: Vec<Move>,
    table: Vec<Entry>,
    moves: Vec<Vec<Move>>,
    scored: Vec<(i32, u32, Move)>,
    nodes: u64,
    checks: u64,
    stopped: bool,
}

impl AlphaBeta<'_> {
    fn out_of_budget(&mut self) -> bool {
        if !self.stopped {
            // The clock is read every 32 checks (a millisecond or so of search).
            self.checks += 1;
            self.stopped = self.nodes >= self.limits.nodes
                || (self.checks % 32 == 0 && self.limits.deadline.is_some_and(|d| Instant::now() >= d));
        }
        self.stopped
    }

    fn negamax(
        &mut self,
        b: &mut Board,
        ply: u32,
        height: usize,
        depth: u32,
        mut alpha: f64,
        beta: f64,
    ) -> f64 {
        self.nodes += 1;
        if depth == 0 {
            return self.weights.evaluate(b, ply);
        }
        let key = b.key();
        let slot = (key >> (64 - TABLE_BITS)) as usize;
        let entry = self.table[slot];
        let hint = if entry.key == key {
            if entry.depth as u32 >= depth && height > 0 {
                let cut = match entry.bound {
                    0 => true,
                    1 => entry.value >= beta,
                    _ => entry.value <= alpha,
                };
                if cut {
                    return entry.value;
                }
            }
            entry.best.filter(|&m| b.is_legal(m))
        } else {
            None
        };
        if self.moves.len() <= height {
            self.moves.push(Vec::new());
        }
        let mut moves = std::mem::take(&mut self.moves[height]);
        if height == 0 {
            moves.clear();
            moves.extend_from_slice(&self.root);
        } else {
            candidates_into(b, self.limits.width, &mut self.scored, &mut moves);
        }
        if moves.is_empty() {
            self.moves[height] = moves;
            return LOST - depth as f64;
        }
        if let Some(h) = hint {
            match moves.iter().position(|&m| m == h) {
                Some(i) => moves[..=i].rotate_right(1),
                None => moves.insert(0, h),
            }
        }
        let alpha0 = alpha;
        let mut best = (f64::NEG_INFINITY, moves[0]);
        for &mv in &moves {
            b.play(mv);
            let v = -self.negamax(b, ply + 1, height + 1, depth - 1, -beta, -alpha);
            b.unplay(mv);
            if self.out_of_budget() {
                break;
            }
            if v > best.0 {
                best = (v, mv);
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        self.moves[height] = moves;
        if !self.stopped {
            let bound = if best.0 >= beta {
                1
            } else if best.0 <= alpha0 {
                2
            } else {
                0
            };
            self.table[slot] = Entry {
                key,
                best: Some(best.1),
                depth: depth.min(255) as u8,
                bound,
                value: best.0,
            };
        }
        best.0
    }
}

/// Alpha-beta by iterative deepening to `limits` (the classical searcher UCT is compared
/// with). The answer is the last completed depth's move; when the deadline comes before
/// depth 1 completes, the best move by the evaluation after it stands.
pub fn alphabeta(board: &Board, plies_played: u32, weights: &Weights, limits: AbLimits) -> AbResult {
    let root = moves_by_evaluation(board, plies_played, weights, limits.root_width);
    let first = root.first().copied();
    let mut search = AlphaBeta {
        weights,
        limits,
        root,
        table: vec![Entry::default(); 1 << TABLE_BITS],
        moves: Vec::new(),
        scored: Vec::new(),
        nodes: 0,
        checks: 0,
        stopped: false,
    };
    let mut b = board.clone();
    let mut result = AbResult {
        best: first,
        value: 0.0,
        depth: 0,
        nodes: 0,
    };
    if first.is_none() {
        return result;
    }
    for depth in 1..=limits.depth.max(1) {
        let value = search.negamax(&mut b, plies_played, 0, depth, f64::NEG_INFINITY, f64::INFINITY);
        let slot = (b.key() >> (64 - TABLE_BITS)) as usize;
        let root = search.table[slot];
        if search.stopped {
            break;
        }
        result = AbResult {
            best: root.best.or(first),
            value,
            depth,
            nodes: search.nodes,
        };
        // A won or lost position needs no deeper search.
        if value.abs() >= -LOST - 1000.0 {
            break;
        }
    }
    result.nodes = search.nodes;
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amazons::search::random_position;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn alphabeta_deepens_within_its_nodes_and_repeats_itself() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let b = random_position(20, &mut rng);
        let w = Weights::default();
        let limits = AbLimits {
            depth: 64,
            nodes: 20_000,
            deadline: None,
            width: 24,
            root_width: 64,
        };
        let r = alphabeta(&b, 20, &w, limits);
        assert_eq!(r, alphabeta(&b, 20, &w, limits));
        assert!(r.depth >= 2 && r.nodes <= 20_000 + 64, "{r:?}");
        assert!(b.is_legal(r.best.unwrap()));
        // Depth 1 is the best of all moves by the evaluation alone.
        let one = alphabeta(&b, 20, &w, AbLimits { depth: 1, ..limits });
        let mut after = b.clone();
        let mut by_eval: Option<(f64, Move)> = None;
        b.for_each_step(|from, to, mut arrows| {
            while arrows != 0 {
                let m = Move {
                    from,
                    to,
                    arrow: arrows.trailing_zeros() as u8,
                };
                arrows &= arrows - 1;
                after.play(m);
                let v = -w.evaluate(&after, 21);
                after.unplay(m);
                if by_eval.map_or(true, |(bv, _)| v > bv) {
                    by_eval = Some((v, m));
                }
            }
        });
        assert_eq!(one.best, by_eval.map(|x| x.1));
        // A side with no move: no move, and no panic.
        let trapped = Board::from_fen("Q*6*Q/**6**/10/10/10/3qqqq3/10/10/**6**/Q*6*Q w").unwrap();
        assert_eq!(alphabeta(&trapped, 0, &w, limits).best, None);
    }
}
