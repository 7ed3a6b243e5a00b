//! Every shipped configuration, shrunk to seconds, gives the files recorded in
//! `tests/data/golden/`: champions, `state.json`, the step and validation rows (timings aside)
//! and the fit's data files, on 1 and 2 threads and after a resume. The tuner's code may move;
//! what a run produces may not change without this test saying so.
//!
//! A change that means to alter runs (a new search, say, which changes every game) records the
//! new files with `QITUNE_BLESS=1 cargo test --test golden` and says so in its commit.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The configurations whose runs are pinned, by file name under `configs/` (the shipped ones)
/// or `experiments/configs/` (the research ones).
const SHIPPED: [&str; 10] = [
    "xiangqi-quick",
    "xiangqi-ga-random",
    "xiangqi-from-defaults",
    "xiangqi-hand-set",
    "xiangqi-paper",
    "xiangqi-spsa",
    "xiangqi-texel",
    "xiangqi-ga-then-spsa",
    "amazons-quick",
    "amazons-spsa",
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qitune-golden-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Makes a configuration (or one stage of it) tiny while keeping its options: 3 steps with
/// an environment change at the third, small groups, few nodes, 4-game validations.
fn shrink(c: &mut serde_json::Map<String, Value>, amazons: bool) {
    let nodes = if amazons { 60 } else { 150 };
    if c.contains_key("generations") {
        c.insert("generations".into(), 3.into());
    }
    if c.contains_key("population") {
        let groups = c["groups"].as_u64().unwrap().min(3);
        c.insert("groups".into(), groups.into());
        c.insert("population".into(), (2 * groups + 1).into());
    }
    if c.contains_key("openings_per_pair") {
        c.insert("openings_per_pair".into(), 2.into());
    }
    if let Some(Value::Object(s)) = c.get_mut("spsa") {
        s.insert("iterations".into(), 3.into());
    }
    if let Some(Value::Object(t)) = c.get_mut("texel") {
        t.insert("games".into(), 12.into());
        t.insert("epochs".into(), 20.into());
    }
    if let Some(Value::Array(envs)) = c.get_mut("environments") {
        for (i, e) in envs.iter_mut().enumerate() {
            e["nodes"] = (nodes + 50 * i as u64).into();
            if i > 0 {
                e["from_generation"] = (2 + i as u64).into();
            }
        }
    }
    if let Some(Value::Object(v)) = c.get_mut("validation") {
        v.insert("every".into(), 2.into());
        v.insert("games".into(), 4.into());
    }
}

/// The shrunk copy of `configs/NAME.json` (or `experiments/configs/NAME.json`) in `dir`, its
/// paths made absolute.
fn shrunk(name: &str, dir: &Path) -> PathBuf {
    let file = format!("{name}.json");
    let shipped = repo().join("configs").join(&file);
    let (path, up) = if shipped.exists() {
        (shipped, "\"../")
    } else {
        (repo().join("experiments/configs").join(&file), "\"../../")
    };
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.replace(up, &format!("\"{}/", repo().display()));
    let mut config: serde_json::Map<String, Value> = serde_json::from_str(&text).unwrap();
    let amazons = config.get("game").and_then(Value::as_str) == Some("amazons");
    shrink(&mut config, amazons);
    if let Some(Value::Array(stages)) = config.get_mut("stages") {
        for stage in stages {
            shrink(stage.as_object_mut().unwrap(), amazons);
        }
    }
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_string_pretty(&config).unwrap()).unwrap();
    path
}

fn tune(config: &Path, runs: &Path, extra: &[&str]) {
    Command::cargo_bin("qitune")
        .unwrap()
        .arg("tune")
        .arg("--config")
        .arg(config)
        .arg("--runs")
        .arg(runs)
        .arg("--quiet")
        .args(extra)
        .assert()
        .success();
}

/// A run folder's files that a run determines, as (path, text): no timings, no log, no report,
/// no saved configuration (it holds this machine's paths), and this machine's paths replaced.
fn run_files(run: &Path, runs: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(folder) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(run.join(&folder))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                stack.push(folder.join(&name));
                continue;
            }
            if ["run.log", "report.html", "config.json"].contains(&name.as_str()) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let text = text
                .replace(&runs.display().to_string(), "<runs>")
                .replace(&repo().display().to_string(), "<repo>");
            let text = if name.ends_with(".csv") {
                without_timings(&text)
            } else {
                text
            };
            out.push((folder.join(&name).display().to_string(), text));
        }
    }
    out.sort();
    out
}

