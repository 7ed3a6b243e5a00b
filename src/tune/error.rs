//! The errors a run can meet: a configuration refused, or a run that cannot start, resume
//! or go on.

use std::path::{Path, PathBuf};

/// Why a run could not start, resume or go on.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("run folder {} already exists: resume it with --resume, or give the run another name", .0.display())]
    Exists(PathBuf),
    #[error("no run {name} in {}: drop --resume to start it", runs.display())]
    NoRun { name: String, runs: PathBuf },
    #[error("{} is a run of {found}, not {expected}", dir.display())]
    WrongGame {
        dir: PathBuf,
        found: String,
        expected: &'static str,
    },
    #[error("{} has no champion of step {step} ({} is missing)", dir.display(), path.display())]
    NoChampion {
        dir: PathBuf,
        step: usize,
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

/// Why a configuration was rejected.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{}: invalid configuration: {source}", path.display())]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// An error in the configuration file at `path`.
    #[error("{}: {source}", path.display())]
    In { path: PathBuf, source: Box<ConfigError> },
    /// An error at a line of the configuration file at `path`.
    #[error("{}, line {line}: {source}", path.display())]
    At {
        path: PathBuf,
        line: usize,
        source: Box<ConfigError>,
    },
    /// A value of the wrong type or shape, by its key (`validation.every`).
    #[error("{key}: {reason}")]
    Key { key: String, reason: String },
    /// An error in one stage of a run in stages (1-based).
    #[error("stage {stage}: {source}")]
    Stage { stage: usize, source: Box<ConfigError> },
    #[error(transparent)]
    UnknownGame(#[from] crate::games::UnknownGame),
    #[error("method '{0}' is unknown ({1})")]
    UnknownMethod(String, String),
    #[error("evolve: unknown parameter '{0}'")]
    UnknownParameter(String),
    #[error("'{0}' differs from the run's saved configuration")]
    Differs(String),
    /// A value out of its range or inconsistent with another, in words that name the key.
    #[error("{0}")]
    Invalid(String),
}

/// A configuration value read into `T`; a mistake is named by its key.
pub fn from_value<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, ConfigError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let key = e.path().to_string();
        let reason = e.into_inner().to_string();
        if key == "." {
            ConfigError::Invalid(reason)
        } else {
            ConfigError::Key { key, reason }
        }
    })
}

impl ConfigError {
    /// What is wrong with the value of `key`.
    pub fn at(key: impl Into<String>, reason: impl Into<String>) -> ConfigError {
        ConfigError::Key {
            key: key.into(),
            reason: reason.into(),
        }
    }

    /// The key this error names, if it names one (looking inside a stage's error).
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigError::Key { key, .. } => Some(key),
            ConfigError::Stage { source, .. } => source.key(),
            _ => None,
        }
    }
}
