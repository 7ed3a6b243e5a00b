//! The fixed search benchmark: its node count is the engine's behaviour checksum.

use super::eval::Weights;
use super::rules::Xiangqi;
use super::search::{Counts, Limits, Searcher};
use std::time::{Duration, Instant};

/// Transposition table size of the bench searches.
pub const TT_MB: usize = 16;

/// Depth each bench position is searched to.
pub const DEPTH: u32 = 11;

/// Positions: the start, positions from the perft suite, and real master-game middlegames.
pub const POSITIONS: &[&str] = &[
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w - - 0 1",
    "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 0 1",
    "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w - - 0 1",
    "c3kab2/4a4/r1n1b1n2/pP2p3p/6p2/2R6/P3c1P1P/2NCC1N2/4A4/2B1KABr1 w - - 0 15",
    "2bak2n1/4a4/1c2b4/4pcp1p/1np6/3r2P2/2P1P3P/N3C4/2C2R3/2BAKAB2 w - - 0 15",
    "rn1akab2/9/1Cc1b1n1c/p3p1p1p/2p6/1NP3P2/P3P3P/4B1C1N/9/1R1AKABr1 w - - 0 11",
    "r3kab2/4a4/2n1bcn2/p1p1pR2p/5r3/2P1P1B2/P5c1P/C1N1C1N2/9/1RBAKA3 w - - 5 13",
    "r3kab2/4a4/1cn1bc3/p1p1p3p/5n3/2P3p2/P3P3P/1CN1B3C/6R2/2BAKA1N1 w - - 2 11",
    "3rkab2/4a4/2c3n1c/p3p1p1p/1Rbn5/P5P2/4P2rP/2C1B1N2/2C6/1NBAKA2R w - - 0 15",
    "2bakr3/4a4/2ncb3c/p3n1C1p/2p1p4/2P3P2/P3P3P/2C1B3N/9/1N1AKABR1 w - - 1 13",
    "r3kab2/3ca4/2n1b1n1c/p3p3p/6pr1/5R3/P3P1P1P/1CNCB1N2/9/R2AKAB2 w - - 10 15",
];

/// What the benchmark measured.
#[derive(Clone, Copy, Debug)]
pub struct BenchResult {
    pub nodes: u64,
    pub elapsed: Duration,
    /// What all the searches did, counted together.
    pub counts: Counts,
}

impl BenchResult {
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)) as u64
    }
}

/// Searches every bench position to `depth` with a fresh 16 MiB table each, calling
/// `progress(index, nodes)` after each.
pub fn run(weights: &Weights, depth: u32, mut progress: impl FnMut(usize, u64)) -> BenchResult {
    let mut searcher = Searcher::new(weights.clone(), TT_MB);
    let mut nodes = 0;
    let mut elapsed = Duration::ZERO;
    let mut counts = Counts::default();
    for (i, fen) in POSITIONS.iter().enumerate() {
        let game = Xiangqi::from_fen(fen).expect("bench positions are valid");
        searcher.clear();
        // Only the search is timed, not clearing the table.
        let start = Instant::now();
        let r = searcher.search(&game, &Limits::depth(depth), |_| {});
        elapsed += start.elapsed();
        nodes += r.nodes;
        counts.add(searcher.counts());
        progress(i, r.nodes);
    }
    BenchResult {
        nodes,
        elapsed,
        counts,
    }
}
