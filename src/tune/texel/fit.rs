//! The fit's data and arithmetic: data files of games, quiet positions sampled as sparse rows,
//! and the logistic fit.
//!
//! The evaluation is linear in its weights ([`Game::features`]), so predicting a game's
//! outcome from a position by `σ(K × eval)` and minimising the logistic loss over many
//! positions is a smooth, convex problem: no noisy matches, only gradient descent. A step
//! plays self-play games with the current weights, keeps them as a data file, and fits the
//! weights on the quiet positions of the data so far (a share of the games held out to
//! report an honest loss); the fit's weights play the next step's games.
//!
//! A data file holds one game a line: the result from the first seat's view (`1-0`, `0-1`,
//! `1/2-1/2`), the start position and the moves in the game's notation, tab-separated. It is
//! a few bytes a position, and replaying it with the rules gives every position back.

use crate::arena::label::{label, Label, Unlabelled};
use crate::arena::Agent;
use crate::game::{Game, GameRecord, Seat};
use crate::params::Spec;
use crate::tune::config::{memory_limit, ConfigError, EngineRef};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The fit's settings in a run configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TexelConfig {
    /// Self-play games a step (even: each opening with both colours).
    pub games: usize,
    /// Quiet positions sampled from each game at most.
    #[serde(default = "default_positions_per_game")]
    pub positions_per_game: usize,
    /// Passes of gradient descent over the positions a step.
    #[serde(default = "default_epochs")]
    pub epochs: usize,
    /// Adam's step, in the parameters' units.
    #[serde(default = "default_learning_rate")]
    pub learning_rate: f64,
    /// The prior's spread, as a share of each parameter's range: the fit minimises the loss
    /// plus (θ − θ₀)² / (2σ² × positions) for each parameter, θ₀ its value at the run's
    /// start. It holds still what the positions cannot tell apart (a piece's value and the
    /// same amount on every square of its table) and what they rarely show. Centred on the
    /// start, not on each step's weights, it is one prior over all the data so far, and the
    /// weights cannot walk a little further at every step.
    #[serde(default = "default_prior")]
    pub prior: f64,
    /// Share of the games whose positions are held out of the fit to measure it.
    #[serde(default = "default_holdout")]
    pub holdout: f64,
    /// Steps of data a fit uses (the latest); default: all.
    #[serde(default)]
    pub window: Option<usize>,
    /// A mentor's scores blended into the targets; default: the games' results alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mentor: Option<MentorConfig>,
    /// The fit by the GA of mirrored twins, `epochs` generations of them, in place of Adam
    /// (see [`super::evolve`]); default: Adam.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub twins: Option<TwinsFit>,
}

/// The twins' settings of a fit (`texel.twins`, carried out by [`super::evolve`]); its
/// generations are `texel.epochs`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TwinsFit {
    /// Pairs of twins a generation.
    #[serde(default = "default_pairs")]
    pub pairs: usize,
    /// The twins' step at the first generation, a share of each parameter's range.
    #[serde(default = "default_sigma")]
    pub sigma: f64,
    /// The step at the last generation.
    #[serde(default = "default_sigma_min")]
    pub sigma_min: f64,
}

fn default_pairs() -> usize {
    60
}
fn default_sigma() -> f64 {
    0.05
}
fn default_sigma_min() -> f64 {
    0.002
}

impl Default for TwinsFit {
    fn default() -> TwinsFit {
        TwinsFit {
            pairs: default_pairs(),
            sigma: default_sigma(),
            sigma_min: default_sigma_min(),
        }
    }
}

impl TwinsFit {
    /// What is wrong with the settings, if anything.
    pub fn problem(&self) -> Option<String> {
        if !(1..=10_000).contains(&self.pairs) {
            return Some(format!("twins.pairs = {} must be from 1 to 10000", self.pairs));
        }
        if !(self.sigma_min > 0.0 && self.sigma_min <= self.sigma && self.sigma <= 1.0) {
            return Some(format!(
                "twins.sigma_min = {} and twins.sigma = {} must satisfy 0 < sigma_min <= sigma <= 1",
                self.sigma_min, self.sigma
            ));
        }
        None
    }
}

