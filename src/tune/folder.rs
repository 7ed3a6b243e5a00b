//! A run folder's files: the CSV rows, the champions and the validations, read and written
//! the same way for every method.

pub use super::error::{io, RunError};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A row of a run's CSV files: it belongs to one step.
pub trait Row: Serialize + DeserializeOwned + Clone + std::fmt::Debug {
    /// The step the row belongs to (its first column, named by the folder's [`Format`]).
    fn step(&self) -> usize;
}

/// How a run folder names its steps. Format 1 called every method's steps generations
/// (champions `gen-NNNN.json`, a first column and a `state.json` key `generation`); format 2
/// calls them steps (`step-NNNN.json`, `step`) except in the GA's own rows and champions,
/// where a step is a generation. A folder keeps the format it was made in, so that a run
/// resumed by a newer qitune goes on writing the files it began with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format(u32);

impl Format {
    /// What new runs are made in.
    pub const CURRENT: Format = Format(2);

    /// The format numbered `n`, if this qitune reads it.
    pub fn of(n: u32) -> Option<Format> {
        (1..=Self::CURRENT.0).contains(&n).then_some(Format(n))
    }

    /// Its number in `state.json`.
    pub fn number(self) -> u32 {
        self.0
    }

    /// What a step of a method whose steps are called `unit` is called in its files (the
    /// first column, the champions' provenance).
    pub fn step_word(self, unit: &'static str) -> &'static str {
        if self.0 == 1 {
            "generation"
        } else {
            unit
        }
    }

    /// A CSV header: the step's column, then `columns`.
    pub fn header(self, unit: &'static str, columns: &[&'static str]) -> Vec<&'static str> {
        std::iter::once(self.step_word(unit))
            .chain(columns.iter().copied())
            .collect()
    }

    /// The champion file of step `step` in a run folder of this format.
    pub fn champion_path(self, dir: &Path, step: usize) -> PathBuf {
        let prefix = if self.0 == 1 { "gen-" } else { "step-" };
        dir.join("champions").join(format!("{prefix}{step:04}.json"))
    }
}

/// The formats whose champion files a folder may hold, the current first.
const CHAMPION_FORMATS: [Format; 2] = [Format::CURRENT, Format(1)];

/// A JSON file of a run folder (`config.json`, `state.json`).
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, RunError> {
    let text = crate::fsutil::read_text(path, crate::fsutil::MAX_JSON_BYTES).map_err(io(path))?;
    serde_json::from_str(&text).map_err(|source| RunError::Json {
        path: path.to_path_buf(),
        source,
    })
}

/// The file of the validations.
pub const VALIDATION_CSV: &str = "validation.csv";
/// Its columns after the step's (which the folder's format names: see [`Format::header`]).
pub const VALIDATION_COLUMNS: [&str; 9] = [
    "games", "wins", "draws", "losses", "score", "elo", "elo_low", "elo_high", "los",
];

/// One validation (a row of validation.csv): the step's champion against the anchor on
/// held-out positions, from the champion's point of view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationRow {
    #[serde(alias = "generation")]
    pub step: usize,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub score: f64,
    /// Elo against the anchor and its 95% interval (empty where unbounded: a score of 0 or 1).
    pub elo: Option<f64>,
    pub elo_low: Option<f64>,
    pub elo_high: Option<f64>,
    /// Likelihood of superiority over the anchor.
    pub los: f64,
}

impl Row for ValidationRow {
    fn step(&self) -> usize {
        self.step
    }
}

/// The rows of a run's CSV file.
pub fn read_rows<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, RunError> {
    let csv_error = |source| RunError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut reader = csv::Reader::from_path(path).map_err(csv_error)?;
    reader.deserialize().collect::<Result<_, _>>().map_err(csv_error)
}

/// Writes a CSV file of `rows` under `columns` (the header alone when there are none),
/// atomically.
pub fn write_rows<T: Serialize>(path: &Path, columns: &[&str], rows: &[T]) -> Result<(), RunError> {
    let csv_error = |source| RunError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut writer = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    writer.write_record(columns).map_err(csv_error)?;
    for r in rows {
        writer.serialize(r).map_err(csv_error)?;
    }
    let bytes = writer.into_inner().map_err(|e| io(path)(e.into_error()))?;
    crate::fsutil::write_atomic(path, &bytes).map_err(io(path))
}

/// A named column of a CSV file as (step, value) points.
pub type Column = (String, Vec<(f64, f64)>);

