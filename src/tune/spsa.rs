//! SPSA (simultaneous perturbation stochastic approximation) as distributed testers run it:
//! every tuned parameter is perturbed at once by ±c_k, the two perturbed sets play each
//! other from paired openings with colours swapped, and each parameter moves by
//! `a_k / c_k × (wins − losses of the plus set) × its direction`.
//!
//! The gains follow the standard schedules `c_k = c / k^γ` and `a_k = a / (A + k)^α`, with
//! `c` and `a` derived from end values (fishtest's convention): at the last iteration N,
//! `c_N = c_end` and `a_N / c_N² = r_end`. `c_end` is given per parameter as a share of its
//! range (or in its own units), so one configuration serves material and piece-square
//! values alike.

use super::config::{Config, ConfigError};
use super::folder::RunError;
use super::method::{stream, Batch, Done, Info, Method, Row, Setup, Step, Tell};
use super::observe::{Chart, View};
use super::theta::{self, ThetaState};
use crate::arena::{stats::Wdl, tally_players, Fixture};
use crate::game::{Game, GameRecord};
use crate::params::Spec;
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// SPSA's settings in a run configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpsaConfig {
    /// Iterations a step; all iterations of a step see the same weights, so a step's games
    /// run in parallel and the run is the same on any number of threads.
    pub iterations: usize,
    /// Game pairs (two openings' worth of colour-swapped games) an iteration.
    #[serde(default = "one")]
    pub pairs: usize,
    /// The perturbation at the last iteration, as a share of each parameter's range (at
    /// least one unit).
    #[serde(default = "default_c_end")]
    pub c_end: f64,
    /// Perturbations at the last iteration in the parameters' own units, by name: these
    /// override `c_end` for the parameters they name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub c_end_values: BTreeMap<String, f64>,
    /// a_N / c_N² at the last iteration.
    #[serde(default = "default_r_end")]
    pub r_end: f64,
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    #[serde(default = "default_gamma")]
    pub gamma: f64,
    /// A, the stability constant, as a share of the run's iterations.
    #[serde(default = "default_a_share")]
    pub a_share: f64,
    /// Independent chains from the same start, each with its own directions and openings,
    /// every one a step's `iterations`; the step's champion is their mean. SPSA's last steps
    /// leave noise in where a chain ends, and the mean of several ends carries less of it.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub chains: usize,
}

fn one() -> usize {
    1
}
fn is_one(n: &usize) -> bool {
    *n == 1
}
fn default_c_end() -> f64 {
    0.025
}
fn default_r_end() -> f64 {
    0.002
}
fn default_alpha() -> f64 {
    0.602
}
fn default_gamma() -> f64 {
    0.101
}
fn default_a_share() -> f64 {
    0.1
}

impl SpsaConfig {
    /// Checks the settings' ranges (parameter names are checked by [`Schedule::new`]).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let invalid = |m: String| Err(ConfigError::Invalid(format!("spsa.{m}")));
        if !(1..=1_000_000).contains(&self.iterations) {
            return invalid(format!(
                "iterations = {} must be from 1 to 1000000",
                self.iterations
            ));
        }
        if !(1..=100).contains(&self.pairs) {
            return invalid(format!("pairs = {} must be from 1 to 100", self.pairs));
        }
        if !(1..=64).contains(&self.chains) {
            return invalid(format!("chains = {} must be from 1 to 64", self.chains));
        }
        for (name, v, lo, hi) in [
            ("c_end", self.c_end, 0.0, 1.0),
            ("r_end", self.r_end, 0.0, 1.0),
            ("alpha", self.alpha, 0.0, 2.0),
            ("gamma", self.gamma, 0.0, 2.0),
            ("a_share", self.a_share, 0.0, 10.0),
        ] {
            if !(v.is_finite() && v > lo && v <= hi) || (name == "a_share" && v == 0.0) {
                return invalid(format!("{name} = {v} must lie in ({lo}, {hi}]"));
            }
        }
        for (name, &v) in &self.c_end_values {
            if !(v.is_finite() && v > 0.0) {
                return invalid(format!("c_end_values.{name} = {v} must be positive"));
            }
        }
        Ok(())
    }
}

/// The gains of a run of `total` iterations for its tuned parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// c for each tuned parameter (c_k = c / k^γ).
    c: Vec<f64>,
    /// a for each tuned parameter (a_k = a / (A + k)^α).
    a: Vec<f64>,
    big_a: f64,
    alpha: f64,
    gamma: f64,
}

