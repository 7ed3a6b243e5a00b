//! Tuning-run configurations (JSON), validated before any work starts.

pub use super::error::{from_value, ConfigError};
use crate::arena::OutsideEngine;
use crate::game::{Adjudication, Budget};
use crate::params::Spec;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What one scheduled game holds in memory, its record included (a few hundred moves,
/// scores and depths), rounded up.
const BYTES_PER_GAME: u64 = 4096;

/// The memory a run may plan to use: what the machine has available (Linux), else 4 GiB.
pub(crate) fn memory_limit() -> u64 {
    crate::fsutil::available_memory().unwrap_or(4 << 30)
}

/// The most nodes a move a run may ask for: about half a minute a move on one core, far
/// beyond what tuning games use, and small enough that a generation always ends.
pub const MAX_NODES: u64 = 100_000_000;

/// The most steps a run may plan (a GA generation, an SPSA step): far past any run that
/// ends, and small enough that every count derived from it (iterations, games, gains)
/// stays exact.
pub const MAX_GENERATIONS: usize = 10_000_000;

/// A tuning run's configuration: what every method shares, and the method's own keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// The run's name: its folder is `runs/<name>`.
    pub name: String,
    #[serde(default = "default_game")]
    pub game: String,
    pub seed: u64,
    /// How the weights are tuned: a name in the registry ([`super::methods`]); the adaptive
    /// GA by default.
    #[serde(default = "default_method")]
    pub method: String,
    /// Steps of the run: GA generations, SPSA batches of iterations, rounds of self-play and
    /// fitting. Each step ends with a champion file and a CSV row.
    pub generations: usize,
    /// Parameters to tune: names, patterns with `*` (`mobility_*`, `*_eg`), or `all`; the
    /// rest stay at the base.
    pub evolve: Vec<String>,
    /// Where the tuned values start.
    #[serde(default)]
    pub init: Init,
    /// Weight file for the parameters that are not tuned (and for `init: weights`);
    /// default: the built-in weights.
    #[serde(default)]
    pub base_weights: Option<String>,
    /// A game reaching this many plies is a draw.
    #[serde(default = "default_max_plies")]
    pub max_plies: usize,
    /// Early ends of the tuning games when both players' scores agree (`resign`: a loss for
    /// the side both see behind by `score` for `moves` moves each; `draw`: after ply `after`,
    /// every score within `score` of zero for `moves` moves each). Fewer plies spent on
    /// games already decided, and fewer decided games drawn by the ply cap; validation
    /// games are always played out, so runs with and without it compare.
    #[serde(default, skip_serializing_if = "Adjudication::is_off")]
    pub adjudication: Adjudication,
    /// Match conditions, changing at the given generations (the paper's environment change).
    pub environments: Vec<Environment>,
    /// Games of the run's best against a fixed anchor on held-out positions, every so many
    /// generations: the run's honest measure of progress.
    #[serde(default)]
    pub validation: Option<Validation>,
    /// An outside engine to tune instead of the game's own ([`super::subject`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<EngineRef>,
    /// The outside engine's spin options the run tunes: its parameters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<OptionEntry>,
    /// Every other key: the method's own settings, which the method reads and checks.
    #[serde(flatten)]
    pub settings: serde_json::Map<String, serde_json::Value>,
}

/// Validation inside a run: every `every` generations (and at the last), the generation's
/// champion plays `games` games against the anchor from `positions`, which no tuning game
/// may use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Validation {
    pub every: usize,
    /// Games a validation (even: each position with both colours).
    pub games: usize,
    /// Held-out start positions.
    pub positions: String,
    /// The anchor's weight file; default: the run's base weights (`base_weights`, else the
    /// built-in weights).
    #[serde(default)]
    pub anchor: Option<String>,
    /// Nodes a move; default: the nodes of the environment in force.
    #[serde(default)]
    pub nodes: Option<u64>,
}

/// The match conditions from one generation on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Environment {
    /// The first generation (1-based) these conditions apply to.
    pub from_generation: usize,
    /// Start positions, one FEN a line; each pair's two games start from one of them.
    pub positions: String,
    /// Nodes per move (games depend only on their inputs). One of nodes, depth and clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Plies per move (games depend only on their inputs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// A real clock per game, `BASE+INC` in seconds (`"2+0.02"`): for what fixed nodes
    /// cannot judge (the search's time use and pruning); games then vary from run to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}