/// The mentor of a fit: the step's weights or an outside engine, searching each sampled
/// position deeper than its games did (see [`Mentor`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MentorConfig {
    /// Search depth a position.
    pub depth: u32,
    /// The mentor's share of a target, from 0 to 1 (the game's result has the rest).
    pub blend: f64,
    /// An outside engine as the mentor (`uci:COMMAND`, `ucci:COMMAND` or an engine
    /// description file, found beside the configuration); default: the step's weights.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<EngineRef>,
}

fn default_positions_per_game() -> usize {
    10
}
fn default_epochs() -> usize {
    400
}
fn default_learning_rate() -> f64 {
    1.0
}
fn default_prior() -> f64 {
    0.05
}
fn default_holdout() -> f64 {
    0.1
}

/// What one sampled position costs in memory (its features and its row), rounded up.
pub const BYTES_PER_POSITION: u64 = 800;

impl TexelConfig {
    /// Checks the settings' ranges; `steps` is the run's length (for the memory estimate).
    pub fn validate(&self, steps: usize) -> Result<(), ConfigError> {
        let invalid = |m: String| Err(ConfigError::Invalid(format!("texel.{m}")));
        if self.games < 2 || self.games % 2 == 1 || self.games > 10_000_000 {
            return invalid(format!(
                "games = {} must be an even number from 2 to 10000000 (each opening with both colours)",
                self.games
            ));
        }
        if !(1..=1000).contains(&self.positions_per_game) {
            return invalid(format!(
                "positions_per_game = {} must be from 1 to 1000",
                self.positions_per_game
            ));
        }
        if !(1..=1_000_000).contains(&self.epochs) {
            return invalid(format!("epochs = {} must be from 1 to 1000000", self.epochs));
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0 && self.learning_rate <= 1000.0) {
            return invalid(format!(
                "learning_rate = {} must lie in (0, 1000]",
                self.learning_rate
            ));
        }
        if !(self.prior.is_finite() && self.prior > 0.0 && self.prior <= 100.0) {
            return invalid(format!("prior = {} must lie in (0, 100]", self.prior));
        }
        if !(self.holdout > 0.0 && self.holdout < 1.0) {
            return invalid(format!("holdout = {} must lie in (0, 1)", self.holdout));
        }
        if self.window == Some(0) {
            return invalid("window must be at least 1".to_string());
        }
        if let Some(m) = &self.mentor {
            if !(1..=30).contains(&m.depth) {
                return invalid(format!("mentor.depth = {} must be from 1 to 30", m.depth));
            }
            if !(0.0..=1.0).contains(&m.blend) {
                return invalid(format!("mentor.blend = {} must lie in [0, 1]", m.blend));
            }
        }
        if let Some(problem) = self.twins.as_ref().and_then(TwinsFit::problem) {
            return invalid(problem);
        }
        let steps = self.window.unwrap_or(steps).min(steps) as u128;
        let positions = steps * self.games as u128 * self.positions_per_game as u128;
        let needed = positions.saturating_mul(BYTES_PER_POSITION as u128);
        let limit = memory_limit();
        if needed > limit as u128 {
            return invalid(format!(
                "games × positions_per_game × {steps} steps of data is up to {positions} positions, about {} MiB to fit, more than the {} MiB this machine offers; lower them or set a window",
                needed >> 20,
                limit >> 20
            ));
        }
        Ok(())
    }
}

