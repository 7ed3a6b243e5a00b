//! What a run shows, kept apart from how a method finds its steps (the shape of argmin's
//! observers): a method's rows are put in words by its [`View`], and the executor hands each
//! saved step, with those words, to the [`Observe`] implementations a session gives it (the
//! report, the screen and its log, a JSON stream), in order.

use super::error::RunError;
use super::folder::ValidationRow;
use crate::game::GameRecord;
use std::path::Path;

/// How a method's rows read: a step's line, a few words for the progress bar, and the
/// report's charts of its columns. Each method has one, beside its row.
pub trait View {
    /// The row it reads.
    type Row;
    /// The report's charts of the row's columns; none draws one chart a column.
    const CHARTS: &'static [Chart];
    /// A step's line of the run's output and log.
    fn line(&self, row: &Self::Row) -> String;
    /// A few words on the progress bar after a step.
    fn progress(&self, row: &Self::Row) -> String;
}

/// A report chart of some of a method's columns against the step.
#[derive(Debug)]
pub struct Chart {
    pub title: &'static str,
    /// Each line: its label, its column, and a column it is divided by (a share).
    pub lines: &'static [(&'static str, &'static str, Option<&'static str>)],
}

/// What a step gave: its row and, when due, its validation.
#[derive(Clone, Debug, PartialEq)]
pub struct StepReport<R> {
    pub stats: R,
    pub validation: Option<ValidationRow>,
    /// The step's games (its validation's included) that an outside engine lost by a fault.
    pub faults: Faults,
}

/// Games lost to an outside engine's fault (a crash, a hang, an illegal or late answer),
/// and what the first few said: a tuned engine that breaks for some settings shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    pub games: usize,
    pub first: Vec<String>,
}

impl Faults {
    /// The faults kept word for word; the rest are counted.
    const KEPT: usize = 3;

    pub(crate) fn add<M>(&mut self, records: &[GameRecord<M>]) {
        for fault in records.iter().filter_map(|r| r.fault.as_ref()) {
            self.games += 1;
            if self.first.len() < Self::KEPT {
                self.first.push(fault.clone());
            }
        }
    }
}

/// What a step tells its observer as it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// A game finished.
    Game,
    /// The step's validation starts: this many games against the anchor.
    Validating(usize),
}

/// A saved step as its observers see it.
pub struct Stepped<'a, R> {
    /// The run folder.
    pub dir: &'a Path,
    /// The steps done, this one included.
    pub done: usize,
    /// Whether it is the session's first step.
    pub first: bool,
    pub report: &'a StepReport<R>,
    /// Its lines: the method's line, its validation and its faults; an observer may add
    /// lines for those after it (a warning, how far the session is).
    pub lines: Vec<String>,
    /// The method's few words for a progress bar.
    pub progress: String,
}

/// Something that follows a session: told of every game as it ends (from the workers'
/// threads) and of every step once it is saved.
pub trait Observe<R>: Sync {
    /// A game ended, or a validation began.
    fn progress(&self, _event: Progress) {}
    /// A step was saved.
    fn step(&mut self, step: &mut Stepped<R>) -> Result<(), RunError>;
}

/// The lines a saved step shows: the method's line, then its validation and the games an
/// outside engine lost by a fault, when there are any.
pub fn step_lines(line: String, validation: Option<&ValidationRow>, faults: &Faults) -> Vec<String> {
    let mut lines = vec![line];
    if let Some(v) = validation {
        lines.push(format!("  validation: {}", validation_text(v)));
    }
    if faults.games > 0 {
        lines.push(format!(
            "  {} lost to outside-engine faults: {}",
            count(faults.games, "game"),
            faults.first.join("; ")
        ));
    }
    lines
}

/// An Elo figure with its sign, a rounded zero as `+0.0` (never `-0.0`).
pub fn signed(v: f64) -> String {
    format!("{:+.1}", if v.abs() < 0.05 { 0.0 } else { v })
}

/// `n` things, in words: `1 game`, `3 games`.
pub fn count(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// A validation in words: the champion's results and Elo against the anchor.
pub fn validation_text(v: &ValidationRow) -> String {
    let elo = match (v.elo, v.elo_low, v.elo_high) {
        (Some(e), Some(lo), Some(hi)) => format!("Elo {} (95% {} to {})", signed(e), signed(lo), signed(hi)),
        (Some(e), _, _) => format!("Elo {}", signed(e)),
        _ if v.score >= 1.0 => "every game won".to_string(),
        _ => "every game lost".to_string(),
    };
    format!(
        "{} games vs the anchor on held-out positions: +{} ={} -{}, {elo}, LOS {:.1}%",
        v.games,
        v.wins,
        v.draws,
        v.losses,
        100.0 * v.los
    )
}
