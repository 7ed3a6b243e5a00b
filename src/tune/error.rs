//! The errors a run can meet.

use super::config::ConfigError;
use std::path::{Path, PathBuf};

/// Why a run could not start, resume or go on.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("run folder {} already exists: resume it with --resume, or give the run another name", .0.display())]
    Exists(PathBuf),
    #[error("{} is a run of {found}, not {expected}", dir.display())]
    WrongGame {
        dir: PathBuf,
        found: String,
        expected: &'static str,
    },
    #[error("{} has no champion of generation {generation} ({} is missing)", dir.display(), path.display())]
    NoChampion {
        dir: PathBuf,
        generation: usize,
        path: PathBuf,
    },
    #[error("{}: {reason}", path.display())]
    State { path: PathBuf, reason: String },
    #[error("{}: {source}", path.display())]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{}: {source}", path.display())]
    Csv { path: PathBuf, source: csv::Error },
    #[error("cannot write or read {}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{} is running (process {pid}); wait for it, or stop that process first", dir.display())]
    Running { dir: PathBuf, pid: u32 },
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Weights(#[from] crate::params::LoadError),
    #[error(transparent)]
    Arena(#[from] crate::arena::ArenaError),
    /// A method's own failure (its data files, its fit).
    #[error(transparent)]
    Method(Box<dyn std::error::Error + Send + Sync>),
}

/// An I/O error on `path`.
pub fn io(path: &Path) -> impl Fn(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.to_path_buf(),
        source,
    }
}
