//! `qitune report`: a run's report as one self-contained HTML page.

use anyhow::Result;
use std::path::PathBuf;

/// Write a run's report: one HTML page with inline charts (fitness, validation Elo, rates,
/// diversity, results, each evolved parameter, piece-square boards, the final weights
/// against the base, the round robin). `tune` writes it at the end of every session.
#[derive(clap::Args)]
pub struct Args {
    /// The run folder (runs/<name>; for a run in stages, its latest stage, or name one:
    /// runs/<name>/stage-N).
    #[arg(long)]
    run: PathBuf,
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
    let run = qitune::tune::stages::run_folder(&args.run);
    let path = qitune::report::write(&run, args.out.as_deref())?;
    println!("report: {}", path.display());
    Ok(())
}
