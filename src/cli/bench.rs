//! `qitune bench`: the fixed search benchmark.

use anyhow::{bail, Result};
use qitune::game::Game as _;
use qitune::xiangqi::game::XiangqiGame;
use qitune::xiangqi::search::{Count, Counts, MAX_PLY};
use qitune::xiangqi::{bench, eval::Weights};
use std::path::PathBuf;

/// Search a fixed list of positions to a fixed depth (Amazons: UCT with fixed playouts); the
/// node count is the engine's behaviour checksum.
///
/// The last line is `bench: NODES nodes NPS nps` (for Amazons the nodes are playouts).
#[derive(clap::Args)]
pub struct Args {
    /// The game.
    #[arg(long, value_enum, default_value = "xiangqi")]
    game: super::GameKind,
    // The help is written from the constants, so that it cannot drift from them; an
    // `Option` rather than a default, so that the Amazons bench can refuse the flag.
    #[arg(
        long,
        value_parser = super::in_range::<1, { MAX_PLY - 1 }>,
        help = format!(
            "Search depth, 1 to {} (Xiangqi; the checksum is defined at the default, {})",
            MAX_PLY - 1,
            bench::DEPTH
        )
    )]
    depth: Option<usize>,
    /// A weight file (Xiangqi): its weights and search knobs in place of the built-in ones,
    /// to see what they do to the node count.
    #[arg(long)]
    weights: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    if args.game == super::GameKind::Amazons {
        if args.weights.is_some() {
            bail!("--weights is for the Xiangqi bench (the Amazons bench has no weights)");
        }
        if args.depth.is_some() {
            bail!("--depth is for the Xiangqi bench (the Amazons bench runs a fixed number of playouts)");
        }
        let (playouts, secs) = qitune::amazons::search::bench(20_000);
        eprintln!("{secs:.3} s");
        println!(
            "bench: {playouts} nodes {} nps",
            (playouts as f64 / secs.max(1e-9)) as u64
        );
        return Ok(());
    }
    let weights = match &args.weights {
        Some(path) => XiangqiGame::load_weights(path)?,
        None => Weights::default(),
    };
    let depth = args.depth.map_or(bench::DEPTH, |d| d as u32);
    let result = bench::run(&weights, depth, |i, nodes| {
        eprintln!("position {:>2}/{}: {nodes} nodes", i + 1, bench::POSITIONS.len());
    });
    eprintln!("{:.3} s", result.elapsed.as_secs_f64());
    eprint!("{}", count_lines(&result.counts));
    println!("bench: {} nodes {} nps", result.nodes, result.nps());
    Ok(())
}

/// Where the bench's nodes went and what each cut did, a line a part of the search.
fn count_lines(t: &Counts) -> String {
    use Count::*;
    let pct = |part, whole| 100.0 * t.share(part, whole);
    let tried = |cuts, tries| format!("{} of {} ({:.1}%)", t.get(cuts), t.get(tries), pct(cuts, tries));
    format!(
        "nodes: {} in the main search ({:.1}% at depth 1, {:.1}% in check and extended), {} in quiescence ({:.1}% in check)\n\
         cuts before the move loop: reverse futility {}; razoring {}; null move {}; ProbCut {}\n\
         move loop: {} moves searched, {} quiet moves and {} captures pruned; {} late moves reduced, {:.1}% of them searched again; {} PVS re-searches\n\
         {} cut nodes in the main search, {:.1}% by the first move searched, the cutting move's mean place {:.2}\n",
        t.get(MainNodes),
        pct(DepthOne, MainNodes),
        pct(CheckExtensions, MainNodes),
        t.get(QuiescenceNodes),
        pct(QuiescenceInCheck, QuiescenceNodes),
        t.get(ReverseFutilityCuts),
        tried(RazorCuts, RazorTries),
        tried(NullCuts, NullTries),
        tried(ProbCutCuts, ProbCutTries),
        t.get(MovesSearched),
        t.get(MovesPruned),
        t.get(CapturesPruned),
        t.get(Reduced),
        pct(ReSearched, Reduced),
        t.get(PvsReSearched),
        t.get(CutNodes),
        pct(CutByFirst, CutNodes),
        t.mean_cut_place(),
    )
}