/// The most plies a move a run may ask for.
pub const MAX_DEPTH: u32 = 64;

impl Environment {
    /// What a move may cost here: its nodes, depth or clock (checked by validation).
    pub fn budget(&self) -> Budget {
        match (self.nodes, self.depth, &self.clock) {
            (Some(n), _, _) => Budget::Nodes(n),
            (_, Some(d), _) => Budget::Depth(d),
            (_, _, Some(c)) => Budget::clock(c).unwrap_or(Budget::Nodes(1)),
            _ => Budget::Nodes(1),
        }
    }

    fn check(&self, i: usize) -> Result<(), ConfigError> {
        let at = |key: &str, reason: String| ConfigError::at(format!("environments[{i}].{key}"), reason);
        match (self.nodes, self.depth, &self.clock) {
            (Some(n), None, None) if n == 0 || n > MAX_NODES => {
                Err(at("nodes", format!("{n} must be from 1 to {MAX_NODES}")))
            }
            (None, Some(d), None) if d == 0 || d > MAX_DEPTH => {
                Err(at("depth", format!("{d} must be from 1 to {MAX_DEPTH}")))
            }
            (None, None, Some(c)) => Budget::clock(c)
                .map(|_| ())
                .map_err(|e| at("clock", e.to_string())),
            (Some(_), None, None) | (None, Some(_), None) => Ok(()),
            _ => Err(ConfigError::Invalid(format!(
                "environments[{i}] needs exactly one of nodes, depth and clock"
            ))),
        }
    }
}

/// How the first population is made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Init {
    /// Every gene at random.
    #[default]
    Random,
    /// The built-in weights, and mutants of them (`init_spread` per gene).
    Defaults,
    /// The `base_weights` file, and mutants of it.
    Weights,
}

fn default_game() -> String {
    "xiangqi".to_string()
}
fn default_method() -> String {
    "ga".to_string()
}
fn default_max_plies() -> usize {
    crate::arena::DEFAULT_MAX_PLIES
}

/// Refuses a step of `games` games that cannot be held in memory: a step's games are all
/// scheduled and kept at once. `why` names the keys that make them.
pub fn check_memory(games: u128, why: &str) -> Result<(), ConfigError> {
    let needed = games.saturating_mul(BYTES_PER_GAME as u128);
    if needed > memory_limit() as u128 {
        return Err(ConfigError::Invalid(format!(
            "{why} {games} games a step, about {} MiB to hold, more than the {} MiB this machine offers; ask for fewer",
            needed >> 20,
            memory_limit() >> 20
        )));
    }
    Ok(())
}

impl Config {
    /// Checks what every method shares before the run starts (the method checks its own
    /// keys: [`super::methods::validate`] does both).
    pub fn validate(&self, base_dir: &Path, specs: &[Spec]) -> Result<(), ConfigError> {
        check_name(&self.name)?;
        if crate::games::specs_for(&self.game).is_none() {
            return Err(ConfigError::UnknownGame(crate::games::UnknownGame(
                self.game.clone(),
            )));
        }
        if !(1..=MAX_GENERATIONS).contains(&self.generations) {
            return Err(ConfigError::Invalid(format!(
                "generations = {} must be from 1 to {MAX_GENERATIONS}",
                self.generations
            )));
        }
        if self.max_plies == 0 {
            return Err(ConfigError::Invalid("max_plies must be at least 1".to_string()));
        }
        self.adjudication
            .check()
            .map_err(|reason| ConfigError::at("adjudication", reason))?;
        self.evolved(specs)?;
        if self.init == Init::Weights && self.base_weights.is_none() {
            return Err(ConfigError::Invalid(
                "init = \"weights\" needs base_weights".to_string(),
            ));
        }
        if let Some(w) = &self.base_weights {
            check_exists("base_weights", w, base_dir)?;
        }
        if self.environments.is_empty() {
            return Err(ConfigError::Invalid(
                "environments must list at least one".to_string(),
            ));
        }
        if self.environments[0].from_generation != 1 {
            return Err(ConfigError::Invalid(
                "environments: the first must start at from_generation 1".to_string(),
            ));
        }
        for (i, e) in self.environments.iter().enumerate() {
            if i > 0 && e.from_generation <= self.environments[i - 1].from_generation {
                return Err(ConfigError::Invalid(format!(
                    "environments[{i}].from_generation must be larger than the one before"
                )));
            }
            e.check(i)?;
            check_exists(&format!("environments[{i}].positions"), &e.positions, base_dir)?;
        }
        if let Some(v) = &self.validation {
            v.validate(base_dir, self)?;
        }
        Ok(())
    }

