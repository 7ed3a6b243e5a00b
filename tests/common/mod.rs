//! What the tests of whole runs share.

// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// An empty folder of its own for a test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qitune-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `qitune tune` on one thread, resuming when the run folder exists.
pub fn start(config: &Path, runs: &Path) -> std::process::Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_qitune"));
    cmd.arg("tune")
        .arg("--config")
        .arg(config)
        .arg("--runs")
        .arg(runs)
        .args(["--threads", "1", "--quiet"]);
    if runs.join("run").exists() {
        cmd.arg("--resume");
    }
    cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap()
}

/// Every file of a run folder, by its path inside it, with the parts that may differ
/// between two equal runs taken out: the seconds and games/s columns of the step rows, the
/// run's log and the report (whose charts draw the timings). The report is checked whole.
pub fn contents(run: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for path in files(run) {
        let name = path.strip_prefix(run).unwrap().display().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        match name.as_str() {
            "run.log" => continue,
            "report.html" => {
                assert!(text.trim_end().ends_with("</html>"), "a half report");
                continue;
            }
            "generations.csv" | "steps.csv" => {
                let rows: Vec<String> = text
                    .lines()
                    .map(|l| {
                        let fields: Vec<&str> = l.split(',').collect();
                        fields[..fields.len() - 2].join(",")
                    })
                    .collect();
                out.push((name, rows.join("\n")));
            }
            _ => out.push((name, text)),
        }
    }
    out.sort();
    out
}

/// Every file under `dir`, its subfolders' included.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

/// The full path of a file of the repository.
pub fn path_of(p: &str) -> String {
    std::fs::canonicalize(p).unwrap().display().to_string()
}

/// The configuration of a tiny run named `run`, written in `dir`: a GA run (`ga`) of 4
/// generations with an environment change and validations, or an SPSA run (`spsa`) of 4
/// steps; a few seconds each.
pub fn config(dir: &Path, method: &str) -> PathBuf {
    let validation = format!(
        r#""validation":{{"every":2,"games":4,"positions":"{}"}}"#,
        path_of("positions/xiangqi-holdout.epd")
    );
    let text = match method {
        "ga" => format!(
            r#"{{"name":"run","seed":5,"population":6,"groups":2,"generations":4,
               "evolve":["advisor","elephant","horse","rook","cannon","pawn","mobility_*"],
               "environments":[{{"from_generation":1,"positions":"{a}","nodes":300}},
                               {{"from_generation":3,"positions":"{b}","nodes":400}}],
               {validation}}}"#,
            a = path_of("positions/xiangqi-train-a.epd"),
            b = path_of("positions/xiangqi-train-b.epd"),
        ),
        _ => format!(
            r#"{{"name":"run","seed":9,"method":"spsa","spsa":{{"iterations":4,"pairs":2}},
               "generations":4,"evolve":["advisor","horse","rook","cannon","pawn","mobility_*"],
               "environments":[{{"from_generation":1,"positions":"{a}","nodes":300}}],
               {validation}}}"#,
            a = path_of("positions/xiangqi-train-a.epd"),
        ),
    };
    let path = dir.join(format!("{method}.json"));
    std::fs::write(&path, text).unwrap();
    path
}
