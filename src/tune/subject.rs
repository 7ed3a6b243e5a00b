//! What a run tunes: the game's own engine through its parameters, or an outside engine (UCCI,
//! UCI) through its spin options, as fishtest and OpenBench tune engines.
//!
//! An outside engine's tuned options become the run's parameter specs (name, default, range,
//! bits), so that every method, the run folder, validation and the report work on them as
//! on the game's own parameters; a player is then the engine with its `setoption` values.

use super::config::{resolve, Config, ConfigError};
pub use super::config::{EngineRef, OptionEntry, TunedOption};
use crate::arena::outside::{self, DescriptionError, EngineOption, OptionKind, Process};
use crate::arena::{Agent, OutsideEngine, Player};
use crate::game::{Budget, Game};
use crate::params::{Params, Spec, Specs};
use std::path::Path;
use std::sync::Arc;

/// The most bits an option's value is given in a chromosome when the configuration does not
/// say: finer steps than 1/65536 of a range are noise to any tuner.
const MAX_BITS: u32 = 16;

impl OptionEntry {
    fn option(&self) -> TunedOption {
        match self {
            OptionEntry::Name(name) => TunedOption {
                name: name.clone(),
                default: None,
                min: None,
                max: None,
                bits: None,
            },
            OptionEntry::Set(o) => o.clone(),
        }
    }
}

/// What a run tunes, once its configuration is read.
#[derive(Clone, Debug)]
pub struct Subject {
    specs: Specs,
    /// The outside engine whose options are tuned; `None`: the game's own engine.
    engine: Option<Arc<OutsideEngine>>,
}

impl Subject {
    /// The subject of a checked configuration (its engine and options as [`resolve_engine`]
    /// leaves them), without starting the engine.
    pub fn of<G: Game>(config: &Config) -> Result<Subject, ConfigError> {
        let Some(engine) = &config.engine else {
            return Ok(Subject {
                specs: G::specs(),
                engine: None,
            });
        };
        let EngineRef::Described(engine) = engine else {
            return Err(ConfigError::at(
                "engine",
                "not yet read from its description (a bug)",
            ));
        };
        Ok(Subject {
            specs: specs_of(&config.options)?,
            engine: Some(Arc::new(engine.clone())),
        })
    }

    /// The tuned parameters, in order.
    pub fn specs(&self) -> &Specs {
        &self.specs
    }

    /// The outside engine tuned, if the run tunes one.
    pub fn engine(&self) -> Option<&OutsideEngine> {
        self.engine.as_deref()
    }

    /// The player of parameter set `params` on `budget`: the game's engine with those
    /// weights, or the outside engine with those option values over its fixed options.
    pub fn player<G: Game>(
        &self,
        params: &Params,
        budget: Budget,
    ) -> Result<Player<G::Weights>, crate::params::WeightFileError> {
        Ok(match &self.engine {
            None => Player::weights(G::weights(params)?, budget),
            Some(engine) => Player {
                agent: Agent::Outside(Arc::new(with_values(engine, params))),
                budget,
            },
        })
    }

    /// Starts the outside engine once and checks that it still offers every tuned option as
    /// a spin option (a resumed run's engine may have changed).
    pub fn check_engine(&self) -> Result<(), ConfigError> {
        let Some(engine) = &self.engine else {
            return Ok(());
        };
        let offered = offered_options(engine)?;
        for spec in self.specs.iter() {
            spin_option(&offered, &spec.name, &engine.name)?;
        }
        Ok(())
    }
}

/// The engine `engine` with the values of `params` as options (over its own).
pub fn with_values(engine: &OutsideEngine, params: &Params) -> OutsideEngine {
    let mut e = engine.clone();
    for (spec, &value) in params.specs().iter().zip(params.values()) {
        e.options.insert(spec.name.to_string(), serde_json::json!(value));
    }
    e
}

/// The engine a configuration names, read: its description file (found beside the
/// configuration, `base_dir`) or its command, a program named by a path (not one looked for
/// on PATH) found from the configuration's folder and given by its full path, so that a run
/// saves it as it will find it again; the reason when it cannot be read.
pub fn described(engine: &EngineRef, base_dir: &Path) -> Result<OutsideEngine, DescriptionError> {
    let mut engine = match engine {
        EngineRef::Described(e) => e.clone(),
        EngineRef::Named(spec) => outside::from_command(spec)
            .unwrap_or_else(|| outside::engine(&resolve(base_dir, spec).to_string_lossy()))?,
    };
    let found = |path: &Path| {
        let path = resolve(base_dir, &path.to_string_lossy());
        std::fs::canonicalize(&path).unwrap_or(path)
    };
    if engine.path.components().count() > 1 {
        engine.path = found(&engine.path);
    }
    engine.dir = engine.dir.as_deref().map(found);
    if engine.name.is_empty() {
        engine.name = engine.path.display().to_string();
    }
    Ok(engine)
}

