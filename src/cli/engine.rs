//! `qitune engine`: the embedded engine over standard input and output (UCCI or UCI).

use anyhow::Result;
use qitune::game::Game as _;
use qitune::params::Params;
use qitune::xiangqi::game::XiangqiGame;
use qitune::xiangqi::protocol::Engine;
use std::path::PathBuf;

/// Play as a UCCI or UCI engine on standard input/output (first command `ucci` or `uci`).
/// Every parameter of `qitune params` is also a spin option, so that any of them can be set
/// (and tuned from outside) without a weight file.
#[derive(clap::Args)]
pub struct Args {
    /// Evaluation weights (a weight file written by `qitune export` or by hand); default:
    /// the built-in weights.
    #[arg(long)]
    weights: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let params = match &args.weights {
        Some(path) => Params::load(
            path,
            XiangqiGame::NAME,
            &XiangqiGame::specs(),
            XiangqiGame::RETIRED,
        )?,
        None => Params::defaults(&XiangqiGame::specs()),
    };
    let mut engine = Engine::new(std::io::stdout(), params)?;
    if let Some(path) = &args.weights {
        engine = engine.with_weights_file(&path.display().to_string());
    }
    engine.run(std::io::stdin().lock());
    Ok(())
}
