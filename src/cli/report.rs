//! `qitune report`: a run's report as one self-contained HTML page.

use anyhow::{Context, Result};
use std::path::PathBuf;

/// Write a run's report: one HTML page with inline charts (fitness, validation Elo, rates,
/// diversity, results, each evolved parameter, piece-square boards, the final weights
/// against the base, the round robin). `tune` writes it at the end of every session.
#[derive(clap::Args)]
pub struct Args {
    /// The run folder (runs/<name>; for a run in stages, its latest stage, or name one:
    /// runs/<name>/stage-N).
    #[arg(long, required_unless_present = "compare", conflicts_with = "compare")]
    run: Option<PathBuf>,
    /// Instead of one run's report: a page comparing these runs' validation curves (Elo
    /// against tuning games and against hours; a run in stages drawn from its first stage
    /// where the stages share an anchor) with their best and last champions; written
    /// to --out (default: compare.html). With an --out ending in .svg, only the chart of
    /// Elo against tuning games, as one SVG image.
    #[arg(long, num_args = 1.., value_name = "RUN")]
    compare: Vec<PathBuf>,
    /// With --compare: only the validations within this many tuning games (the earlier
    /// stages' included), so that runs of different lengths are compared at one budget.
    #[arg(long, conflicts_with = "run", value_parser = clap::value_parser!(u64).range(1..))]
    games: Option<u64>,
    /// Where to write the page (default: <run>/report.html, replaced).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Overwrite --out if it exists.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> Result<()> {
    if let Some(out) = &args.out {
        super::check_new_file(out, args.force)?;
    }
    let Some(run) = &args.run else {
        let out = args.out.clone().unwrap_or_else(|| PathBuf::from("compare.html"));
        if args.out.is_none() {
            super::check_new_file(&out, args.force)?;
        }
        let dirs: Vec<PathBuf> = args
            .compare
            .iter()
            .map(|d| qitune::tune::stages::run_folder(d))
            .collect();
        let svg = out.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg"));
        let page = if svg {
            qitune::report::compare_svg(&dirs, args.games)?
        } else {
            qitune::report::compare(&dirs, args.games)?
        };
        qitune::fsutil::write_atomic(&out, page.as_bytes())
            .with_context(|| format!("cannot write {}", out.display()))?;
        println!("comparison: {}", out.display());
        return Ok(());
    };
    let run = qitune::tune::stages::run_folder(run);
    let path = qitune::report::write(&run, args.out.as_deref())?;
    println!("report: {}", path.display());
    Ok(())
}