/// A configuration's engine read (its description file or command, a relative program path
/// found beside the configuration) and its tuned options completed from what the engine
/// offers: each must be a spin option of the engine; what the configuration does not set
/// comes from the engine (default, range) or from the range (bits). Starts the engine once.
/// A configuration without an engine is returned as it is.
pub fn resolve_engine(config: &Config, base_dir: &Path) -> Result<Config, ConfigError> {
    let mut config = config.clone();
    let Some(engine) = &config.engine else {
        if !config.options.is_empty() {
            return Err(ConfigError::at(
                "options",
                "tunes an outside engine's options: it needs \"engine\"",
            ));
        }
        return Ok(config);
    };
    let engine = described(engine, base_dir).map_err(|e| ConfigError::at("engine", e.to_string()))?;
    if config.base_weights.is_some() {
        return Err(ConfigError::at(
            "base_weights",
            "an outside engine's run starts from its options' defaults (set a default in \"options\")",
        ));
    }
    if config.options.is_empty() {
        return Err(ConfigError::at(
            "options",
            "names no option of the engine to tune",
        ));
    }
    let offered = offered_options(&engine)?;
    let mut options = Vec::new();
    for (i, entry) in config.options.iter().enumerate() {
        let wanted = entry.option();
        let at = |reason: String| ConfigError::at(format!("options[{i}]"), reason);
        if options.iter().any(|o: &TunedOption| o.name == wanted.name) {
            return Err(at(format!("'{}' is named twice", wanted.name)));
        }
        let (default, min, max) = spin_option(&offered, &wanted.name, &engine.name)?;
        let fit = |v: i64, what: &str| {
            i32::try_from(v).map_err(|_| {
                at(format!(
                    "the engine's {what} {v} of '{}' is beyond what qitune tunes (32-bit values): set min and max",
                    wanted.name
                ))
            })
        };
        let min = match wanted.min {
            Some(m) => m,
            None => fit(min, "minimum")?,
        };
        let max = match wanted.max {
            Some(m) => m,
            None => fit(max, "maximum")?,
        };
        let default = match wanted.default {
            Some(d) => d,
            None => fit(default.clamp(i64::from(min), i64::from(max)), "default")?,
        };
        if !(min <= default && default <= max) || min == max {
            return Err(at(format!(
                "'{}': min {min}, default {default}, max {max} must have min <= default <= max and min < max",
                wanted.name
            )));
        }
        let span = (i64::from(max) - i64::from(min)) as u64;
        let bits = wanted
            .bits
            .unwrap_or_else(|| (u64::BITS - span.leading_zeros()).min(MAX_BITS));
        if !(1..=32).contains(&bits) {
            return Err(at(format!(
                "'{}': bits = {bits} must be from 1 to 32",
                wanted.name
            )));
        }
        options.push(TunedOption {
            name: wanted.name,
            default: Some(default),
            min: Some(min),
            max: Some(max),
            bits: Some(bits),
        });
    }
    config.engine = Some(EngineRef::Described(engine));
    config.options = options.into_iter().map(OptionEntry::Set).collect();
    Ok(config)
}

/// The parameters a checked (or saved) configuration tunes: its outside engine's options, or
/// its game's parameters.
pub fn specs(config: &Config) -> Result<Specs, ConfigError> {
    match &config.engine {
        Some(_) => specs_of(&config.options),
        None => crate::games::specs_for(&config.game)
            .ok_or_else(|| ConfigError::UnknownGame(crate::games::UnknownGame(config.game.clone()))),
    }
}

/// The parameters a configuration's subject no longer has: the game's retired ones for its
/// own engine, none for an outside engine.
pub fn retired(config: &Config) -> &'static [crate::params::Retired] {
    match &config.engine {
        Some(_) => &[],
        None => crate::games::retired_for(&config.game),
    }
}

/// The parameter specs of a configuration's options as [`resolve_engine`] completed them.
pub fn specs_of(options: &[OptionEntry]) -> Result<Specs, ConfigError> {
    let mut specs = Vec::with_capacity(options.len());
    for (i, entry) in options.iter().enumerate() {
        let o = entry.option();
        let (Some(default), Some(min), Some(max), Some(bits)) = (o.default, o.min, o.max, o.bits) else {
            return Err(ConfigError::at(
                format!("options[{i}]"),
                format!("'{}' lacks its default, min, max or bits", o.name),
            ));
        };
        specs.push(Spec::named(o.name, default, min, max, bits));
    }
    Ok(specs.into())
}

/// The options `engine` offers, from one start of it.
fn offered_options(engine: &OutsideEngine) -> Result<Vec<EngineOption>, ConfigError> {
    let process = Process::start(engine).map_err(|e| ConfigError::at("engine", e.to_string()))?;
    Ok(process.options().to_vec())
}

/// The default and range of spin option `name` among `offered`, or why it cannot be tuned.
fn spin_option(offered: &[EngineOption], name: &str, engine: &str) -> Result<(i64, i64, i64), ConfigError> {
    // UCI option names are case-insensitive.
    match offered
        .iter()
        .find(|o| o.name.eq_ignore_ascii_case(name))
        .map(|o| &o.kind)
    {
        Some(&OptionKind::Spin { default, min, max }) => Ok((default, min, max)),
        Some(_) => Err(ConfigError::at(
            "options",
            format!("'{name}' of engine {engine} is not a spin option"),
        )),
        None => {
            let spins: Vec<&str> = offered
                .iter()
                .filter(|o| matches!(o.kind, OptionKind::Spin { .. }))
                .map(|o| o.name.as_str())
                .take(12)
                .collect();
            Err(ConfigError::at(
                "options",
                format!(
                    "engine {engine} offers no option '{name}' (its spin options: {}{}; qitune params --engine lists them)",
                    spins.join(", "),
                    if spins.len() == 12 { ", ..." } else { "" }
                ),
            ))
        }
    }
}