/// A CSV without its `seconds` and `games_per_s` columns.
fn without_timings(text: &str) -> String {
    let header: Vec<&str> = text.lines().next().unwrap_or("").split(',').collect();
    let keep: Vec<bool> = header
        .iter()
        .map(|h| *h != "seconds" && *h != "games_per_s")
        .collect();
    text.lines()
        .map(|l| {
            l.split(',')
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(f, _)| f)
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// The recorded files as one text: each file under a `==> path` line.
fn as_text(files: &[(String, String)]) -> String {
    files
        .iter()
        .map(|(path, text)| format!("==> {path}\n{text}"))
        .collect()
}

fn check(name: &str, got: &str) {
    check_at(
        &repo().join("tests/data/golden").join(format!("{name}.txt")),
        name,
        got,
    );
}

/// Compares `got` with the file at `path`, or records it there under `QITUNE_BLESS`.
fn check_at(path: &Path, name: &str, got: &str) {
    if std::env::var_os("QITUNE_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (record it with QITUNE_BLESS=1)", path.display()));
    if want != got {
        let line = want
            .lines()
            .zip(got.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(got.lines().count()));
        panic!(
            "{name}: the run's files differ from {} from line {}:\n  want: {:?}\n  got:  {:?}",
            path.display(),
            line + 1,
            want.lines().nth(line),
            got.lines().nth(line)
        );
    }
}

/// Each shipped configuration: straight through on 2 threads, and on 1 thread stopped after
/// the second step (a validation is due there) and resumed; both give the recorded files.
#[test]
fn shipped_configurations_give_the_recorded_runs() {
    for name in SHIPPED {
        let dir = scratch(name);
        let config = shrunk(name, &dir);
        let (whole, parts) = (dir.join("whole"), dir.join("parts"));
        tune(&config, &whole, &["--threads", "2"]);
        let mut c: serde_json::Map<String, Value> =
            serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
        let run_name = c["name"].as_str().unwrap().to_string();
        if let Some(Value::Array(stages)) = c.get_mut("stages") {
            // A run in stages resumes at a stage's boundary.
            stages.truncate(1);
            let first = dir.join("stages.json");
            std::fs::write(&first, serde_json::to_string(&c).unwrap()).unwrap();
            tune(&first, &parts, &["--threads", "1"]);
        } else {
            tune(&config, &parts, &["--threads", "1", "--generations", "2"]);
        }
        tune(&config, &parts, &["--threads", "1", "--resume"]);
        let got = as_text(&run_files(&whole.join(&run_name), &whole));
        let resumed = as_text(&run_files(&parts.join(&run_name), &parts));
        assert!(
            got == resumed,
            "{name}: 1 thread with a resume differs from 2 threads"
        );
        check(name, &got);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Run folders of format 1 (every method's steps named generations: `gen-NNNN.json`, a
/// `generation` column) made by the code of that format and stopped after their second step,
/// resumed by today's code: they go on in their own format and end with the recorded files
/// (`tests/data/format-1/NAME.txt`): the format-1 code's own, except that the third step's
/// champion no longer lists a knob retired since (`search_qs_last_move`). They are recorded as
/// the goldens are.
#[test]
fn format_1_folders_resume_in_their_own_format() {
    let fixtures = repo().join("tests/data/format-1");
    for name in ["xiangqi-spsa", "xiangqi-ga-random", "xiangqi-texel"] {
        let dir = scratch(&format!("format-1-{name}"));
        let config = shrunk(name, &dir);
        let runs = dir.join("runs");
        let run = runs.join(name);
        copy_with_repo(&fixtures.join(name), &run);
        tune(&config, &runs, &["--threads", "2", "--resume"]);
        let got = as_text(&run_files(&run, &runs));
        check_at(&fixtures.join(format!("{name}.txt")), name, &got);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Copies a fixture folder, its `<repo>` placeholders made this checkout's path.
fn copy_with_repo(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_with_repo(&path, &target);
        } else {
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(target, text.replace("<repo>", &repo().display().to_string())).unwrap();
        }
    }
}
