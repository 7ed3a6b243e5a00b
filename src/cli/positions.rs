//! `qitune positions`: make a balanced start-position set.

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use qitune::arena;
use qitune::xiangqi::eval::Weights;
use qitune::xiangqi::positions;
use std::path::PathBuf;

/// Make a balanced start-position set: candidates (from a file, or the start position after
/// random plies) are searched to a fixed depth; quiet positions scored within the window are
/// kept, without duplicates, in candidate order.
#[derive(clap::Args)]
pub struct Args {
    /// The game.
    #[arg(long, value_enum, default_value = "xiangqi")]
    game: super::GameKind,
    /// How many positions to keep.
    #[arg(long)]
    count: usize,
    /// Where to write them (one FEN a line).
    #[arg(long)]
    out: PathBuf,
    /// Candidate positions (one FEN a line); default: the start position.
    #[arg(long)]
    from: Option<PathBuf>,
    /// Seeded random plies played from each candidate [default: 0 with --from, 8 without].
    #[arg(long)]
    random_plies: Option<usize>,
    /// Seed of the random plies.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Search depth of the judgement.
    #[arg(long, default_value_t = 6)]
    depth: u32,
    /// Keep positions scored within +-WINDOW (Xiangqi: the engine's units, a rook is about 900;
    /// Amazons: hundredths of the expected result around one half).
    #[arg(long, default_value_t = 60)]
    window: i32,
    /// Candidates to try when generating from the start position [default: 4 x count].
    #[arg(long)]
    candidates: Option<usize>,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = super::threads_count)]
    threads: Option<usize>,
}

/// The most positions one call makes (candidates are held in memory).
const MAX_COUNT: usize = 1_000_000;

pub fn run(args: Args) -> Result<()> {
    if args.game == super::GameKind::Amazons {
        return amazons(&args);
    }
    if args.count == 0 || args.count > MAX_COUNT {
        bail!("--count must be from 1 to {MAX_COUNT}");
    }
    if args.depth == 0 || args.window < 0 {
        bail!("--depth must be at least 1 and --window not negative");
    }
    let candidates = match &args.from {
        Some(path) => arena::read_positions::<qitune::xiangqi::game::XiangqiGame>(path)?,
        None => {
            let n = args.candidates.unwrap_or(4 * args.count);
            if n > 4 * MAX_COUNT {
                bail!("--candidates must be at most {}", 4 * MAX_COUNT);
            }
            vec![qitune::xiangqi::Board::startpos(); n]
        }
    };
    let filter = positions::Filter {
        depth: args.depth,
        window: args.window,
        random_plies: args
            .random_plies
            .unwrap_or(if args.from.is_some() { 0 } else { 8 }),
        seed: args.seed,
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .context("cannot start threads")?;
    let bar = ProgressBar::new(candidates.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} candidates [{elapsed_precise} eta {eta}]")
            .expect("valid template"),
    );
    let weights = Weights::default();
    let kept = pool.install(|| positions::select(&candidates, &filter, args.count, &weights, || bar.inc(1)));
    bar.finish_and_clear();
    if kept.is_empty() {
        bail!(
            "no candidate passed (quiet, scored within +-{} at depth {})",
            args.window,
            args.depth
        );
    }
    let mut text = String::new();
    for k in &kept {
        text.push_str(&k.board.fen());
        text.push('\n');
    }
    qitune::fsutil::write_atomic(&args.out, text.as_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    if kept.len() < args.count {
        eprintln!(
            "only {} of {} candidates passed; wrote them all",
            kept.len(),
            candidates.len()
        );
    }
    println!("{} positions written to {}", kept.len(), args.out.display());
    Ok(())
}

/// Amazons openings: the start position after seeded random plies (8 by default), kept when
/// a 2,000-playout UCT search finds them balanced (expected result within --window / 100
/// of one half).
fn amazons(args: &Args) -> Result<()> {
    if args.from.is_some() {
        bail!("--from is for Xiangqi; Amazons openings grow from the start position");
    }
    if args.count == 0 || args.count > MAX_COUNT {
        bail!("--count must be from 1 to {MAX_COUNT}");
    }
    let plies = args.random_plies.unwrap_or(8) as u32;
    let window = (args.window as f64 / 100.0).clamp(0.0, 0.5);
    let boards = qitune::amazons::search::openings(args.count, plies, 2000, window, args.seed);
    if boards.is_empty() {
        bail!("no candidate passed (balanced within {window} of one half)");
    }
    let text: String = boards.iter().map(|b| b.fen() + "\n").collect();
    qitune::fsutil::write_atomic(&args.out, text.as_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    if boards.len() < args.count {
        eprintln!("only {} balanced openings found; wrote them all", boards.len());
    }
    println!("{} positions written to {}", boards.len(), args.out.display());
    Ok(())
}