/// Why data could not be written, read or fitted.
#[derive(Debug, thiserror::Error)]
pub enum TexelError {
    #[error("cannot write or read {}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}, line {line}: {reason}", path.display())]
    Line {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    #[error("{0}: its evaluation is not linear in its weights, so it cannot be fitted on positions")]
    NotLinear(&'static str),
    #[error("no quiet position to fit on in {0} games")]
    NoPositions(usize),
    #[error("{0}")]
    Mentor(String),
    #[error("texel.mentor.player: {0}")]
    MentorEngine(#[from] crate::arena::outside::DescriptionError),
}

/// A game of a data file.
pub struct DataGame<G: Game> {
    pub start: G::Board,
    pub moves: Vec<G::Move>,
    /// The result for the first seat: 1, ½ or 0.
    pub result: f32,
}

/// The text of a data file holding `records`.
pub fn data_text<G: Game>(records: &[GameRecord<G::Move>]) -> String {
    let mut text = String::new();
    for r in records {
        let result = match r.winner {
            Some(Seat::First) => "1-0",
            Some(Seat::Second) => "0-1",
            None => "1/2-1/2",
        };
        let moves: Vec<String> = r.moves.iter().map(|m| m.to_string()).collect();
        text.push_str(&format!("{result}\t{}\t{}\n", r.start_fen, moves.join(" ")));
    }
    text
}

/// The largest data file read: far above a step's games (a few hundred bytes each).
const MAX_DATA_BYTES: u64 = 16 << 30;

/// Reads a data file, replaying each game to check it.
pub fn read_data<G: Game>(path: &Path) -> Result<Vec<DataGame<G>>, TexelError> {
    let text = crate::fsutil::read_text(path, MAX_DATA_BYTES).map_err(|source| TexelError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            parse_line::<G>(line).map_err(|reason| TexelError::Line {
                path: path.to_path_buf(),
                line: i + 1,
                reason,
            })
        })
        .collect()
}

fn parse_line<G: Game>(line: &str) -> Result<DataGame<G>, String> {
    let mut fields = line.split('\t');
    let (Some(result), Some(fen), Some(moves), None) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err("not three tab-separated fields (result, position, moves)".to_string());
    };
    let result = match result {
        "1-0" => 1.0,
        "0-1" => 0.0,
        "1/2-1/2" => 0.5,
        other => return Err(format!("result '{other}' is not 1-0, 0-1 or 1/2-1/2")),
    };
    let start = G::parse_position(fen).map_err(|e| format!("position: {e}"))?;
    let mut state = G::start(&start);
    let mut played = Vec::new();
    for text in moves.split_whitespace() {
        let mv = G::parse_move(&state, text).ok_or_else(|| format!("move '{text}' is not legal there"))?;
        G::play(&mut state, mv);
        played.push(mv);
    }
    Ok(DataGame {
        start,
        moves: played,
        result,
    })
}

/// Sampled positions as sparse rows over the tuned parameters: what the fit reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Samples {
    /// Each row's tuned features: (tuned index, coefficient), rows back to back.
    features: Vec<(u32, f32)>,
    rows: Vec<Row>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Row {
    start: u32,
    len: u32,
    /// The evaluation's part that no tuned parameter touches.
    fixed: f32,
    /// The game's result for the first seat.
    result: f32,
}

impl Samples {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn push(&mut self, all: &[(u32, f32)], slot: &[Option<u32>], values: &[i32], result: f32) {
        let start = self.features.len() as u32;
        let mut fixed = 0.0;
        for &(i, c) in all {
            match slot[i as usize] {
                Some(t) => self.features.push((t, c)),
                None => fixed += values[i as usize] as f32 * c,
            }
        }
        self.rows.push(Row {
            start,
            len: self.features.len() as u32 - start,
            fixed,
            result,
        });
    }