    /// The spec indices of the evolved parameters, in spec order, without repeats.
    pub fn evolved(&self, specs: &[Spec]) -> Result<Vec<usize>, ConfigError> {
        Config::chosen(&self.evolve, specs)
    }

    /// The spec indices that `evolve` patterns name, in spec order, without repeats.
    pub fn chosen(evolve: &[String], specs: &[Spec]) -> Result<Vec<usize>, ConfigError> {
        if evolve.is_empty() {
            return Err(ConfigError::Invalid(
                "evolve names no parameter: list some, or \"all\"".to_string(),
            ));
        }
        let mut chosen = vec![false; specs.len()];
        for pattern in evolve {
            let matches: Vec<usize> = if pattern == "all" {
                // Every evaluation parameter: the search's knobs and the terms on trial only
                // when named.
                (0..specs.len())
                    .filter(|&i| specs[i].bits > 0 && !specs[i].opt_in)
                    .collect()
            } else if pattern.contains('*') {
                (0..specs.len())
                    .filter(|&i| glob(pattern, &specs[i].name) && specs[i].bits > 0)
                    .collect()
            } else {
                let i = specs
                    .iter()
                    .position(|s| s.name == pattern.as_str())
                    .ok_or_else(|| ConfigError::UnknownParameter(pattern.clone()))?;
                if specs[i].bits == 0 {
                    return Err(ConfigError::Invalid(format!(
                        "evolve: parameter '{pattern}' is fixed and never evolves"
                    )));
                }
                vec![i]
            };
            if matches.is_empty() {
                return Err(ConfigError::Invalid(format!(
                    "evolve: '{pattern}' matches no evolvable parameter"
                )));
            }
            for i in matches {
                chosen[i] = true;
            }
        }
        Ok((0..specs.len()).filter(|&i| chosen[i]).collect())
    }

    /// Checks that this configuration describes the run that `started` began (everything but
    /// the number of generations and where files are found), naming the first difference.
    /// Both configurations' settings are as their method reads them, defaults filled in.
    pub fn check_same_run(&self, started: &Config) -> Result<(), ConfigError> {
        let differ = |key: String| Err(ConfigError::Differs(key));
        let schedule = |c: &Config| {
            c.environments
                .iter()
                .map(|e| (e.from_generation, e.budget()))
                .collect::<Vec<_>>()
        };
        let validation = |c: &Config| c.validation.as_ref().map(|v| (v.every, v.games, v.nodes));
        for (key, same) in [
            ("name", self.name == started.name),
            ("game", self.game == started.game),
            ("seed", self.seed == started.seed),
            ("method", self.method == started.method),
            ("evolve", self.evolve == started.evolve),
            ("init", self.init == started.init),
            ("max_plies", self.max_plies == started.max_plies),
            ("adjudication", self.adjudication == started.adjudication),
            ("environments", schedule(self) == schedule(started)),
            ("validation", validation(self) == validation(started)),
            ("engine", self.engine == started.engine),
            ("options", self.options == started.options),
        ] {
            if !same {
                return differ(key.to_string());
            }
        }
        let keys = self.settings.keys().chain(started.settings.keys());
        for key in keys {
            if self.settings.get(key) != started.settings.get(key) {
                return differ(key.clone());
            }
        }
        Ok(())
    }

    /// The environment in force at `generation`.
    pub fn environment(&self, generation: usize) -> &Environment {
        self.environments
            .iter()
            .rev()
            .find(|e| e.from_generation <= generation)
            .unwrap_or(&self.environments[0])
    }
}

