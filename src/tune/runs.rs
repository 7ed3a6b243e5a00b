//! The runs of a runs folder, each summed up from its files: what `qitune runs` lists and
//! what `qitune report --compare` draws.

use super::config::Config;
use super::folder::{best_validation, running, step_columns, validations, RunError, ValidationRow};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Where a run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// A live process is playing it.
    Running,
    /// It has not reached its planned generations and nothing plays it.
    Stopped,
    /// It reached its planned generations.
    Done,
}

/// One run folder, summed up.
#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    /// Its name: the folder's, with `/stage-N` for a stage of a run in stages.
    pub name: String,
    pub dir: PathBuf,
    pub method: String,
    pub game: String,
    pub done: usize,
    pub planned: usize,
    /// Tuning games played (validation games aside).
    pub games: u64,
    /// Seconds spent on them.
    pub seconds: f64,
    pub best: Option<ValidationRow>,
    pub last: Option<ValidationRow>,
    pub state: RunState,
    /// When state.json was last written, in seconds since the Unix epoch.
    pub last_write: Option<u64>,
    /// Each validation with the games and hours of tuning before it.
    #[serde(skip)]
    pub curve: Vec<(ValidationRow, f64, f64)>,
    /// The same for the earlier stages of its run that share its anchor, so that a run in
    /// stages is drawn whole.
    #[serde(skip)]
    pub before: Vec<(ValidationRow, f64, f64)>,
}

/// Sums up the run in `dir`.
pub fn summarise(dir: &Path, name: String) -> Result<RunSummary, RunError> {
    let config: Config = super::folder::read_json(&dir.join("config.json"))?;
    let (games, seconds) = steps_spent(dir, &config)?;
    let done = games.len();
    // The tuning games and hours before each validation, earlier stages' included.
    let (games_before, seconds_before) = spent_before(dir)?;
    let rows = validations(dir)?;
    let before = earlier_curve(dir, &config)?;
    let curve = rows
        .iter()
        .map(|v| {
            let g = v.step;
            (
                v.clone(),
                games_before + sum_through(&games, g),
                (seconds_before + sum_through(&seconds, g)) / 3600.0,
            )
        })
        .collect();
    let state = if running(dir).is_some() {
        RunState::Running
    } else if done >= config.generations {
        RunState::Done
    } else {
        RunState::Stopped
    };
    let last_write = std::fs::metadata(dir.join("state.json"))
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs());
    Ok(RunSummary {
        name,
        dir: dir.to_path_buf(),
        method: config.method,
        game: config.game,
        done,
        planned: config.generations,
        games: games.iter().map(|&(_, y)| y as u64).sum(),
        seconds: seconds.iter().map(|&(_, y)| y).sum(),
        best: best_validation(&rows).cloned(),
        last: rows.last().cloned(),
        state,
        last_write,
        curve,
        before,
    })
}

/// The validation points of the stages before the one in `dir` whose anchor, named in the
/// run's configuration, is this stage's: a stage without one measures against its own start,
/// which its earlier stages do not share.
fn earlier_curve(dir: &Path, config: &Config) -> Result<Vec<(ValidationRow, f64, f64)>, RunError> {
    let anchor = |c: &Config| c.validation.as_ref().and_then(|v| v.anchor.clone());
    let Some(ours) = anchor(config) else {
        return Ok(Vec::new());
    };
    let mut points = Vec::new();
    for stage in super::stages::earlier_stages(dir) {
        let earlier: Config = super::folder::read_json(&stage.join("config.json"))?;
        if anchor(&earlier).as_ref() == Some(&ours) {
            points.extend(summarise(&stage, String::new())?.curve);
        }
    }
    Ok(points)
}

impl RunSummary {
    /// Every validation point to draw: the earlier stages' that share its anchor, then its own.
    pub fn points(&self) -> impl Iterator<Item = &(ValidationRow, f64, f64)> {
        self.before.iter().chain(&self.curve)
    }

    /// The summary's validations as far as `games` tuning games: its curve cut there, and its
    /// best and last validated champions chosen from what is left (the run's totals stay).
    pub fn within(mut self, games: u64) -> RunSummary {
        self.curve.retain(|c| c.1 <= games as f64);
        self.before.retain(|c| c.1 <= games as f64);
        let rows: Vec<ValidationRow> = self.curve.iter().map(|c| c.0.clone()).collect();
        self.best = best_validation(&rows).cloned();
        self.last = rows.last().cloned();
        self
    }
}

