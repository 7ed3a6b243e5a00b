//! A tuning run: generations of tournament fitness, elitism and adaptive breeding, with the
//! run folder that makes it resumable.
//!
//! Every random choice of generation g comes from a stream seeded by (run seed, g, purpose),
//! so a generation depends only on the configuration and the population that enters it.
//! That population is what `state.json` keeps: a run stopped after generation k and resumed
//! is the same run. Games are node-limited and gathered in schedule order, so the thread
//! count changes nothing either.

use super::config::{resolve, Config, ConfigError, Init, Method};
use super::genome::{hamming, mutate, Genome, Layout};
use crate::arena::{read_positions, tally_players, Conditions, Fixture, Runner, Schedule};
use crate::game::{Budget, Game, GameRecord, Player, Seat};
use crate::params::Params;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The resumable state after a completed generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    pub format: u32,
    /// Generations completed.
    pub generation: usize,
    /// The run seed; each generation's random streams derive from it and the generation.
    pub seed: u64,
    /// The population that enters the next generation, one string of 0/1 genes each.
    pub population: Vec<String>,
    /// With `carry`: what each individual of `population` has scored while it survived
    /// (children start empty). Empty without `carry`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub records: Vec<Record>,
    /// SPSA and fitting: the tuned parameters' current values, in spec order (empty for
    /// the GA).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub theta: Vec<f64>,
}

/// Games an individual has played and its wins minus losses in them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub points: i64,
    pub games: u64,
}

/// With `carry`, a selection score counts this many even games besides an individual's own:
/// one good generation of a newcomer (a few games) weighs less than a long record.
pub const PRIOR_GAMES: u64 = 20;

impl Record {
    /// The selection score: wins minus losses per game, shrunk towards 0 by
    /// [`PRIOR_GAMES`], in thousandths.
    pub fn score(self) -> i32 {
        (1000 * self.points / (self.games + PRIOR_GAMES) as i64) as i32
    }
}

/// One generation's figures (a row of generations.csv).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationStats {
    pub generation: usize,
    pub fitness_max: i32,
    pub fitness_mean: f64,
    pub fitness_min: i32,
    pub pc_mean: f64,
    pub pm_mean: f64,
    /// Mean Hamming distance between the generation's individuals.
    pub diversity: f64,
    pub games: usize,
    pub red_wins: usize,
    pub draws: usize,
    pub black_wins: usize,
    pub plies_mean: f64,
    pub nodes: u64,
    pub seconds: f64,
    pub games_per_s: f64,
}

/// One SPSA step (a row of steps.csv).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaRow {
    pub generation: usize,
    /// Iterations so far.
    pub iterations: u64,
    pub games: usize,
    /// The step's games from the plus set's point of view.
    pub plus_wins: usize,
    pub draws: usize,
    pub minus_wins: usize,
    /// The step's last perturbation, as a mean share of the parameters' ranges.
    pub c_share: f64,
    /// How far the weights are from the base: the root mean square of each parameter's
    /// distance as a share of its range.
    pub drift: f64,
    pub seconds: f64,
    pub games_per_s: f64,
}

/// One step of fitting on positions (a row of steps.csv).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TexelRow {
    pub generation: usize,
    /// Self-play games of this step.
    pub games: usize,
    /// Positions the fit used and held out.
    pub positions: usize,
    pub held_out_positions: usize,
    /// The scale of σ(K × eval).
    pub k: f64,
    /// Mean logistic loss before and after, on the fit's and the held-out positions.
    pub loss_start: f64,
    pub loss: f64,
    pub held_out_start: f64,
    pub held_out: f64,
    pub best_epoch: usize,
    pub drift: f64,
    pub seconds: f64,
    pub games_per_s: f64,
}

/// A step's row, by method.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum StepRow {
    Ga(GenerationStats),
    Spsa(SpsaRow),
    Texel(TexelRow),
}

impl StepRow {
    pub fn generation(&self) -> usize {
        match self {
            StepRow::Ga(r) => r.generation,
            StepRow::Spsa(r) => r.generation,
            StepRow::Texel(r) => r.generation,
        }
    }
}

/// A tuning run of game `G` bound to its folder.
pub struct Run<G: Game> {
    pub dir: PathBuf,
    pub config: Config,
    layout: Layout,
    base: Params,
    state: State,
    /// Positions per environment, loaded once.
    positions: Vec<Vec<G::Board>>,
    validator: Option<Validator<G>>,
    /// The generations the saved configuration plans: SPSA's schedule spans them, whatever
    /// `--generations` asks of one session.
    planned: usize,
    /// Other MPI ranks that play the generations' and validations' games.
    #[cfg(feature = "mpi")]
    cluster: Option<std::rc::Rc<crate::arena::cluster::Cluster>>,
}

/// What validation plays: the held-out positions and the anchor.
struct Validator<G: Game> {
    positions: Vec<G::Board>,
    anchor: Params,
}

/// One validation (a row of validation.csv): the generation's champion against the anchor
/// on held-out positions, from the champion's point of view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationRow {
    pub generation: usize,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub score: f64,
    /// Elo against the anchor and its 95% interval (empty where unbounded: a score of 0 or 1).
    pub elo: Option<f64>,
    pub elo_low: Option<f64>,
    pub elo_high: Option<f64>,
    /// Likelihood of superiority over the anchor.
    pub los: f64,
}

/// A CSV row of a generation.
trait HasGeneration {
    fn generation(&self) -> usize;
}

impl HasGeneration for GenerationStats {
    fn generation(&self) -> usize {
        self.generation
    }
}

impl HasGeneration for SpsaRow {
    fn generation(&self) -> usize {
        self.generation
    }
}

impl HasGeneration for TexelRow {
    fn generation(&self) -> usize {
        self.generation
    }
}

impl HasGeneration for ValidationRow {
    fn generation(&self) -> usize {
        self.generation
    }
}

/// What a generation gave: its figures and, when due, its validation.
#[derive(Clone, Debug, PartialEq)]
pub struct StepReport {
    pub stats: StepRow,
    pub validation: Option<ValidationRow>,
}

