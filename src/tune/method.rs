//! What a tuning method is to the run that drives it: it asks for games and is told their
//! results (the ask/tell form of nevergrad and pycma), and says what a step leaves behind.
//!
//! The executor ([`super::run::Run`]) owns everything else: the run folder, `state.json`,
//! resume and its checks, validation, the CSV files, the log and the progress. A method keeps
//! all it needs between steps in its state (the trait's `State`), which the executor saves after every
//! step; a step depends only on the configuration, that state and the step's number, so a
//! resumed run is the same run.

use super::config::{Config, ConfigError, Init};
use super::error::RunError;
pub use super::folder::Row;
use super::observe::View;
use crate::arena::{Fixture, Runner};
use crate::game::{Budget, Game, GameRecord};
use crate::params::{Params, Spec, Specs};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::path::Path;

/// A method's description: its name in configurations, its own keys, and its rows.
#[derive(Debug)]
pub struct Info {
    /// The configuration's `method` value.
    pub name: &'static str,
    /// The configuration keys that belong to this method.
    pub keys: &'static [&'static str],
    /// What a step is called (`generation`, `step`).
    pub unit: &'static str,
    /// The CSV file of its rows, and the rows' columns after the step's (which the run
    /// folder's format names: [`super::folder::Format::header`]).
    pub csv: &'static str,
    pub columns: &'static [&'static str],
}

/// What a method is told of its run once, when the run is made or reopened.
pub struct Setup<'a> {
    pub run: &'a str,
    pub game: &'static str,
    pub specs: Specs,
    /// The tuned parameters' indices into `specs`, in spec order.
    pub tuned: &'a [usize],
    /// The full parameter set the untuned parameters come from.
    pub base: &'a Params,
    /// The base weight file's path, or `built-in` (for provenance).
    pub base_name: &'a str,
    pub init: Init,
    pub seed: u64,
    /// The steps the run's saved configuration plans, whatever one session asks for.
    pub planned: usize,
    /// Whether the game's evaluation is a linear function of its weights.
    pub linear: bool,
}

/// The step being played: its number, its environment and where the run lives.
pub struct Step<'a> {
    /// 1-based.
    pub number: usize,
    /// What a move may cost in the environment in force.
    pub budget: Budget,
    /// Start positions in the environment in force (a fixture's `position` indexes them).
    pub openings: usize,
    /// The run folder, for files of a method's own.
    pub dir: &'a Path,
    /// The run's workers, for parallel work of a method's own.
    pub runner: &'a Runner,
    /// When the step began (for its row's timings).
    pub started: std::time::Instant,
}

/// Games a method asks for: players (the run's engine with each parameter set, on a budget
/// each) and who meets whom from which opening.
pub struct Batch {
    pub params: Vec<Params>,
    /// Each player's budget a move.
    pub budgets: Vec<Budget>,
    pub fixtures: Vec<Fixture>,
}

impl Batch {
    /// Every player on the same budget.
    pub fn at(params: Vec<Params>, budget: Budget, fixtures: Vec<Fixture>) -> Batch {
        Batch {
            budgets: vec![budget; params.len()],
            params,
            fixtures,
        }
    }
}

/// What a method says once told a batch's results: more games for this step, or the step's
/// outcome.
pub enum Tell<M: Method> {
    Ask(Batch, M::Pending),
    Done(Done<M>),
}

/// A finished step: its row, its champion (with where it came from) and the next state.
pub struct Done<M: Method> {
    pub row: M::Row,
    pub champion: Params,
    pub provenance: serde_json::Value,
    pub state: M::State,
}

/// A tuning method. Each lives in one file of `src/tune/` and one line of the registry
/// ([`super::methods`]).
pub trait Method: Sized {
    /// Its keys of a run configuration (serde, unknown keys refused).
    type Settings: Serialize + DeserializeOwned + Clone;
    /// What it carries from step to step; saved in `state.json` after every step.
    type State: Serialize + DeserializeOwned + Clone;
    /// A step's row of its CSV file.
    type Row: Row;
    /// What it remembers between asking for a batch and being told its results.
    type Pending;
    /// How its rows read (its lines, progress and charts), apart from the algorithm.
    type View: View<Row = Self::Row>;

    const INFO: Info;

    /// Checks its settings against the rest of the configuration before anything is written.
    fn validate(settings: &Self::Settings, config: &Config, specs: &[Spec]) -> Result<(), ConfigError>;

    /// Finds the files and programs its settings name (relative paths beside the
    /// configuration, `base_dir`), so that a run saves them by their full paths and finds
    /// them again from any folder; checks that they can be used.
    fn resolve(_settings: &mut Self::Settings, _base_dir: &Path) -> Result<(), ConfigError> {
        Ok(())
    }

    /// Games a step plays (for the progress bar and the memory check).
    fn games_per_step(settings: &Self::Settings) -> u128;

    /// The method for a run, once the run's files are loaded.
    fn new(settings: Self::Settings, setup: &Setup) -> Result<Self, RunError>;

    /// The state a new run starts from.
    fn start(&self, setup: &Setup) -> Self::State;

    /// Checks a saved state after `done` steps; the reason when it does not fit the run.
    fn check(&self, setup: &Setup, state: &Self::State, done: usize) -> Result<(), String>;

    /// Makes the method's own files in a new run folder.
    fn create_files(&self, _dir: &Path) -> Result<(), RunError> {
        Ok(())
    }

    /// Checks the method's own files of a run folder after `done` steps, removing what an
    /// unfinished step left.
    fn check_files(&self, _dir: &Path, _done: usize) -> Result<(), RunError> {
        Ok(())
    }

    /// The first batch of a step.
    fn ask(
        &self,
        state: &Self::State,
        step: &Step,
        setup: &Setup,
    ) -> Result<(Batch, Self::Pending), RunError>;

    /// A batch's records (in fixture order): more games, or the step's outcome.
    fn tell<G: Game>(
        &self,
        state: &Self::State,
        pending: Self::Pending,
        records: Vec<GameRecord<G::Move>>,
        step: &Step,
        setup: &Setup,
    ) -> Result<Tell<Self>, RunError>;

    /// Its view, for a run's observers.
    fn view(&self) -> Self::View;
}

/// Mixes the run seed with a step and a purpose into a stream seed: every random choice of a
/// step comes from its own stream, so a step depends only on what enters it.
pub fn stream(seed: u64, generation: usize, purpose: u64) -> ChaCha8Rng {
    let mut z = seed
        ^ (generation as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ purpose.wrapping_mul(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ChaCha8Rng::seed_from_u64(z ^ (z >> 31))
}

/// The stream purpose of a run's start (and of a GA generation's groups).
pub const START: u64 = 1;
/// The stream purpose of a step's openings.
pub const OPENINGS: u64 = 2;
