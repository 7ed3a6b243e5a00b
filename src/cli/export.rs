//! `qitune export`: a generation's champion as a weight file for an engine, or for a run of
//! an outside engine, as that engine's description with the tuned options.

use anyhow::{Context, Result};
use qitune::arena::{OutsideEngine, Protocol};
use qitune::params::{Params, Spec, WeightFile};
use qitune::tune::config::Config;
use qitune::tune::folder::{
    best_validation, existing_champion, last_champion, read_json, tuned_in, validations,
};
use qitune::tune::runs::{last_within, Spent};
use qitune::tune::subject::{self, EngineRef};
use std::path::PathBuf;

/// Write a run's champion (of the last step, or of --gen) as a weight file that
/// `qitune engine --weights` and `qitune match` load (the search's and clock's knobs only
/// where the run tuned them, so that the file plays the search of the engine that loads
/// it); for a run of an outside engine, as an
/// engine description with the tuned options (a player of `qitune match`), and print the
/// `setoption` lines to paste into a GUI or the engine's defaults.
#[derive(clap::Args)]
pub struct Args {
    /// The run folder (runs/<name>; for a run in stages, its latest stage, or name one:
    /// runs/<name>/stage-N).
    #[arg(long)]
    run: PathBuf,
    /// The step (a generation of the GA; default: the last completed).
    #[arg(long, conflicts_with = "best")]
    gen: Option<usize>,
    /// The champion with the best validation against the run's anchor (validation.csv).
    #[arg(long, conflicts_with = "gen")]
    best: bool,
    /// The champion of the last step finished within this many tuning games (the
    /// earlier stages' included): what a run of that budget would have ended with.
    #[arg(long, conflicts_with_all = ["gen", "best", "hours"])]
    games: Option<u64>,
    /// The champion of the last step finished within this many hours of tuning
    /// (validation aside, the earlier stages' included), as the run's CSV timed them.
    #[arg(long, conflicts_with_all = ["gen", "best"])]
    hours: Option<f64>,
    /// Where to write the weight file.
    #[arg(long)]
    out: PathBuf,
    /// Overwrite --out if it exists.
    #[arg(long)]
    force: bool,
}

pub fn run(mut args: Args) -> Result<()> {
    args.run = qitune::tune::stages::run_folder(&args.run);
    if !args.run.join("config.json").exists() {
        anyhow::bail!(
            "{} is not a run folder (it has no config.json)",
            args.run.display()
        );
    }
    let generation = chosen_step(&mut args)?;
    // The step may lie in an earlier stage, of another method: read the stage it is in.
    let config_path = args.run.join("config.json");
    let config: Config = read_json(&config_path)?;
    let unit = qitune::tune::methods::info(&config.method).map_or("step", |m| m.unit);
    let path = existing_champion(&args.run, generation)?;
    super::check_new_file(&args.out, args.force)?;
    let file = WeightFile::read(&path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    // Check it loads as an engine would load it.
    let specs = subject::specs(&config).with_context(|| format!("{}", config_path.display()))?;
    let retired = subject::retired(&config);
    let params = Params::from_weight_file(&file, &file.game, &specs, retired)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let (games, seconds) = qitune::tune::runs::spent_through(&args.run, generation)?;
    let mut provenance = file.provenance.clone();
    if let Some(map) = provenance.as_object_mut() {
        map.insert(
            "exported_from".into(),
            serde_json::Value::String(path.display().to_string()),
        );
        // A champion's own "games" is its method's (a GA generation's games, SPSA's so
        // far): these say what the run had spent when it was chosen, every stage counted.
        map.insert("tuning_games".into(), serde_json::json!(games.round() as u64));
        map.insert(
            "tuning_hours".into(),
            serde_json::json!((seconds / 36.0).round() / 100.0),
        );
    }
    match &config.engine {
        None => engine_weights(&file, &config, &specs, &params, provenance)?
            .write(&args.out)
            .with_context(|| format!("cannot write {}", args.out.display()))?,
        Some(EngineRef::Described(engine)) => {
            let tuned = OutsideEngine {
                provenance,
                ..subject::with_values(engine, &params)
            };
            let text = serde_json::to_string_pretty(&tuned)? + "\n";
            qitune::fsutil::write_atomic(&args.out, text.as_bytes())
                .with_context(|| format!("cannot write {}", args.out.display()))?;
            for (spec, value) in specs.iter().zip(params.values()) {
                println!(
                    "{}",
                    match engine.protocol {
                        Protocol::Uci => format!("setoption name {} value {value}", spec.name),
                        Protocol::Ucci => format!("setoption {} {value}", spec.name),
                    }
                );
            }
        }
        Some(EngineRef::Named(_)) => anyhow::bail!(
            "{}: its engine was never read (not a run folder qitune made)",
            config_path.display()
        ),
    }
    println!("{unit} {generation} champion written to {}", args.out.display());
    Ok(())
}

/// The step whose champion the flags choose; a budget that ends in an earlier stage moves
/// `args.run` to that stage.
fn chosen_step(args: &mut Args) -> Result<usize> {
    let budget = match (args.games, args.hours) {
        (Some(n), _) => Some(Spent::Games(n)),
        (None, Some(h)) if h.is_finite() && h > 0.0 => Some(Spent::Hours(h)),
        (None, Some(h)) => anyhow::bail!("--hours must be a positive number of hours, not {h}"),
        (None, None) => None,
    };
    Ok(match (args.gen, budget, args.best) {
        (Some(g), _, _) => g,
        (None, Some(budget), _) => {
            let (stage, step) = last_within(&args.run, budget)?.with_context(|| {
                let within = match budget {
                    Spent::Games(n) => format!("{n} tuning games"),
                    Spent::Hours(h) => format!("{h} hours of tuning"),
                };
                format!("{} has no champion within {within}", args.run.display())
            })?;
            args.run = stage;
            step
        }
        (None, None, true) => {
            let rows = validations(&args.run)?;
            best_validation(&rows)
                .with_context(|| {
                    format!(
                        "{} has no validation yet (validation.csv; the run needs a \"validation\" section)",
                        args.run.display()
                    )
                })?
                .step
        }
        (None, None, false) => last_champion(&args.run)
            .with_context(|| format!("{} holds no champion yet", args.run.display()))?,
    })
}

/// The champion as a weight file for qitune's engine. The search's knobs are the engine's,
/// not the champion's: left in, they would hold the file to the search of the engine that
/// ran it, so only those the run tuned stay. What the run tuned is what its champion names,
/// as a resumed run reads it.
fn engine_weights(
    file: &WeightFile,
    config: &Config,
    specs: &[Spec],
    params: &Params,
    mut provenance: serde_json::Value,
) -> Result<WeightFile> {
    let tuned = Config::chosen(tuned_in(file).as_deref().unwrap_or(&config.evolve), specs)?;
    let untuned: Vec<&str> = specs
        .iter()
        .enumerate()
        .filter(|&(i, spec)| spec.knob && !tuned.contains(&i))
        .map(|(_, spec)| spec.name.as_ref())
        .collect();
    if let (Some(map), false) = (provenance.as_object_mut(), untuned.is_empty()) {
        map.insert(
            "knobs".into(),
            "the search's and clock's knobs the run did not tune are left out: the engine's defaults apply"
                .into(),
        );
    }
    let mut out = params.to_weight_file(&file.game, provenance);
    for name in untuned {
        out.params.remove(name);
    }
    Ok(out)
}