/// Tuning spent by a run: games played, or hours of tuning (validation aside), counted
/// from the run's first stage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Spent {
    Games(u64),
    Hours(f64),
}

/// The last generation, and the stage folder holding it, whose tuning (earlier stages'
/// included) stayed within `budget`: the champion a run of that budget would have ended
/// with. For a stage of a run in stages, a budget spent before it began ends in an earlier
/// stage. `None` when even the run's first generation went past it.
pub fn last_within(dir: &Path, budget: Spent) -> Result<Option<(PathBuf, usize)>, RunError> {
    let earlier = super::stages::earlier_stages(dir);
    for stage in std::iter::once(dir.to_path_buf()).chain(earlier.into_iter().rev()) {
        if let Some(step) = last_within_stage(&stage, budget)? {
            return Ok(Some((stage, step)));
        }
    }
    Ok(None)
}

/// [`last_within`] in the folder `dir` alone.
fn last_within_stage(dir: &Path, budget: Spent) -> Result<Option<usize>, RunError> {
    let config: Config = super::folder::read_json(&dir.join("config.json"))?;
    let (games, seconds) = steps_spent(dir, &config)?;
    let (mut spent_games, mut spent_seconds) = spent_before(dir)?;
    let mut last = None;
    for (&(step, g), &(_, s)) in games.iter().zip(&seconds) {
        spent_games += g;
        spent_seconds += s;
        let within = match budget {
            Spent::Games(n) => spent_games <= n as f64,
            Spent::Hours(h) => spent_seconds <= h * 3600.0,
        };
        if !within {
            break;
        }
        last = Some(step as usize);
    }
    Ok(last)
}

/// The tuning games and seconds (validation aside) the run in `dir` spent up to and
/// including generation `generation`, earlier stages' included.
pub fn spent_through(dir: &Path, generation: usize) -> Result<(f64, f64), RunError> {
    let config: Config = super::folder::read_json(&dir.join("config.json"))?;
    let (games, seconds) = steps_spent(dir, &config)?;
    let (before_games, before_seconds) = spent_before(dir)?;
    Ok((
        before_games + sum_through(&games, generation),
        before_seconds + sum_through(&seconds, generation),
    ))
}

/// A CSV column's points: (step, value).
type Points = Vec<(f64, f64)>;

/// The sum of a column's values over its steps up to and including `step`.
fn sum_through(points: &[(f64, f64)], step: usize) -> f64 {
    points
        .iter()
        .filter(|&&(x, _)| x as usize <= step)
        .map(|&(_, y)| y)
        .sum()
}

/// The games and seconds of each step of the run in `dir` (whose configuration is
/// `config`), from its method's CSV.
fn steps_spent(dir: &Path, config: &Config) -> Result<(Points, Points), RunError> {
    let info = super::methods::info(&config.method)?;
    let mut columns = step_columns(&dir.join(info.csv))?;
    let mut take = |name: &str| {
        columns
            .iter_mut()
            .find(|(n, _)| n == name)
            .map(|(_, points)| std::mem::take(points))
            .unwrap_or_default()
    };
    Ok((take("games"), take("seconds")))
}

/// The games and seconds of the stages before the one in `dir`.
fn spent_before(dir: &Path) -> Result<(f64, f64), RunError> {
    let mut spent = (0.0, 0.0);
    for stage in super::stages::earlier_stages(dir) {
        let config: Config = super::folder::read_json(&stage.join("config.json"))?;
        let (games, seconds) = steps_spent(&stage, &config)?;
        spent.0 += games.iter().map(|&(_, y)| y).sum::<f64>();
        spent.1 += seconds.iter().map(|&(_, y)| y).sum::<f64>();
    }
    Ok(spent)
}

/// Every run in `runs_dir` (and every stage of a run in stages), by name; a folder that
/// is not a run is passed over, a run whose files cannot be read is an error.
pub fn list(runs_dir: &Path) -> Result<Vec<RunSummary>, RunError> {
    let entries = std::fs::read_dir(runs_dir).map_err(super::folder::io(runs_dir))?;
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_dir()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    dirs.sort();
    let mut out = Vec::new();
    for dir in dirs {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if dir.join("config.json").exists() {
            out.push(summarise(&dir, name)?);
            continue;
        }
        for stage in (1..).map(|i| dir.join(format!("stage-{i}"))) {
            if !stage.join("config.json").exists() {
                break;
            }
            out.push(summarise(&stage, super::stages::display_name(&stage))?);
        }
    }
    Ok(out)
}
