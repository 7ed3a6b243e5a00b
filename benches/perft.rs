//! Perft speed, one thread: `cargo bench --bench perft`.
//!
//! Xiangqi start-position perft(5) (133,312,995 leaves) with the last ply counted in bulk,
//! then the same tree with every leaf move made and unmade, then a middlegame position; then
//! the Amazons start position's perft(2) and perft(3), counted in bulk.
//! Prints leaves per second; the best of three runs is reported to damp noise.

use qitune::xiangqi::perft::{perft, perft_full};
use qitune::xiangqi::{Board, START_FEN};
use std::time::Instant;

fn measure(name: &str, fen: &str, depth: u32, f: fn(&mut Board, u32) -> u64) {
    let mut best = f64::MAX;
    let mut nodes = 0;
    for _ in 0..3 {
        let mut b = Board::from_fen(fen).expect("bench FEN is valid");
        let t = Instant::now();
        nodes = f(&mut b, depth);
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{name:<32} depth {depth}: {nodes:>12} leaves in {best:>7.3} s = {:>7.1} M leaves/s",
        nodes as f64 / best / 1e6
    );
}

fn main() {
    // `cargo test --benches` runs bench targets with --test-ish args; keep that quick.
    if std::env::args().any(|a| a == "--test") {
        measure("start (bulk)", START_FEN, 3, perft);
        return;
    }
    measure("start (bulk)", START_FEN, 5, perft);
    measure("start (every leaf made)", START_FEN, 5, perft_full);
    let mid = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1";
    measure("middlegame pos2 (bulk)", mid, 5, perft);
    measure("middlegame pos2 (every leaf made)", mid, 4, perft_full);
    amazons("amazons start (bulk)", 2);
    amazons("amazons start (bulk)", 3);
}

fn amazons(name: &str, depth: u32) {
    let mut best = f64::MAX;
    let mut nodes = 0;
    for _ in 0..3 {
        let mut b = qitune::amazons::Board::startpos();
        let t = Instant::now();
        nodes = qitune::amazons::perft(&mut b, depth);
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{name:<32} depth {depth}: {nodes:>12} leaves in {best:>7.3} s = {:>7.1} M leaves/s",
        nodes as f64 / best / 1e6
    );
}
