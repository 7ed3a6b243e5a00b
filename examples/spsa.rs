//! SPSA refinement of the Xiangqi weights: how the built-in defaults were set.
//!
//! Each iteration moves every tunable weight by ±c (c = its range / 40, at least 1) in a
//! random direction, plays both perturbed sets against one opponent from one random opening
//! with colours swapped (four games), and steps the weights along the direction by
//! `rate × c × (score of plus − score of minus)`. The opponent is the starting weights (a
//! fraction `--anchor` of iterations, so general strength is kept) or a random weight set
//! drawn from `random:10000`..`random:11999`, disjoint from the `random:1`.. sets used to
//! judge the result. Batches of 128 iterations share one weight vector and each iteration
//! draws from its own seed, so a run is the same on any number of threads.
//!
//! The built-in weights are its output in three stages, each started from the one before
//! (about 100 minutes on 2 cores in all):
//!
//! ```text
//! cargo run --release --example spsa -- --from examples/xiangqi-hand-set.json --out stage1.json
//! cargo run --release --example spsa -- --from stage1.json --iterations 14080 --seed 8 --out stage2.json
//! cargo run --release --example spsa -- --from stage2.json --iterations 7040 --seed 9 --out spsa.json
//! ```

use clap::Parser;
use qitune::arena::{random_weights, tally, Conditions, Match};
use qitune::game::{Budget, Game, Player};
use qitune::params::{Params, Spec};
use qitune::xiangqi::eval;
use qitune::xiangqi::game::XiangqiGame;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::path::PathBuf;

#[derive(Parser)]
struct Args {
    /// Iterations (each plays four games), rounded up to whole batches of 128.
    #[arg(long, default_value_t = 32_000)]
    iterations: usize,
    /// Step size: a weight moves by rate × c per point of score difference.
    #[arg(long, default_value_t = 0.01)]
    rate: f64,
    /// Fraction of iterations played against the starting weights.
    #[arg(long, default_value_t = 0.2)]
    anchor: f64,
    /// Nodes a move.
    #[arg(long, default_value_t = 2000)]
    nodes: u64,
    /// Seed of the directions, opponents and openings.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Starting weights (default: the built-in ones).
    #[arg(long)]
    from: Option<PathBuf>,
    /// Weight file rewritten after every batch.
    #[arg(long)]
    out: PathBuf,
}

const BATCH: usize = 128;

fn main() {
    let args = Args::parse();
    if let Err(e) = run(&args) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run(args: &Args) -> Result<(), String> {
    if !(args.rate.is_finite() && args.rate > 0.0) {
        return Err(format!("--rate {}: must be a positive number", args.rate));
    }
    if !(0.0..=1.0).contains(&args.anchor) {
        return Err(format!("--anchor {}: must be between 0 and 1", args.anchor));
    }
    if args.iterations == 0 {
        return Err("--iterations must be at least 1".into());
    }
    if args.nodes == 0 {
        return Err("--nodes must be at least 1".into());
    }
    let specs = eval::specs();
    let start = match &args.from {
        Some(path) => Params::load(path, eval::GAME, specs).map_err(|e| e.to_string())?,
        None => eval::default_params(),
    };
    let anchor = XiangqiGame::weights(&start);
    let mut theta: Vec<f64> = start.values().iter().map(|&v| v as f64).collect();
    let step: Vec<f64> = specs
        .iter()
        .map(|s| {
            if s.bits == 0 {
                0.0
            } else {
                (f64::from(s.max - s.min) / 40.0).max(1.0)
            }
        })
        .collect();
    let started = std::time::Instant::now();
    let mut done = 0;
    while done < args.iterations {
        let current = theta.clone();
        let results: Vec<(Vec<f64>, f64)> = (done..done + BATCH)
            .into_par_iter()
            .map(|k| {
                let mut rng =
                    ChaCha8Rng::seed_from_u64(args.seed.wrapping_mul(1_000_003).wrapping_add(k as u64));
                let direction: Vec<f64> = step
                    .iter()
                    .map(|&c| {
                        // A fixed weight (the king) takes no step and no draw.
                        if c == 0.0 {
                            0.0
                        } else if rng.gen::<bool>() {
                            c
                        } else {
                            -c
                        }
                    })
                    .collect();
                let opponent = if rng.gen::<f64>() < args.anchor {
                    anchor.clone()
                } else {
                    random_weights::<XiangqiGame>(10_000 + rng.gen_range(0..2000))
                };
                let opening = XiangqiGame::random_opening(rng.gen(), 4);
                // One game pair from the opening, colours swapped: the perturbed set's points.
                let points = |sign: f64| {
                    let weights = rounded(specs, current.iter().zip(&direction).map(|(t, d)| t + sign * d));
                    let budget = Budget::Nodes(args.nodes);
                    let pair = Match::<XiangqiGame> {
                        a: Player::weights(XiangqiGame::weights(&weights), budget),
                        b: Player::weights(opponent.clone(), budget),
                        positions: vec![opening.clone()],
                        games: 2,
                        conditions: Conditions {
                            tt_mb: 1,
                            ..Conditions::for_budget(budget)
                        },
                        sprt: None,
                    };
                    2.0 * tally(&[pair.play(0), pair.play(1)]).score()
                };
                let difference = points(1.0) - points(-1.0);
                (direction, difference)
            })
            .collect();
        for (direction, difference) in &results {
            for (i, s) in specs.iter().enumerate() {
                theta[i] = (theta[i] + args.rate * direction[i] * difference)
                    .clamp(f64::from(s.min), f64::from(s.max));
            }
        }
        done += BATCH;
        let provenance = serde_json::json!({
            "spsa": { "iterations": done, "rate": args.rate, "anchor": args.anchor, "nodes": args.nodes, "seed": args.seed }
        });
        rounded(specs, theta.iter().copied())
            .to_weight_file(eval::GAME, provenance)
            .write(&args.out)
            .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
        eprintln!(
            "{done} iterations, {:.0} s, written to {}",
            started.elapsed().as_secs_f64(),
            args.out.display()
        );
    }
    Ok(())
}

/// Weights at `values`, rounded and clamped into each weight's range.
fn rounded(specs: &'static [Spec], values: impl Iterator<Item = f64>) -> Params {
    let values: Vec<i32> = specs
        .iter()
        .zip(values)
        .map(|(s, v)| (v.round() as i32).clamp(s.min, s.max))
        .collect();
    Params::from_values(specs, &values).expect("clamped into range")
}
