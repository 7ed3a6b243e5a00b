//! `qitune bench`: the fixed search benchmark.

use anyhow::Result;
use qitune::xiangqi::{bench, eval::Weights};

/// Search a fixed list of positions to a fixed depth; the node count is the engine's
/// behaviour checksum.
///
/// The last line is `bench: NODES nodes NPS nps`.
#[derive(clap::Args)]
pub struct Args {
    /// The game.
    #[arg(long, value_enum, default_value = "xiangqi")]
    game: super::GameKind,
    /// Search depth (the checksum is defined at the default).
    #[arg(long, default_value_t = bench::DEPTH)]
    depth: u32,
}

pub fn run(args: Args) -> Result<()> {
    if args.game != super::GameKind::Xiangqi {
        anyhow::bail!("qitune bench supports --game xiangqi only so far");
    }
    let result = bench::run(&Weights::default(), args.depth, |i, nodes| {
        eprintln!("position {:>2}/{}: {nodes} nodes", i + 1, bench::POSITIONS.len());
    });
    eprintln!("{:.3} s", result.elapsed.as_secs_f64());
    println!("bench: {} nodes {} nps", result.nodes, result.nps());
    Ok(())
}
