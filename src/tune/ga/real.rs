//! Real-valued genes: each tuned parameter is one unrounded value with a mutation step of its
//! own, beside the paper's binary chromosomes. Crossover is per parameter, as the paper has
//! it: uniform (a parent's value whole), blend (BLX-α) or simulated binary (SBX); mutation
//! moves every value by a normal step whose size each individual carries and adapts
//! (self-adaptation, as evolution strategies do), so that step sizes that breed winners
//! spread with them.

use crate::params::Spec;
use crate::tune::theta::normal;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// How a GA spells its individuals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Genes {
    /// Bit strings (seed 003).
    #[default]
    Binary,
    /// One real value and one mutation step per parameter.
    Real,
}

/// How a child's values come from its two parents, parameter by parameter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Crossover {
    /// Each value is one parent's, by a fair coin (the paper's).
    #[default]
    Uniform,
    /// BLX-α: uniform on the parents' interval widened by α of its width on each side.
    Blend,
    /// Simulated binary crossover: near the parents, spread set by η (larger: closer).
    Sbx,
}

/// The settings of real genes (the GA's `real` key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RealConfig {
    #[serde(default)]
    pub crossover: Crossover,
    /// BLX-α's α.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// SBX's distribution index η.
    #[serde(default = "default_eta")]
    pub eta: f64,
    /// Every parameter's first mutation step, as a share of its range; also the spread of
    /// the first population around given weights.
    #[serde(default = "default_sigma")]
    pub sigma: f64,
    /// The bounds the adapted steps are held within.
    #[serde(default = "default_sigma_min")]
    pub sigma_min: f64,
    #[serde(default = "default_sigma_max")]
    pub sigma_max: f64,
}

fn default_alpha() -> f64 {
    0.3
}
fn default_eta() -> f64 {
    2.0
}
fn default_sigma() -> f64 {
    0.04
}
fn default_sigma_min() -> f64 {
    0.002
}
fn default_sigma_max() -> f64 {
    0.25
}

impl Default for RealConfig {
    fn default() -> Self {
        RealConfig {
            crossover: Crossover::default(),
            alpha: default_alpha(),
            eta: default_eta(),
            sigma: default_sigma(),
            sigma_min: default_sigma_min(),
            sigma_max: default_sigma_max(),
        }
    }
}

impl RealConfig {
    /// What is wrong with the settings, if anything.
    pub fn problem(&self) -> Option<String> {
        if !(0.0..=2.0).contains(&self.alpha) {
            return Some(format!("real.alpha = {} must lie in [0, 2]", self.alpha));
        }
        if !(self.eta >= 0.0 && self.eta <= 1000.0) {
            return Some(format!("real.eta = {} must lie in [0, 1000]", self.eta));
        }
        if !(self.sigma_min > 0.0 && self.sigma_min <= self.sigma_max && self.sigma_max <= 1.0) {
            return Some(format!(
                "real.sigma_min = {} and real.sigma_max = {} must satisfy 0 < sigma_min <= sigma_max <= 1",
                self.sigma_min, self.sigma_max
            ));
        }
        if !(self.sigma >= self.sigma_min && self.sigma <= self.sigma_max) {
            return Some(format!(
                "real.sigma = {} must lie in [sigma_min, sigma_max] = [{}, {}]",
                self.sigma, self.sigma_min, self.sigma_max
            ));
        }
        None
    }
}

/// An individual of real genes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Individual {
    /// The tuned parameters' values, unrounded, within their bounds.
    pub values: Vec<f64>,
    /// Each value's mutation step, a share of its parameter's range.
    pub steps: Vec<f64>,
}

/// The tuned parameters' bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Bounds {
    pub min: Vec<f64>,
    pub max: Vec<f64>,
}