impl Validation {
    fn validate(&self, base_dir: &Path, config: &Config) -> Result<(), ConfigError> {
        let invalid = |m: String| Err(ConfigError::Invalid(format!("validation.{m}")));
        if self.every == 0 {
            return invalid("every must be at least 1".into());
        }
        if self.games < 2 || self.games % 2 == 1 || self.games > 1_000_000 {
            return invalid(format!(
                "games = {} must be an even number from 2 to 1000000 (each position is played with both colours)",
                self.games
            ));
        }
        if self.nodes.is_some_and(|n| n == 0 || n > MAX_NODES) {
            return invalid(format!("nodes must be from 1 to {MAX_NODES}"));
        }
        check_exists("validation.positions", &self.positions, base_dir)?;
        if let Some(a) = &self.anchor {
            check_exists("validation.anchor", a, base_dir)?;
        }
        let held_out = position_keys(&resolve(base_dir, &self.positions))
            .map_err(|e| ConfigError::Invalid(format!("validation.positions: {e}")))?;
        for (i, e) in config.environments.iter().enumerate() {
            let keys = position_keys(&resolve(base_dir, &e.positions))
                .map_err(|err| ConfigError::Invalid(format!("environments[{i}].positions: {err}")))?;
            if let Some(shared) = held_out.iter().find(|k| keys.contains(*k)) {
                return invalid(format!(
                    "positions '{}' shares positions with environments[{i}] ('{}'), e.g. {shared}: held-out positions must be ones no tuning game uses",
                    self.positions, e.positions
                ));
            }
        }
        Ok(())
    }
}

/// The positions of a position file, as their first two FEN fields (placement and side to
/// move), for telling whether two files share a position.
fn position_keys(path: &Path) -> Result<std::collections::HashSet<String>, String> {
    let text = crate::fsutil::read_text(path, crate::fsutil::MAX_POSITION_BYTES)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        .collect())
}

/// Refuses a file named by `key` that is not there, saying where paths are read from.
fn check_exists(key: &str, path: &str, base_dir: &Path) -> Result<(), ConfigError> {
    if path.is_empty() {
        return Err(ConfigError::Invalid(format!("{key} is empty: it names a file")));
    }
    let found = resolve(base_dir, path);
    if found.is_dir() {
        return Err(ConfigError::Invalid(format!(
            "{key} '{path}' is a folder, not a file"
        )));
    }
    if found.exists() {
        return Ok(());
    }
    let beside = if base_dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        base_dir
    };
    Err(ConfigError::Invalid(format!(
        "{key} file '{path}' does not exist (paths are read beside the configuration file, in {}; a copied configuration needs its paths changed)",
        beside.display()
    )))
}

/// The line of `text` (a JSON file) where the key path `key` (`validation.every`,
/// `environments[0].nodes`) is written: each name's first appearance as a key after the
/// previous one's, from `from` on.
pub fn line_of(text: &str, key: &str, from: usize) -> Option<usize> {
    let mut at = from;
    for name in key
        .split(['.', '['])
        .filter(|n| !n.is_empty() && !n.ends_with(']'))
    {
        let quoted = format!("\"{name}\"");
        let found = text[at..]
            .match_indices(&quoted)
            .find(|(i, q)| text[at + i + q.len()..].trim_start().starts_with(':'))?;
        at += found.0 + quoted.len();
    }
    Some(text[..at].lines().count())
}

/// Checks that a run's name can be its folder's name.
pub(crate) fn check_name(name: &str) -> Result<(), ConfigError> {
    if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
        return Err(ConfigError::Invalid(format!(
            "name '{name}' must be a plain folder name"
        )));
    }
    Ok(())
}

/// Whether `name` matches `pattern`, in which `*` stands for any run of characters
/// (`mobility_*`, `*_eg`, `pst_*_e*`).
fn glob(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let mut parts: Vec<&str> = parts.collect();
    let Some(last) = parts.pop() else {
        return rest.is_empty();
    };
    for part in parts {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// A path from a configuration: relative to the configuration file's folder, so that a
/// configuration works from any working folder; a relative path found only from the working
/// folder is taken from there (configurations written next to nothing they name).
pub fn resolve(base_dir: &Path, path: &str) -> PathBuf {
    let p = PathBuf::from(path);
    let beside = base_dir.join(&p);
    if p.is_absolute() || beside.exists() || !p.exists() {
        beside
    } else {
        p
    }
}

/// A configuration's `engine`: an engine description, or where to read one (`uci:COMMAND`,
/// `ucci:COMMAND`, or an engine description file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EngineRef {
    Named(String),
    Described(OutsideEngine),
}

/// A tuned option as a configuration names it: by name alone (the engine's default and
/// range), or with any of its default, range and bits set. A saved configuration has them all.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OptionEntry {
    Name(String),
    Set(TunedOption),
}

