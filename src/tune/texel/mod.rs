//! Fitting the evaluation on the positions of self-play games ("Texel tuning"): a step plays
//! self-play games with the current weights, keeps them in `data/step-NNNN.txt`, and fits the
//! weights on the quiet positions of the data so far ([`fit`]), by gradient descent or by the
//! GA of mirrored twins ([`evolve`]).

pub mod evolve;
pub mod fit;

use super::config::{Config, ConfigError};
use super::folder::{io, RunError};
use super::method::{stream, Batch, Done, Info, Method, Row, Setup, Step, Tell, OPENINGS};
use super::subject::{described, EngineRef};
use super::theta::{self, ThetaState};
use crate::arena::outside::Engines;
use crate::arena::{Agent, Fixture, OutsideEngine};
use crate::game::{Budget, Game, GameRecord, Limit};
use crate::params::Spec;
use crate::tune::observe::{Chart, View};
use fit::{Samples, TexelConfig, TexelError};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The fit's keys of a run configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TexelSettings {
    /// Its settings (required).
    #[serde(default)]
    pub texel: Option<TexelConfig>,
}

/// One step of fitting on positions (a row of steps.csv).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TexelRow {
    #[serde(alias = "generation")]
    pub step: usize,
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

impl Row for TexelRow {
    fn step(&self) -> usize {
        self.step
    }
}

/// How a step reads: the line of its figures; its report draws a chart a column.
pub struct TexelView;

impl View for TexelView {
    type Row = TexelRow;
    const CHARTS: &'static [Chart] = &[];

    fn line(&self, r: &TexelRow) -> String {
        format!(
            "step {:>4}: {} games, {} positions (+{} held out)  K {:.5}  loss {:.5} -> {:.5}  held-out {:.5} -> {:.5} (epoch {})  drift {:.2}%  {:.0} s",
            r.step,
            r.games,
            r.positions,
            r.held_out_positions,
            r.k,
            r.loss_start,
            r.loss,
            r.held_out_start,
            r.held_out,
            r.best_epoch,
            100.0 * r.drift,
            r.seconds
        )
    }

    fn progress(&self, r: &TexelRow) -> String {
        format!("held-out loss {:.5}", r.held_out)
    }
}

/// The stream purpose of a fit by twins.
const EVOLVING: u64 = 3;

/// Node budgets of a step's self-play: from 80% to 120% of the environment's.
const SELF_PLAY_BUDGETS: usize = 64;

/// The fit in a run.
pub struct Texel {
    config: TexelConfig,
    /// The mentor when it is an outside engine.
    outside: Option<Arc<OutsideEngine>>,
}

impl Texel {
    fn settings(s: &TexelSettings) -> Result<&TexelConfig, ConfigError> {
        s.texel
            .as_ref()
            .ok_or_else(|| ConfigError::Invalid("method = \"texel\" needs a \"texel\" section".to_string()))
    }

    /// The games of the steps the fit sees at step `number` (its `window`, else all), each
    /// keyed by its step and place so that sampling does not depend on the window's start.
    fn window<G: Game>(&self, dir: &Path, number: usize) -> Result<Vec<(u64, fit::DataGame<G>)>, RunError> {
        let first = number
            .saturating_sub(self.config.window.unwrap_or(number) - 1)
            .max(1);
        let mut games = Vec::new();
        for g in first..=number {
            let read = fit::read_data::<G>(&data_path(dir, g)).map_err(method_error)?;
            games.extend(
                read.into_iter()
                    .enumerate()
                    .map(|(n, game)| (((g as u64) << 32) | n as u64, game)),
            );
        }
        Ok(games)
    }

    /// The step's mentor, if the fit has one: the outside engine it names, else the game's
    /// own engine with the weights the step began with.
    fn mentor<G: Game>(&self, state: &ThetaState, setup: &Setup) -> Result<Option<fit::Mentor<G>>, RunError> {
        let Some(m) = &self.config.mentor else {
            return Ok(None);
        };
        let agent = match &self.outside {
            Some(engine) => Agent::Outside(engine.clone()),
            None => Agent::Weights(
                G::weights(&theta::params(setup, &state.theta)).map_err(|e| RunError::Method(Box::new(e)))?,
            ),
        };
        Ok(Some(fit::Mentor {
            agent,
            limit: Limit::Depth(m.depth),
            blend: m.blend,
        }))
    }

