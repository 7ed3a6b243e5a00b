//! The tuned values as real numbers: what the methods that move the weights directly (SPSA,
//! the fit, evolution strategies) carry from step to step, and how they become weights.

use super::config::Init;
use super::method::{stream, Setup, START};
use crate::params::Params;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// The state of a method that keeps only the tuned values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThetaState {
    /// Always empty: `state.json` had this key for every method before each method had a
    /// state of its own, and keeps it so that those runs resume and new ones match them.
    #[serde(default)]
    population: Vec<String>,
    /// The tuned parameters' values, unrounded, in spec order.
    pub theta: Vec<f64>,
    /// SPSA's independent chains, each its own `theta` (empty for a single chain: `theta` is
    /// then the chain, and the files of single-chain runs stay as they were).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<Vec<f64>>,
}

impl ThetaState {
    pub fn new(theta: Vec<f64>) -> ThetaState {
        ThetaState {
            population: Vec::new(),
            theta,
            chains: Vec::new(),
        }
    }

    /// The state of several chains: `theta` is their mean, which is the step's champion.
    pub fn of_chains(chains: Vec<Vec<f64>>) -> ThetaState {
        if chains.len() == 1 {
            return ThetaState::new(chains.into_iter().next().unwrap_or_default());
        }
        let n = chains.len() as f64;
        let theta = (0..chains.first().map_or(0, Vec::len))
            .map(|t| chains.iter().map(|c| c[t]).sum::<f64>() / n)
            .collect();
        ThetaState {
            population: Vec::new(),
            theta,
            chains,
        }
    }

    /// Each chain's values: `theta` alone for a single chain.
    pub fn each_chain(&self) -> Vec<&[f64]> {
        if self.chains.is_empty() {
            vec![self.theta.as_slice()]
        } else {
            self.chains.iter().map(Vec::as_slice).collect()
        }
    }
}

/// Where the tuned values start: the base weights (`init: weights`), the built-in ones
/// (`defaults`), or drawn at random.
pub fn initial(setup: &Setup) -> Vec<f64> {
    let mut rng = stream(setup.seed, 0, START);
    setup
        .tuned
        .iter()
        .map(|&i| {
            let s = &setup.specs[i];
            match setup.init {
                Init::Weights => setup.base.values()[i] as f64,
                Init::Defaults => s.default as f64,
                Init::Random => rng.gen_range(s.min..=s.max) as f64,
            }
        })
        .collect()
}

/// The full parameter set with the tuned values at `theta` (rounded).
pub fn params(setup: &Setup, theta: &[f64]) -> Params {
    let mut values = setup.base.values().to_vec();
    for (&i, &t) in setup.tuned.iter().zip(theta) {
        values[i] = t.round() as i32;
    }
    Params::from_values(&setup.specs, &values).expect("tuned values stay within their bounds")
}

/// `theta` kept within the tuned parameters' bounds.
pub fn clamp(setup: &Setup, theta: &mut [f64]) {
    for (t, &i) in theta.iter_mut().zip(setup.tuned) {
        let s = &setup.specs[i];
        *t = t.clamp(f64::from(s.min), f64::from(s.max));
    }
}

/// Each tuned parameter's range, at least 1.
pub fn ranges(setup: &Setup) -> Vec<f64> {
    setup
        .tuned
        .iter()
        .map(|&i| f64::from((setup.specs[i].max - setup.specs[i].min).max(1)))
        .collect()
}

/// How far `theta` lies from the base: the root mean square of the distances as shares of
/// the parameters' ranges.
pub fn drift(setup: &Setup, theta: &[f64]) -> f64 {
    let sum: f64 = setup
        .tuned
        .iter()
        .zip(theta)
        .zip(ranges(setup))
        .map(|((&i, &t), range)| ((t - f64::from(setup.base.values()[i])) / range).powi(2))
        .sum();
    (sum / setup.tuned.len().max(1) as f64).sqrt()
}

/// Checks a saved `theta`: one value per tuned parameter, each within its bounds.
pub(crate) fn check(setup: &Setup, theta: &[f64]) -> Result<(), String> {
    let values = setup.tuned.len();
    if theta.len() != values {
        return Err(format!(
            "it does not hold the {values} tuned values the method needs"
        ));
    }
    for (&i, &v) in setup.tuned.iter().zip(theta) {
        let s = &setup.specs[i];
        if !(v >= f64::from(s.min) && v <= f64::from(s.max)) {
            return Err(format!(
                "its value {v} of '{}' is outside [{}, {}]",
                s.name, s.min, s.max
            ));
        }
    }
    Ok(())
}

/// What a champion file of a method that keeps tuned values says of where it came from
/// (the run adds the step's number), after `steps` steps of `games` games each.
pub fn provenance(setup: &Setup, method: &str, steps: usize, games: usize) -> serde_json::Value {
    serde_json::json!({
        "run": setup.run, "method": method,
        "games": games * steps,
        "base": setup.base_name,
        "tuned": setup.tuned.iter().map(|&i| &setup.specs[i].name).collect::<Vec<_>>(),
    })
}

/// A standard normal draw (Box-Muller).
pub fn normal(rng: &mut impl Rng) -> f64 {
    let u: f64 = 1.0 - rng.gen::<f64>();
    let v: f64 = rng.gen();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn normal_draws_have_mean_0_and_spread_1() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let draws: Vec<f64> = (0..100_000).map(|_| normal(&mut rng)).collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let var = draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / draws.len() as f64;
        assert!(mean.abs() < 0.02 && (var - 1.0).abs() < 0.02, "{mean} {var}");
    }
}
