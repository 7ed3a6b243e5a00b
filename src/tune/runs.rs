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
}

/// Sums up the run in `dir`.
pub fn summarise(dir: &Path, name: String) -> Result<RunSummary, RunError> {
    let config: Config = super::folder::read_json(&dir.join("config.json"))?;
    let info = super::methods::info(&config.method)?;
    let columns = step_columns(&dir.join(info.csv))?;
    let column = |name: &str| {
        columns
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, points)| points.clone())
            .unwrap_or_default()
    };
    let (games, seconds) = (column("games"), column("seconds"));
    let done = games.len();
    // The tuning games and hours before each validation.
    let up_to = |points: &[(f64, f64)], g: usize| {
        points
            .iter()
            .filter(|&&(x, _)| x as usize <= g)
            .map(|&(_, y)| y)
            .sum::<f64>()
    };
    let rows = validations(dir)?;
    let curve = rows
        .iter()
        .map(|v| {
            let g = v.generation;
            (v.clone(), up_to(&games, g), up_to(&seconds, g) / 3600.0)
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
    })
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
            let stage_name = format!(
                "{name}/{}",
                stage.file_name().unwrap_or_default().to_string_lossy()
            );
            out.push(summarise(&stage, stage_name)?);
        }
    }
    Ok(out)
}
