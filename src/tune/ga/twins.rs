//! Mirrored twins (`fitness: twins`): a real-valued GA whose population is pairs of twins
//! placed symmetrically around a centre, each pair a group of two that plays itself.
//!
//! Every twin differs from the centre by the same step in every parameter, up or down by a
//! fair coin, and its twin by the opposite step, so that the pair's game decides between two
//! directions that differ in everything the centre could change, and the opening, the
//! colours and the centre cancel out of the comparison. Each pair's winner survives; the next
//! centre is the survivors' mean, a drawn pair counting as the centre (global intermediate
//! recombination over the winners: an evolution strategy's (μ/μ, λ) selection with mirrored
//! sampling). The step shrinks geometrically from `real.sigma` to `real.sigma_min` over the
//! run, as SPSA's perturbation does, so that the centre settles as the run ends.

use super::real::{Bounds, Individual, RealConfig};
use rand::Rng;

/// The step of every twin at `generation` (1-based) of a run of `planned` generations, a
/// share of each parameter's range: `sigma` at the first, `sigma_min` at the last.
pub fn step_at(config: &RealConfig, generation: usize, planned: usize) -> f64 {
    let t = if planned <= 1 {
        0.0
    } else {
        (generation.saturating_sub(1) as f64 / (planned - 1) as f64).min(1.0)
    };
    // Held within the bounds a resumed run's state is checked against (powf may round).
    (config.sigma * (config.sigma_min / config.sigma).powf(t)).clamp(config.sigma_min, config.sigma)
}

/// `pairs` pairs of twins around `centre`: individuals 2k and 2k+1 are `centre` plus and
/// minus `step` of each range, each parameter's sign by a fair coin (held within bounds).
pub fn mirrored(
    centre: &[f64],
    step: f64,
    pairs: usize,
    bounds: &Bounds,
    rng: &mut impl Rng,
) -> Vec<Individual> {
    let steps = vec![step; centre.len()];
    let mut out = Vec::with_capacity(2 * pairs);
    for _ in 0..pairs {
        let (mut up, mut down) = (centre.to_vec(), centre.to_vec());
        for k in 0..centre.len() {
            let d = if rng.gen::<bool>() { step } else { -step } * bounds.range(k);
            up[k] = bounds.clamp(k, centre[k] + d);
            down[k] = bounds.clamp(k, centre[k] - d);
        }
        out.push(Individual {
            values: up,
            steps: steps.clone(),
        });
        out.push(Individual {
            values: down,
            steps: steps.clone(),
        });
    }
    out
}

/// Each pair's winner by `fitness` (wins minus losses), `None` for a drawn pair.
pub fn winners(fitness: &[i32]) -> Vec<Option<usize>> {
    fitness
        .chunks(2)
        .enumerate()
        .map(|(k, pair)| match pair[0].cmp(&pair[1]) {
            std::cmp::Ordering::Greater => Some(2 * k),
            std::cmp::Ordering::Less => Some(2 * k + 1),
            std::cmp::Ordering::Equal => None,
        })
        .collect()
}

/// The next centre: the mean over the pairs of each pair's winner, a drawn pair giving
/// `centre` itself.
pub fn recombine(centre: &[f64], individuals: &[Individual], winners: &[Option<usize>]) -> Vec<f64> {
    let n = winners.len().max(1) as f64;
    (0..centre.len())
        .map(|k| {
            let sum: f64 = winners
                .iter()
                .map(|w| w.map_or(centre[k], |i| individuals[i].values[k]))
                .sum();
            sum / n
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn bounds(n: usize) -> Bounds {
        Bounds {
            min: vec![0.0; n],
            max: vec![100.0; n],
        }
    }

    #[test]
    fn the_step_falls_from_sigma_to_sigma_min() {
        let config = RealConfig {
            sigma: 0.1,
            sigma_min: 0.01,
            ..RealConfig::default()
        };
        assert!((step_at(&config, 1, 50) - 0.1).abs() < 1e-12);
        assert!((step_at(&config, 50, 50) - 0.01).abs() < 1e-12);
        let mid = step_at(&config, 25, 50);
        assert!(mid < 0.1 && mid > 0.01);
        // A run resumed past its plan keeps the last step.
        assert!((step_at(&config, 80, 50) - 0.01).abs() < 1e-12);
        assert!((step_at(&config, 1, 1) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn a_win_moves_the_centre_towards_the_winner_and_a_draw_holds_it() {
        let centre = [50.0, 50.0];
        let twins = mirrored(&centre, 0.1, 2, &bounds(2), &mut ChaCha8Rng::seed_from_u64(1));
        // Pair 0 won by its first twin, pair 1 drawn.
        let w = winners(&[3, -3, 1, 1]);
        assert_eq!(w, [Some(0), None]);
        let next = recombine(&centre, &twins, &w);
        for k in 0..2 {
            let expected = (twins[0].values[k] + centre[k]) / 2.0;
            assert!((next[k] - expected).abs() < 1e-12);
        }
    }

    proptest! {
        #[test]
        fn twins_are_mirrored_around_the_centre_within_bounds(
            seed in any::<u64>(), step in 0.001f64..0.3, pairs in 1usize..6,
            centre in proptest::collection::vec(0.0f64..100.0, 1..12),
        ) {
            let b = bounds(centre.len());
            let twins = mirrored(&centre, step, pairs, &b, &mut ChaCha8Rng::seed_from_u64(seed));
            prop_assert_eq!(twins.len(), 2 * pairs);
            for pair in twins.chunks(2) {
                for (k, &c) in centre.iter().enumerate() {
                    let (u, d) = (pair[0].values[k], pair[1].values[k]);
                    prop_assert!((0.0..=100.0).contains(&u) && (0.0..=100.0).contains(&d));
                    // Away from the bounds the twins are exactly symmetric, one step out.
                    if c - 100.0 * step >= 0.0 && c + 100.0 * step <= 100.0 {
                        prop_assert!((u + d - 2.0 * c).abs() < 1e-9);
                        prop_assert!(((u - c).abs() - 100.0 * step).abs() < 1e-9);
                    }
                }
            }
        }

        #[test]
        fn the_next_centre_stays_in_the_box_of_the_centre_and_the_twins(
            seed in any::<u64>(), results in proptest::collection::vec(-4i32..5, 2..10),
        ) {
            let n = results.len() / 2 * 2;
            let centre = vec![40.0, 60.0, 10.0];
            let twins = mirrored(&centre, 0.2, n / 2, &bounds(3), &mut ChaCha8Rng::seed_from_u64(seed));
            let next = recombine(&centre, &twins, &winners(&results[..n]));
            for k in 0..3 {
                let lo = twins.iter().map(|t| t.values[k]).fold(centre[k], f64::min);
                let hi = twins.iter().map(|t| t.values[k]).fold(centre[k], f64::max);
                prop_assert!(next[k] >= lo - 1e-9 && next[k] <= hi + 1e-9);
            }
        }
    }
}
