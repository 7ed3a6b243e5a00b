//! Command-line definitions, one module per subcommand.

mod bench;
mod engine;
mod export;
mod interrupt;
mod matches;
mod params;
mod perft;
mod positions;
mod progress;
mod report;
mod roundrobin;
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
    Tune(tune::Args),
    Export(export::Args),
    Roundrobin(roundrobin::Args),
    Params(params::Args),
    Report(report::Args),
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
        Command::Tune(args) => tune::run(args),
        Command::Export(args) => export::run(args),
        Command::Roundrobin(args) => roundrobin::run(args),
        Command::Params(args) => params::run(args),
        Command::Report(args) => report::run(args),
    }
}

/// The games qitune plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GameKind {
    Xiangqi,
    Amazons,
}

impl GameKind {
    /// The game a run configuration names.
    pub fn named(name: &str) -> anyhow::Result<GameKind> {
        use qitune::amazons::game::AmazonsGame;
        use qitune::game::Game;
        use qitune::xiangqi::game::XiangqiGame;
        match name {
            n if n == XiangqiGame::NAME => Ok(GameKind::Xiangqi),
            n if n == AmazonsGame::NAME => Ok(GameKind::Amazons),
            other => anyhow::bail!("game '{other}' is unknown (xiangqi or amazons)"),
        }
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
