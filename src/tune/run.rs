//! The run executor: one tuning run of game `G` by method `M`, bound to its folder.
//!
//! It makes the folder, saves every step in an order that a crash at any moment leaves
//! consistent, reopens it with every file checked against `state.json`, plays the games its
//! method asks for, and validates the champions. Games are node-limited and gathered in
//! schedule order, so the thread count changes nothing; a step depends only on the
//! configuration, the saved state and the step's number, so a resumed run is the same run.

use super::config::{resolve, Config, ConfigError};
use super::folder::{
    io, last_champion, read_json, read_rows, tuned_names, write_rows, Format, Lock, RunError, ValidationRow,
    VALIDATION_COLUMNS, VALIDATION_CSV,
};
use super::method::{Batch, Method, Row, Setup, Step, Tell};
use super::methods;
use super::observe::{step_lines, Observe, Stepped, View};
pub use super::observe::{Faults, Progress, StepReport};
use super::subject::{resolve_engine, Subject};
use crate::arena::Player;
use crate::arena::{read_positions, tally_players, Conditions, Fixture, Runner, Schedule};
use crate::game::{Adjudication, Budget, Game, GameRecord};
use crate::params::Params;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `state.json`: the steps done, the run's seed, and the method's state beside them.
#[derive(Serialize)]
struct Saved<'a, S> {
    format: u32,
    step: usize,
    seed: u64,
    #[serde(flatten)]
    method: &'a S,
}

/// `state.json` of a folder of format 1, which called the steps done generations.
#[derive(Serialize)]
struct SavedV1<'a, S> {
    format: u32,
    generation: usize,
    seed: u64,
    #[serde(flatten)]
    method: &'a S,
}

/// `state.json` as read: the method's keys are left for the method to read.
#[derive(Deserialize)]
struct Header {
    format: u32,
    #[serde(alias = "generation")]
    step: usize,
    seed: u64,
    #[serde(flatten)]
    method: serde_json::Map<String, serde_json::Value>,
}

/// A tuning run of game `G` by method `M` bound to its folder.
pub struct Run<G: Game, M: Method> {
    pub dir: PathBuf,
    /// The configuration the run started with (its method's settings filled in): its
    /// `generations` are the plan a method's schedule spans, whatever one session asks.
    pub config: Config,
    method: M,
    /// The game's own engine or an outside engine: the tuned parameters and the players.
    subject: Subject,
    /// How the folder names its steps (what it was made in).
    format: Format,
    /// The steps completed, and the method's state after them.
    done: usize,
    state: M::State,
    tuned: Vec<usize>,
    base: Params,
    /// Positions per environment, loaded once.
    positions: Vec<Vec<G::Board>>,
    validator: Option<Validator<G>>,
    /// The step this session ends at (`--generations`, else the plan).
    target: usize,
    games_per_step: u128,
    /// The folder held while the run is open (none while a new run's folder is made).
    lock: Option<Lock>,
    /// Other MPI ranks that play the steps' and validations' games.
    #[cfg(feature = "mpi")]
    cluster: Option<std::rc::Rc<crate::arena::cluster::Cluster>>,
}

/// What validation plays: the held-out positions and the anchor.
struct Validator<G: Game> {
    positions: Vec<G::Board>,
    anchor: Params,
}

impl<G: Game, M: Method> Run<G, M> {
    /// Starts a new run in `runs_dir/<name>`; the folder must not exist yet. Paths in the
    /// configuration are found beside `config_dir`.
    pub fn create(config: Config, config_dir: &Path, runs_dir: &Path) -> Result<Self, RunError> {
        // An outside engine is started once here: a missing option is refused before any game.
        let config = resolve_engine(&config, config_dir)?;
        let subject = Subject::of::<G>(&config)?;
        let (mut config, settings) = methods::checked::<M>(&config, config_dir, subject.specs())?;
        let dir = runs_dir.join(&config.name);
        if dir.exists() {
            return Err(RunError::Exists(dir));
        }
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
        let mut run = Run::load(
            building.clone(),
            Format::CURRENT,
            None,
            config,
            subject,
            settings,
            |method: &M, setup: &Setup| Ok((0, method.start(setup))),
        )?;
        let _ = std::fs::remove_dir_all(&building);
        std::fs::create_dir_all(building.join("champions")).map_err(io(&building))?;
        run.method.create_files(&building)?;
        run.write_json("config.json", &run.config)?;
        run.save_state()?;
        write_rows::<M::Row>(&run.dir.join(M::INFO.csv), &run.columns(), &[])?;
        if run.validator.is_some() {
            write_rows::<ValidationRow>(&run.dir.join(VALIDATION_CSV), &run.validation_columns(), &[])?;
        }
        std::fs::rename(&building, &dir).map_err(io(&dir))?;
        run.lock = Some(Lock::take(&dir)?);
        run.dir = dir;
        Ok(run)
    }

