//! Runs in stages: a configuration with `stages` is several runs in one folder
//! (`runs/<name>/stage-N`), each stage a run of its own method that starts from the
//! previous stage's best (for example the GA from the hand-set weights, then SPSA).

use super::config::{check_name, from_value, line_of, Config, ConfigError, Init};
use super::folder::{best_validation, existing_champion, last_champion, validations, RunError};
use std::path::{Path, PathBuf};

/// Keys a stage may not set: they belong to the whole run, or (after the first stage) the
/// previous stage's best decides them.
const TOP_ONLY: [&str; 4] = ["name", "game", "seed", "stages"];
const FIRST_STAGE_ONLY: [&str; 2] = ["base_weights", "init"];

/// What a configuration file asks for: one run, or a run in stages.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The run's folder name under the runs folder.
    pub name: String,
    /// Each stage's configuration, in order; one for a run without stages. A stage after the
    /// first names the first stage's base weights until the previous stage has its best.
    pub stages: Vec<Config>,
    /// Whether the file has `stages` (each in its own subfolder) or is a plain run.
    pub staged: bool,
}

impl Plan {
    /// Reads and validates a configuration file, each stage as a whole configuration: the
    /// file's keys with the stage's keys over them.
    pub fn read(path: &Path) -> Result<Plan, ConfigError> {
        // The file's text, once read: an error that names a key is shown at its line.
        let text_of = std::cell::OnceCell::new();
        let located = |source: ConfigError| {
            let line = text_of.get().and_then(|text: &String| {
                let key = source.key()?;
                // A stage's keys are looked for after "stages" first.
                let stages = text.find("\"stages\"").unwrap_or(0);
                line_of(text, key, stages).or_else(|| line_of(text, key, 0))
            });
            match line {
                Some(line) => ConfigError::At {
                    path: path.to_path_buf(),
                    line,
                    source: Box::new(source),
                },
                None => ConfigError::In {
                    path: path.to_path_buf(),
                    source: Box::new(source),
                },
            }
        };
        let text = crate::fsutil::read_text(path, crate::fsutil::MAX_JSON_BYTES).map_err(|source| {
            ConfigError::Read {
                path: path.to_path_buf(),
                source,
            }
        })?;
        let text: &String = text_of.get_or_init(|| text);
        let parse_error = |source| ConfigError::Parse {
            path: path.to_path_buf(),
            source,
        };
        let mut top: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(text).map_err(parse_error)?;
        let base_dir = path.parent().unwrap_or(Path::new("."));
        let Some(stages) = top.remove("stages") else {
            let config: Config = from_value(top.into()).map_err(located)?;
            return Ok(Plan {
                name: config.name.clone(),
                stages: vec![validated(config, base_dir).map_err(located)?],
                staged: false,
            });
        };
        let invalid = |reason: String| located(ConfigError::Invalid(reason));
        let stages = match stages {
            serde_json::Value::Array(list) if !list.is_empty() => list,
            _ => return Err(invalid("stages must be a list of at least one stage".to_string())),
        };
        let name = match top.get("name") {
            Some(serde_json::Value::String(name)) => name.clone(),
            _ => return Err(invalid("name must be given, as a string".to_string())),
        };
        check_name(&name).map_err(located)?;
        let mut configs = Vec::with_capacity(stages.len());
        for (i, stage) in stages.into_iter().enumerate() {
            let in_stage = |source| {
                located(ConfigError::Stage {
                    stage: i + 1,
                    source: Box::new(source),
                })
            };
            let serde_json::Value::Object(keys) = stage else {
                return Err(in_stage(ConfigError::Invalid(
                    "a stage must be an object of configuration keys".to_string(),
                )));
            };
            let mut merged = top.clone();
            for (key, value) in keys {
                if TOP_ONLY.contains(&key.as_str()) {
                    return Err(in_stage(ConfigError::Invalid(format!(
                        "'{key}' belongs to the whole run, not to a stage"
                    ))));
                }
                if i > 0 && FIRST_STAGE_ONLY.contains(&key.as_str()) {
                    return Err(in_stage(ConfigError::Invalid(format!(
                        "'{key}': a stage after the first starts from the previous stage's best"
                    ))));
                }
                merged.insert(key, value);
            }
            merged.insert("name".to_string(), format!("stage-{}", i + 1).into());
            if i > 0 {
                // A later stage starts from the previous stage's champion, its base weights
                // once it begins; until then a run from the built-in weights names none.
                let init = if merged.contains_key("base_weights") {
                    "weights"
                } else {
                    "defaults"
                };
                merged.insert("init".to_string(), init.into());
            }
            let config: Config = from_value(merged.into()).map_err(in_stage)?;
            let mut config = validated(config, base_dir).map_err(in_stage)?;
            if i > 0 {
                config.init = Init::Weights;
            }
            configs.push(config);
        }
        Ok(Plan {
            name,
            stages: configs,
            staged: true,
        })
    }