    /// The fit of step `number` from `theta`, by Adam or by the twins, its prior centred on
    /// the run's start.
    fn fit(
        &self,
        fit_on: &Samples,
        held_out: &Samples,
        theta: &[f64],
        setup: &Setup,
        number: usize,
    ) -> fit::Fit {
        let specs: Vec<Spec> = setup.tuned.iter().map(|&i| setup.specs[i].clone()).collect();
        let anchor = theta::initial(setup);
        match &self.config.twins {
            Some(_) => {
                let mut rng = stream(setup.seed, number, EVOLVING);
                evolve::evolve(fit_on, held_out, theta, &anchor, &specs, &self.config, &mut rng)
            }
            None => fit::fit(fit_on, held_out, theta, &anchor, &specs, &self.config),
        }
    }
}

/// The data file of a step's games.
fn data_path(dir: &Path, step: usize) -> PathBuf {
    dir.join("data").join(format!("step-{step:04}.txt"))
}

fn method_error(e: TexelError) -> RunError {
    RunError::Method(Box::new(e))
}

impl Method for Texel {
    type Settings = TexelSettings;
    type State = ThetaState;
    type Row = TexelRow;
    type Pending = Vec<Fixture>;
    type View = TexelView;

    const INFO: Info = Info {
        name: "texel",
        keys: &["texel"],
        unit: "step",
        csv: "steps.csv",
        columns: &[
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
        ],
    };

    fn validate(s: &TexelSettings, config: &Config, _: &[Spec]) -> Result<(), ConfigError> {
        // Its self-play spreads node budgets (see `ask`).
        if let Some(i) = config.environments.iter().position(|e| e.nodes.is_none()) {
            return Err(ConfigError::Invalid(format!(
                "environments[{i}]: method texel plays its games at fixed nodes"
            )));
        }
        Texel::settings(s)?.validate(config.generations)
    }

    /// An outside mentor is read and started once here, so that a run does not find out
    /// after its first step's games that its mentor cannot start.
    fn resolve(s: &mut TexelSettings, base_dir: &Path) -> Result<(), ConfigError> {
        let Some(player) = s
            .texel
            .as_mut()
            .and_then(|t| t.mentor.as_mut())
            .and_then(|m| m.player.as_mut())
        else {
            return Ok(());
        };
        let at = |reason: String| ConfigError::at("texel.mentor.player", reason);
        let engine = described(player, base_dir).map_err(|e| at(e.to_string()))?;
        Engines::new(0).take(&engine).map_err(|f| at(f.to_string()))?;
        *player = EngineRef::Described(engine);
        Ok(())
    }

    fn games_per_step(s: &TexelSettings) -> u128 {
        s.texel.as_ref().map_or(0, |c| c.games as u128)
    }

    fn new(s: TexelSettings, setup: &Setup) -> Result<Texel, RunError> {
        if !setup.linear {
            return Err(method_error(TexelError::NotLinear(setup.game)));
        }
        let config = Texel::settings(&s)?.clone();
        let player = config.mentor.as_ref().and_then(|m| m.player.as_ref());
        // A saved configuration names its mentor by full paths.
        let outside = player
            .map(|p| described(p, Path::new(".")).map(Arc::new))
            .transpose()
            .map_err(|e| method_error(TexelError::MentorEngine(e)))?;
        Ok(Texel { config, outside })
    }

    fn start(&self, setup: &Setup) -> ThetaState {
        ThetaState::new(theta::initial(setup))
    }

    fn check(&self, setup: &Setup, state: &ThetaState, _: usize) -> Result<(), String> {
        theta::check(setup, &state.theta)
    }

