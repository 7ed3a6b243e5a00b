//! Command-line definitions, one module per subcommand.

mod bench;
mod engine;
mod export;
pub mod interrupt;
mod label;
mod matches;
mod params;
mod perft;
mod positions;
mod progress;
mod report;
mod roundrobin;
mod runs;
mod tune;

use clap::{Parser, Subcommand};

/// Tune a board-game engine's evaluation with an adaptive genetic algorithm and self-play.
#[derive(Parser)]
#[command(name = "qitune", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Perft(perft::Args),
    Bench(bench::Args),
    Engine(engine::Args),
    Match(Box<matches::Args>),
    Positions(positions::Args),
    Label(label::Args),
    Tune(tune::Args),
    Export(export::Args),
    Roundrobin(roundrobin::Args),
    Params(params::Args),
    Report(report::Args),
    Runs(runs::Args),
}

/// Parses the command line and runs the chosen subcommand.
pub fn run() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Perft(args) => perft::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Engine(args) => engine::run(args),
        Command::Match(args) => matches::run(*args),
        Command::Positions(args) => positions::run(args),
        Command::Label(args) => label::run(args),
        Command::Tune(args) => tune::run(args),
        Command::Export(args) => export::run(args),
        Command::Roundrobin(args) => roundrobin::run(args),
        Command::Params(args) => params::run(args),
        Command::Report(args) => report::run(args),
        Command::Runs(args) => runs::run(args),
    }
}

/// The games qitune plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GameKind {
    Xiangqi,
    Amazons,
}

impl GameKind {
    /// The game's name in the registry ([`qitune::games`]).
    pub fn name(self) -> &'static str {
        use qitune::game::Game;
        match self {
            GameKind::Xiangqi => qitune::xiangqi::game::XiangqiGame::NAME,
            GameKind::Amazons => qitune::amazons::game::AmazonsGame::NAME,
        }
    }
}

/// How to run qitune again, for messages that give a command to type: `qitune` when it was
/// found on the PATH, else the path it was started by (`target/release/qitune` after
/// `cargo run --release`).
pub fn me() -> String {
    match std::env::args_os().next().map(std::path::PathBuf::from) {
        Some(p) if p.components().count() > 1 => {
            // Relative to the working folder when it lies below it: shorter to type.
            let here = std::env::current_dir().ok();
            let short = here.as_deref().and_then(|h| p.strip_prefix(h).ok()).unwrap_or(&p);
            short.display().to_string()
        }
        _ => "qitune".to_string(),
    }
}

/// `--threads`: a usage error (exit 2) unless from 1 to 1024.
pub fn threads_count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=1024).contains(&n) => Ok(n),
        _ => Err(format!("'{text}' is not a thread count from 1 to 1024")),
    }
}

/// A count that must be at least 1 (`--generations`, `--nodes`): a usage error (exit 2)
/// otherwise.
pub fn positive<T: std::str::FromStr + PartialOrd + From<u8>>(text: &str) -> Result<T, String> {
    match text.parse::<T>() {
        Ok(n) if n >= T::from(1) => Ok(n),
        _ => Err(format!("'{text}' is not a whole number of at least 1")),
    }
}

/// A whole number from `LO` to `HI` (`--games`, `--hash`): a usage error (exit 2) otherwise.
pub fn in_range<const LO: usize, const HI: usize>(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (LO..=HI).contains(&n) => Ok(n),
        _ => Err(format!("'{text}' is not a whole number from {LO} to {HI}")),
    }
}

/// Refuses to overwrite a file the user owns unless `--force` says so; called before any work
/// starts, so that a long match never ends in a refusal.
pub fn check_new_file(path: &std::path::Path, force: bool) -> anyhow::Result<()> {
    if path.exists() && !force {
        anyhow::bail!("{} already exists; give --force to overwrite it", path.display());
    }
    if path.is_dir() {
        anyhow::bail!("{} is a folder, not a file", path.display());
    }
    // Found out now rather than after the work: a file in a folder that is not there.
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.is_dir() {
            anyhow::bail!(
                "{}: the folder {} does not exist",
                path.display(),
                parent.display()
            );
        }
    }
    Ok(())
}

/// Prints a line on standard output for commands that work for long or drive engines: a
/// reader that has gone (`| head`) loses the lines after it, and the work goes on (its files
/// and log keep everything), where `println!` would end it with a panic.
pub fn out(line: impl std::fmt::Display) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// For commands that only print (`perft`, `params`): when a reader such as `head` closes the
/// pipe early, end quietly as Unix tools do rather than report a failed print as an internal
/// error. Not for commands that drive engine pipes, which may close and must not end qitune.
pub fn quiet_on_closed_pipe() {
    #[cfg(target_os = "linux")]
    // SAFETY: restores the default action of one signal before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
