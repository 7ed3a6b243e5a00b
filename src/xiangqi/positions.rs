//! Balanced start-position sets: candidates searched to a fixed depth, the quiet and level
//! ones kept.

use crate::xiangqi::eval::Weights;
use crate::xiangqi::search::{Limits, Searcher};
use crate::xiangqi::{Board, Xiangqi};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::collections::HashSet;

/// How candidates are judged.
#[derive(Clone, Debug)]
pub struct Filter {
    /// Search depth of the judgement.
    pub depth: u32,
    /// Keep positions whose score lies within +-window.
    pub window: i32,
    /// Seeded random plies played from each candidate first.
    pub random_plies: usize,
    pub seed: u64,
}

/// A kept position and the score that admitted it (side to move's view).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kept {
    pub board: Board,
    pub score: i32,
}

/// Judges one candidate: `None` unless it is quiet (not in check, best move no capture)
/// and level (score within the window).
pub fn judge(board: &Board, filter: &Filter, index: usize, weights: &Weights) -> Option<Kept> {
    let mut rng = ChaCha8Rng::seed_from_u64(filter.seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut board = board.clone();
    for _ in 0..filter.random_plies {
        let moves = board.legal_moves();
        if moves.is_empty() {
            return None;
        }
        board.make(moves[rng.gen_range(0..moves.len())]);
    }
    if board.in_check() {
        return None;
    }
    let game = Xiangqi::from_board(board.clone());
    if game.outcome().is_some() {
        return None;
    }
    let mut searcher = Searcher::new(weights.clone(), 4);
    let r = searcher.search(&game, &Limits::depth(filter.depth), |_| {});
    let best = r.best?;
    let quiet = board.piece_at(best.to()).is_none();
    (quiet && r.score.abs() <= filter.window).then_some(Kept {
        board,
        score: r.score,
    })
}

/// Judges all candidates in parallel and keeps up to `count` accepted ones, in candidate
/// order, without duplicates. `done` is called once per judged candidate.
pub fn select(
    candidates: &[Board],
    filter: &Filter,
    count: usize,
    weights: &Weights,
    done: impl Fn() + Sync,
) -> Vec<Kept> {
    let judged: Vec<Option<Kept>> = candidates
        .par_iter()
        .enumerate()
        .map(|(i, b)| {
            let k = judge(b, filter, i, weights);
            done();
            k
        })
        .collect();
    let mut seen = HashSet::new();
    judged
        .into_iter()
        .flatten()
        .filter(|k| seen.insert(k.board.hash()))
        .take(count)
        .collect()
}
