//! `qitune params`: the tunable parameters of a game.

use anyhow::Result;
use qitune::arena::outside::{self, OptionKind};
use qitune::game::Game;
use qitune::games::{with_game, WithGame};

/// List every tunable parameter with its default, range, bits and meaning (the keys of a
/// weight file; a key left out of a weight file takes its default), or with --engine the
/// options an outside engine offers (its spin options are what a run can tune).
#[derive(clap::Args)]
pub struct Args {
    /// The game.
    #[arg(long, value_enum, default_value = "xiangqi")]
    game: super::GameKind,
    /// An outside engine (ucci:COMMAND, uci:COMMAND or an engine description file): list
    /// the options it offers instead.
    #[arg(long, value_name = "ENGINE")]
    engine: Option<String>,
    /// With --engine: the options as JSON.
    #[arg(long, requires = "engine")]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    super::quiet_on_closed_pipe();
    if let Some(spec) = &args.engine {
        return engine_options(spec, args.json);
    }
    struct List;
    impl WithGame for List {
        type Output = ();
        fn call<G: Game>(self) {
            list::<G>()
        }
    }
    Ok(with_game(args.game.name(), List)?)
}

fn list<G: Game>() {
    let specs = G::specs();
    let width = specs.iter().map(|s| s.name.len()).max().unwrap_or(4).max(4);
    println!(
        "{:<width$}  {:>7}  {:>15}  {:>4}  meaning",
        "name", "default", "range", "bits"
    );
    for s in specs.iter() {
        let range = format!("[{}, {}]", s.min, s.max);
        println!(
            "{:<width$}  {:>7}  {:>15}  {:>4}  {}",
            s.name,
            s.default,
            range,
            s.bits,
            G::describe(&s.name)
        );
    }
    println!(
        "{} parameters of {}; a weight file lists any of them under \"params\", the rest keep their defaults",
        specs.len(),
        G::NAME
    );
}

/// The options an outside engine offers, read from its handshake.
fn engine_options(spec: &str, json: bool) -> Result<()> {
    let engine = outside::engine(spec)?;
    let process = outside::Process::start(&engine)?;
    let options = process.options();
    if json {
        println!("{}", serde_json::to_string_pretty(options)?);
        return Ok(());
    }
    let width = options.iter().map(|o| o.name.len()).max().unwrap_or(4).max(4);
    println!("{:<width$}  {:<6}  {:>12}  range", "name", "type", "default");
    for o in options {
        let (kind, default, range) = match &o.kind {
            OptionKind::Spin { default, min, max } => {
                ("spin", default.to_string(), format!("[{min}, {max}]"))
            }
            OptionKind::Check { default } => ("check", default.to_string(), String::new()),
            OptionKind::Combo { default, values } => ("combo", default.clone(), values.join(" | ")),
            OptionKind::Button => ("button", String::new(), String::new()),
            OptionKind::String { default } => ("string", default.clone(), String::new()),
        };
        println!("{:<width$}  {kind:<6}  {default:>12}  {range}", o.name);
    }
    let spins = options
        .iter()
        .filter(|o| matches!(o.kind, OptionKind::Spin { .. }))
        .count();
    println!(
        "{} options of {}; its {spins} spin options can be tuned (a run's \"engine\" and \"options\")",
        options.len(),
        engine.name
    );
    Ok(())
}
