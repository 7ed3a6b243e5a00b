//! Match statistics: score, Elo with a 95% error bar, likelihood of superiority.

use serde::Serialize;

/// Wins, draws and losses from one player's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Wdl {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// The 97.5% quantile of the standard normal distribution (a two-sided 95% interval).
const Z95: f64 = 1.959_963_984_540_054;

impl Wdl {
    /// Adds another result to this one.
    pub fn add(&mut self, other: Wdl) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }

    /// The same games from the opponent's point of view.
    pub fn reversed(self) -> Wdl {
        Wdl {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The score fraction: a win counts 1, a draw 1/2.
    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games() as f64
    }

    /// The Elo difference the score implies; `None` at a score of 0 or 1, where it is unbounded.
    pub fn elo(&self) -> Option<f64> {
        elo_of(self.score())
    }

    /// Half the width of the 95% interval of the Elo difference, from the per-game score
    /// variance (trinomial); `None` when the interval reaches a score of 0 or 1.
    pub fn elo_error(&self) -> Option<f64> {
        let n = self.games() as f64;
        if n == 0.0 {
            return None;
        }
        let s = self.score();
        let var = (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n;
        let delta = Z95 * (var / n).sqrt();
        Some((elo_of(s + delta)? - elo_of(s - delta)?) / 2.0)
    }

    /// The likelihood of superiority: the probability that the player is the stronger,
    /// from wins and losses (draws carry no information on it).
    pub fn los(&self) -> f64 {
        let decisive = (self.wins + self.losses) as f64;
        if decisive == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((self.wins as f64 - self.losses as f64) / (2.0 * decisive).sqrt()))
    }
}

/// Game pairs (the same opening with colours swapped) by A's total over the pair:
/// 0, 1/2, 1, 3/2 or 2 points. Pairs cancel most of the luck of the opening.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Pentanomial(pub [u32; 5]);

impl Pentanomial {
    /// The number of pairs.
    pub fn pairs(&self) -> u32 {
        self.0.iter().sum()
    }

    /// A's mean score a game, and the variance of a pair's mean score; `None` without pairs.
    fn mean_and_variance(&self) -> Option<(f64, f64)> {
        let n = self.pairs() as f64;
        if n == 0.0 {
            return None;
        }
        let score = |k: usize| k as f64 / 4.0;
        let mean = (0..5).map(|k| self.0[k] as f64 * score(k)).sum::<f64>() / n;
        let var = (0..5)
            .map(|k| self.0[k] as f64 * (score(k) - mean).powi(2))
            .sum::<f64>()
            / n;
        Some((mean, var))
    }
}

/// A's results counted in schedule order: the games one by one, and the pairs as each
/// closes (game 2k and 2k + 1 play the same opening).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wdl: Wdl,
    pub pairs: Pentanomial,
    /// The first game of a pair still open.
    open: Option<Wdl>,
}

impl Tally {
    /// Counts the next game of the schedule.
    pub fn add(&mut self, result: Wdl) {
        self.wdl.add(result);
        match self.open.take() {
            Some(first) => {
                let half_points = 2 * (first.wins + result.wins) + first.draws + result.draws;
                self.pairs.0[half_points as usize] += 1;
            }
            None => self.open = Some(result),
        }
    }
}

/// A sequential probability ratio test of H0: Elo = elo0 against H1: Elo = elo1.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// What an SPRT concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SprtDecision {
    /// Accept H0: not as strong as elo1 (fail).
    H0,
    /// Accept H1: stronger by elo1 (pass).
    H1,
}

impl Sprt {
    /// The test at alpha = beta = 0.05.
    pub fn new(elo0: f64, elo1: f64) -> Sprt {
        Sprt {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
        }
    }

    /// The log-likelihood ratio of the results under the normal approximation of a pair's
    /// mean score: pairs (N of them, variance v) N (s1 - s0)(2 mean - s0 - s1) / (2 v).
    /// Counting pairs rather than games (fishtest's pentanomial model) takes in that the two
    /// games of an opening are not independent: where the opening favours one side, their
    /// results cancel, and the test needs fewer games than the per-game model would.
    pub fn llr(&self, pairs: &Pentanomial) -> f64 {
        let Some((mean, var)) = pairs.mean_and_variance() else {
            return 0.0;
        };
        if var <= 0.0 {
            return 0.0; // all pairs alike: no spread to judge by yet
        }
        let (s0, s1) = (expected_score(self.elo0), expected_score(self.elo1));
        pairs.pairs() as f64 * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// The (lower, upper) LLR bounds: ln(beta / (1 - alpha)) and ln((1 - beta) / alpha).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The decision, once the LLR has left the bounds.
    pub fn decide(&self, pairs: &Pentanomial) -> Option<SprtDecision> {
        let llr = self.llr(pairs);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Some(SprtDecision::H1)
        } else if llr <= lower {
            Some(SprtDecision::H0)
        } else {
            None
        }
    }
}