    /// The game every stage plays (the file names it once).
    pub fn game(&self) -> &str {
        &self.stages[0].game
    }

    /// Renames the run (its folder), keeping the stages' own names.
    pub fn rename(&mut self, name: &str) -> Result<(), ConfigError> {
        check_name(name)?;
        self.name = name.to_string();
        if !self.staged {
            self.stages[0].name = name.to_string();
        }
        Ok(())
    }

    /// The folder holding stage `i`'s run folder (0-based): the runs folder for a plain run,
    /// the run's own folder for a run in stages.
    pub fn parent_dir(&self, runs_dir: &Path) -> PathBuf {
        if self.staged {
            runs_dir.join(&self.name)
        } else {
            runs_dir.to_path_buf()
        }
    }
}

/// A plan's stages as a session runs them, in order: each stage's configuration, folder and
/// whether it resumes (a run in stages resumes the stages it has begun and begins the
/// others); a stage that begins after another starts from that one's best, read once the
/// stage before has run, so the caller runs each stage before it asks for the next.
pub struct Stages {
    stages: std::iter::Enumerate<std::vec::IntoIter<Config>>,
    of: usize,
    staged: bool,
    parent: PathBuf,
    resume: bool,
    /// The stage before: its folder and what its method calls a step.
    previous: Option<(PathBuf, &'static str)>,
}

/// A stage ready to run.
pub struct StageRun {
    /// 1-based, of `of`.
    pub number: usize,
    pub of: usize,
    /// Whether it is a stage of a run in stages (a plain run is one stage of one).
    pub staged: bool,
    pub config: Config,
    /// Its run folder, and the folder that holds it.
    pub dir: PathBuf,
    pub parent: PathBuf,
    pub resume: bool,
    /// Where a stage that begins after another starts.
    pub from: Option<StageStart>,
}

/// The champion a stage begins from: the stage before's best.
pub struct StageStart {
    /// The stage it comes from (1-based), what that stage's method calls a step, and the step.
    pub stage: usize,
    pub unit: &'static str,
    pub step: usize,
    pub champion: PathBuf,
}

impl Plan {
    /// The plan's stages for a session in `runs_dir`, once the folder agrees: a new run in
    /// stages must not exist yet, a resumed run must.
    pub fn into_stages(self, runs_dir: &Path, resume: bool) -> Result<Stages, RunError> {
        let parent = self.parent_dir(runs_dir);
        if self.staged && !resume && parent.exists() {
            return Err(RunError::Exists(parent));
        }
        let resumed = match self.staged {
            true => parent.is_dir(),
            false => parent.join(&self.stages[0].name).exists(),
        };
        if resume && !resumed {
            return Err(RunError::NoRun {
                name: self.name,
                runs: runs_dir.to_path_buf(),
            });
        }
        Ok(Stages {
            of: self.stages.len(),
            stages: self.stages.into_iter().enumerate(),
            staged: self.staged,
            parent,
            resume,
            previous: None,
        })
    }
}

impl Iterator for Stages {
    type Item = Result<StageRun, RunError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (i, mut config) = self.stages.next()?;
        let dir = self.parent.join(&config.name);
        let resume = self.resume && (!self.staged || dir.exists());
        let mut from = None;
        if let (false, Some((before, unit))) = (resume, &self.previous) {
            let (step, champion) = match stage_start(before) {
                Ok(start) => start,
                Err(e) => return Some(Err(e)),
            };
            config.base_weights = Some(champion.to_string_lossy().into_owned());
            from = Some(StageStart {
                stage: i,
                unit,
                step,
                champion,
            });
        }
        let unit = super::methods::info(&config.method).map_or("step", |m| m.unit);
        self.previous = Some((dir.clone(), unit));
        Some(Ok(StageRun {
            number: i + 1,
            of: self.of,
            staged: self.staged,
            config,
            dir,
            parent: self.parent.clone(),
            resume,
            from,
        }))
    }
}