const GENERATIONS_CSV: &str = "generations.csv";
/// SPSA's and the fit's rows (their columns differ from the GA's).
const STEPS_CSV: &str = "steps.csv";
const SPSA_COLUMNS: [&str; 10] = [
    "generation",
    "iterations",
    "games",
    "plus_wins",
    "draws",
    "minus_wins",
    "c_share",
    "drift",
    "seconds",
    "games_per_s",
];
const TEXEL_COLUMNS: [&str; 13] = [
    "generation",
    "games",
    "positions",
    "held_out_positions",
    "k",
    "loss_start",
    "loss",
    "held_out_start",
    "held_out",
    "best_epoch",
    "drift",
    "seconds",
    "games_per_s",
];
const VALIDATION_CSV: &str = "validation.csv";
const GENERATION_COLUMNS: [&str; 15] = [
    "generation",
    "fitness_max",
    "fitness_mean",
    "fitness_min",
    "pc_mean",
    "pm_mean",
    "diversity",
    "games",
    "red_wins",
    "draws",
    "black_wins",
    "plies_mean",
    "nodes",
    "seconds",
    "games_per_s",
];
const VALIDATION_COLUMNS: [&str; 10] = [
    "generation",
    "games",
    "wins",
    "draws",
    "losses",
    "score",
    "elo",
    "elo_low",
    "elo_high",
    "los",
];