    fn features(&self, row: &Row) -> &[(u32, f32)] {
        &self.features[row.start as usize..(row.start + row.len) as usize]
    }
}

/// Up to `per_game` quiet positions of each game, chosen by a shuffle seeded by `seed` and
/// the game's place, split into the fit's and the held-out games' positions (a `holdout`
/// share of the games, chosen by the same seed). `values` are the full parameter set whose
/// untuned part is fixed; `tuned` the spec indices the fit moves. Each position's target is
/// its game's result, or with `mentor` a blend of it and the mentor's score (see
/// [`Mentor`]).
pub fn sample<G: Game>(
    games: &[(u64, DataGame<G>)],
    values: &[i32],
    tuned: &[usize],
    per_game: usize,
    holdout: f64,
    seed: u64,
    mentor: Option<&Mentor<G>>,
) -> Result<(Samples, Samples), TexelError> {
    if !G::LINEAR_EVALUATION {
        return Err(TexelError::NotLinear(G::NAME));
    }
    let mut slot = vec![None; values.len()];
    for (t, &i) in tuned.iter().enumerate() {
        slot[i] = Some(t as u32);
    }
    let (mut fit, mut held) = (Samples::default(), Samples::default());
    let mut all = Vec::new();
    // For the mentor: each row's set (held out or not), its game's result and its board.
    let mut chosen: Vec<(bool, f32, G::Board)> = Vec::new();
    for (key, game) in games {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ key.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let held_out = rand::Rng::gen::<f64>(&mut rng) < holdout;
        let mut boards = Vec::with_capacity(game.moves.len() + 1);
        let mut state = G::start(&game.start);
        boards.push(G::board(&state).clone());
        for &mv in &game.moves {
            G::play(&mut state, mv);
            boards.push(G::board(&state).clone());
        }
        // The final position is decided by the rules, not by the evaluation.
        boards.pop();
        boards.shuffle(&mut rng);
        let target = if held_out { &mut held } else { &mut fit };
        let mut kept = 0;
        for board in boards {
            if kept == per_game {
                break;
            }
            all.clear();
            if G::features(&board, &mut all) {
                target.push(&all, &slot, values, game.result);
                if mentor.is_some() {
                    chosen.push((held_out, game.result, board));
                }
                kept += 1;
            }
        }
    }
    if let Some(m) = mentor {
        let targets = m.targets(&chosen.iter().map(|c| (c.1, &c.2)).collect::<Vec<_>>())?;
        let (mut f, mut h) = (fit.rows.iter_mut(), held.rows.iter_mut());
        for ((held_out, _, _), target) in chosen.iter().zip(targets) {
            let row = if *held_out { h.next() } else { f.next() };
            row.expect("a row for every position chosen").result = target;
        }
    }
    if fit.is_empty() || held.is_empty() {
        return Err(TexelError::NoPositions(games.len()));
    }
    Ok((fit, held))
}

/// A mentor's say in the fit's targets: each position is searched by `agent` (the game's
/// own engine with some weights, or an outside engine) under `limit`, and its target
/// becomes `(1 - blend) × result + blend × σ(K_m × score)`, the score for the first seat.
/// K_m is the scale that best predicts the games' results from the mentor's scores, so that
/// a score means the same odds as the results do, in whatever units the mentor counts.
pub struct Mentor<G: Game> {
    pub agent: Agent<G::Weights>,
    pub limit: crate::game::Limit,
    pub blend: f64,
}

impl<G: Game> Mentor<G> {
    /// The targets of positions given as (their game's result, the board), in parallel.
    /// A mentor that fails on more than one position in [`MENTOR_FAULTS`] is an error.
    fn targets(&self, positions: &[(f32, &G::Board)]) -> Result<Vec<f32>, TexelError> {
        // An outside mentor's processes are kept between positions, one a thread.
        let engines = crate::arena::outside::Engines::new(rayon::current_num_threads());
        let labels: Vec<Result<Label, Unlabelled>> = positions
            .par_iter()
            .map(|&(_, board)| label::<G>(&self.agent, board, self.limit, MENTOR_HASH_MB, &engines))
            .collect();
        let mut faults = labels
            .iter()
            .filter_map(|l| l.as_ref().err())
            .filter(|e| e.is_fault());
        if let Some(first) = faults.next() {
            let count = 1 + faults.count();
            if count * MENTOR_FAULTS > positions.len() {
                return Err(TexelError::Mentor(format!(
                    "the mentor failed on {count} of {} positions, first: {first}",
                    positions.len()
                )));
            }
        }
        // Each position's score for the first seat; none where the game is over or the
        // mentor failed on it twice.
        let scores: Vec<Option<f64>> = positions
            .iter()
            .zip(&labels)
            .map(|(&(_, board), label)| {
                let score = label.as_ref().ok()?.score;
                let first = if G::to_move(board) == Seat::First {
                    score
                } else {
                    -score
                };
                Some(f64::from(first))
            })
            .collect();
        let mut calibration = Samples::default();
        for (&(result, _), score) in positions.iter().zip(&scores) {
            if let Some(s) = score {
                calibration.rows.push(Row {
                    start: 0,
                    len: 0,
                    fixed: *s as f32,
                    result,
                });
            }
        }
        let k = fit_k(&calibration, &[]);
        Ok(positions
            .iter()
            .zip(&scores)
            .map(|(&(result, _), score)| match score {
                Some(s) => ((1.0 - self.blend) * f64::from(result) + self.blend * sigmoid(k * s)) as f32,
                None => result,
            })
            .collect())
    }
}

/// A mentor may fail on one position in this many (each tried twice, the game's result its
/// target); more is a broken mentor, not bad luck.
const MENTOR_FAULTS: usize = 100;

/// The mentor's hash table a position, MiB: a fresh one each, so that a label depends only
/// on its position; small, since a label's search is short.
const MENTOR_HASH_MB: usize = 2;

/// What a fit found.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// The scaling constant of `σ(K × eval)`, fitted to the starting weights.
    pub k: f64,
    /// The tuned parameters' fitted values (within their bounds).
    pub theta: Vec<f64>,
    /// Mean logistic loss on the fit's positions, before and after.
    pub loss_start: f64,
    pub loss: f64,
    /// The same on the held-out positions.
    pub held_out_start: f64,
    pub held_out: f64,
    /// The epoch whose weights were kept: the lowest held-out loss.
    pub best_epoch: usize,
}