impl Bounds {
    /// The bounds of the parameters `specs` describe, in their order.
    pub fn of<'a>(specs: impl Iterator<Item = &'a Spec> + Clone) -> Bounds {
        Bounds {
            min: specs.clone().map(|s| f64::from(s.min)).collect(),
            max: specs.map(|s| f64::from(s.max)).collect(),
        }
    }

    pub(super) fn clamp(&self, k: usize, v: f64) -> f64 {
        v.clamp(self.min[k], self.max[k])
    }

    pub(super) fn range(&self, k: usize) -> f64 {
        (self.max[k] - self.min[k]).max(1.0)
    }
}

/// The child of `a` and `b` (parameter by parameter) under `config`'s crossover.
pub fn cross(config: &RealConfig, a: &[f64], b: &[f64], bounds: &Bounds, rng: &mut impl Rng) -> Vec<f64> {
    (0..a.len())
        .map(|k| {
            let (x, y) = (a[k], b[k]);
            let v = match config.crossover {
                Crossover::Uniform => {
                    if rng.gen::<bool>() {
                        x
                    } else {
                        y
                    }
                }
                Crossover::Blend => {
                    let (lo, hi) = (x.min(y), x.max(y));
                    let widen = config.alpha * (hi - lo);
                    lo - widen + rng.gen::<f64>() * (hi - lo + 2.0 * widen)
                }
                Crossover::Sbx => {
                    let u: f64 = rng.gen();
                    let power = 1.0 / (config.eta + 1.0);
                    let beta = if u <= 0.5 {
                        (2.0 * u).powf(power)
                    } else {
                        (1.0 / (2.0 * (1.0 - u))).powf(power)
                    };
                    // One of SBX's two children, by a fair coin: their mean is the parents'.
                    let sign = if rng.gen::<bool>() { 1.0 } else { -1.0 };
                    0.5 * (x + y) + sign * 0.5 * beta * (x - y)
                }
            };
            bounds.clamp(k, v)
        })
        .collect()
}

/// The steps a child carries: its parents' geometric mean (or the one parent's), each then
/// multiplied by a log-normal factor shared by the whole individual and one of its own
/// (Schwefel's rule: τ₀ = 1/√(2d), τ = 1/√(2√d)), and held within the configured bounds.
pub fn adapt(config: &RealConfig, a: &[f64], b: Option<&[f64]>, rng: &mut impl Rng) -> Vec<f64> {
    let d = a.len().max(1) as f64;
    let (tau0, tau) = (1.0 / (2.0 * d).sqrt(), 1.0 / (2.0 * d.sqrt()).sqrt());
    let shared = tau0 * normal(rng);
    (0..a.len())
        .map(|k| {
            let parent = b.map_or(a[k], |b| (a[k] * b[k]).sqrt());
            (parent * (shared + tau * normal(rng)).exp()).clamp(config.sigma_min, config.sigma_max)
        })
        .collect()
}

/// Moves every value by a normal step of its own size (a share of the range), within bounds.
pub fn mutate(values: &mut [f64], steps: &[f64], bounds: &Bounds, rng: &mut impl Rng) {
    for (k, v) in values.iter_mut().enumerate() {
        *v = bounds.clamp(k, *v + steps[k] * bounds.range(k) * normal(rng));
    }
}

