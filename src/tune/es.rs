//! The (1+1) evolution strategy: a baseline for the other methods. Each step, one child (the
//! parent with every tuned value moved by a normal step of σ times its range) plays the
//! parent a short match from paired openings; the child replaces the parent only if it wins
//! the match. σ follows Rechenberg's 1/5 success rule: it grows after a success and shrinks
//! after a failure, so that about one child in five succeeds.

use super::config::{Config, ConfigError};
use super::folder::RunError;
use super::method::{stream, Batch, Done, Info, Method, Row, Setup, Step, Tell};
use super::observe::{Chart, View};
use super::theta::{self, normal};
use crate::arena::{tally_players, Fixture};
use crate::game::{Game, GameRecord};
use crate::params::Spec;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// The strategy's keys of a run configuration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EsSettings {
    #[serde(default)]
    pub es: EsConfig,
}

/// Its settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EsConfig {
    /// Game pairs (an opening with both colours) of a step's match.
    #[serde(default = "default_pairs")]
    pub pairs: usize,
    /// The first σ, as a share of each parameter's range.
    #[serde(default = "default_sigma")]
    pub sigma: f64,
    /// σ's bounds.
    #[serde(default = "default_sigma_min")]
    pub sigma_min: f64,
    #[serde(default = "default_sigma_max")]
    pub sigma_max: f64,
    /// σ's factor after a success; a failure divides it by the fourth root, so that σ holds
    /// still at one success in five.
    #[serde(default = "default_grow")]
    pub grow: f64,
}

impl Default for EsConfig {
    fn default() -> Self {
        EsConfig {
            pairs: default_pairs(),
            sigma: default_sigma(),
            sigma_min: default_sigma_min(),
            sigma_max: default_sigma_max(),
            grow: default_grow(),
        }
    }
}

fn default_pairs() -> usize {
    20
}
fn default_sigma() -> f64 {
    0.05
}
fn default_sigma_min() -> f64 {
    0.002
}
fn default_sigma_max() -> f64 {
    0.3
}
fn default_grow() -> f64 {
    1.5
}

/// The strategy's state: the parent and its σ.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EsState {
    pub theta: Vec<f64>,
    pub sigma: f64,
}

/// One step (a row of steps.csv): the child's match and what became of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EsRow {
    #[serde(alias = "generation")]
    pub step: usize,
    pub games: usize,
    /// The match from the child's point of view.
    pub child_wins: usize,
    pub draws: usize,
    pub parent_wins: usize,
    /// 1 when the child became the parent.
    pub accepted: u8,
    /// σ after the step.
    pub sigma: f64,
    pub drift: f64,
    pub seconds: f64,
    pub games_per_s: f64,
}

impl Row for EsRow {
    fn step(&self) -> usize {
        self.step
    }
}

/// How a step reads: the line of its figures; its report draws a chart a column.
pub struct EsView;

impl View for EsView {
    type Row = EsRow;
    const CHARTS: &'static [Chart] = &[];

    fn line(&self, r: &EsRow) -> String {
        format!(
            "step {:>4}: child +{} ={} -{} parent, {}  sigma {:.2}% of range  drift {:.2}%  {:.1} games/s",
            r.step,
            r.child_wins,
            r.draws,
            r.parent_wins,
            if r.accepted == 1 { "kept" } else { "dropped" },
            100.0 * r.sigma,
            100.0 * r.drift,
            r.games_per_s
        )
    }

    fn progress(&self, r: &EsRow) -> String {
        format!("sigma {:.2}%", 100.0 * r.sigma)
    }
}

/// The stream purpose of a step's child and openings.
const CHILD: u64 = 5;

/// The (1+1) evolution strategy of a run.
pub struct OnePlusOne {
    config: EsConfig,
}

/// The child a step plays, and the match's games.
pub struct Pending {
    child: Vec<f64>,
    fixtures: Vec<Fixture>,
}

impl Method for OnePlusOne {
    type Settings = EsSettings;
    type State = EsState;
    type Row = EsRow;
    type Pending = Pending;
    type View = EsView;

    const INFO: Info = Info {
        name: "es",
        keys: &["es"],
        unit: "step",
        csv: "steps.csv",
        columns: &[
            "games",
            "child_wins",
            "draws",
            "parent_wins",
            "accepted",
            "sigma",
            "drift",
            "seconds",
            "games_per_s",
        ],
    };

    fn validate(s: &EsSettings, _: &Config, _: &[Spec]) -> Result<(), ConfigError> {
        let c = &s.es;
        let invalid = |m: String| Err(ConfigError::Invalid(format!("es.{m}")));
        if !(1..=10_000).contains(&c.pairs) {
            return invalid(format!("pairs = {} must be from 1 to 10000", c.pairs));
        }
        let share = |v: f64| v.is_finite() && v > 0.0 && v <= 1.0;
        if !(share(c.sigma_min) && share(c.sigma_max) && c.sigma_min <= c.sigma_max) {
            return invalid(format!(
                "sigma_min = {} and sigma_max = {} must lie in (0, 1], the first not above the second",
                c.sigma_min, c.sigma_max
            ));
        }
        if !(c.sigma >= c.sigma_min && c.sigma <= c.sigma_max) {
            return invalid(format!("sigma = {} must lie in [sigma_min, sigma_max]", c.sigma));
        }
        if !(c.grow.is_finite() && c.grow > 1.0 && c.grow <= 10.0) {
            return invalid(format!("grow = {} must lie in (1, 10]", c.grow));
        }
        Ok(())
    }

    fn games_per_step(s: &EsSettings) -> u128 {
        2 * s.es.pairs as u128
    }