    /// Reopens a run from its folder: the configuration it started with, the last completed
    /// step, and the CSV files cut back to it (rows of an unfinished step are dropped).
    pub fn resume(dir: &Path) -> Result<Self, RunError> {
        let config: Config = read_json(&dir.join("config.json"))?;
        let header: Header = read_json(&dir.join("state.json"))?;
        if config.game != G::NAME {
            return Err(RunError::WrongGame {
                dir: dir.to_path_buf(),
                found: config.game,
                expected: G::NAME,
            });
        }
        let bad = |file: &str, reason: String| RunError::State {
            path: dir.join(file),
            reason,
        };
        if config.method != M::INFO.name {
            return Err(bad(
                "config.json",
                format!("it is a run of method {}", config.method),
            ));
        }
        let Some(format) = Format::of(header.format) else {
            return Err(bad(
                "state.json",
                format!(
                    "its format is {}; this qitune reads formats 1 to {}",
                    header.format,
                    Format::CURRENT.number()
                ),
            ));
        };
        if header.seed != config.seed {
            return Err(bad(
                "state.json",
                format!("its seed {} is not the run's ({})", header.seed, config.seed),
            ));
        }
        let settings =
            methods::settings::<M>(&config, false).map_err(|e| bad("config.json", e.to_string()))?;
        let config =
            methods::normalised::<M>(&config, false).map_err(|e| bad("config.json", e.to_string()))?;
        let state: M::State =
            serde_json::from_value(header.method.into()).map_err(|source| RunError::Json {
                path: dir.join("state.json"),
                source,
            })?;
        let done = header.step;
        let subject = Subject::of::<G>(&config).map_err(|e| bad("config.json", e.to_string()))?;
        subject.check_engine()?;
        // Held before anything is written: two processes must not run one folder.
        let lock = Lock::take(dir)?;
        let mut run = Run::load(
            dir.to_path_buf(),
            format,
            tuned_names(dir),
            config,
            subject,
            settings,
            |method: &M, setup: &Setup| {
                method
                    .check(setup, &state, done)
                    .map_err(|reason| bad("state.json", reason))?;
                Ok((done, state))
            },
        )?;
        // A run killed while saving leaves a temporary file; the saved files are whole.
        for folder in [dir.to_path_buf(), dir.join("champions")] {
            crate::fsutil::remove_temporaries(&folder).map_err(io(&folder))?;
            crate::fsutil::check_writable(&folder).map_err(io(&folder))?;
        }
        run.lock = Some(lock);
        run.check_folder()?;
        Ok(run)
    }

    /// Loads everything `config` names (its paths resolved) and the method, whose steps done
    /// and state `state` gives from its setup: a new run's start, or a saved state checked.
    /// `tuned` names the tuned parameters where a resumed run's champion does
    /// ([`tuned_names`]); else the configuration's patterns choose them.
    fn load(
        dir: PathBuf,
        format: Format,
        tuned: Option<Vec<String>>,
        config: Config,
        subject: Subject,
        settings: M::Settings,
        state: impl FnOnce(&M, &Setup) -> Result<(usize, M::State), RunError>,
    ) -> Result<Self, RunError> {
        let (specs, retired) = (subject.specs().clone(), super::subject::retired(&config));
        let tuned = Config::chosen(tuned.as_deref().unwrap_or(&config.evolve), &specs)?;
        let base = match &config.base_weights {
            Some(path) => Params::load(Path::new(path), G::NAME, &specs, retired)?,
            None => Params::defaults(&specs),
        };
        let positions = config
            .environments
            .iter()
            .map(|e| read_positions::<G>(Path::new(&e.positions)))
            .collect::<Result<Vec<_>, _>>()?;
        let validator = match &config.validation {
            None => None,
            Some(v) => Some(Validator {
                positions: read_positions::<G>(Path::new(&v.positions))?,
                anchor: match &v.anchor {
                    Some(path) => Params::load(Path::new(path), G::NAME, &specs, retired)?,
                    None => base.clone(),
                },
            }),
        };
        let games_per_step = M::games_per_step(&settings);
        let target = config.generations;
        let setup = setup::<G>(&config, &subject, &tuned, &base, target);
        let method = M::new(settings, &setup)?;
        let (done, state) = state(&method, &setup)?;
        Ok(Run {
            dir,
            config,
            method,
            subject,
            format,
            done,
            state,
            tuned,
            base,
            positions,
            validator,
            target,
            games_per_step,
            lock: None,
            #[cfg(feature = "mpi")]
            cluster: None,
        })
    }