    fn create_files(&self, dir: &Path) -> Result<(), RunError> {
        let data = dir.join("data");
        std::fs::create_dir_all(&data).map_err(io(&data))
    }

    fn check_files(&self, dir: &Path, done: usize) -> Result<(), RunError> {
        for g in 1..=done {
            let path = data_path(dir, g);
            if !path.exists() {
                return Err(RunError::State {
                    path,
                    reason: format!("missing, though state.json says {done} steps are complete"),
                });
            }
        }
        // A step that was under way leaves its games; they are played again.
        let stale = data_path(dir, done + 1);
        if stale.exists() {
            std::fs::remove_file(&stale).map_err(io(&stale))?;
        }
        Ok(())
    }

    /// The current weights on budgets spread around the environment's: two different budgets
    /// make a pair's games differ from each other and from every other pair's, where equal
    /// ones would replay the same games from each opening.
    fn ask(&self, state: &ThetaState, step: &Step, setup: &Setup) -> Result<(Batch, Vec<Fixture>), RunError> {
        let current = theta::params(setup, &state.theta);
        let budgets: Vec<Budget> = (0..SELF_PLAY_BUDGETS)
            .map(|v| match step.budget {
                Budget::Nodes(n) => {
                    let share = 0.8 + 0.4 * v as f64 / (SELF_PLAY_BUDGETS - 1) as f64;
                    Budget::Nodes(((n as f64 * share).round() as u64).max(1))
                }
                other => other,
            })
            .collect();
        let mut rng = stream(setup.seed, step.number, OPENINGS);
        let fixtures: Vec<Fixture> = (0..self.config.games / 2)
            .flat_map(|_| {
                let a = rng.gen_range(0..SELF_PLAY_BUDGETS);
                let b = (a + rng.gen_range(1..SELF_PLAY_BUDGETS)) % SELF_PLAY_BUDGETS;
                Fixture::pair(a, b, rng.gen_range(0..step.openings))
            })
            .collect();
        let batch = Batch {
            params: vec![current; SELF_PLAY_BUDGETS],
            budgets,
            fixtures: fixtures.clone(),
        };
        Ok((batch, fixtures))
    }

    /// Keeps the games, then fits on the positions of the data so far.
    fn tell<G: Game>(
        &self,
        state: &ThetaState,
        _: Vec<Fixture>,
        records: Vec<GameRecord<G::Move>>,
        step: &Step,
        setup: &Setup,
    ) -> Result<Tell<Texel>, RunError> {
        let number = step.number;
        let data = data_path(step.dir, number);
        crate::fsutil::write_atomic(&data, fit::data_text::<G>(&records).as_bytes()).map_err(io(&data))?;
        let games = self.window::<G>(step.dir, number)?;
        let mentor = self.mentor::<G>(state, setup)?;
        let (fit_on, held_out) = step
            .runner
            .install(|| {
                fit::sample::<G>(
                    &games,
                    setup.base.values(),
                    setup.tuned,
                    self.config.positions_per_game,
                    self.config.holdout,
                    setup.seed,
                    mentor.as_ref(),
                )
            })
            .map_err(method_error)?;
        drop(games);
        let fit = step
            .runner
            .install(|| self.fit(&fit_on, &held_out, &state.theta, setup, number));
        let seconds = step.started.elapsed().as_secs_f64();
        let row = TexelRow {
            step: number,
            games: records.len(),
            positions: fit_on.len(),
            held_out_positions: held_out.len(),
            k: fit.k,
            loss_start: fit.loss_start,
            loss: fit.loss,
            held_out_start: fit.held_out_start,
            held_out: fit.held_out,
            best_epoch: fit.best_epoch,
            drift: theta::drift(setup, &fit.theta),
            seconds,
            games_per_s: records.len() as f64 / seconds.max(1e-9),
        };
        Ok(Tell::Done(Done {
            row,
            champion: theta::params(setup, &fit.theta),
            provenance: theta::provenance(setup, Self::INFO.name, number, records.len()),
            state: ThetaState::new(fit.theta),
        }))
    }

    fn view(&self) -> TexelView {
        TexelView
    }
}