/// One iteration's gains for each tuned parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Gains {
    /// The perturbation c_k.
    pub c: Vec<f64>,
    /// The step per point of result, a_k / c_k.
    pub step: Vec<f64>,
}

impl Schedule {
    /// The schedule of `config` over `total` iterations for the parameters `tuned` (spec
    /// indices into `specs`).
    pub fn new(
        config: &SpsaConfig,
        specs: &[Spec],
        tuned: &[usize],
        total: u64,
    ) -> Result<Schedule, ConfigError> {
        for name in config.c_end_values.keys() {
            if !tuned.iter().any(|&i| specs[i].name == name.as_str()) {
                return Err(ConfigError::Invalid(format!(
                    "spsa.c_end_values: '{name}' is not a tuned parameter"
                )));
            }
        }
        let n = total.max(1) as f64;
        let big_a = config.a_share * n;
        let c_end: Vec<f64> = tuned
            .iter()
            .map(|&i| {
                let s = &specs[i];
                config
                    .c_end_values
                    .get(s.name.as_ref())
                    .copied()
                    .unwrap_or_else(|| (config.c_end * f64::from(s.max - s.min)).max(1.0))
            })
            .collect();
        Ok(Schedule {
            c: c_end.iter().map(|c| c * n.powf(config.gamma)).collect(),
            a: c_end
                .iter()
                .map(|c| config.r_end * c * c * (big_a + n).powf(config.alpha))
                .collect(),
            big_a,
            alpha: config.alpha,
            gamma: config.gamma,
        })
    }

    /// The gains of iteration `k` (1-based).
    pub fn gains(&self, k: u64) -> Gains {
        let k = k.max(1) as f64;
        let c: Vec<f64> = self.c.iter().map(|c| c / k.powf(self.gamma)).collect();
        let step = self
            .a
            .iter()
            .zip(&c)
            .map(|(a, ck)| a / (self.big_a + k).powf(self.alpha) / ck)
            .collect();
        Gains { c, step }
    }
}

/// SPSA's keys of a run configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpsaSettings {
    /// Its settings (required).
    #[serde(default)]
    pub spsa: Option<SpsaConfig>,
}

/// One SPSA step (a row of steps.csv).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaRow {
    #[serde(alias = "generation")]
    pub step: usize,
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

impl Row for SpsaRow {
    fn step(&self) -> usize {
        self.step
    }
}

/// How a step reads: the line of its figures; its report draws a chart a column.
pub struct SpsaView;

impl View for SpsaView {
    type Row = SpsaRow;
    const CHARTS: &'static [Chart] = &[];

    fn line(&self, r: &SpsaRow) -> String {
        format!(
            "step {:>4}: {} iterations  plus +{} ={} -{} minus  c {:.2}% of range  drift {:.2}%  {:.1} games/s",
            r.step,
            r.iterations,
            r.plus_wins,
            r.draws,
            r.minus_wins,
            100.0 * r.c_share,
            100.0 * r.drift,
            r.games_per_s
        )
    }

    fn progress(&self, r: &SpsaRow) -> String {
        format!("drift {:.2}%", 100.0 * r.drift)
    }
}

/// The stream purpose of an iteration's direction and openings.
const ITERATION: u64 = 4;

/// SPSA in a run: its settings and the gains over the run's planned iterations.
pub struct Spsa {
    config: SpsaConfig,
    schedule: Schedule,
}

/// A step's iterations: each one's direction.
pub struct Pending {
    directions: Vec<Vec<f64>>,
    fixtures: Vec<Fixture>,
}

impl Spsa {
    fn settings(s: &SpsaSettings) -> Result<&SpsaConfig, ConfigError> {
        s.spsa
            .as_ref()
            .ok_or_else(|| ConfigError::Invalid("method = \"spsa\" needs an \"spsa\" section".to_string()))
    }
}

impl Method for Spsa {
    type Settings = SpsaSettings;
    type State = ThetaState;
    type Row = SpsaRow;
    type Pending = Pending;
    type View = SpsaView;

    const INFO: Info = Info {
        name: "spsa",
        keys: &["spsa"],
        unit: "step",
        csv: "steps.csv",
        columns: &[
            "iterations",
            "games",
            "plus_wins",
            "draws",
            "minus_wins",
            "c_share",
            "drift",
            "seconds",
            "games_per_s",
        ],
    };

