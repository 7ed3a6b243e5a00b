//! Ratings fitted over a whole crosstable by maximum likelihood, as Ordo and BayesElo do.
//!
//! The model: player i scores against j with probability 1 / (1 + 10^((r_j - r_i) / 400)),
//! a draw counting half a win. One virtual draw per pair that met acts as a weak prior, so
//! that a perfect score still gets a finite rating. Ratings have mean zero; the error bars
//! come from the inverse Fisher information in that gauge.

/// Points and games between each pair: `points[i][j]` is what i scored against j.
#[derive(Clone, Debug, PartialEq)]
pub struct Crosstable {
    pub points: Vec<Vec<f64>>,
    pub games: Vec<Vec<f64>>,
}

/// A fitted rating with its 95% error bar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub elo: f64,
    pub error: f64,
}

const K: f64 = std::f64::consts::LN_10 / 400.0;

impl Crosstable {
    pub fn new(players: usize) -> Crosstable {
        Crosstable {
            points: vec![vec![0.0; players]; players],
            games: vec![vec![0.0; players]; players],
        }
    }

    /// Records one game: `score` is i's result (1, 1/2 or 0).
    pub fn add(&mut self, i: usize, j: usize, score: f64) {
        self.points[i][j] += score;
        self.points[j][i] += 1.0 - score;
        self.games[i][j] += 1.0;
        self.games[j][i] += 1.0;
    }

    /// Maximum-likelihood ratings (mean zero) with 95% error bars.
    pub fn ratings(&self) -> Vec<Rating> {
        let n = self.points.len();
        if n < 2 {
            return vec![Rating { elo: 0.0, error: 0.0 }; n];
        }
        // The prior: one virtual draw for every pair that played.
        let (s, g): (Vec<Vec<f64>>, Vec<Vec<f64>>) = {
            let mut s = self.points.clone();
            let mut g = self.games.clone();
            for i in 0..n {
                for j in 0..n {
                    if i != j && self.games[i][j] > 0.0 {
                        s[i][j] += 0.5;
                        g[i][j] += 1.0;
                    }
                }
            }
            (s, g)
        };
        let mut r = vec![0.0; n];
        let mut info = vec![vec![0.0; n - 1]; n - 1];
        for _ in 0..100 {
            // Newton on players 0..n-1 with the last one held at 0 (the gauge), then shifted.
            let mut grad = vec![0.0; n - 1];
            for row in info.iter_mut() {
                row.iter_mut().for_each(|x| *x = 0.0);
            }
            for i in 0..n {
                for j in 0..n {
                    if i == j || g[i][j] == 0.0 {
                        continue;
                    }
                    let p = 1.0 / (1.0 + (-K * (r[i] - r[j])).exp());
                    let w = K * K * g[i][j] * p * (1.0 - p);
                    if i < n - 1 {
                        grad[i] += K * (s[i][j] - g[i][j] * p);
                        info[i][i] += w;
                        if j < n - 1 {
                            info[i][j] -= w;
                        }
                    }
                }
            }
            let Some(step) = solve(&info, &grad) else { break };
            let mut largest: f64 = 0.0;
            for i in 0..n - 1 {
                r[i] += step[i];
                largest = largest.max(step[i].abs());
            }
            if largest < 1e-9 {
                break;
            }
        }
        // Covariance in the gauge r_last = 0, then moved to the mean-zero gauge.
        let cov_reduced = invert(&info);
        let mean = r.iter().sum::<f64>() / n as f64;
        (0..n)
            .map(|i| {
                let cov = |a: usize, b: usize| match &cov_reduced {
                    Some(c) if a < n - 1 && b < n - 1 => c[a][b],
                    _ => 0.0,
                };
                // Var(r_i - mean) = Var(r_i) - 2 Cov(r_i, mean) + Var(mean).
                let var_i = cov(i, i);
                let cov_i_mean = (0..n).map(|j| cov(i, j)).sum::<f64>() / n as f64;
                let var_mean = (0..n)
                    .flat_map(|a| (0..n).map(move |b| (a, b)))
                    .map(|(a, b)| cov(a, b))
                    .sum::<f64>()
                    / (n * n) as f64;
                let var = (var_i - 2.0 * cov_i_mean + var_mean).max(0.0);
                Rating {
                    elo: r[i] - mean,
                    error: 1.959_963_984_540_054 * var.sqrt(),
                }
            })
            .collect()
    }
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None` if singular.
fn solve(a: &[Vec<f64>], b: &[f64]) -> Option<Vec<f64>> {
    let n = b.len();
    let mut m: Vec<Vec<f64>> = a
        .iter()
        .zip(b)
        .map(|(row, &v)| row.iter().copied().chain([v]).collect())
        .collect();
    for c in 0..n {
        let p = (c..n).max_by(|&x, &y| m[x][c].abs().total_cmp(&m[y][c].abs()))?;
        if m[p][c].abs() < 1e-15 {
            return None;
        }
        m.swap(c, p);
        let pivot = m[c].clone();
        for (r, row) in m.iter_mut().enumerate() {
            if r != c {
                let f = row[c] / pivot[c];
                for (x, p) in row[c..].iter_mut().zip(&pivot[c..]) {
                    *x -= f * p;
                }
            }
        }
    }
    Some((0..n).map(|i| m[i][n] / m[i][i]).collect())
}

fn invert(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let columns: Option<Vec<Vec<f64>>> = (0..n)
        .map(|c| {
            let e: Vec<f64> = (0..n).map(|i| if i == c { 1.0 } else { 0.0 }).collect();
            solve(a, &e)
        })
        .collect();
    let columns = columns?;
    Some((0..n).map(|i| (0..n).map(|j| columns[j][i]).collect()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_players_match_the_hand_computed_fit() {
        // A beats B 7-3 in 10 games; with the prior draw: 7.5 of 11, p = 0.681818, so the
        // gap is 400 log10(p / (1 - p)) = 132.40 and the ratings are +-66.20.
        let mut t = Crosstable::new(2);
        for _ in 0..7 {
            t.add(0, 1, 1.0);
        }
        for _ in 0..3 {
            t.add(0, 1, 0.0);
        }
        let r = t.ratings();
        assert!((r[0].elo - 66.199).abs() < 0.01, "{:?}", r);
        assert!((r[1].elo + 66.199).abs() < 0.01);
        // Fisher information of the gap: K^2 n p (1 - p) with n = 11 gives an sd of 112.45
        // for the gap, half of it for each rating: a 95% error of 1.96 * 56.23 = 110.20.
        assert!((r[0].error - 110.20).abs() < 0.05, "{:?}", r);
    }

    #[test]
    fn a_perfect_score_stays_finite_and_ordering_follows_strength() {
        let mut t = Crosstable::new(3);
        for _ in 0..10 {
            t.add(0, 1, 1.0);
            t.add(0, 2, 1.0);
            t.add(1, 2, 0.5);
        }
        t.add(1, 2, 1.0);
        let r = t.ratings();
        assert!(
            r[0].elo.is_finite() && r[0].elo > r[1].elo && r[1].elo > r[2].elo,
            "{r:?}"
        );
        assert!((r.iter().map(|x| x.elo).sum::<f64>()).abs() < 1e-6);
    }
}
