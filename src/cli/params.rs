//! `qitune params`: the tunable parameters of a game.

use anyhow::Result;
use qitune::amazons::game::AmazonsGame;
use qitune::game::Game;
use qitune::xiangqi::game::XiangqiGame;

/// List every tunable parameter with its default, range, bits and meaning (the keys of a
/// weight file; a key left out of a weight file takes its default).
#[derive(clap::Args)]
pub struct Args {
    /// The game.
    #[arg(long, value_enum, default_value = "xiangqi")]
    game: super::GameKind,
}

pub fn run(args: Args) -> Result<()> {
    super::quiet_on_closed_pipe();
    match args.game {
        super::GameKind::Xiangqi => list::<XiangqiGame>(),
        super::GameKind::Amazons => list::<AmazonsGame>(),
    }
    Ok(())
}

fn list<G: Game>() {
    let specs = G::specs();
    let width = specs.iter().map(|s| s.name.len()).max().unwrap_or(4).max(4);
    println!(
        "{:<width$}  {:>7}  {:>15}  {:>4}  meaning",
        "name", "default", "range", "bits"
    );
    for s in specs {
        let range = format!("[{}, {}]", s.min, s.max);
        println!(
            "{:<width$}  {:>7}  {:>15}  {:>4}  {}",
            s.name,
            s.default,
            range,
            s.bits,
            G::describe(s.name)
        );
    }
    println!(
        "{} parameters of {}; a weight file lists any of them under \"params\", the rest keep their defaults",
        specs.len(),
        G::NAME
    );
}