    fn validate(s: &SpsaSettings, config: &Config, specs: &[Spec]) -> Result<(), ConfigError> {
        let c = Spsa::settings(s)?;
        c.validate()?;
        // Its per-parameter settings must name tuned parameters.
        Schedule::new(c, specs, &config.evolved(specs)?, 1).map(|_| ())
    }

    /// Each iteration's game pairs.
    fn games_per_step(s: &SpsaSettings) -> u128 {
        s.spsa.as_ref().map_or(0, |c| {
            2 * c.iterations as u128 * c.pairs as u128 * c.chains as u128
        })
    }

    fn new(s: SpsaSettings, setup: &Setup) -> Result<Spsa, RunError> {
        let config = Spsa::settings(&s)?.clone();
        // Both factors are bounded by validation (generations and iterations), so the
        // product of two u64s of at most 10^7 and 10^6 is exact.
        let total = setup.planned as u64 * config.iterations as u64;
        let schedule = Schedule::new(&config, &setup.specs, setup.tuned, total)?;
        Ok(Spsa { config, schedule })
    }

    fn start(&self, setup: &Setup) -> ThetaState {
        ThetaState::of_chains(vec![theta::initial(setup); self.config.chains])
    }

    fn check(&self, setup: &Setup, state: &ThetaState, _: usize) -> Result<(), String> {
        let chains = state.each_chain();
        if chains.len() != self.config.chains {
            return Err(format!(
                "it holds {} chains where spsa.chains is {}",
                chains.len(),
                self.config.chains
            ));
        }
        chains
            .into_iter()
            .try_for_each(|theta| theta::check(setup, theta))
    }

    /// Each iteration of each chain: a direction, the two perturbed sets, and its openings,
    /// all from its own stream. All iterations of a step see the same weights, so they play
    /// in parallel.
    fn ask(&self, state: &ThetaState, step: &Step, setup: &Setup) -> Result<(Batch, Pending), RunError> {
        let first = self.first(step);
        let iterations = self.config.iterations * self.config.chains;
        let mut directions = Vec::with_capacity(iterations);
        let mut params = Vec::with_capacity(2 * iterations);
        let mut fixtures = Vec::new();
        for (chain, theta) in state.each_chain().into_iter().enumerate() {
            for j in 0..self.config.iterations {
                let k = first + j as u64;
                // The first chain's streams are those of a run of one chain.
                let mut rng = stream(setup.seed, k as usize, ITERATION + ((chain as u64) << 32));
                let direction: Vec<f64> = setup
                    .tuned
                    .iter()
                    .map(|_| if rng.gen::<bool>() { 1.0 } else { -1.0 })
                    .collect();
                let gains = self.schedule.gains(k);
                for sign in [1.0, -1.0] {
                    let mut point: Vec<f64> = (0..direction.len())
                        .map(|t| theta[t] + sign * gains.c[t] * direction[t])
                        .collect();
                    theta::clamp(setup, &mut point);
                    params.push(theta::params(setup, &point));
                }
                let plus = 2 * directions.len();
                for _ in 0..self.config.pairs {
                    fixtures.extend(Fixture::pair(plus, plus + 1, rng.gen_range(0..step.openings)));
                }
                directions.push(direction);
            }
        }
        let batch = Batch::at(params, step.budget, fixtures.clone());
        Ok((batch, Pending { directions, fixtures }))
    }