/// Rows a parallel task takes: a fixed split, so that the sums are the same on any number
/// of threads.
const CHUNK: usize = 4096;

/// The mean logistic loss of `theta` at scale `k` and, when `gradient` is given, its
/// gradient with respect to `theta`.
pub(super) fn loss(samples: &Samples, theta: &[f64], k: f64, gradient: Option<&mut [f64]>) -> f64 {
    let want = gradient.is_some();
    let parts: Vec<(f64, Vec<f64>)> = samples
        .rows
        .par_chunks(CHUNK)
        .map(|rows| {
            let mut g = if want { vec![0.0; theta.len()] } else { Vec::new() };
            let mut sum = 0.0;
            for row in rows {
                let features = samples.features(row);
                let eval = row.fixed as f64
                    + features
                        .iter()
                        .map(|&(t, c)| theta[t as usize] * c as f64)
                        .sum::<f64>();
                let p = sigmoid(k * eval);
                let y = row.result as f64;
                sum -= y * ln(p) + (1.0 - y) * ln(1.0 - p);
                if want {
                    let d = (p - y) * k;
                    for &(t, c) in features {
                        g[t as usize] += d * c as f64;
                    }
                }
            }
            (sum, g)
        })
        .collect();
    let n = samples.len().max(1) as f64;
    let mut total = 0.0;
    let mut grad = gradient;
    for (sum, g) in &parts {
        total += sum;
        if let Some(out) = grad.as_deref_mut() {
            for (o, x) in out.iter_mut().zip(g) {
                *o += x;
            }
        }
    }
    if let Some(out) = grad {
        out.iter_mut().for_each(|o| *o /= n);
    }
    total / n
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// ln p, kept finite where a prediction is certain.
fn ln(p: f64) -> f64 {
    p.max(1e-12).ln()
}

/// The K that best fits `theta` on `samples`: a golden-section search on ln K.
pub fn fit_k(samples: &Samples, theta: &[f64]) -> f64 {
    let f = |x: f64| loss(samples, theta, x.exp(), None);
    let (mut lo, mut hi) = ((1e-5f64).ln(), (1.0f64).ln());
    let r = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (hi - r * (hi - lo), lo + r * (hi - lo));
    let (mut fa, mut fb) = (f(a), f(b));
    for _ in 0..60 {
        if fa < fb {
            hi = b;
            b = a;
            fb = fa;
            a = hi - r * (hi - lo);
            fa = f(a);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + r * (hi - lo);
            fb = f(b);
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// The prior's weight for each parameter, 1 / (σ² × positions) with σ a share `prior` of
/// its range: the prior adds pull × (θ − θ₀)² / 2 to the mean loss.
pub(super) fn prior_pull(specs: &[Spec], prior: f64, positions: usize) -> Vec<f64> {
    specs
        .iter()
        .map(|s| {
            let sigma = prior * f64::from((s.max - s.min).max(1));
            1.0 / (sigma * sigma * positions.max(1) as f64)
        })
        .collect()
}

/// Fits the tuned parameters from `theta` by Adam on the logistic loss and the prior
/// centred on `anchor`, K fitted first and held; keeps the epoch with the lowest held-out
/// loss. `specs` of the tuned parameters bound them.
pub fn fit(
    fit_on: &Samples,
    held_out: &Samples,
    theta: &[f64],
    anchor: &[f64],
    specs: &[Spec],
    config: &TexelConfig,
) -> Fit {
    let k = fit_k(fit_on, theta);
    let loss_start = loss(fit_on, theta, k, None);
    let held_out_start = loss(held_out, theta, k, None);
    let (beta1, beta2, eps): (f64, f64, f64) = (0.9, 0.999, 1e-8);
    let mut x = theta.to_vec();
    let (mut m, mut v) = (vec![0.0; x.len()], vec![0.0; x.len()]);
    let mut grad = vec![0.0; x.len()];
    let mut best = (held_out_start, 0, x.clone());
    let pull = prior_pull(specs, config.prior, fit_on.len());
    for epoch in 1..=config.epochs {
        grad.iter_mut().for_each(|g| *g = 0.0);
        loss(fit_on, &x, k, Some(&mut grad));
        for j in 0..x.len() {
            grad[j] += pull[j] * (x[j] - anchor[j]);
        }
        let (c1, c2) = (1.0 - beta1.powi(epoch as i32), 1.0 - beta2.powi(epoch as i32));
        for (j, s) in specs.iter().enumerate() {
            m[j] = beta1 * m[j] + (1.0 - beta1) * grad[j];
            v[j] = beta2 * v[j] + (1.0 - beta2) * grad[j] * grad[j];
            let step = config.learning_rate * (m[j] / c1) / ((v[j] / c2).sqrt() + eps);
            x[j] = (x[j] - step).clamp(f64::from(s.min), f64::from(s.max));
        }
        let held = loss(held_out, &x, k, None);
        if held < best.0 {
            best = (held, epoch, x.clone());
        }
    }
    Fit::kept(fit_on, k, (loss_start, held_out_start), best)
}

impl Fit {
    /// The fit that keeps `best`, (its held-out loss, its epoch, its weights), with the
    /// losses `start` (on the fit's and the held-out positions) it began from.
    pub(super) fn kept(fit_on: &Samples, k: f64, start: (f64, f64), best: (f64, usize, Vec<f64>)) -> Fit {
        let (held_out, best_epoch, theta) = best;
        Fit {
            k,
            loss: loss(fit_on, &theta, k, None),
            theta,
            loss_start: start.0,
            held_out_start: start.1,
            held_out,
            best_epoch,
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::xiangqi::game::XiangqiGame;
    use rand::Rng;

    /// Positions with known weights behind their results: the fit's fit and held-out
    /// samples, the tuned parameters' spec indices and the full set of true values.
    pub(in crate::tune::texel) struct Known {
        pub specs: crate::params::Specs,
        pub tuned: Vec<usize>,
        pub truth: Vec<i32>,
        pub on: Samples,
        pub held: Samples,
    }

    /// Positions from the middlegame file a few random plies on, each labelled by a draw
    /// from σ(K × the evaluation of the default weights), `names` the tuned parameters.
    pub(in crate::tune::texel) fn known_weights(names: &[&str]) -> Known {
        let specs = XiangqiGame::specs();
        let tuned: Vec<usize> = names
            .iter()
            .map(|n| specs.iter().position(|s| s.name == *n).unwrap())
            .collect();
        let truth: Vec<i32> = crate::params::Params::defaults(&specs).values().to_vec();
        let text = include_str!("../../../positions/xiangqi-middlegames.epd");
        let boards: Vec<_> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| XiangqiGame::parse_position(l).unwrap())
            .collect();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let k_true = 0.006;
        let (mut on, mut held) = (Samples::default(), Samples::default());
        let mut slot = vec![None; specs.len()];
        for (t, &i) in tuned.iter().enumerate() {
            slot[i] = Some(t as u32);
        }
        let mut all = Vec::new();
        for round in 0..40 {
            for board in &boards {
                // Random plies off a master position: material imbalances of every kind.
                let mut board = board.clone();
                for _ in 0..rng.gen_range(0..40) {
                    let moves = board.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    board.make(moves[rng.gen_range(0..moves.len())]);
                }
                let board = &board;
                all.clear();
                crate::xiangqi::eval::features(board, &mut all);
                let eval: f64 = all
                    .iter()
                    .map(|&(i, c)| truth[i as usize] as f64 * c as f64)
                    .sum();
                let result = if rng.gen::<f64>() < sigmoid(k_true * eval) {
                    1.0
                } else {
                    0.0
                };
                let target = if round % 10 == 0 { &mut held } else { &mut on };
                target.push(&all, &slot, &truth, result);
            }
        }
        Known {
            specs,
            tuned,
            truth,
            on,
            held,
        }
    }

    impl Known {
        /// A start far from the truth: every tuned weight 30% off, up or down (K is fitted
        /// to the start, so a start scaled as a whole would scale the fit).
        pub fn start(&self) -> Vec<f64> {
            let (tuned, truth) = (&self.tuned, &self.truth);
            tuned
                .iter()
                .enumerate()
                .map(|(j, &i)| truth[i] as f64 * if j % 2 == 0 { 0.7 } else { 1.3 })
                .collect()
        }

        /// The tuned parameters' specs.
        pub fn bounds(&self) -> Vec<Spec> {
            self.tuned.iter().map(|&i| self.specs[i].clone()).collect()
        }

        /// Every tuned weight of `theta` within 10% (or 3) of the truth.
        pub fn assert_found(&self, theta: &[f64]) {
            for (j, &i) in self.tuned.iter().enumerate() {
                let want = self.truth[i] as f64;
                let tolerance = (0.1 * want.abs()).max(3.0);
                assert!(
                    (theta[j] - want).abs() <= tolerance,
                    "{}: found {:.1}, truth {want}",
                    self.specs[i].name,
                    theta[j]
                );
            }
        }
    }

    /// A fit's settings for known weights: `epochs` passes, the rest as the tests want.
    pub(in crate::tune::texel) fn known_config(epochs: usize) -> TexelConfig {
        TexelConfig {
            games: 2,
            positions_per_game: 1,
            epochs,
            learning_rate: 2.0,
            prior: 0.05,
            holdout: 0.1,
            window: None,
            mentor: None,
            twins: None,
        }
    }

    /// The fit must find the weights behind the results again.
    #[test]
    fn the_fit_recovers_known_weights() {
        let known = known_weights(&["rook", "horse", "cannon", "mobility_rook", "hanging"]);
        let (start, bounds, config) = (known.start(), known.bounds(), known_config(1500));
        let (on, held) = (&known.on, &known.held);
        let f = fit(on, held, &start, &start, &bounds, &config);
        assert!(f.loss < f.loss_start && f.held_out < f.held_out_start);
        known.assert_found(&f.theta);
        // A tight prior holds the weights at its centre, the anchor, wherever the fit starts.
        let tight = TexelConfig {
            prior: 0.0005,
            ..config
        };
        let truth_tuned: Vec<f64> = known.tuned.iter().map(|&i| known.truth[i] as f64).collect();
        let held_at_start = fit(on, held, &start, &start, &bounds, &tight);
        let pulled_to_truth = fit(on, held, &start, &truth_tuned, &bounds, &tight);
        for j in 0..known.tuned.len() {
            let near = |x: f64, want: f64| (x - want).abs() <= (0.05 * want.abs()).max(2.0);
            assert!(
                near(held_at_start.theta[j], start[j]),
                "{j}: {}",
                held_at_start.theta[j]
            );
            assert!(
                near(pulled_to_truth.theta[j], truth_tuned[j]),
                "{j}: {}",
                pulled_to_truth.theta[j]
            );
        }
    }

    /// A mentor's scores take the targets' place as far as its blend says, scaled by the K
    /// that fits them to the results.
    #[test]
    fn a_mentor_blends_its_scores_into_the_targets() {
        let text = include_str!("../../../positions/xiangqi-middlegames.epd");
        let weights = crate::xiangqi::eval::Weights::default();
        // One-move games from master positions, won by the side the evaluation favours.
        let games: Vec<(u64, DataGame<XiangqiGame>)> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .take(120)
            .enumerate()
            .map(|(i, l)| {
                let start = XiangqiGame::parse_position(l).unwrap();
                let moves = vec![start.legal_moves()[0]];
                let eval = weights.evaluate_red(&start);
                let result = if eval > 0 { 1.0 } else { 0.0 };
                (i as u64, DataGame { start, moves, result })
            })
            .collect();
        let specs = XiangqiGame::specs();
        let values = crate::params::Params::defaults(&specs).values().to_vec();
        let tuned = [specs.iter().position(|s| s.name == "rook").unwrap()];
        let targets = |blend: Option<f64>| {
            let mentor = blend.map(|blend| Mentor::<XiangqiGame> {
                agent: Agent::Weights(weights.clone()),
                limit: crate::game::Limit::Depth(2),
                blend,
            });
            let (fit, held) = sample(&games, &values, &tuned, 1, 0.2, 7, mentor.as_ref()).unwrap();
            let rows = fit.rows.iter().chain(&held.rows);
            rows.map(|r| r.result).collect::<Vec<f32>>()
        };
        let results = targets(None);
        assert!(results.len() > 60, "{}", results.len());
        assert_eq!(targets(Some(0.0)), results);
        let mentored = targets(Some(1.0));
        let half = targets(Some(0.5));
        let mut agree = 0;
        for ((&r, &m), &h) in results.iter().zip(&mentored).zip(&half) {
            assert!(m > 0.0 && m < 1.0, "{m}");
            assert!((h - (r + m) / 2.0).abs() < 1e-6, "{h} {r} {m}");
            agree += usize::from((m > 0.5) == (r > 0.5));
        }
        // The mentor's deeper look mostly agrees with the evaluation that decided the results.
        assert!(agree * 10 > results.len() * 8, "{agree} of {}", results.len());
    }

    #[test]
    fn data_files_replay_and_bad_lines_are_named() {
        let record = |moves: &[&str], winner| {
            let start = XiangqiGame::parse_position(crate::xiangqi::START_FEN).unwrap();
            let state = XiangqiGame::start(&start);
            let mut r = GameRecord::new(crate::xiangqi::START_FEN.to_string(), Seat::First);
            let mut state = state;
            for m in moves {
                let mv = XiangqiGame::parse_move(&state, m).unwrap();
                XiangqiGame::play(&mut state, mv);
                r.moves.push(mv);
            }
            r.winner = winner;
            r
        };
        let records = vec![
            record(&["h2e2", "h9g7"], Some(Seat::First)),
            record(&["b0c2"], None),
        ];
        let dir = std::env::temp_dir().join(format!("qitune-texel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data.txt");
        std::fs::write(&path, data_text::<XiangqiGame>(&records)).unwrap();
        let games = read_data::<XiangqiGame>(&path).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!((games[0].moves.len(), games[0].result), (2, 1.0));
        assert_eq!(games[1].result, 0.5);
        let text = std::fs::read_to_string(&path).unwrap().replace("h9g7", "h9h7");
        std::fs::write(&path, text).unwrap();
        let e = read_data::<XiangqiGame>(&path).err().unwrap().to_string();
        assert!(e.contains("line 1: move 'h9h7' is not legal there"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_twins_settings_are_named() {
        let bad = TwinsFit {
            sigma_min: 0.2,
            ..TwinsFit::default()
        };
        assert!(bad.problem().unwrap().contains("twins.sigma_min"));
        let none = TwinsFit {
            pairs: 0,
            ..TwinsFit::default()
        };
        assert!(none.problem().unwrap().contains("twins.pairs = 0"));
        assert_eq!(TwinsFit::default().problem(), None);
    }
}