/// The expected score of a player `elo` points stronger.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Elo difference of a score fraction.
pub fn elo_of(score: f64) -> Option<f64> {
    (score > 0.0 && score < 1.0).then(|| -400.0 * (1.0 / score - 1.0).log10())
}

/// The error function, to about 1e-7 (Abramowitz and Stegun 7.1.26).
pub fn erf(x: f64) -> f64 {
    if x == 0.0 {
        return 0.0; // exact, so that an even match has an LOS of exactly one half
    }
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x < 0.0 {
        -y
    } else {
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() < eps
    }

    #[test]
    fn hand_computed_cases() {
        // 60 wins, 20 draws, 20 losses: score 0.7, Elo -400 log10(1/0.7 - 1) = 147.19; the
        // per-game variance is 0.16, so the score is 0.7 +- 1.96 * 0.04, i.e. +-66.01 Elo.
        let w = Wdl {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        assert!(close(w.score(), 0.7, 1e-12));
        assert!(close(w.elo().unwrap(), 147.1907, 1e-3));
        assert!(close(w.elo_error().unwrap(), 66.0134, 1e-3));
        assert!(close(w.los(), 0.999_996_13, 1e-6));
        // Even: 10/80/10 gives 0 Elo +- 30.53 and an LOS of exactly one half.
        let e = Wdl {
            wins: 10,
            draws: 80,
            losses: 10,
        };
        assert!(close(e.elo().unwrap(), 0.0, 1e-9));
        assert!(close(e.elo_error().unwrap(), 30.5319, 1e-3));
        assert_eq!(e.los(), 0.5);
        // 7 wins, 3 losses: LOS = Phi(4 / sqrt(10)) = 0.89705.
        assert!(close(
            Wdl {
                wins: 7,
                draws: 0,
                losses: 3
            }
            .los(),
            0.897_048,
            1e-5
        ));
        // A perfect score has no finite Elo.
        let all = Wdl {
            wins: 5,
            draws: 0,
            losses: 0,
        };
        assert_eq!(all.elo(), None);
        assert_eq!(all.elo_error(), None);
        assert!(close(erf(0.5), 0.520_499_877_8, 1e-6));
        assert_eq!(erf(0.0), 0.0);
        assert!(close(erf(-1.0), -0.842_700_792_9, 1e-6));
    }

    #[test]
    fn a_tally_counts_games_and_pairs() {
        let win = Wdl {
            wins: 1,
            ..Default::default()
        };
        let draw = Wdl {
            draws: 1,
            ..Default::default()
        };
        let loss = Wdl {
            losses: 1,
            ..Default::default()
        };
        // Pairs: WW (2), WL (1), DD (1), LD (1/2), LL (0), and an unpaired last game.
        let mut tally = Tally::default();
        for r in [win, win, win, loss, draw, draw, loss, draw, loss, loss, win] {
            tally.add(r);
        }
        assert_eq!(tally.pairs.0, [1, 1, 2, 0, 1]);
        assert_eq!(
            tally.wdl,
            Wdl {
                wins: 4,
                draws: 3,
                losses: 4
            }
        );
    }

    #[test]
    fn sprt_matches_hand_computed_values() {
        let t = Sprt::new(0.0, 10.0);
        let (lo, hi) = t.bounds();
        assert!(close(lo, -2.944_438_979, 1e-8) && close(hi, 2.944_438_979, 1e-8));
        // 100 pairs 5/15/40/25/15: mean 0.575 a game, a pair's variance 0.069375;
        // s0 = 0.5, s1 = 0.514387: LLR = 100 x 0.014387 x 0.560613 / 0.13875 = 1.40619.
        let p = Pentanomial([5, 15, 40, 25, 15]);
        assert!(close(t.llr(&p), 1.406_188_5, 1e-6));
        assert_eq!(t.decide(&p), None);
        // Five times the pairs at the same rates: LLR 7.03, past the upper bound.
        assert_eq!(
            t.decide(&Pentanomial([25, 75, 200, 125, 75])),
            Some(SprtDecision::H1)
        );
        // An even score leans to H0 (-0.13799); fifty times the pairs reject H1.
        assert!(close(t.llr(&Pentanomial([10, 20, 40, 20, 10])), -0.137_994, 1e-6));
        assert_eq!(
            t.decide(&Pentanomial([500, 1000, 2000, 1000, 500])),
            Some(SprtDecision::H0)
        );
        // No pairs, or pairs all alike, decide nothing.
        assert_eq!(t.llr(&Pentanomial::default()), 0.0);
        assert_eq!(t.decide(&Pentanomial([0, 0, 7, 0, 0])), None);
    }
}