    /// Each parameter of each chain moves by a_k / c_k times the plus set's wins minus
    /// losses times its direction, iteration by iteration.
    fn tell<G: Game>(
        &self,
        state: &ThetaState,
        pending: Pending,
        records: Vec<GameRecord<G::Move>>,
        step: &Step,
        setup: &Setup,
    ) -> Result<Tell<Spsa>, RunError> {
        let first = self.first(step);
        let results = tally_players(&pending.fixtures, &records, 2 * pending.directions.len());
        let mut chains: Vec<Vec<f64>> = state.each_chain().into_iter().map(<[f64]>::to_vec).collect();
        let mut last_c = Vec::new();
        for (i, direction) in pending.directions.iter().enumerate() {
            let (chain, j) = (i / self.config.iterations, i % self.config.iterations);
            let theta = &mut chains[chain];
            let gains = self.schedule.gains(first + j as u64);
            let plus = results[2 * i];
            let result = plus.wins as f64 - plus.losses as f64;
            for (t, x) in theta.iter_mut().enumerate() {
                *x += gains.step[t] * result * direction[t];
            }
            theta::clamp(setup, theta);
            last_c = gains.c;
        }
        let state = ThetaState::of_chains(chains);
        let theta = &state.theta;
        let mut plus = Wdl::default();
        results.iter().step_by(2).for_each(|&w| plus.add(w));
        let seconds = step.started.elapsed().as_secs_f64();
        let c_share = last_c
            .iter()
            .zip(theta::ranges(setup))
            .map(|(c, range)| c / range)
            .sum::<f64>()
            / setup.tuned.len().max(1) as f64;
        let row = SpsaRow {
            step: step.number,
            iterations: first - 1 + self.config.iterations as u64,
            games: records.len(),
            plus_wins: plus.wins as usize,
            draws: plus.draws as usize,
            minus_wins: plus.losses as usize,
            c_share,
            drift: theta::drift(setup, theta),
            seconds,
            games_per_s: records.len() as f64 / seconds.max(1e-9),
        };
        Ok(Tell::Done(Done {
            row,
            champion: theta::params(setup, theta),
            provenance: theta::provenance(setup, Self::INFO.name, step.number, records.len()),
            state,
        }))
    }

    fn view(&self) -> SpsaView {
        SpsaView
    }
}

impl Spsa {
    /// The first iteration (1-based) of a step.
    fn first(&self, step: &Step) -> u64 {
        (step.number as u64 - 1) * self.config.iterations as u64 + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> SpsaConfig {
        serde_json::from_str(r#"{"iterations": 10, "c_end_values": {"b": 3.0}}"#).unwrap()
    }

    const SPECS: [Spec; 2] = [Spec::weight("a", 0, -100, 100, 8), Spec::weight("b", 0, 0, 10, 4)];

    #[test]
    fn the_schedule_ends_at_its_end_values() {
        // N = 1000, A = 100: c = c_end N^γ, a = r_end c_end² (A + N)^α.
        let s = Schedule::new(&config(), &SPECS, &[0, 1], 1000).unwrap();
        // c_end: 0.025 × 200 = 5 for a, 3 (given) for b.
        let last = s.gains(1000);
        assert!((last.c[0] - 5.0).abs() < 1e-9 && (last.c[1] - 3.0).abs() < 1e-9);
        // a_N / c_N = r_end × c_end.
        assert!((last.step[0] - 0.002 * 5.0).abs() < 1e-12);
        assert!((last.step[1] - 0.002 * 3.0).abs() < 1e-12);
        // By hand: c_1 = 5 × 1000^0.101 = 10.0455; a = 0.002 × 25 × 1100^0.602 = 3.38757,
        // a_1 = a / 101^0.602 = 0.210517, step_1 = a_1 / c_1 = 0.0209564.
        let first = s.gains(1);
        assert!((first.c[0] - 10.0455).abs() < 1e-3, "{}", first.c[0]);
        assert!((first.step[0] - 0.0209564).abs() < 1e-6, "{}", first.step[0]);
        let mid = s.gains(500);
        assert!(mid.c[0] < first.c[0] && mid.c[0] > last.c[0]);
    }

    #[test]
    fn a_small_range_still_moves_by_one() {
        let c = SpsaConfig {
            c_end_values: BTreeMap::new(),
            ..config()
        };
        let s = Schedule::new(&c, &SPECS, &[1], 10).unwrap();
        assert!((s.gains(10).c[0] - 1.0).abs() < 1e-9, "0.025 × 10 is raised to 1");
    }

    #[test]
    fn bad_settings_are_named() {
        let bad = |json: &str| {
            let c: SpsaConfig = serde_json::from_str(json).unwrap();
            c.validate().unwrap_err().to_string()
        };
        assert!(bad(r#"{"iterations": 0}"#).contains("spsa.iterations = 0"));
        assert!(bad(r#"{"iterations": 5, "r_end": -1}"#).contains("spsa.r_end = -1"));
        assert!(bad(r#"{"iterations": 5, "c_end_values": {"x": 0}}"#).contains("c_end_values.x"));
        let unknown = Schedule::new(&config(), &SPECS, &[0], 10).unwrap_err();
        assert!(unknown.to_string().contains("'b' is not a tuned parameter"));
    }
}
