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
    /// Counts pairs from A's results in schedule order (a trailing unpaired game is left out).
    pub fn from_pairs(results: &[Wdl]) -> Pentanomial {
        let mut p = Pentanomial::default();
        for pair in results.chunks_exact(2) {
            let half_points: u32 = pair.iter().map(|r| 2 * r.wins + r.draws).sum();
            p.0[half_points as usize] += 1;
        }
        p
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

    /// The log-likelihood ratio of the results under the normal approximation of the
    /// per-game score: N (s1 - s0)(2 mean - s0 - s1) / (2 variance).
    pub fn llr(&self, wdl: &Wdl) -> f64 {
        let n = wdl.games() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let m = wdl.score();
        let var = (wdl.wins as f64 * (1.0 - m).powi(2)
            + wdl.draws as f64 * (0.5 - m).powi(2)
            + wdl.losses as f64 * m.powi(2))
            / n;
        if var <= 0.0 {
            return 0.0; // all results alike: no spread to judge by yet
        }
        let (s0, s1) = (expected_score(self.elo0), expected_score(self.elo1));
        n * (s1 - s0) * (2.0 * m - s0 - s1) / (2.0 * var)
    }

    /// The (lower, upper) LLR bounds: ln(beta / (1 - alpha)) and ln((1 - beta) / alpha).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The decision, once the LLR has left the bounds.
    pub fn decide(&self, wdl: &Wdl) -> Option<SprtDecision> {
        let llr = self.llr(wdl);
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
    fn pentanomial_counts_pairs() {
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
        let results = [win, win, win, loss, draw, draw, loss, draw, loss, loss, win];
        assert_eq!(Pentanomial::from_pairs(&results).0, [1, 1, 2, 0, 1]);
    }

    #[test]
    fn sprt_matches_hand_computed_values() {
        let t = Sprt::new(0.0, 10.0);
        let (lo, hi) = t.bounds();
        assert!(close(lo, -2.944_438_979, 1e-8) && close(hi, 2.944_438_979, 1e-8));
        // 60/20/20: mean 0.7, variance 0.16; s0 = 0.5, s1 = 0.514387: LLR = 1.73371.
        let w = Wdl {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        assert!(close(t.llr(&w), 1.733_713, 1e-5));
        assert_eq!(t.decide(&w), None);
        // Five times the games at the same rates: LLR 8.67, past the upper bound.
        assert_eq!(
            t.decide(&Wdl {
                wins: 300,
                draws: 100,
                losses: 100
            }),
            Some(SprtDecision::H1)
        );
        // 20/60/20 (an even score) leans to H0: -0.10349; many more such games reject H1.
        assert!(close(
            t.llr(&Wdl {
                wins: 20,
                draws: 60,
                losses: 20
            }),
            -0.103_495_5,
            1e-6
        ));
        assert_eq!(
            t.decide(&Wdl {
                wins: 600,
                draws: 1800,
                losses: 600
            }),
            Some(SprtDecision::H0)
        );
    }
}
