//! Who plays whom for fitness: round robins in groups (the paper's, and twins' pairs), or
//! every individual against the reference from the same openings, with racing rounds; and
//! what a fitness is worth.

use super::settings::{GaSettings, Selection};
use super::Ga;
use crate::arena::stats::Wdl;
use crate::arena::Fixture;
use crate::tune::method::{stream, Setup, Step, OPENINGS, START};
use rand::seq::SliceRandom;
use rand::Rng;

/// The stream purpose of a racing round's openings (its round number mixed in).
const RACING: u64 = 4;

impl Ga {
    /// The paper's groups: a seeded shuffle of the population split as evenly as possible,
    /// and in each group every pair plays two games (colours swapped) from each of its
    /// openings.
    pub(super) fn round_robins(&self, setup: &Setup, step: &Step) -> (Vec<Vec<usize>>, Vec<Fixture>) {
        let m = self.settings.population;
        let seed = setup.seed;
        let mut order: Vec<usize> = (0..m).collect();
        // Twins are grouped with each other; otherwise the groups are drawn anew each time.
        if self.settings.selection != Selection::Twins {
            order.shuffle(&mut stream(seed, step.number, START));
        }
        let n = self.settings.groups();
        let groups: Vec<Vec<usize>> = (0..n)
            .map(|k| order[k * m / n..(k + 1) * m / n].to_vec())
            .collect();
        let mut rng = stream(seed, step.number, OPENINGS);
        let mut fixtures = Vec::new();
        for group in &groups {
            for (x, &i) in group.iter().enumerate() {
                for &j in &group[x + 1..] {
                    for _ in 0..self.settings.openings_per_pair {
                        fixtures.extend(Fixture::pair(i, j, rng.gen_range(0..step.openings)));
                    }
                }
            }
        }
        (groups, fixtures)
    }

    /// Games of `racing` against the reference (the last player) in racing round `round`:
    /// every one from the same openings, so that their scores differ by the individuals
    /// rather than by the openings they drew.
    pub(super) fn against_reference(
        &self,
        setup: &Setup,
        step: &Step,
        round: usize,
        racing: &[usize],
    ) -> Vec<Fixture> {
        let mut rng = if round == 0 {
            stream(setup.seed, step.number, OPENINGS)
        } else {
            stream(setup.seed, step.number, RACING + ((round as u64) << 8))
        };
        let openings: Vec<usize> = (0..self.settings.openings_per_pair)
            .map(|_| rng.gen_range(0..step.openings))
            .collect();
        let reference = self.settings.population;
        racing
            .iter()
            .flat_map(|&i| openings.iter().flat_map(move |&o| Fixture::pair(i, reference, o)))
            .collect()
    }
}

impl GaSettings {
    /// In a group of s, every pair plays two games per opening; against the reference, every
    /// individual two per opening and racing round.
    pub fn games_per_generation(&self) -> u128 {
        let s = self;
        let (m, n) = (s.population as u128, s.groups().max(1) as u128);
        if let Selection::Reference { survivors, race, .. } = s.selection {
            let rounds = racers(s.population, survivors, race);
            return 2 * rounds.iter().sum::<usize>() as u128 * s.openings_per_pair as u128;
        }
        (0..n)
            .map(|g| (g + 1) * m / n - g * m / n)
            .map(|size| size * size.saturating_sub(1) * s.openings_per_pair as u128)
            .sum()
    }

    /// The best fitness that equally strong players reach by chance: in a group of s, each
    /// plays 2k(s-1) games worth +1, 0 or -1 (k openings a pair), so a fitness has standard
    /// deviation sqrt(2k(s-1)(1-d)) at draw rate d, and the best of s is about
    /// sqrt(2 ln s) deviations above zero. Against the reference, each of m plays 2k games.
    pub fn chance_fitness(&self, draw_rate: f64) -> f64 {
        let (m, n) = (self.population, self.groups());
        let k = self.openings_per_pair as f64;
        if let Selection::Reference { .. } = self.selection {
            return (2.0 * k * (1.0 - draw_rate)).sqrt() * (2.0 * (m as f64).ln()).sqrt();
        }
        (0..n)
            .map(|g| (g + 1) * m / n - g * m / n)
            .filter(|&s| s >= 2)
            .map(|s| {
                let sd = (2.0 * k * (s as f64 - 1.0) * (1.0 - draw_rate)).sqrt();
                sd * (2.0 * (s as f64).ln()).sqrt()
            })
            .fold(0.0, f64::max)
    }
}

/// Wins minus losses a game, in thousandths.
pub fn per_game(w: Wdl) -> i32 {
    (1000 * (w.wins as i64 - w.losses as i64) / w.games().max(1) as i64) as i32
}

/// How many individuals play each racing round: all, then halves, never fewer than
/// `keep`; a round that would not shrink the field is not played.
fn racers(population: usize, keep: usize, race: usize) -> Vec<usize> {
    let mut rounds = vec![population];
    while rounds.len() < race {
        let last = rounds[rounds.len() - 1];
        let next = last.div_ceil(2).max(keep);
        if next >= last {
            break;
        }
        rounds.push(next);
    }
    rounds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn racing_rounds_halve_the_field_down_to_the_survivors() {
        assert_eq!(racers(16, 4, 1), vec![16]);
        assert_eq!(racers(16, 4, 3), vec![16, 8, 4]);
        assert_eq!(racers(16, 4, 9), vec![16, 8, 4]);
        assert_eq!(racers(15, 3, 4), vec![15, 8, 4, 3]);
    }
}