    /// What the method is told of the run.
    fn setup(&self) -> Setup<'_> {
        setup::<G>(
            &self.config,
            &self.subject,
            &self.tuned,
            &self.base,
            self.config.generations,
        )
    }

    /// The lock file that marks the run as running.
    pub fn lock_path(&self) -> Option<&Path> {
        self.lock.as_ref().map(Lock::path)
    }

    /// Whether step `generation`'s champion is validated: every `validation.every` steps
    /// and at this session's last.
    pub fn validates(&self, generation: usize) -> bool {
        self.validator.is_some()
            && self
                .config
                .validation
                .as_ref()
                .is_some_and(|v| generation % v.every == 0 || generation == self.target)
    }

    /// The games this session still plays: every step's and every validation's due.
    pub fn session_games(&self) -> usize {
        let validation = self.config.validation.as_ref().map_or(0, |v| v.games);
        (self.done + 1..=self.target)
            .map(|g| self.games_per_step() + if self.validates(g) { validation } else { 0 })
            .sum()
    }

    /// The steps the run's configuration plans.
    pub fn planned(&self) -> usize {
        self.config.generations
    }

    /// The step this session ends at.
    pub fn target(&self) -> usize {
        self.target
    }

    /// Checks that the folder's files agree with state.json before anything more is written:
    /// the last completed step's champion, a CSV with its header and a row for each step, and
    /// nothing from a step beyond the next (what a crash while saving leaves). The rows of
    /// that unfinished step are dropped; any other mismatch is an error that names the
    /// file, never a silent continuation. Earlier champions may have been thinned out of an
    /// archived folder: the run needs none of them.
    fn check_folder(&self) -> Result<(), RunError> {
        let done = self.done;
        let stale = |path: PathBuf, reason: String| Err(RunError::State { path, reason });
        let path = self.champion_path(done);
        if done > 0 && !path.exists() {
            return stale(
                path,
                format!("missing, though state.json says {done} steps are complete"),
            );
        }
        if let Some(last) = last_champion(&self.dir).filter(|&last| last > done + 1) {
            return stale(
                self.dir.join("state.json"),
                format!(
                    "it says {done} steps are complete, but champions up to step {last} exist: the state is older than the run's other files"
                ),
            );
        }
        let rows: Vec<M::Row> = self.checked_rows(M::INFO.csv, &self.columns(), done, true)?;
        write_rows(&self.dir.join(M::INFO.csv), &self.columns(), &rows)?;
        self.method.check_files(&self.dir, done)?;
        if self.validator.is_some() {
            // Validations fall on some steps only; none may lie ahead of the state.
            let rows: Vec<ValidationRow> =
                self.checked_rows(VALIDATION_CSV, &self.validation_columns(), done, false)?;
            write_rows(&self.dir.join(VALIDATION_CSV), &self.validation_columns(), &rows)?;
        }
        Ok(())
    }

    /// A run CSV's rows up to step `done`, after checking its header and that no row lies
    /// beyond the step in progress; with `every`, it must hold every step.
    fn checked_rows<T: Row>(
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
        let steps: Vec<usize> = rows.iter().map(|r| r.step()).collect();
        if steps.windows(2).any(|w| w[0] >= w[1]) || steps.last().is_some_and(|&g| g > done + 1) {
            return Err(RunError::State {
                path,
                reason: format!("its steps {steps:?} do not fit state.json's {done}"),
            });
        }
        rows.retain(|r| r.step() <= done);
        if every && rows.len() != done {
            return Err(RunError::State {
                path,
                reason: format!("it has {} rows for the {done} completed steps", rows.len()),
            });
        }
        Ok(rows)
    }

    /// Steps completed so far.
    pub fn done(&self) -> usize {
        self.done
    }

    /// Games a step plays.
    pub fn games_per_step(&self) -> usize {
        self.games_per_step as usize
    }

    /// Sets the step this session ends at (`--generations`); the plan stays the saved one.
    pub fn set_target(&mut self, generations: usize) -> Result<(), RunError> {
        if !(1..=super::config::MAX_GENERATIONS).contains(&generations) {
            return Err(RunError::Config(ConfigError::Invalid(format!(
                "--generations {generations} must be from 1 to {}",
                super::config::MAX_GENERATIONS
            ))));
        }
        self.target = generations;
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

    /// Plays `batch` from `positions` under the run's conditions, tables sized for `budget`,
    /// ending games early by `adjudication`.
    fn play(
        &self,
        runner: &Runner,
        batch: &Batch,
        positions: &[G::Board],
        budget: Budget,
        adjudication: Adjudication,
        done: impl Fn() + Sync,
    ) -> Result<Vec<GameRecord<G::Move>>, RunError> {
        let players: Vec<Player<G::Weights>> = batch
            .params
            .iter()
            .zip(&batch.budgets)
            .map(|(p, &b)| self.subject.player::<G>(p, b))
            .collect::<Result<_, _>>()
            .map_err(crate::arena::ArenaError::from)?;
        let schedule = Schedule::<G> {
            players: &players,
            params: Some(&batch.params),
            positions,
            fixtures: &batch.fixtures,
            conditions: Conditions {
                max_plies: self.config.max_plies,
                adjudication,
                ..Conditions::for_budget(budget)
            },
        };
        Ok(schedule.run(runner, |_| done())?)
    }

    /// Plays this session's steps on `threads` workers up to its target, saving each and
    /// handing it, in words, to `observers` in their order (each told of every game too).
    /// Returns the games outside engines lost by faults this session.
    pub fn session(
        &mut self,
        threads: usize,
        observers: &mut [&mut dyn Observe<M::Row>],
    ) -> Result<usize, RunError> {
        let (view, mut faults, first) = (self.method.view(), 0, self.done);
        while self.done < self.target {
            let report = {
                let watching: Vec<&dyn Observe<M::Row>> = observers.iter().map(|o| &**o).collect();
                self.step(threads, |event| watching.iter().for_each(|o| o.progress(event)))?
            };
            faults += report.faults.games;
            let mut stepped = Stepped {
                dir: &self.dir,
                done: self.done,
                first: self.done == first + 1,
                lines: step_lines(
                    view.line(&report.stats),
                    report.validation.as_ref(),
                    &report.faults,
                ),
                progress: view.progress(&report.stats),
                report: &report,
            };
            for observer in observers.iter_mut() {
                observer.step(&mut stepped)?;
            }
        }
        Ok(faults)
    }

    /// Runs one step on `threads` workers and saves it, telling `observe` of every game.
    fn step(
        &mut self,
        threads: usize,
        observe: impl Fn(Progress) + Sync,
    ) -> Result<StepReport<M::Row>, RunError> {
        let done = || observe(Progress::Game);
        let number = self.done + 1;
        let runner = self.runner(threads)?;
        let environment = self.environment_index(number);
        let budget = self.config.environments[environment].budget();
        let positions = &self.positions[environment];
        let step = Step {
            number,
            budget,
            openings: positions.len(),
            dir: &self.dir,
            runner: &runner,
            started: Instant::now(),
        };
        let (mut batch, mut pending) = self.method.ask(&self.state, &step, &self.setup())?;
        let mut faults = Faults::default();
        let outcome = loop {
            let adjudication = self.config.adjudication;
            let records = self.play(&runner, &batch, positions, budget, adjudication, done)?;
            faults.add(&records);
            match self
                .method
                .tell::<G>(&self.state, pending, records, &step, &self.setup())?
            {
                Tell::Ask(next, remembered) => (batch, pending) = (next, remembered),
                Tell::Done(outcome) => break outcome,
            }
        };
        let validation = self.validate(number, &outcome.champion, &runner, &observe, &mut faults)?;
        // Saved in an order that a crash at any moment leaves consistent: the champion file
        // and the CSV rows first, the state (atomically) last.
        let path = self.champion_path(number);
        let mut provenance = outcome.provenance;
        provenance[self.format.step_word(M::INFO.unit)] = number.into();
        outcome
            .champion
            .to_weight_file(G::NAME, provenance)
            .write(&path)
            .map_err(io(&path))?;
        self.append_row(M::INFO.csv, &self.columns(), &outcome.row)?;
        if let Some(v) = &validation {
            self.append_row(VALIDATION_CSV, &self.validation_columns(), v)?;
        }
        self.done = number;
        self.state = outcome.state;
        self.save_state()?;
        Ok(StepReport {
            stats: outcome.row,
            validation,
            faults,
        })
    }

    /// The environment in force at step `generation`, by index.
    fn environment_index(&self, generation: usize) -> usize {
        self.config
            .environments
            .iter()
            .rposition(|e| e.from_generation <= generation)
            .unwrap_or(0)
    }

    /// The validation of step `generation`'s champion, when one is due ([`Run::validates`]).
    fn validate(
        &self,
        generation: usize,
        champion: &Params,
        runner: &Runner,
        observe: &(impl Fn(Progress) + Sync),
        faults: &mut Faults,
    ) -> Result<Option<ValidationRow>, RunError> {
        let (Some(v), Some(validator), true) = (
            &self.config.validation,
            &self.validator,
            self.validates(generation),
        ) else {
            return Ok(None);
        };
        let budget = v
            .nodes
            .map_or_else(|| self.config.environment(generation).budget(), Budget::Nodes);
        // The champion (player 0) and the anchor, each position twice with colours swapped,
        // the champion first in the first game of each pair (a match's order).
        let fixtures: Vec<Fixture> = (0..v.games.div_ceil(2))
            .flat_map(|pair| Fixture::pair(0, 1, pair % validator.positions.len()))
            .take(v.games)
            .collect();
        let batch = Batch::at(vec![champion.clone(), validator.anchor.clone()], budget, fixtures);
        observe(Progress::Validating(batch.fixtures.len()));
        // Played out: a validation measures the same way in every run.
        let records = self.play(
            runner,
            &batch,
            &validator.positions,
            budget,
            Adjudication::default(),
            || observe(Progress::Game),
        )?;
        faults.add(&records);
        let wdl = tally_players(&batch.fixtures, &records, 2)[0];
        let elo = wdl.elo();
        let error = wdl.elo_error();
        Ok(Some(ValidationRow {
            step: generation,
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

    /// Rewrites a run CSV with `row` in place of any row of its step or later.
    fn append_row<T: Row>(&self, name: &str, columns: &[&str], row: &T) -> Result<(), RunError> {
        let path = self.dir.join(name);
        let mut rows: Vec<T> = read_rows(&path)?;
        rows.retain(|r| r.step() < row.step());
        rows.push(row.clone());
        write_rows(&path, columns, &rows)
    }

    /// The champion file of a step.
    pub fn champion_path(&self, step: usize) -> PathBuf {
        self.format.champion_path(&self.dir, step)
    }

    /// The header of the method's CSV file.
    fn columns(&self) -> Vec<&'static str> {
        self.format.header(M::INFO.unit, M::INFO.columns)
    }

    /// The header of validation.csv.
    fn validation_columns(&self) -> Vec<&'static str> {
        self.format.header("step", &VALIDATION_COLUMNS)
    }

    fn save_state(&self) -> Result<(), RunError> {
        let (format, step, seed, method) = (self.format.number(), self.done, self.config.seed, &self.state);
        if self.format == Format::CURRENT {
            self.write_json(
                "state.json",
                &Saved {
                    format,
                    step,
                    seed,
                    method,
                },
            )
        } else {
            let generation = step;
            self.write_json(
                "state.json",
                &SavedV1 {
                    format,
                    generation,
                    seed,
                    method,
                },
            )
        }
    }

    fn write_json<T: Serialize>(&self, name: &str, value: &T) -> Result<(), RunError> {
        let text = serde_json::to_string_pretty(value).expect("serialisable") + "\n";
        crate::fsutil::write_atomic(&self.dir.join(name), text.as_bytes()).map_err(io(&self.dir.join(name)))
    }
}

/// What a method is told of a run of `config`.
fn setup<'a, G: Game>(
    config: &'a Config,
    subject: &Subject,
    tuned: &'a [usize],
    base: &'a Params,
    planned: usize,
) -> Setup<'a> {
    Setup {
        run: &config.name,
        game: G::NAME,
        specs: subject.specs().clone(),
        tuned,
        base,
        base_name: config.base_weights.as_deref().unwrap_or("built-in"),
        init: config.init,
        seed: config.seed,
        planned,
        // The game's evaluation is what its features describe, not an outside engine's.
        linear: G::LINEAR_EVALUATION && subject.engine().is_none(),
    }
}
