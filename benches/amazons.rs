//! Amazons speed, one thread: `cargo bench --bench amazons`.
//!
//! Evaluations per second over positions from seeded random play, and UCT playouts per
//! second with the built-in search settings, from the start and from a middle position.

use qitune::amazons::eval::{Features, Weights};
use qitune::amazons::search::{random_position, uct, UctConfig};
use qitune::amazons::Board;
use rand::SeedableRng;
use std::time::Instant;

fn positions(n: usize) -> Vec<(Board, u32)> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    (0..n)
        .map(|i| {
            let plies = (i % 40) as u32;
            (random_position(plies, &mut rng), plies)
        })
        .collect()
}

fn main() {
    let quick = std::env::args().any(|a| a == "--test");
    let set = positions(if quick { 20 } else { 2000 });
    let t = Instant::now();
    let rounds = if quick { 1 } else { 20 };
    let mut sink = 0.0;
    for _ in 0..rounds {
        for (b, _) in &set {
            sink += Features::of(b).t1;
        }
    }
    let n = (rounds * set.len()) as f64;
    println!("evaluations: {:.0}/s ({sink:.0})", n / t.elapsed().as_secs_f64());
    let w = Weights::default();
    let playouts = if quick { 200 } else { 20_000 };
    for (name, (b, ply)) in [
        ("start", (Board::startpos(), 0)),
        ("middle", set[25 % set.len()].clone()),
    ] {
        let cfg = UctConfig::of(&w, playouts);
        let t = Instant::now();
        let r = uct(&b, ply, &w, &cfg, 1);
        println!(
            "uct {name}: {} playouts (cut at {} plies) in {:.2} s = {:.0} playouts/s, best {:?}",
            playouts,
            cfg.playout_plies,
            t.elapsed().as_secs_f64(),
            playouts as f64 / t.elapsed().as_secs_f64(),
            r.best
        );
    }
}
