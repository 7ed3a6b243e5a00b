//! Amazons searchers (seed 004): UCT ([`uct`]) and, for comparison, alpha-beta
//! ([`alphabeta`]) over the same evaluation, with the move candidates both order by
//! ([`candidates`]).

mod alphabeta;
mod candidates;
mod uct;

pub use alphabeta::{alphabeta, AbLimits, AbResult};
pub use candidates::{candidate_moves, random_move, random_position};
pub use uct::{uct, uct_in, Tree, UctConfig, UctResult};

use super::board::Board;
use super::eval::Weights;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A balanced opening set: `count` distinct positions reached by `plies` seeded random moves
/// from the start, each kept when a UCT search of `playouts` gives the side to move an
/// expected result within `window` of one half. Candidates are judged in parallel, in order.
pub fn openings(count: usize, plies: u32, playouts: u32, window: f64, seed: u64) -> Vec<Board> {
    use rayon::prelude::*;
    let weights = Weights::default();
    let config = UctConfig {
        playouts,
        ..UctConfig::default()
    };
    let mut kept: Vec<Board> = Vec::new();
    let mut next = 0u64;
    // Judge in batches until enough have passed; each candidate depends only on its index.
    while kept.len() < count && next < 100 * count as u64 + 1000 {
        let batch: Vec<Option<Board>> = (next..next + 64)
            .into_par_iter()
            .map(|i| {
                let mut rng = ChaCha8Rng::seed_from_u64(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let board = random_position(plies, &mut rng);
                if board.arrows().count_ones() < plies {
                    return None;
                }
                let r = uct(&board, plies, &weights, &config, i);
                ((r.value - 0.5).abs() <= window).then_some(board)
            })
            .collect();
        next += 64;
        for b in batch.into_iter().flatten() {
            if kept.len() < count && !kept.contains(&b) {
                kept.push(b);
            }
        }
    }
    kept
}

/// The fixed Amazons benchmark: UCT with a fixed number of playouts from the start and from
/// positions after seeded random plies. Returns (playouts, seconds).
pub fn bench(playouts: u32) -> (u64, f64) {
    let weights = Weights::default();
    let config = UctConfig {
        playouts,
        ..UctConfig::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(2010);
    let mut total = 0u64;
    let start = std::time::Instant::now();
    for plies in [0u32, 6, 12, 20, 30, 40] {
        let board = random_position(plies, &mut rng);
        uct(&board, plies, &weights, &config, plies as u64);
        total += config.playouts as u64;
    }
    (total, start.elapsed().as_secs_f64())
}