/// Why a run could not start, resume or go on.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("run folder {} already exists: resume it with --resume, or give the run another name", .0.display())]
    Exists(PathBuf),
    #[error("{} is a run of {found}, not {expected}", dir.display())]
    WrongGame {
        dir: PathBuf,
        found: String,
        expected: &'static str,
    },
    #[error("{} has no champion of generation {generation} ({} is missing)", dir.display(), path.display())]
    NoChampion {
        dir: PathBuf,
        generation: usize,
        path: PathBuf,
    },
    #[error("{}: {reason}", path.display())]
    State { path: PathBuf, reason: String },
    #[error("{}: {source}", path.display())]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{}: {source}", path.display())]
    Csv { path: PathBuf, source: csv::Error },
    #[error("cannot write or read {}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Layout(#[from] super::genome::LayoutError),
    #[error(transparent)]
    Weights(#[from] crate::params::LoadError),
    #[error(transparent)]
    Arena(#[from] crate::arena::ArenaError),
    #[error(transparent)]
    Texel(#[from] crate::texel::TexelError),
}

/// An I/O error on `path`.
fn io(path: &Path) -> impl Fn(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Mixes the run seed with a generation and a purpose into a stream seed.
pub(crate) fn stream(seed: u64, generation: usize, purpose: u64) -> ChaCha8Rng {
    let mut z = seed
        ^ (generation as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ purpose.wrapping_mul(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ChaCha8Rng::seed_from_u64(z ^ (z >> 31))
}

const GROUPS: u64 = 1;
const OPENINGS: u64 = 2;
const BREEDING: u64 = 3;
const SPSA: u64 = 4;

/// Node budgets of a fitting step's self-play: from 80% to 120% of the environment's.
const SELF_PLAY_BUDGETS: usize = 64;

fn genome_to_string(g: &[u8]) -> String {
    g.iter().map(|&b| if b == 1 { '1' } else { '0' }).collect()
}

fn genome_from_string(s: &str, len: usize) -> Result<Genome, String> {
    if s.len() != len || !s.bytes().all(|b| b == b'0' || b == b'1') {
        return Err(format!("a genome is not {len} genes of 0 and 1"));
    }
    Ok(s.bytes().map(|b| b - b'0').collect())
}

impl<G: Game> Run<G> {
    /// Starts a new run in `runs_dir/<name>`; the folder must not exist yet.
    pub fn create(mut config: Config, config_dir: &Path, runs_dir: &Path) -> Result<Run<G>, RunError> {
        let dir = runs_dir.join(&config.name);
        if dir.exists() {
            return Err(RunError::Exists(dir));
        }
        let (layout, base, positions, validator) = prepare::<G>(&config, config_dir)?;
        let (population, theta) = match config.method {
            Method::Ga => (initial_population::<G>(&config, &layout, &base), Vec::new()),
            Method::Spsa | Method::Texel => (Vec::new(), initial_theta::<G>(&config, &layout, &base)),
        };
        // The saved configuration names its files by their full paths, so that a resume,
        // an export or a round robin finds them again from any folder.
        let found = |p: &str| {
            let path = resolve(config_dir, p);
            std::fs::canonicalize(&path)
                .unwrap_or(path)
                .to_string_lossy()
                .into_owned()
        };
        config.base_weights = config.base_weights.as_deref().map(found);
        for e in &mut config.environments {
            e.positions = found(&e.positions);
        }
        if let Some(v) = &mut config.validation {
            v.positions = found(&v.positions);
            v.anchor = v.anchor.as_deref().map(found);
        }
        // Built under a temporary name and renamed into place, so that a run folder always
        // holds a complete start.
        let building = runs_dir.join(format!(".{}.creating", config.name));
        let _ = std::fs::remove_dir_all(&building);
        std::fs::create_dir_all(building.join("champions")).map_err(io(&building))?;
        if config.method == Method::Texel {
            std::fs::create_dir_all(building.join("data")).map_err(io(&building))?;
        }
        let state = State {
            format: 1,
            generation: 0,
            seed: config.seed,
            population: population.iter().map(|g| genome_to_string(g)).collect(),
            records: Vec::new(),
            theta,
        };
        let planned = config.generations;
        let mut run = Run {
            dir: building.clone(),
            config,
            layout,
            base,
            state,
            positions,
            validator,
            planned,
            #[cfg(feature = "mpi")]
            cluster: None,
        };
        run.write_json("config.json", &run.config)?;
        run.write_json("state.json", &run.state)?;
        let (csv, columns) = run.steps_csv();
        run.write_rows::<GenerationStats>(csv, columns, &[])?;
        if run.validator.is_some() {
            run.write_rows::<ValidationRow>(VALIDATION_CSV, &VALIDATION_COLUMNS, &[])?;
        }
        std::fs::rename(&building, &dir).map_err(io(&dir))?;
        run.dir = dir;
        Ok(run)
    }

    /// Reopens a run from its folder: the configuration it started with, the last completed
    /// generation, and the CSV cut back to it (rows of an unfinished generation are dropped).
    pub fn resume(dir: &Path) -> Result<Run<G>, RunError> {
        let read = |name: &str| {
            crate::fsutil::read_text(&dir.join(name), crate::fsutil::MAX_JSON_BYTES)
                .map_err(io(&dir.join(name)))
        };
        let json = |name: &str| {
            let path = dir.join(name);
            move |source| RunError::Json { path, source }
        };
        let config: Config = serde_json::from_str(&read("config.json")?).map_err(json("config.json"))?;
        let state: State = serde_json::from_str(&read("state.json")?).map_err(json("state.json"))?;
        let bad_state = |reason| RunError::State {
            path: dir.join("state.json"),
            reason,
        };
        if config.game != G::NAME {
            return Err(RunError::WrongGame {
                dir: dir.to_path_buf(),
                found: config.game,
                expected: G::NAME,
            });
        }
        let (layout, base, positions, validator) = prepare::<G>(&config, Path::new("."))?;
        // A run killed while saving leaves a temporary file; the saved files are whole.
        for folder in [dir.to_path_buf(), dir.join("champions")] {
            crate::fsutil::remove_temporaries(&folder).map_err(io(&folder))?;
            crate::fsutil::check_writable(&folder).map_err(io(&folder))?;
        }
        let (genomes, values) = match config.method {
            Method::Ga => (config.population, 0),
            Method::Spsa | Method::Texel => (0, layout.evolved().len()),
        };
        if state.population.len() != genomes {
            return Err(bad_state(
                "it does not hold one genome per individual".to_string(),
            ));
        }
        if state.theta.len() != values {
            return Err(bad_state(format!(
                "it does not hold the {values} tuned values the method needs"
            )));
        }
        let specs = G::specs();
        for (&i, &v) in layout.evolved().iter().zip(&state.theta) {
            let s = &specs[i];
            if !(v >= f64::from(s.min) && v <= f64::from(s.max)) {
                return Err(bad_state(format!(
                    "its value {v} of '{}' is outside [{}, {}]",
                    s.name, s.min, s.max
                )));
            }
        }
        for g in &state.population {
            genome_from_string(g, layout.len()).map_err(bad_state)?;
        }
        let records_expected = if config.carry && state.generation > 0 {
            config.population
        } else {
            0
        };
        if state.records.len() != records_expected {
            return Err(bad_state(format!(
                "it holds {} survivor records where {records_expected} belong (carry is {})",
                state.records.len(),
                config.carry
            )));
        }
        let planned = config.generations;
        let run = Run {
            dir: dir.to_path_buf(),
            config,
            layout,
            base,
            state,
            positions,
            validator,
            planned,
            #[cfg(feature = "mpi")]
            cluster: None,
        };
        run.check_folder()?;
        Ok(run)
    }

    /// Checks that the folder's files agree with state.json before anything more is written:
    /// a champion for every completed generation, a CSV with its header and a row for each,
    /// and nothing from a generation beyond the next (what a crash while saving leaves). The
    /// rows of that unfinished generation are dropped; any other mismatch is an error that
    /// names the file, never a silent continuation.
    fn check_folder(&self) -> Result<(), RunError> {
        let done = self.state.generation;
        let stale = |path: PathBuf, reason: String| Err(RunError::State { path, reason });
        for g in 1..=done {
            let path = self.champion_path(g);
            if !path.exists() {
                return stale(
                    path,
                    format!("missing, though state.json says {done} generations are complete"),
                );
            }
        }
        if let Some(last) = last_champion(&self.dir).filter(|&last| last > done + 1) {
            return stale(
                self.dir.join("state.json"),
                format!(
                    "it says {done} generations are complete, but champions up to generation {last} exist: the state is older than the run's other files"
                ),
            );
        }
        let (csv, columns) = self.steps_csv();
        match self.config.method {
            Method::Ga => self.recheck_rows::<GenerationStats>(csv, columns, done)?,
            Method::Spsa => self.recheck_rows::<SpsaRow>(csv, columns, done)?,
            Method::Texel => {
                self.recheck_rows::<TexelRow>(csv, columns, done)?;
                for g in 1..=done {
                    let path = self.data_path(g);
                    if !path.exists() {
                        return stale(
                            path,
                            format!("missing, though state.json says {done} steps are complete"),
                        );
                    }
                }
                // A step that was under way leaves its games; they are played again.
                let stale_data = self.data_path(done + 1);
                if stale_data.exists() {
                    std::fs::remove_file(&stale_data).map_err(io(&stale_data))?;
                }
            }
        }
        if self.validator.is_some() {
            let rows: Vec<ValidationRow> =
                self.checked_rows(VALIDATION_CSV, &VALIDATION_COLUMNS, done, false)?;
            // Validations fall on some generations only; none may lie ahead of the state.
            self.write_rows(VALIDATION_CSV, &VALIDATION_COLUMNS, &rows)?;
        }
        Ok(())
    }

    /// The per-step CSV of the run's method and its columns.
    fn steps_csv(&self) -> (&'static str, &'static [&'static str]) {
        match self.config.method {
            Method::Ga => (GENERATIONS_CSV, &GENERATION_COLUMNS),
            Method::Spsa => (STEPS_CSV, &SPSA_COLUMNS),
            Method::Texel => (STEPS_CSV, &TEXEL_COLUMNS),
        }
    }

    /// Cuts the per-step CSV back to the completed steps, after checking it.
    fn recheck_rows<T: serde::de::DeserializeOwned + Serialize + HasGeneration>(
        &self,
        name: &str,
        columns: &[&str],
        done: usize,
    ) -> Result<(), RunError> {
        let rows: Vec<T> = self.checked_rows(name, columns, done, true)?;
        self.write_rows(name, columns, &rows)
    }

    /// A run CSV's rows up to generation `done`, after checking its header and that no row
    /// lies beyond the generation in progress; with `every`, it must hold every generation.
    fn checked_rows<T: serde::de::DeserializeOwned + HasGeneration>(
        &self,
        name: &str,
        columns: &[&str],
        done: usize,
        every: bool,
    ) -> Result<Vec<T>, RunError> {
        let path = self.dir.join(name);
        let text = crate::fsutil::read_text(&path, crate::fsutil::MAX_JSON_BYTES).map_err(io(&path))?;
        let header = text.lines().next().unwrap_or("");
        if header != columns.join(",") {
            return Err(RunError::State {
                path,
                reason: format!("its header is '{header}', not '{}'", columns.join(",")),
            });
        }
        let mut rows: Vec<T> = read_rows(&path)?;
        let generations: Vec<usize> = rows.iter().map(|r| r.generation()).collect();
        if generations.windows(2).any(|w| w[0] >= w[1]) || generations.last().is_some_and(|&g| g > done + 1) {
            return Err(RunError::State {
                path,
                reason: format!("its generations {generations:?} do not fit state.json's {done}"),
            });
        }
        rows.retain(|r| r.generation() <= done);
        if every && rows.len() != done {
            return Err(RunError::State {
                path,
                reason: format!("it has {} rows for the {done} completed generations", rows.len()),
            });
        }
        Ok(rows)
    }

    /// Generations completed so far.
    pub fn generation(&self) -> usize {
        self.state.generation
    }

    /// Sets how many generations the run should reach this time (`--generations`).
    pub fn set_generations(&mut self, generations: usize) -> Result<(), RunError> {
        if generations == 0 {
            return Err(RunError::Config(ConfigError::Invalid(
                "--generations must be at least 1".to_string(),
            )));
        }
        // Only this session's target: the saved configuration stays the one the run began with.
        self.config.generations = generations;
        Ok(())
    }

    /// Plays the run's games on the other ranks of `cluster` from now on.
    #[cfg(feature = "mpi")]
    pub fn distribute(&mut self, cluster: std::rc::Rc<crate::arena::cluster::Cluster>) {
        self.cluster = Some(cluster);
    }

    /// The runner of a step's games: this process's threads, or the other ranks.
    fn runner(&self, threads: usize) -> Result<Runner, RunError> {
        let runner = Runner::new(threads)?;
        #[cfg(feature = "mpi")]
        let runner = runner.with_cluster(self.cluster.clone());
        Ok(runner)
    }

    /// Plays `fixtures` from `positions` between `players`, the game's own engine with
    /// `params` (one set each), under the run's conditions for `budget`.
    #[allow(clippy::too_many_arguments)]
    fn play(
        &self,
        runner: &Runner,
        players: &[Player<G::Weights>],
        params: &[Params],
        positions: &[G::Board],
        fixtures: &[Fixture],
        budget: Budget,
        done: impl Fn() + Sync,
    ) -> Result<Vec<GameRecord<G::Move>>, RunError> {
        let schedule = Schedule::<G> {
            players,
            params: Some(params),
            positions,
            fixtures,
            conditions: Conditions {
                max_plies: self.config.max_plies,
                ..Conditions::for_budget(budget)
            },
        };
        Ok(schedule.run(runner, |_| done())?)
    }

    /// Runs one step (a generation, a batch of SPSA iterations, a round of self-play and
    /// fitting) on `threads` workers and saves it; `done` is called per game.
    pub fn step(&mut self, threads: usize, done: impl Fn() + Sync) -> Result<StepReport, RunError> {
        match self.config.method {
            Method::Ga => self.step_ga(threads, done),
            Method::Spsa => self.step_spsa(threads, done),
            Method::Texel => self.step_texel(threads, done),
        }
    }

    /// Games a step plays.
    pub fn games_per_step(&self) -> usize {
        self.config.games_per_generation() as usize
    }

    /// A GA generation.
    fn step_ga(&mut self, threads: usize, done: impl Fn() + Sync) -> Result<StepReport, RunError> {
        let generation = self.state.generation + 1;
        let started = Instant::now();
        let population: Vec<Genome> = self
            .state
            .population
            .iter()
            .map(|s| genome_from_string(s, self.layout.len()))
            .collect::<Result<_, _>>()
            .map_err(|reason| RunError::State {
                path: self.dir.join("state.json"),
                reason,
            })?;
        let groups = self.groups(generation);
        let (fixtures, env_index) = self.fixtures(generation, &groups);
        let budget = Budget::Nodes(self.config.environments[env_index].nodes);
        let params: Vec<Params> = population
            .iter()
            .map(|g| self.layout.decode(g, &self.base))
            .collect();
        let players = players::<G>(&params, budget);
        let runner = self.runner(threads)?;
        let positions = &self.positions[env_index];
        let records = self.play(&runner, &players, &params, positions, &fixtures, budget, done)?;

        // Fitness: +1 a win, -1 a loss, 0 a draw.
        let results = tally_players(&fixtures, &records, population.len());
        let fitness: Vec<i32> = results.iter().map(|w| w.wins as i32 - w.losses as i32).collect();
        // With carry, selection looks at each survivor's whole record.
        let carried: Vec<Record> = (0..population.len())
            .map(|i| {
                let earlier = self.state.records.get(i).copied().unwrap_or_default();
                Record {
                    points: earlier.points + fitness[i] as i64,
                    games: earlier.games + results[i].games() as u64,
                }
            })
            .collect();
        let selection: Vec<i32> = if self.config.carry {
            carried.iter().map(|r| r.score()).collect()
        } else {
            fitness.clone()
        };
        let champions = champions(&groups, &selection);
        let (next, pc_mean, pm_mean) = self.breed(generation, &population, &champions, &selection);
        let next_records: Vec<Record> = if self.config.carry {
            let survivors = champions.iter().map(|&c| carried[c]);
            survivors
                .chain(std::iter::repeat(Record::default()))
                .take(next.len())
                .collect()
        } else {
            Vec::new()
        };
        let stats = generation_stats(
            generation,
            &population,
            &fitness,
            &records,
            started,
            pc_mean,
            pm_mean,
        );
        let best = *champions
            .iter()
            .reduce(|b, c| if selection[*c] > selection[*b] { c } else { b })
            .expect("champions");
        let provenance = serde_json::json!({
            "run": self.config.name, "generation": generation, "fitness": fitness[best],
            "record": self.config.carry.then_some(carried[best]),
            "group": champions.iter().position(|&c| c == best), "games": records.len(),
            "base": self.config.base_weights.as_deref().unwrap_or("built-in"),
            "evolved": self.layout.evolved().iter().map(|&i| G::specs()[i].name).collect::<Vec<_>>(),
        });
        let validation = self.validate(generation, &params[best], &runner)?;
        let next = State {
            generation,
            population: next.iter().map(|g| genome_to_string(g)).collect(),
            records: next_records,
            ..self.state.clone()
        };
        let stats = StepRow::Ga(stats);
        self.save(&stats, &params[best], provenance, validation.as_ref(), next)?;
        Ok(StepReport { stats, validation })
    }

    /// The parameters with the tuned ones at `theta` (rounded).
    fn with_theta(&self, theta: &[f64]) -> Params {
        let mut values = self.base.values().to_vec();
        for (&i, &t) in self.layout.evolved().iter().zip(theta) {
            values[i] = t.round() as i32;
        }
        Params::from_values(G::specs(), &values).expect("tuned values stay within their bounds")
    }

    /// How far `theta` lies from the base: the root mean square of the distances as shares
    /// of the parameters' ranges.
    fn drift(&self, theta: &[f64]) -> f64 {
        let specs = G::specs();
        let evolved = self.layout.evolved();
        let sum: f64 = evolved
            .iter()
            .zip(theta)
            .map(|(&i, &t)| {
                let range = f64::from((specs[i].max - specs[i].min).max(1));
                ((t - f64::from(self.base.values()[i])) / range).powi(2)
            })
            .sum();
        (sum / evolved.len().max(1) as f64).sqrt()
    }

    /// A batch of SPSA iterations (see [`crate::spsa`]).
    fn step_spsa(&mut self, threads: usize, done: impl Fn() + Sync) -> Result<StepReport, RunError> {
        let generation = self.state.generation + 1;
        let started = Instant::now();
        let config = self
            .config
            .spsa
            .clone()
            .expect("validated: spsa has its settings");
        let specs = G::specs();
        let tuned = self.layout.evolved().to_vec();
        let total = (self.planned * config.iterations) as u64;
        let schedule = crate::spsa::Schedule::new(&config, specs, &tuned, total)?;
        let first = ((generation - 1) * config.iterations) as u64 + 1;
        let env_index = self.environment_index(generation);
        let budget = Budget::Nodes(self.config.environments[env_index].nodes);
        let openings = self.positions[env_index].len();
        // Each iteration: a direction, the two perturbed sets, and its openings, all from
        // its own stream.
        let mut directions = Vec::with_capacity(config.iterations);
        let mut params = Vec::with_capacity(2 * config.iterations);
        let mut fixtures = Vec::new();
        for j in 0..config.iterations {
            let k = first + j as u64;
            let mut rng = stream(self.state.seed, k as usize, SPSA);
            let direction: Vec<f64> = tuned
                .iter()
                .map(|_| if rng.gen::<bool>() { 1.0 } else { -1.0 })
                .collect();
            let gains = schedule.gains(k);
            for sign in [1.0, -1.0] {
                let point: Vec<f64> = tuned
                    .iter()
                    .enumerate()
                    .map(|(t, &i)| {
                        let v = self.state.theta[t] + sign * gains.c[t] * direction[t];
                        v.clamp(f64::from(specs[i].min), f64::from(specs[i].max))
                    })
                    .collect();
                params.push(self.with_theta(&point));
            }
            for _ in 0..config.pairs {
                fixtures.extend(Fixture::pair(2 * j, 2 * j + 1, rng.gen_range(0..openings)));
            }
            directions.push(direction);
        }
        let players = players::<G>(&params, budget);
        let runner = self.runner(threads)?;
        let positions = &self.positions[env_index];
        let records = self.play(&runner, &players, &params, positions, &fixtures, budget, done)?;
        let results = tally_players(&fixtures, &records, params.len());
        let mut theta = self.state.theta.clone();
        let mut last_c = Vec::new();
        for (j, direction) in directions.iter().enumerate() {
            let k = first + j as u64;
            let gains = schedule.gains(k);
            let plus = results[2 * j];
            let result = plus.wins as f64 - plus.losses as f64;
            for (t, &i) in tuned.iter().enumerate() {
                theta[t] = (theta[t] + gains.step[t] * result * direction[t])
                    .clamp(f64::from(specs[i].min), f64::from(specs[i].max));
            }
            last_c = gains.c;
        }
        let mut plus = crate::arena::stats::Wdl::default();
        results.iter().step_by(2).for_each(|&w| plus.add(w));
        let seconds = started.elapsed().as_secs_f64();
        let c_share = tuned
            .iter()
            .zip(&last_c)
            .map(|(&i, c)| c / f64::from((specs[i].max - specs[i].min).max(1)))
            .sum::<f64>()
            / tuned.len().max(1) as f64;
        let row = StepRow::Spsa(SpsaRow {
            generation,
            iterations: first - 1 + config.iterations as u64,
            games: records.len(),
            plus_wins: plus.wins as usize,
            draws: plus.draws as usize,
            minus_wins: plus.losses as usize,
            c_share,
            drift: self.drift(&theta),
            seconds,
            games_per_s: records.len() as f64 / seconds.max(1e-9),
        });
        let champion = self.with_theta(&theta);
        let provenance = self.provenance(generation, records.len());
        let validation = self.validate(generation, &champion, &runner)?;
        let next = State {
            generation,
            theta,
            ..self.state.clone()
        };
        self.save(&row, &champion, provenance, validation.as_ref(), next)?;
        Ok(StepReport {
            stats: row,
            validation,
        })
    }

    /// A round of self-play with the current weights, then a fit on the positions of the
    /// data so far (see [`crate::texel`]).
    fn step_texel(&mut self, threads: usize, done: impl Fn() + Sync) -> Result<StepReport, RunError> {
        let generation = self.state.generation + 1;
        let started = Instant::now();
        let config = self
            .config
            .texel
            .clone()
            .expect("validated: texel has its settings");
        let env_index = self.environment_index(generation);
        let nodes = self.config.environments[env_index].nodes;
        let budget = Budget::Nodes(nodes);
        let openings = self.positions[env_index].len();
        // The current weights on budgets spread around the environment's: two different
        // budgets make a pair's games differ from each other and from every other pair's,
        // where equal ones would replay the same games from each opening.
        let current = vec![self.with_theta(&self.state.theta); SELF_PLAY_BUDGETS];
        let weights = G::weights(&current[0]);
        let players: Vec<Player<G::Weights>> = (0..SELF_PLAY_BUDGETS)
            .map(|v| {
                let share = 0.8 + 0.4 * v as f64 / (SELF_PLAY_BUDGETS - 1) as f64;
                let n = ((nodes as f64 * share).round() as u64).max(1);
                Player::weights(weights.clone(), Budget::Nodes(n))
            })
            .collect();
        let mut rng = stream(self.state.seed, generation, OPENINGS);
        let fixtures: Vec<Fixture> = (0..config.games / 2)
            .flat_map(|_| {
                let a = rng.gen_range(0..SELF_PLAY_BUDGETS);
                let b = (a + rng.gen_range(1..SELF_PLAY_BUDGETS)) % SELF_PLAY_BUDGETS;
                Fixture::pair(a, b, rng.gen_range(0..openings))
            })
            .collect();
        let runner = self.runner(threads)?;
        let positions = &self.positions[env_index];
        let records = self.play(&runner, &players, &current, positions, &fixtures, budget, done)?;
        let data = self.data_path(generation);
        crate::fsutil::write_atomic(&data, crate::texel::data_text::<G>(&records).as_bytes())
            .map_err(io(&data))?;
        let first = generation
            .saturating_sub(config.window.unwrap_or(generation) - 1)
            .max(1);
        let mut games = Vec::new();
        for g in first..=generation {
            let read = crate::texel::read_data::<G>(&self.data_path(g))?;
            games.extend(
                read.into_iter()
                    .enumerate()
                    .map(|(n, game)| (((g as u64) << 32) | n as u64, game)),
            );
        }
        let tuned = self.layout.evolved().to_vec();
        let specs: Vec<crate::params::Spec> = tuned.iter().map(|&i| G::specs()[i]).collect();
        let (fit_on, held_out) = runner.install(|| {
            crate::texel::sample::<G>(
                &games,
                self.base.values(),
                &tuned,
                config.positions_per_game,
                config.holdout,
                self.state.seed,
            )
        })?;
        drop(games);
        let anchor = initial_theta::<G>(&self.config, &self.layout, &self.base);
        let fit = runner
            .install(|| crate::texel::fit(&fit_on, &held_out, &self.state.theta, &anchor, &specs, &config));
        let seconds = started.elapsed().as_secs_f64();
        let row = StepRow::Texel(TexelRow {
            generation,
            games: records.len(),
            positions: fit_on.len(),
            held_out_positions: held_out.len(),
            k: fit.k,
            loss_start: fit.loss_start,
            loss: fit.loss,
            held_out_start: fit.held_out_start,
            held_out: fit.held_out,
            best_epoch: fit.best_epoch,
            drift: self.drift(&fit.theta),
            seconds,
            games_per_s: records.len() as f64 / seconds.max(1e-9),
        });
        let champion = self.with_theta(&fit.theta);
        let provenance = self.provenance(generation, records.len());
        let validation = self.validate(generation, &champion, &runner)?;
        let next = State {
            generation,
            theta: fit.theta,
            ..self.state.clone()
        };
        self.save(&row, &champion, provenance, validation.as_ref(), next)?;
        Ok(StepReport {
            stats: row,
            validation,
        })
    }

    /// What a champion file of SPSA or a fit says of where it came from.
    fn provenance(&self, generation: usize, games: usize) -> serde_json::Value {
        serde_json::json!({
            "run": self.config.name, "method": self.config.method, "generation": generation,
            "games": games * generation,
            "base": self.config.base_weights.as_deref().unwrap_or("built-in"),
            "tuned": self.layout.evolved().iter().map(|&i| G::specs()[i].name).collect::<Vec<_>>(),
        })
    }

    /// The data file of a fitting step's games.
    fn data_path(&self, generation: usize) -> PathBuf {
        self.dir.join("data").join(format!("step-{generation:04}.txt"))
    }

    /// The environment in force at `generation`, by index.
    fn environment_index(&self, generation: usize) -> usize {
        self.config
            .environments
            .iter()
            .rposition(|e| e.from_generation <= generation)
            .unwrap_or(0)
    }

    /// The validation of generation `generation`'s champion, when one is due: every
    /// `validation.every` generations and at the run's last.
    fn validate(
        &self,
        generation: usize,
        champion: &Params,
        runner: &Runner,
    ) -> Result<Option<ValidationRow>, RunError> {
        let (Some(v), Some(validator)) = (&self.config.validation, &self.validator) else {
            return Ok(None);
        };
        if generation % v.every != 0 && generation != self.config.generations {
            return Ok(None);
        }
        let nodes = v.nodes.unwrap_or(self.config.environment(generation).nodes);
        let budget = Budget::Nodes(nodes);
        // The champion (player 0) and the anchor, each position twice with colours swapped,
        // the champion first in the first game of each pair (a match's order).
        let params = [champion.clone(), validator.anchor.clone()];
        let fixtures: Vec<Fixture> = (0..v.games.div_ceil(2))
            .flat_map(|pair| Fixture::pair(0, 1, pair % validator.positions.len()))
            .take(v.games)
            .collect();
        let players = players::<G>(&params, budget);
        let records = self.play(
            runner,
            &players,
            &params,
            &validator.positions,
            &fixtures,
            budget,
            || {},
        )?;
        let wdl = tally_players(&fixtures, &records, 2)[0];
        let elo = wdl.elo();
        let error = wdl.elo_error();
        Ok(Some(ValidationRow {
            generation,
            games: wdl.games(),
            wins: wdl.wins,
            draws: wdl.draws,
            losses: wdl.losses,
            score: wdl.score(),
            elo,
            elo_low: elo.zip(error).map(|(e, d)| e - d),
            elo_high: elo.zip(error).map(|(e, d)| e + d),
            los: wdl.los(),
        }))
    }

    /// A generation's groups: a seeded shuffle of the population split as evenly as possible.
    fn groups(&self, generation: usize) -> Vec<Vec<usize>> {
        let m = self.config.population;
        let mut order: Vec<usize> = (0..m).collect();
        order.shuffle(&mut stream(self.state.seed, generation, GROUPS));
        let n = self.config.groups;
        (0..n)
            .map(|k| order[k * m / n..(k + 1) * m / n].to_vec())
            .collect()
    }

    /// A generation's games and its environment: every pair in a group plays two games from
    /// one seeded opening, colours swapped.
    fn fixtures(&self, generation: usize, groups: &[Vec<usize>]) -> (Vec<Fixture>, usize) {
        let env_index = self.environment_index(generation);
        let openings = self.positions[env_index].len();
        let mut rng = stream(self.state.seed, generation, OPENINGS);
        let mut fixtures = Vec::new();
        for group in groups {
            for (x, &i) in group.iter().enumerate() {
                for &j in &group[x + 1..] {
                    for _ in 0..self.config.openings_per_pair {
                        fixtures.extend(Fixture::pair(i, j, rng.gen_range(0..openings)));
                    }
                }
            }
        }
        (fixtures, env_index)
    }

    /// The next population: champions survive unchanged; the rest are children of two
    /// champions at adaptive rates. Returns it with the children's mean pc and pm.
    fn breed(
        &self,
        generation: usize,
        population: &[Genome],
        champions: &[usize],
        fitness: &[i32],
    ) -> (Vec<Genome>, f64, f64) {
        let m = population.len();
        let n = champions.len();
        let fmax = *fitness.iter().max().expect("a population") as f64;
        let favg = fitness.iter().sum::<i32>() as f64 / m as f64;
        let mut rng = stream(self.state.seed, generation, BREEDING);
        let mut next: Vec<Genome> = champions.iter().map(|&c| population[c].clone()).collect();
        let (mut pc_sum, mut pm_sum) = (0.0, 0.0);
        while next.len() < m {
            let a = champions[rng.gen_range(0..n)];
            let b = loop {
                let b = champions[rng.gen_range(0..n)];
                if b != a {
                    break b;
                }
            };
            let (better, worse) = if fitness[b] > fitness[a] { (b, a) } else { (a, b) };
            let f = fitness[better] as f64;
            let pc = self.config.rates.crossover(f, fmax, favg);
            let pm = self.config.rates.mutation(f, fmax, favg);
            let mut child = if rng.gen::<f64>() < pc {
                self.layout
                    .crossover(&population[better], &population[worse], &mut rng)
            } else {
                population[better].clone()
            };
            mutate(&mut child, pm, &mut rng);
            if self.config.unique {
                // Flip one more gene at a time until the child is no clone.
                while next.contains(&child) {
                    let g = rng.gen_range(0..child.len());
                    child[g] ^= 1;
                }
            }
            pc_sum += pc;
            pm_sum += pm;
            next.push(child);
        }
        let children = (m - n) as f64;
        (next, pc_sum / children, pm_sum / children)
    }

    /// Saves a finished step in an order that a crash at any moment leaves consistent: the
    /// champion file and the CSV rows first, the state (atomically) last.
    fn save(
        &mut self,
        row: &StepRow,
        champion: &Params,
        provenance: serde_json::Value,
        validation: Option<&ValidationRow>,
        next: State,
    ) -> Result<(), RunError> {
        let generation = row.generation();
        let path = self.champion_path(generation);
        champion
            .to_weight_file(G::NAME, provenance)
            .write(&path)
            .map_err(io(&path))?;
        let (csv, columns) = self.steps_csv();
        match row {
            StepRow::Ga(r) => self.append_row(csv, columns, r)?,
            StepRow::Spsa(r) => self.append_row(csv, columns, r)?,
            StepRow::Texel(r) => self.append_row(csv, columns, r)?,
        }
        if let Some(v) = validation {
            self.append_row(VALIDATION_CSV, &VALIDATION_COLUMNS, v)?;
        }
        self.state = next;
        self.write_json("state.json", &self.state)
    }

    /// Rewrites a run CSV with `row` in place of any row of its generation or later.
    fn append_row<T: serde::de::DeserializeOwned + Serialize + HasGeneration + Clone>(
        &self,
        name: &str,
        columns: &[&str],
        row: &T,
    ) -> Result<(), RunError> {
        let mut rows: Vec<T> = self.read_rows(name)?;
        rows.retain(|r| r.generation() < row.generation());
        rows.push(row.clone());
        self.write_rows(name, columns, &rows)
    }

    /// The champion file of a generation.
    pub fn champion_path(&self, generation: usize) -> PathBuf {
        champion_path(&self.dir, generation)
    }

    fn write_json<T: Serialize>(&self, name: &str, value: &T) -> Result<(), RunError> {
        let text = serde_json::to_string_pretty(value).expect("serialisable") + "\n";
        crate::fsutil::write_atomic(&self.dir.join(name), text.as_bytes()).map_err(io(&self.dir.join(name)))
    }

    fn read_rows<T: serde::de::DeserializeOwned>(&self, name: &str) -> Result<Vec<T>, RunError> {
        read_rows(&self.dir.join(name))
    }

    /// Writes a CSV file of `rows` under `columns` (the header alone when there are none).
    fn write_rows<T: Serialize>(&self, name: &str, columns: &[&str], rows: &[T]) -> Result<(), RunError> {
        let path = self.dir.join(name);
        let csv_error = |source| RunError::Csv {
            path: path.clone(),
            source,
        };
        let mut writer = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        writer.write_record(columns).map_err(csv_error)?;
        for r in rows {
            writer.serialize(r).map_err(csv_error)?;
        }
        let bytes = writer.into_inner().map_err(|e| io(&path)(e.into_error()))?;
        crate::fsutil::write_atomic(&path, &bytes).map_err(io(&path))
    }
}

/// The game's own engine with each parameter set, on one budget.
fn players<G: Game>(params: &[Params], budget: Budget) -> Vec<Player<G::Weights>> {
    params
        .iter()
        .map(|p| Player::weights(G::weights(p), budget))
        .collect()
}

/// Each group's champion: the best fitness; ties go to the earlier in the group.
fn champions(groups: &[Vec<usize>], fitness: &[i32]) -> Vec<usize> {
    groups
        .iter()
        .map(|g| {
            *g.iter()
                .reduce(|best, i| if fitness[*i] > fitness[*best] { i } else { best })
                .expect("groups are not empty")
        })
        .collect()
}

/// A generation's row of generations.csv.
fn generation_stats<M>(
    generation: usize,
    population: &[Genome],
    fitness: &[i32],
    records: &[GameRecord<M>],
    started: Instant,
    pc_mean: f64,
    pm_mean: f64,
) -> GenerationStats {
    let m = population.len();
    let pairs = (m * (m - 1) / 2) as f64;
    let distance: usize = (0..m)
        .flat_map(|i| (i + 1..m).map(move |j| (i, j)))
        .map(|(i, j)| hamming(&population[i], &population[j]))
        .sum();
    let won_by = |seat: Option<Seat>| records.iter().filter(|r| r.winner == seat).count();
    let plies: usize = records.iter().map(|r| r.plies()).sum();
    let seconds = started.elapsed().as_secs_f64();
    GenerationStats {
        generation,
        fitness_max: *fitness.iter().max().expect("a population"),
        fitness_mean: fitness.iter().sum::<i32>() as f64 / m as f64,
        fitness_min: *fitness.iter().min().expect("a population"),
        pc_mean,
        pm_mean,
        diversity: distance as f64 / pairs,
        games: records.len(),
        red_wins: won_by(Some(Seat::First)),
        draws: won_by(None),
        black_wins: won_by(Some(Seat::Second)),
        plies_mean: plies as f64 / records.len().max(1) as f64,
        nodes: records.iter().map(|r| r.nodes[0] + r.nodes[1]).sum(),
        seconds,
        games_per_s: records.len() as f64 / seconds.max(1e-9),
    }
}

/// The rows of a run's CSV file.
fn read_rows<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>, RunError> {
    let csv_error = |source| RunError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut reader = csv::Reader::from_path(path).map_err(csv_error)?;
    reader.deserialize().collect::<Result<_, _>>().map_err(csv_error)
}

/// A run folder's generation rows, in order.
pub fn generations(dir: &Path) -> Result<Vec<GenerationStats>, RunError> {
    read_rows(&dir.join(GENERATIONS_CSV))
}

/// A named column of a CSV file as (step, value) points.
pub type Column = (String, Vec<(f64, f64)>);

/// An SPSA or fitting run's steps.csv as series: each column but the first against the
/// step.
pub fn step_columns(dir: &Path) -> Result<Vec<Column>, RunError> {
    let path = dir.join(STEPS_CSV);
    let csv_error = |source| RunError::Csv {
        path: path.clone(),
        source,
    };
    let mut reader = csv::Reader::from_path(&path).map_err(csv_error)?;
    let header: Vec<String> = reader
        .headers()
        .map_err(csv_error)?
        .iter()
        .map(str::to_string)
        .collect();
    let mut columns: Vec<Column> = header.iter().skip(1).map(|h| (h.clone(), Vec::new())).collect();
    for record in reader.records() {
        let record = record.map_err(csv_error)?;
        let number = |i: usize| record.get(i).and_then(|v| v.parse::<f64>().ok());
        let Some(step) = number(0) else {
            return Err(RunError::State {
                path: path.clone(),
                reason: format!("a row without a step number: {record:?}"),
            });
        };
        for (c, (_, points)) in columns.iter_mut().enumerate() {
            if let Some(y) = number(c + 1) {
                points.push((step, y));
            }
        }
    }
    Ok(columns)
}

/// A run folder's validations, in generation order (none when it validates nothing).
pub fn validations(dir: &Path) -> Result<Vec<ValidationRow>, RunError> {
    let path = dir.join(VALIDATION_CSV);
    if !path.exists() {
        return Ok(Vec::new());
    }
    read_rows(&path)
}

/// The best validation: the highest Elo (a perfect score above all); ties go to the later.
pub fn best_validation(rows: &[ValidationRow]) -> Option<&ValidationRow> {
    let key = |v: &ValidationRow| {
        v.elo.unwrap_or(if v.score >= 1.0 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        })
    };
    rows.iter()
        .reduce(|best, v| if key(v) >= key(best) { v } else { best })
}

/// The champion file of `generation` in a run folder.
pub fn champion_path(dir: &Path, generation: usize) -> PathBuf {
    dir.join("champions").join(format!("gen-{generation:04}.json"))
}

/// The champion file of `generation` in a run folder, or why there is none.
pub fn existing_champion(dir: &Path, generation: usize) -> Result<PathBuf, RunError> {
    let path = champion_path(dir, generation);
    if path.exists() {
        Ok(path)
    } else {
        Err(RunError::NoChampion {
            dir: dir.to_path_buf(),
            generation,
            path,
        })
    }
}

/// The last generation with a champion file in a run folder.
pub fn last_champion(dir: &Path) -> Option<usize> {
    std::fs::read_dir(dir.join("champions"))
        .ok()?
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .to_str()?
                .strip_prefix("gen-")?
                .strip_suffix(".json")?
                .parse()
                .ok()
        })
        .max()
}

/// What a run is made of besides its state: the layout, the base parameters, the positions
/// of every environment, and what validation plays.
type Prepared<G> = (Layout, Params, Vec<Vec<<G as Game>::Board>>, Option<Validator<G>>);

/// Checks a configuration and loads everything it names.
fn prepare<G: Game>(config: &Config, config_dir: &Path) -> Result<Prepared<G>, RunError> {
    let specs = G::specs();
    config.validate(config_dir, specs)?;
    if config.method == Method::Texel && !G::LINEAR_EVALUATION {
        return Err(RunError::Texel(crate::texel::TexelError::NotLinear(G::NAME)));
    }
    if let (Method::Spsa, Some(spsa)) = (config.method, &config.spsa) {
        // Its per-parameter settings must name tuned parameters: checked before any file.
        crate::spsa::Schedule::new(spsa, specs, &config.evolved(specs)?, 1)?;
    }
    let layout = Layout::new(specs, config.evolved(specs)?)?.with_encoding(config.encoding);
    if config.unique && layout.len() < 20 && (1usize << layout.len()) < config.population {
        return Err(RunError::Config(ConfigError::Invalid(format!(
            "unique: {} genes make only {} different individuals, fewer than population = {}",
            layout.len(),
            1usize << layout.len(),
            config.population
        ))));
    }
    let base = match &config.base_weights {
        Some(path) => Params::load(&resolve(config_dir, path), G::NAME, specs)?,
        None => Params::defaults(specs),
    };
    let positions = config
        .environments
        .iter()
        .map(|e| read_positions::<G>(&resolve(config_dir, &e.positions)))
        .collect::<Result<Vec<_>, _>>()?;
    let validator = match &config.validation {
        None => None,
        Some(v) => Some(Validator {
            positions: read_positions::<G>(&resolve(config_dir, &v.positions))?,
            anchor: match &v.anchor {
                Some(path) => Params::load(&resolve(config_dir, path), G::NAME, specs)?,
                None => base.clone(),
            },
        }),
    };
    Ok((layout, base, positions, validator))
}

/// SPSA's and the fit's start: the tuned parameters of the base weights (`init: weights`),
/// the built-in ones (`defaults`), or drawn at random.
fn initial_theta<G: Game>(config: &Config, layout: &Layout, base: &Params) -> Vec<f64> {
    let specs = G::specs();
    let mut rng = stream(config.seed, 0, GROUPS);
    layout
        .evolved()
        .iter()
        .map(|&i| match config.init {
            Init::Weights => base.values()[i] as f64,
            Init::Defaults => specs[i].default as f64,
            Init::Random => rng.gen_range(specs[i].min..=specs[i].max) as f64,
        })
        .collect()
}

fn initial_population<G: Game>(config: &Config, layout: &Layout, base: &Params) -> Vec<Genome> {
    let mut rng = stream(config.seed, 0, GROUPS);
    let around = match config.init {
        Init::Random => None,
        Init::Defaults => Some(layout.encode(&Params::defaults(G::specs()))),
        Init::Weights => Some(layout.encode(base)),
    };
    (0..config.population)
        .map(|i| match &around {
            None => (0..layout.len()).map(|_| rng.gen_range(0..=1)).collect(),
            // The first individual is the given weights exactly; the others are mutants.
            Some(g) if i == 0 => g.clone(),
            Some(g) => {
                let mut m = g.clone();
                mutate(&mut m, config.init_spread, &mut rng);
                m
            }
        })
        .collect()
}