/// A run's step rows (whatever its method) as series: each column but the first against the
/// step.
pub fn step_columns(path: &Path) -> Result<Vec<Column>, RunError> {
    let csv_error = |source| RunError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut reader = csv::Reader::from_path(path).map_err(csv_error)?;
    let header: Vec<String> = reader
        .headers()
        .map_err(csv_error)?
        .iter()
        .map(str::to_string)
        .collect();
    let mut columns: Vec<Column> = header.iter().skip(1).map(|h| (h.clone(), Vec::new())).collect();
    for record in reader.records() {
        let record = record.map_err(csv_error)?;
        let number = |i: usize| record.get(i).and_then(|v| v.parse::<f64>().ok());
        let Some(step) = number(0) else {
            return Err(RunError::State {
                path: path.to_path_buf(),
                reason: format!("a row without a step number: {record:?}"),
            });
        };
        for (c, (_, points)) in columns.iter_mut().enumerate() {
            if let Some(y) = number(c + 1) {
                points.push((step, y));
            }
        }
    }
    Ok(columns)
}

/// A run folder's validations, in step order (none when it validates nothing).
pub fn validations(dir: &Path) -> Result<Vec<ValidationRow>, RunError> {
    let path = dir.join(VALIDATION_CSV);
    if !path.exists() {
        return Ok(Vec::new());
    }
    read_rows(&path)
}

/// The best validation: the highest Elo (a perfect score above all); ties go to the later.
pub fn best_validation(rows: &[ValidationRow]) -> Option<&ValidationRow> {
    let key = |v: &ValidationRow| {
        v.elo.unwrap_or(if v.score >= 1.0 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        })
    };
    rows.iter()
        .reduce(|best, v| if key(v) >= key(best) { v } else { best })
}

/// The champion file of step `step` in a run folder of either format, if there is one.
pub fn find_champion(dir: &Path, step: usize) -> Option<PathBuf> {
    CHAMPION_FORMATS
        .iter()
        .map(|format| format.champion_path(dir, step))
        .find(|path| path.exists())
}

/// The champion file of step `step` in a run folder, or why there is none.
pub fn existing_champion(dir: &Path, step: usize) -> Result<PathBuf, RunError> {
    find_champion(dir, step).ok_or_else(|| RunError::NoChampion {
        dir: dir.to_path_buf(),
        step,
        path: Format::CURRENT.champion_path(dir, step),
    })
}

/// The last step with a champion file in a run folder.
pub fn last_champion(dir: &Path) -> Option<usize> {
    std::fs::read_dir(dir.join("champions"))
        .ok()?
        .filter_map(|e| {
            let name = e.ok()?.file_name();
            let name = name.to_str()?.strip_suffix(".json")?;
            ["step-", "gen-"]
                .iter()
                .find_map(|prefix| name.strip_prefix(prefix))?
                .parse()
                .ok()
        })
        .max()
}

/// The parameters the run in `dir` tunes, as its last champion names them: a run goes on
/// tuning the ones it began with, while its `evolve` patterns (`all`, `pst_*`) name whatever
/// the game has today, which may be more. `None` when there is no champion yet, or it is of
/// a run that did not record them.
pub fn tuned_names(dir: &Path) -> Option<Vec<String>> {
    let path = find_champion(dir, last_champion(dir)?)?;
    tuned_in(&crate::params::WeightFile::read(&path).ok()?)
}

/// The parameters a champion's provenance says its run tuned (`tuned`, or `evolved` in the
/// files of older runs); `None` where it names none.
pub fn tuned_in(champion: &crate::params::WeightFile) -> Option<Vec<String>> {
    ["tuned", "evolved"].iter().find_map(|key| {
        champion
            .provenance
            .get(key)?
            .as_array()?
            .iter()
            .map(|name| name.as_str().map(str::to_string))
            .collect()
    })
}

/// The file that marks a run folder as in use by a live process: its process id.
pub const LOCK: &str = "run.lock";

/// The process running the run in `dir`, if one is: a lock whose process is alive (a lock
/// left by a killed process does not count).
pub fn running(dir: &Path) -> Option<u32> {
    let pid: u32 = std::fs::read_to_string(dir.join(LOCK))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    let alive = if cfg!(target_os = "linux") {
        // A process killed but not yet reaped (a zombie) holds nothing any more.
        std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat"))
            .ok()
            .and_then(|stat| {
                let state = stat.rsplit_once(") ")?.1.chars().next()?;
                Some(!matches!(state, 'Z' | 'X' | 'x'))
            })
            .unwrap_or(false)
    } else {
        true
    };
    alive.then_some(pid)
}

/// A run folder held by this process until dropped.
#[derive(Debug)]
pub struct Lock {
    path: PathBuf,
}

impl Lock {
    /// Holds the run in `dir`, unless a live process holds it already.
    pub fn take(dir: &Path) -> Result<Lock, RunError> {
        if let Some(pid) = running(dir).filter(|&pid| pid != std::process::id()) {
            return Err(RunError::Running {
                dir: dir.to_path_buf(),
                pid,
            });
        }
        let path = dir.join(LOCK);
        crate::fsutil::write_atomic(&path, format!("{}\n", std::process::id()).as_bytes())
            .map_err(io(&path))?;
        Ok(Lock { path })
    }

    /// The lock file (for a handler that ends the process without dropping it).
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
