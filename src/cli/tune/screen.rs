//! What a tuning session shows and keeps: on a terminal a bar for the session's games and
//! one for the step's, with the lines above them; on a pipe the lines alone, with a line of
//! how far the session is after each step; and every line in the run's `run.log`.

use super::super::interrupt::Turn;
use super::super::progress::{clock_now, hms};
use anyhow::{Context, Result};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use qitune::game::Game;
use qitune::tune::error::{io, RunError};
use qitune::tune::method::Method;
use qitune::tune::observe::{Observe, Stepped};
use qitune::tune::run::{Progress, Run};
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// A session's bars, its lines and its log.
pub struct Screen {
    bars: MultiProgress,
    /// The session's games: its ETA comes from the games per second measured so far.
    run_bar: ProgressBar,
    step_bar: ProgressBar,
    /// Whether lines are shown at all (not with --quiet or --jsonl).
    shown: bool,
    /// What a step is called, and the step this session ends at.
    unit: &'static str,
    target: usize,
    /// The games of a step.
    games: usize,
    started: Instant,
    log: std::fs::File,
    log_path: PathBuf,
    /// Held while lines are written, so that a Ctrl-C message is always the log's last.
    turn: Turn,
}

impl Screen {
    /// The screen of `run`'s session, its lines appended to the run's `run.log`.
    pub fn new<G: Game, M: Method>(run: &Run<G, M>, shown: bool, turn: Turn) -> Result<Screen> {
        let (unit, first, target) = (M::INFO.unit, run.done(), run.target());
        let (games, session_games) = (run.games_per_step(), run.session_games());
        let log_path = run.dir.join("run.log");
        let bars = if shown {
            MultiProgress::new()
        } else {
            MultiProgress::with_draw_target(ProgressDrawTarget::hidden())
        };
        let run_bar = bars.add(ProgressBar::new(session_games as u64));
        run_bar.set_style(
            ProgressStyle::with_template(
                "{prefix:<18} {bar:30} {human_pos}/{human_len} games {msg} [{elapsed_precise} eta {eta_precise}]",
            )
            .expect("template"),
        );
        let step_bar = bars.add(ProgressBar::new(games as u64));
        step_bar
            .set_style(ProgressStyle::with_template("{prefix:<18} {bar:30} {pos}/{len}").expect("template"));
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .with_context(|| format!("cannot open {}", log_path.display()))?;
        let screen = Screen {
            bars,
            run_bar,
            step_bar,
            shown,
            unit,
            target,
            games,
            started: Instant::now(),
            log,
            log_path,
            turn,
        };
        screen.set_done(first);
        screen.start_step();
        Ok(screen)
    }

    /// Shows a line without logging it: above the bars on a terminal, plain on a pipe.
    pub fn show(&self, line: &str) {
        match (self.shown, self.bars.is_hidden()) {
            (false, _) => {}
            (true, true) => super::super::out(line),
            (true, false) => {
                let _ = self.bars.println(line);
            }
        }
    }

    /// Logs lines and shows them.
    pub fn say(&self, lines: &[String]) -> Result<(), RunError> {
        let _turn = self.turn.take();
        for line in lines {
            self.log_line(line)?;
            self.show(line);
        }
        Ok(())
    }

    /// Logs the session's last lines and prints them on standard output (on standard error
    /// with --jsonl, whose standard output holds JSON only).
    pub fn summary(&self, lines: &[String], jsonl: bool) -> Result<()> {
        let _turn = self.turn.take();
        for line in lines {
            self.log_line(line)?;
            if jsonl {
                eprintln!("{line}");
            } else {
                super::super::out(line);
            }
        }
        Ok(())
    }

    fn log_line(&self, line: &str) -> Result<(), RunError> {
        // A shared file writes as well: appends need no exclusive handle.
        let mut log = &self.log;
        writeln!(log, "[{}] {line}", clock_now()).map_err(io(&self.log_path))
    }

    /// A step begins.
    fn start_step(&self) {
        self.step_bar.reset();
        self.step_bar.set_length(self.games as u64);
        self.step_bar.set_prefix("games");
    }

    fn set_done(&self, done: usize) {
        self.run_bar
            .set_prefix(format!("{} {done}/{}", self.unit, self.target));
    }

    /// After step `done`: the run bar says it and `progress`; on a pipe, where no bar is
    /// drawn, the returned line says how far the session is and when it ends.
    fn step_done(&self, done: usize, progress: String) -> Option<String> {
        self.set_done(done);
        self.run_bar.set_message(progress);
        if !(self.bars.is_hidden() && self.shown) {
            return None;
        }
        let played = self.run_bar.position();
        let total = self.run_bar.length().unwrap_or(played);
        let eta = self
            .started
            .elapsed()
            .mul_f64(total.saturating_sub(played) as f64 / (played as f64).max(1.0));
        Some(format!(
            "  {done} of {} {}s, {played} of {total} games this session, eta {}",
            self.target,
            self.unit,
            hms(eta)
        ))
    }

    /// Removes the bars.
    pub fn finish(&self) {
        self.step_bar.finish_and_clear();
        self.run_bar.finish_and_clear();
    }
}

impl<R> Observe<R> for Screen {
    fn progress(&self, event: Progress) {
        match event {
            Progress::Game => {
                self.step_bar.inc(1);
                self.run_bar.inc(1);
            }
            Progress::Validating(n) => {
                self.step_bar.reset();
                self.step_bar.set_length(n as u64);
                self.step_bar.set_prefix("validation games");
            }
        }
    }

    /// The step's lines above the bars and in the log, and on a pipe how far the session is.
    fn step(&mut self, step: &mut Stepped<R>) -> Result<(), RunError> {
        let progress = std::mem::take(&mut step.progress);
        step.lines.extend(self.step_done(step.done, progress));
        self.say(&step.lines)?;
        self.start_step();
        Ok(())
    }
}