/// `config` once checked against its parameters (its game's, or its outside engine's
/// options, read from the engine) and its method, paths relative to `base_dir`.
fn validated(config: Config, base_dir: &Path) -> Result<Config, ConfigError> {
    let config = super::subject::resolve_engine(&config, base_dir)?;
    super::methods::validate(&config, base_dir, &super::subject::specs(&config)?)
}

/// Where the stage after the run in `dir` starts: its best validated champion, else its
/// last; the generation and the champion file.
pub fn stage_start(dir: &Path) -> Result<(usize, PathBuf), RunError> {
    let rows = validations(dir)?;
    let generation = match best_validation(&rows) {
        Some(best) => best.step,
        None => last_champion(dir).ok_or_else(|| RunError::State {
            path: dir.join("state.json"),
            reason: "the stage has no champion to start the next one from".to_string(),
        })?,
    };
    Ok((generation, existing_champion(dir, generation)?))
}

/// The stage number of a stage folder (`runs/<name>/stage-N`), if `dir` is one.
fn stage_number(dir: &Path) -> Option<usize> {
    dir.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("stage-"))
        .and_then(|n| n.parse::<usize>().ok())
}

/// The name a run folder goes by in listings and charts: its folder's name, and for a stage
/// its run's too (`<name>/stage-N`), since every staged run has a `stage-2`.
pub fn display_name(dir: &Path) -> String {
    let own = dir
        .file_name()
        .map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
    match (stage_number(dir), dir.parent().and_then(Path::file_name)) {
        (Some(_), Some(parent)) => format!("{}/{own}", parent.to_string_lossy()),
        _ => own,
    }
}

/// The folders of the stages before the one in `dir` (`runs/<name>/stage-N`), first
/// first; none for a run of one stage or a first stage.
pub fn earlier_stages(dir: &Path) -> Vec<PathBuf> {
    match (stage_number(dir), dir.parent()) {
        (Some(stage), Some(parent)) => (1..stage).map(|i| parent.join(format!("stage-{i}"))).collect(),
        _ => Vec::new(),
    }
}

/// The run folder that `dir` names: `dir` itself, or for a run in stages its latest stage
/// (so that `export`, `report` and `roundrobin` take the run's folder as given by `tune`).
pub fn run_folder(dir: &Path) -> PathBuf {
    if dir.join("config.json").exists() {
        return dir.to_path_buf();
    }
    (1..)
        .map(|i| dir.join(format!("stage-{i}")))
        .take_while(|d| d.join("config.json").exists())
        .last()
        .unwrap_or_else(|| dir.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_goes_by_its_run_and_its_number() {
        assert_eq!(display_name(Path::new("runs/gts/stage-2")), "gts/stage-2");
        assert_eq!(display_name(Path::new("runs/gts")), "gts");
        assert_eq!(display_name(Path::new("runs/stage-x")), "stage-x");
        assert_eq!(
            earlier_stages(Path::new("runs/gts/stage-3")),
            [Path::new("runs/gts/stage-1"), Path::new("runs/gts/stage-2")]
        );
        assert!(earlier_stages(Path::new("runs/gts")).is_empty());
    }
}
