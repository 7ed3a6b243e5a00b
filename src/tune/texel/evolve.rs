//! The fit by a GA instead of gradient descent: mirrored twins around a centre, each pair
//! judged by the fit's objective (the logistic loss against the targets plus the prior), the
//! winners' mean the next centre. With a mentor's scores as the targets this is the GA whose
//! fitness is agreement with a mentor (David-Tabibi, Koppel and Netanyahu, GECCO 2008): no
//! game is played to compare two individuals, so a generation costs milliseconds and its
//! verdicts carry no noise. The same twins as the GA's games-based mode
//! ([`crate::tune::ga::twins`]); only the fitness differs.

use super::fit::{fit_k, loss, prior_pull, Fit, Samples, TexelConfig};
use crate::params::Spec;
use crate::tune::ga::real::{Bounds, RealConfig};
use crate::tune::ga::twins;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// Evolves the tuned parameters from `theta` for `config.epochs` generations of twins (as
/// `config.twins` sets them) on the loss at K (fitted to `theta` first, then held) plus the
/// prior centred on `anchor`, the objective [`super::fit::fit`] descends; keeps the centre
/// with the lowest held-out loss. Every random choice comes from `rng`, and the losses are summed in a fixed order,
/// so the result is the same on any number of threads.
pub fn evolve(
    fit_on: &Samples,
    held_out: &Samples,
    theta: &[f64],
    anchor: &[f64],
    specs: &[Spec],
    config: &TexelConfig,
    rng: &mut ChaCha8Rng,
) -> Fit {
    let settings = config.twins.clone().unwrap_or_default();
    let k = fit_k(fit_on, theta);
    let bounds = Bounds::of(specs.iter());
    let pull = prior_pull(specs, config.prior, fit_on.len());
    let objective = |x: &[f64]| {
        let prior: f64 = x
            .iter()
            .zip(anchor)
            .zip(&pull)
            .map(|((v, a), p)| p * (v - a) * (v - a) / 2.0)
            .sum();
        loss(fit_on, x, k, None) + prior
    };
    let schedule = RealConfig {
        sigma: settings.sigma,
        sigma_min: settings.sigma_min,
        ..RealConfig::default()
    };
    let loss_start = loss(fit_on, theta, k, None);
    let held_out_start = loss(held_out, theta, k, None);
    let mut centre = theta.to_vec();
    let mut best = (held_out_start, 0, centre.clone());
    for generation in 1..=config.epochs {
        let step = twins::step_at(&schedule, generation, config.epochs);
        let pair = twins::mirrored(&centre, step, settings.pairs, &bounds, rng);
        // Lower is better; the twins' comparison wants higher, in a fixed-point score.
        let scores: Vec<f64> = pair.par_iter().map(|i| objective(&i.values)).collect();
        let fitness: Vec<i32> = scores
            .chunks(2)
            .flat_map(|p| match p[0].partial_cmp(&p[1]) {
                Some(std::cmp::Ordering::Less) => [1, -1],
                Some(std::cmp::Ordering::Greater) => [-1, 1],
                _ => [0, 0],
            })
            .collect();
        centre = twins::recombine(&centre, &pair, &twins::winners(&fitness));
        let held = loss(held_out, &centre, k, None);
        if held < best.0 {
            best = (held, generation, centre.clone());
        }
    }
    Fit::kept(fit_on, k, (loss_start, held_out_start), best)
}

#[cfg(test)]
mod tests {
    use super::super::fit::tests::{known_config, known_weights};
    use super::super::fit::TwinsFit;
    use super::*;
    use rand::SeedableRng;

    /// Twins judged by the loss alone find the weights behind the results, as the gradient
    /// does, and the same seed gives the same weights.
    #[test]
    fn twins_recover_known_weights() {
        let known = known_weights(&["rook", "horse", "cannon", "mobility_rook", "hanging"]);
        let (start, bounds) = (known.start(), known.bounds());
        let config = TexelConfig {
            prior: 100.0,
            twins: Some(TwinsFit {
                pairs: 8,
                sigma: 0.05,
                sigma_min: 0.002,
            }),
            ..known_config(150)
        };
        let run = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            evolve(&known.on, &known.held, &start, &start, &bounds, &config, &mut rng)
        };
        let f = run(3);
        assert!(f.loss < f.loss_start && f.held_out < f.held_out_start);
        known.assert_found(&f.theta);
        assert_eq!(run(3).theta, f.theta);
    }
}