/// The root mean square distance between two individuals, in shares of the ranges.
pub fn distance(a: &[f64], b: &[f64], bounds: &Bounds) -> f64 {
    let sum: f64 = (0..a.len())
        .map(|k| ((a[k] - b[k]) / bounds.range(k)).powi(2))
        .sum();
    (sum / a.len().max(1) as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::SeedableRng;

    fn bounds() -> Bounds {
        Bounds {
            min: vec![0.0, 50.0, -100.0],
            max: vec![10.0, 400.0, 100.0],
        }
    }

    proptest! {
        /// Uniform takes a parent's value, blend stays within the parents' interval widened
        /// by α, SBX within the bounds around the parents' mean; all within the bounds.
        #[test]
        fn children_stay_within_their_parents_box(seed in 0u64..1000, a0 in 0.0..10.0f64, b0 in 0.0..10.0f64,
                                                   a1 in 50.0..400.0f64, b1 in 50.0..400.0f64) {
            let (a, b) = (vec![a0, a1, 0.0], vec![b0, b1, 50.0]);
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            for crossover in [Crossover::Uniform, Crossover::Blend, Crossover::Sbx] {
                let config = RealConfig { crossover, ..RealConfig::default() };
                let child = cross(&config, &a, &b, &bounds(), &mut rng);
                for k in 0..3 {
                    let (lo, hi) = (a[k].min(b[k]), a[k].max(b[k]));
                    let v = child[k];
                    prop_assert!(v >= bounds().min[k] && v <= bounds().max[k]);
                    match crossover {
                        Crossover::Uniform => prop_assert!(v == a[k] || v == b[k]),
                        Crossover::Blend => {
                            let widen = config.alpha * (hi - lo);
                            prop_assert!(v >= lo - widen - 1e-9 && v <= hi + widen + 1e-9);
                        }
                        Crossover::Sbx => {}
                    }
                }
                let strict = RealConfig { crossover: Crossover::Blend, alpha: 0.0, ..RealConfig::default() };
                let child = cross(&strict, &a, &b, &bounds(), &mut rng);
                for k in 0..3 {
                    prop_assert!(child[k] >= a[k].min(b[k]) - 1e-9 && child[k] <= a[k].max(b[k]) + 1e-9);
                }
            }
        }

        /// Adapted steps stay positive and within their bounds, whatever the draws.
        #[test]
        fn adapted_steps_stay_positive_and_bounded(seed in 0u64..1000, s in 0.002..0.25f64) {
            let config = RealConfig::default();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut steps = vec![s; 26];
            for _ in 0..50 {
                let other = adapt(&config, &steps, None, &mut rng);
                steps = adapt(&config, &steps, Some(&other), &mut rng);
                prop_assert!(steps.iter().all(|&x| x > 0.0 && x >= config.sigma_min && x <= config.sigma_max));
            }
        }
    }

    #[test]
    fn sbx_children_centre_on_their_parents_and_eta_narrows_them() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let wide = Bounds {
            min: vec![-1e6],
            max: vec![1e6],
        };
        let spread = |eta: f64, rng: &mut rand_chacha::ChaCha8Rng| {
            let config = RealConfig {
                crossover: Crossover::Sbx,
                eta,
                ..RealConfig::default()
            };
            let draws: Vec<f64> = (0..20_000)
                .map(|_| cross(&config, &[0.0], &[10.0], &wide, rng)[0])
                .collect();
            let mean = draws.iter().sum::<f64>() / draws.len() as f64;
            let sd = (draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / draws.len() as f64).sqrt();
            (mean, sd)
        };
        let (mean, sd2) = spread(2.0, &mut rng);
        assert!((mean - 5.0).abs() < 0.2, "{mean}");
        let (_, sd20) = spread(20.0, &mut rng);
        assert!(sd20 < sd2, "{sd20} {sd2}");
    }

    #[test]
    fn mutation_moves_every_value_within_bounds_by_its_own_step() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let b = bounds();
        let mut moved = [0.0f64; 3];
        for _ in 0..2_000 {
            let mut v = vec![5.0, 200.0, 0.0];
            mutate(&mut v, &[0.01, 0.1, 0.0], &b, &mut rng);
            for (k, x) in v.iter().enumerate() {
                assert!(*x >= b.min[k] && *x <= b.max[k]);
            }
            moved[0] += (v[0] - 5.0).abs();
            moved[1] += (v[1] - 200.0).abs();
            moved[2] += v[2].abs();
        }
        // Mean |N(0,1)| is 0.8: 0.01 of a range of 10 and 0.1 of 350.
        assert!((moved[0] / 2_000.0 - 0.08).abs() < 0.01, "{}", moved[0] / 2_000.0);
        assert!((moved[1] / 2_000.0 - 28.0).abs() < 2.0, "{}", moved[1] / 2_000.0);
        assert_eq!(moved[2], 0.0);
    }
}