    fn new(s: EsSettings, _: &Setup) -> Result<OnePlusOne, RunError> {
        Ok(OnePlusOne { config: s.es })
    }

    fn start(&self, setup: &Setup) -> EsState {
        EsState {
            theta: theta::initial(setup),
            sigma: self.config.sigma,
        }
    }

    fn check(&self, setup: &Setup, state: &EsState, _: usize) -> Result<(), String> {
        theta::check(setup, &state.theta)?;
        let c = &self.config;
        if !(state.sigma >= c.sigma_min && state.sigma <= c.sigma_max) {
            return Err(format!(
                "its sigma {} lies outside [{}, {}]",
                state.sigma, c.sigma_min, c.sigma_max
            ));
        }
        Ok(())
    }

    /// The child (player 0) against the parent (player 1).
    fn ask(&self, state: &EsState, step: &Step, setup: &Setup) -> Result<(Batch, Pending), RunError> {
        let mut rng = stream(setup.seed, step.number, CHILD);
        let mut child: Vec<f64> = state
            .theta
            .iter()
            .zip(theta::ranges(setup))
            .map(|(&t, range)| t + state.sigma * range * normal(&mut rng))
            .collect();
        theta::clamp(setup, &mut child);
        let fixtures: Vec<Fixture> = (0..self.config.pairs)
            .flat_map(|_| Fixture::pair(0, 1, rng.gen_range(0..step.openings)))
            .collect();
        let params = vec![theta::params(setup, &child), theta::params(setup, &state.theta)];
        let batch = Batch::at(params, step.budget, fixtures.clone());
        Ok((batch, Pending { child, fixtures }))
    }

    fn tell<G: Game>(
        &self,
        state: &EsState,
        pending: Pending,
        records: Vec<GameRecord<G::Move>>,
        step: &Step,
        setup: &Setup,
    ) -> Result<Tell<OnePlusOne>, RunError> {
        let child = tally_players(&pending.fixtures, &records, 2)[0];
        let accepted = child.wins > child.losses;
        let c = &self.config;
        let factor = if accepted { c.grow } else { c.grow.powf(-0.25) };
        let sigma = (state.sigma * factor).clamp(c.sigma_min, c.sigma_max);
        let theta = if accepted {
            pending.child
        } else {
            state.theta.clone()
        };
        let seconds = step.started.elapsed().as_secs_f64();
        let row = EsRow {
            step: step.number,
            games: records.len(),
            child_wins: child.wins as usize,
            draws: child.draws as usize,
            parent_wins: child.losses as usize,
            accepted: accepted.into(),
            sigma,
            drift: theta::drift(setup, &theta),
            seconds,
            games_per_s: records.len() as f64 / seconds.max(1e-9),
        };
        Ok(Tell::Done(Done {
            row,
            champion: theta::params(setup, &theta),
            provenance: theta::provenance(setup, Self::INFO.name, step.number, records.len()),
            state: EsState { theta, sigma },
        }))
    }

    fn view(&self) -> EsView {
        EsView
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;
    use crate::xiangqi::game::XiangqiGame;

    #[test]
    fn sigma_follows_the_one_fifth_rule_within_its_bounds() {
        let specs =
            crate::params::Specs::from([Spec::weight("a", 50, 0, 100, 7), Spec::weight("b", 5, 0, 10, 4)]);
        let base = Params::defaults(&specs);
        let setup = Setup {
            run: "t",
            game: "test",
            specs,
            tuned: &[0, 1],
            base: &base,
            base_name: "built-in",
            init: super::super::config::Init::Weights,
            seed: 3,
            planned: 10,
            linear: true,
        };
        let es = OnePlusOne::new(EsSettings::default(), &setup).unwrap();
        let runner = crate::arena::Runner::new(1).unwrap();
        let step = Step {
            number: 1,
            budget: crate::game::Budget::Nodes(1),
            openings: 3,
            dir: std::path::Path::new("."),
            runner: &runner,
            started: std::time::Instant::now(),
        };
        let state = es.start(&setup);
        assert_eq!(state.theta, [50.0, 5.0]);
        let (batch, pending) = es.ask(&state, &step, &setup).unwrap();
        assert_eq!(batch.fixtures.len(), 40);
        assert!(batch.params[0]
            .values()
            .iter()
            .zip(setup.specs.iter())
            .all(|(&v, s)| s.min <= v && v <= s.max));
        let child = pending.child.clone();
        // The child wins its match: kept, and σ grows by 1.5.
        let won: Vec<GameRecord<<XiangqiGame as Game>::Move>> = pending
            .fixtures
            .iter()
            .map(|f| {
                let mut r = GameRecord::new(String::new(), crate::game::Seat::First);
                r.winner = Some(if f.first == 0 {
                    crate::game::Seat::First
                } else {
                    crate::game::Seat::Second
                });
                r
            })
            .collect();
        let Tell::Done(done) = es
            .tell::<XiangqiGame>(&state, pending, won, &step, &setup)
            .unwrap()
        else {
            panic!("one batch a step")
        };
        assert_eq!(done.state.theta, child);
        assert!((done.state.sigma - 0.075).abs() < 1e-12);
        // Lost matches shrink σ by 1.5^(1/4) each, down to sigma_min and no further.
        let mut state = done.state;
        for _ in 0..200 {
            let (_, pending) = es.ask(&state, &step, &setup).unwrap();
            let kept = state.theta.clone();
            let Tell::Done(done) = es
                .tell::<XiangqiGame>(&state, pending, vec![], &step, &setup)
                .unwrap()
            else {
                panic!()
            };
            assert_eq!(done.state.theta, kept, "a child that does not win is dropped");
            state = done.state;
        }
        assert_eq!(state.sigma, es.config.sigma_min);
    }
}