/// A tuned option with what the configuration sets of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TunedOption {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<i32>,
    /// Genes of the option's value in a GA chromosome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bits: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs() -> crate::params::Specs {
        crate::games::specs_for("xiangqi").unwrap()
    }

    /// The names `OK` evolves with its `evolve` list replaced by `list`.
    fn evolved_names(list: &str) -> Vec<String> {
        let c = config(&OK.replace(r#"["rook","pst_horse_*"]"#, list)).unwrap();
        c.evolved(&specs())
            .unwrap()
            .iter()
            .map(|&i| specs()[i].name.to_string())
            .collect()
    }

    #[test]
    fn evolve_patterns_match_anywhere() {
        assert!(glob("mobility_*", "mobility_rook"));
        assert!(glob("*_eg", "horse_eg") && !glob("*_eg", "horse_egg"));
        assert!(glob("pst_*_e*", "pst_rook_e4") && !glob("pst_*_e*", "pst_rook_a4"));
        assert!(glob("*", "tempo") && !glob("a*a", "a"));
        assert_eq!(
            evolved_names(r#"["*_eg"]"#),
            [
                "advisor_eg",
                "elephant_eg",
                "horse_eg",
                "rook_eg",
                "cannon_eg",
                "pawn_crossed_eg"
            ]
        );
    }

    fn config(json: &str) -> Result<Config, String> {
        let c: Config = serde_json::from_str(json).map_err(|e| e.to_string())?;
        c.validate(Path::new("."), &specs()).map_err(|e| e.to_string())?;
        Ok(c)
    }

    const OK: &str = r#"{"name":"t","seed":1,"population":8,"groups":2,"generations":3,
        "evolve":["rook","pst_horse_*"],
        "environments":[{"from_generation":1,"positions":"positions/xiangqi-middlegames.epd","nodes":300}]}"#;

    #[test]
    fn a_good_config_passes() {
        let c = config(OK).unwrap();
        let evolved = c.evolved(&specs()).unwrap();
        assert_eq!(evolved.len(), 1 + 50);
        assert_eq!(c.environment(3).nodes, Some(300));
    }

    #[test]
    fn all_means_the_evaluation_and_knobs_are_evolved_only_when_named() {
        let evolve = evolved_names;
        let all = evolve(r#"["all"]"#);
        assert!(all.iter().any(|n| n == "rook") && all.iter().any(|n| n == "pst_pawn_e9"));
        assert!(!all
            .iter()
            .any(|n| specs().iter().any(|s| s.opt_in && s.name == *n)));
        assert!(!all.iter().any(|n| n.starts_with("imbalance_")));
        assert_eq!(evolve(r#"["imbalance_*"]"#).len(), 36);
        assert_eq!(
            evolve(r#"["search_*","time_moves_left"]"#),
            [
                "search_rfp_margin",
                "search_futility_margin",
                "search_lmp_base",
                "search_null_reduction",
                "search_aspiration_window",
                "search_probcut_margin",
                "search_history_prune",
                "search_razor_margin",
                "search_futility_lmr_depth",
                "search_fail_low_keeps_move",
                "search_lmr_divisor",
                "search_iir_depth",
                "search_null_min_depth",
                "search_exact_check_prune",
                "search_rfp_depth",
                "search_null_depth_divisor",
                "search_null_eval_divisor",
                "search_lmp_depth",
                "search_lmr_history",
                "search_lmp_square",
                "search_qs_delta",
                "search_lmp_percent",
                "search_scale_no_mating",
                "search_scale_lone_attacker",
                "search_tt_feedback",
                "search_tt_keep_deeper",
                "search_fail_high_shallower",
                "search_correction_pieces",
                "search_capture_futility",
                "search_futility_history",
                "time_moves_left"
            ]
        );
    }

    #[test]
    fn each_mistake_is_named() {
        let bad = |from: &str, to: &str| config(&OK.replace(from, to)).unwrap_err();
        assert!(bad(r#""rook""#, r#""rokk""#).contains("unknown parameter 'rokk'"));
        assert!(bad(r#""rook""#, r#""king""#).contains("'king' is fixed"));
        assert!(
            bad("positions/xiangqi-middlegames.epd", "no/such.epd").contains("'no/such.epd' does not exist")
        );
        assert!(bad(r#""nodes":300"#, r#""nodes":0"#).contains("environments[0].nodes: 0 must be from 1"));
        assert!(bad(r#""nodes":300"#, r#""nodes":9223372036854775808"#)
            .contains("environments[0].nodes: 9223372036854775808 must be"));
        // A budget is nodes, a depth or a clock: exactly one, each checked.
        assert!(bad(r#""nodes":300"#, r#""depth":0"#).contains("environments[0].depth: 0 must be from 1"));
        assert!(
            bad(r#""nodes":300"#, r#""clock":"2""#).contains("environments[0].clock: '2' is not BASE+INC")
        );
        assert!(bad(r#""nodes":300"#, r#""nodes":300,"depth":4"#)
            .contains("exactly one of nodes, depth and clock"));
        let clock = config(&OK.replace(r#""nodes":300"#, r#""clock":"2+0.02""#)).unwrap();
        assert_eq!(
            clock.environment(1).budget(),
            Budget::Clock {
                base: std::time::Duration::from_secs(2),
                increment: std::time::Duration::from_millis(20)
            }
        );
        assert!(bad(r#""generations":3"#, r#""generations":0"#).contains("must be from 1 to 10000000"));
        // A count no run reaches, which SPSA's schedule would multiply past 64 bits.
        assert!(bad(r#""generations":3"#, r#""generations":4611686018427387904"#)
            .contains("generations = 4611686018427387904 must be from 1 to 10000000"));
        assert!(bad(r#""seed":1,"#, "").contains("missing field `seed`"));
        // Held-out positions must be ones no tuning game uses.
        let with_validation =
            |v: &str| OK.replace(r#""nodes":300}]"#, &format!(r#""nodes":300}}],"validation":{v}"#));
        let used = r#"{"every":5,"games":100,"positions":"positions/xiangqi-holdout.epd"}"#;
        assert!(config(&with_validation(used))
            .unwrap_err()
            .contains("shares positions with environments[0]"));
        let held_out = with_validation(used).replace("xiangqi-middlegames", "xiangqi-train-a");
        assert!(config(&held_out).is_ok());
        assert!(config(&held_out.replace(r#""games":100"#, r#""games":7"#))
            .unwrap_err()
            .contains("even number"));
    }

    #[test]
    fn adjudication_is_read_and_checked() {
        let with =
            |rule: &str| config(&OK.replace(r#""seed":1,"#, &format!(r#""seed":1,"adjudication":{rule},"#)));
        let c =
            with(r#"{"resign":{"score":500,"moves":3},"draw":{"score":10,"moves":8,"after":80}}"#).unwrap();
        assert_eq!(
            c.adjudication.resign,
            Some(crate::game::Resign { score: 500, moves: 3 })
        );
        assert_eq!(c.adjudication.draw.map(|d| d.after), Some(80));
        // Off unless given, and then not written into the run's saved configuration.
        let off = config(OK).unwrap();
        assert!(off.adjudication.is_off());
        assert!(!serde_json::to_string(&off).unwrap().contains("adjudication"));
        assert!(with(r#"{"resign":{"score":0,"moves":3}}"#)
            .unwrap_err()
            .contains("adjudication: resign: score 0 and moves 3 must be positive"));
        assert!(with(r#"{"draw":{"score":10,"moves":0,"after":80}}"#)
            .unwrap_err()
            .contains("adjudication: draw: score 10 must not be negative and moves 0 must be positive"));
        assert!(with(r#"{"resign":{"score":500,"move":3}}"#)
            .unwrap_err()
            .contains("unknown field `move`"));
        // A run resumed with another rule is another run.
        let mut other = off.clone();
        other.adjudication = c.adjudication;
        assert!(other
            .check_same_run(&off)
            .unwrap_err()
            .to_string()
            .contains("'adjudication' differs"));
    }
}
