//! `qitune label`: a mentor's scores of positions, from the built-in engine or a scripted
//! outside engine, with bad output, a crash and a resume.

mod common;

use assert_cmd::Command;
use common::scratch;
use std::path::{Path, PathBuf};

fn qitune() -> Command {
    Command::cargo_bin("qitune").unwrap()
}

/// Writes `n` positions of the middlegame file.
fn positions(dir: &Path, n: usize) -> PathBuf {
    let all = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/positions/xiangqi-middlegames.epd"
    ))
    .unwrap();
    let path = dir.join("positions.epd");
    let lines: Vec<&str> = all.lines().filter(|l| !l.trim().is_empty()).take(n).collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// A UCCI engine written in sh that answers `go` with `reply`, as an engine description.
fn scripted(dir: &Path, name: &str, reply: &str) -> PathBuf {
    let script = format!(
        "while read line; do case \"$line\" in ucci) echo ucciok;; isready) echo readyok;; go*) {reply};; quit) exit 0;; esac; done"
    );
    let path = dir.join(format!("{name}.json"));
    let json =
        serde_json::json!({"name": name, "path": "/bin/sh", "args": ["-c", script], "protocol": "ucci"});
    std::fs::write(&path, json.to_string()).unwrap();
    path
}

fn label(args: &[&str]) -> Command {
    let mut cmd = qitune();
    cmd.arg("label").args(args);
    cmd
}

fn rows(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn the_built_in_engine_labels_alike_on_any_thread_count() {
    let dir = scratch("label-own");
    let pos = positions(&dir, 6);
    let (one, two) = (dir.join("one.csv"), dir.join("two.csv"));
    for (out, threads) in [(&one, "1"), (&two, "2")] {
        label(&[
            "--positions",
            pos.to_str().unwrap(),
            "--mentor",
            "default",
            "--depth",
            "3",
        ])
        .args(["--out", out.to_str().unwrap(), "--threads", threads])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "6 positions labelled by default at depth 3",
        ));
    }
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    let rows = rows(&one);
    assert_eq!(rows[0], ["fen", "score", "depth", "fault"]);
    assert_eq!(rows.len(), 7);
    for row in &rows[1..] {
        assert!(
            row[1].parse::<i32>().is_ok() && row[2] == "3" && row[3].is_empty(),
            "{row:?}"
        );
    }
    // Scores differ from position to position: they are searched, not a constant.
    assert!(rows[1..].iter().any(|r| r[1] != rows[1][1]));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_outside_mentor_is_read_and_its_bad_answers_are_named() {
    let dir = scratch("label-outside");
    let start = dir.join("start.epd");
    let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
    std::fs::write(&start, format!("{fen}\n{fen}\n")).unwrap();
    let cases = [
        (
            "good",
            "echo 'info depth 7 score 42 pv h2e2'; echo 'bestmove h2e2'",
            Some("42"),
        ),
        ("silent", "echo 'bestmove h2e2'", None),
        (
            "illegal",
            "echo 'info depth 7 score 42'; echo 'bestmove a0a5'",
            None,
        ),
        ("crash", "exit 3", None),
    ];
    for (name, reply, score) in cases {
        let mentor = scripted(&dir, name, reply);
        let out = dir.join(format!("{name}.csv"));
        let assert = label(&[
            "--positions",
            start.to_str().unwrap(),
            "--mentor",
            mentor.to_str().unwrap(),
        ])
        .args(["--depth", "7", "--out", out.to_str().unwrap(), "--threads", "1"])
        .assert()
        .success();
        let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
        let rows = rows(&out);
        assert_eq!(rows.len(), 3, "{name}");
        match score {
            Some(s) => {
                assert_eq!(rows[1][1], s);
                assert_eq!(rows[1][2], "7");
                assert!(!stdout.contains("failed"), "{stdout}");
            }
            None => {
                assert!(
                    rows[1][1].is_empty() && !rows[1][3].is_empty(),
                    "{name}: {:?}",
                    rows[1]
                );
                assert!(stdout.contains("the mentor failed on 2"), "{name}: {stdout}");
            }
        }
    }
    // A mentor that cannot start is refused before anything is written.
    let missing = dir.join("missing.json");
    std::fs::write(
        &missing,
        r#"{"name": "missing", "path": "/nonexistent/engine", "protocol": "ucci"}"#,
    )
    .unwrap();
    let out = dir.join("missing.csv");
    label(&[
        "--positions",
        start.to_str().unwrap(),
        "--mentor",
        missing.to_str().unwrap(),
    ])
    .args(["--depth", "7", "--out", out.to_str().unwrap()])
    .assert()
    .failure()
    .stderr(predicates::str::contains("--mentor"));
    assert!(!out.exists());
    let fault = |name: &str| rows(&dir.join(format!("{name}.csv")))[1][3].clone();
    assert!(
        fault("silent").contains("no depth or score"),
        "{}",
        fault("silent")
    );
    assert!(fault("illegal").contains("a0a5"), "{}", fault("illegal"));
    assert!(fault("crash").contains("exited"), "{}", fault("crash"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_cut_labelling_resumes_to_the_same_file_and_nothing_is_overwritten() {
    let dir = scratch("label-resume");
    let pos = positions(&dir, 5);
    let whole = dir.join("whole.csv");
    let args = |out: &Path| {
        vec![
            "--positions".to_string(),
            pos.display().to_string(),
            "--mentor".into(),
            "default".into(),
            "--depth".into(),
            "2".into(),
            "--out".into(),
            out.display().to_string(),
        ]
    };
    qitune().arg("label").args(args(&whole)).assert().success();
    let want = std::fs::read_to_string(&whole).unwrap();
    // Cut after two rows and part of the third, as a crash mid-write leaves it.
    let cut = dir.join("cut.csv");
    let lines: Vec<&str> = want.lines().collect();
    std::fs::write(
        &cut,
        format!("{}\n{}\n{}\n{}", lines[0], lines[1], lines[2], &lines[3][..10]),
    )
    .unwrap();
    // Without --resume an existing file is refused and left as it is.
    let before = std::fs::read(&cut).unwrap();
    qitune()
        .arg("label")
        .args(args(&cut))
        .assert()
        .failure()
        .stderr(predicates::str::contains("already exists"));
    assert_eq!(std::fs::read(&cut).unwrap(), before);
    qitune()
        .arg("label")
        .args(args(&cut))
        .arg("--resume")
        .assert()
        .success()
        .stdout(predicates::str::contains("5 positions labelled"));
    assert_eq!(std::fs::read_to_string(&cut).unwrap(), want);
    // Labels of other positions are refused by line.
    let changed = want.replacen(
        lines[1].split(',').next().unwrap(),
        "4k4/9/9/9/9/9/9/9/9/4K4 w",
        1,
    );
    std::fs::write(&cut, &changed).unwrap();
    qitune()
        .arg("label")
        .args(args(&cut))
        .arg("--resume")
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "line 2: labels 4k4/9/9/9/9/9/9/9/9/4K4 w",
        ));
    assert_eq!(std::fs::read_to_string(&cut).unwrap(), changed);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fit on positions whose mentor is an outside engine, named by a description file beside
/// its configuration: `qitune engine` itself over UCCI, a scripted engine that crashes on
/// every search, and a program that does not exist.
#[test]
fn a_fit_learns_from_an_outside_mentor_and_a_broken_one_is_named() {
    let dir = scratch("label-fit");
    let engine = serde_json::json!({"name": "qitune", "path": env!("CARGO_BIN_EXE_qitune"),
        "args": ["engine"], "protocol": "ucci"});
    std::fs::write(dir.join("own.json"), engine.to_string()).unwrap();
    scripted(&dir, "crash", "exit 3");
    std::fs::write(
        dir.join("missing.json"),
        r#"{"name": "missing", "path": "/nonexistent/engine", "protocol": "ucci"}"#,
    )
    .unwrap();
    let config = |name: &str, mentor: &str| {
        let path_of = |p: &str| std::fs::canonicalize(p).unwrap().display().to_string();
        let text = format!(
            r#"{{"name":"{name}","seed":9,"method":"texel","generations":1,
               "texel":{{"games":12,"positions_per_game":4,"epochs":30,"holdout":0.25{mentor}}},
               "evolve":["advisor","horse","rook","cannon","pawn","mobility_*"],
               "init":"weights","base_weights":"{w}",
               "environments":[{{"from_generation":1,"positions":"{a}","nodes":300}}]}}"#,
            w = path_of("examples/xiangqi-hand-set.json"),
            a = path_of("positions/xiangqi-train-a.epd"),
        );
        let path = dir.join(format!("run-{name}.json"));
        std::fs::write(&path, text).unwrap();
        path
    };
    let runs = dir.join("runs");
    let tune = |config: &Path| {
        let mut cmd = qitune();
        cmd.args(["tune", "--quiet", "--threads", "2", "--config"])
            .arg(config)
            .arg("--runs")
            .arg(&runs);
        cmd
    };
    let held_out_start = |name: &str| {
        let steps = std::fs::read_to_string(runs.join(name).join("steps.csv")).unwrap();
        let mut lines = steps
            .lines()
            .map(|l| l.split(',').map(str::to_string).collect::<Vec<_>>());
        let header = lines.next().unwrap();
        let column = header.iter().position(|c| c == "held_out_start").unwrap();
        lines.next().unwrap()[column].clone()
    };
    let mentor = |player: &str| format!(r#","mentor":{{"depth":2,"blend":1,"player":"{player}"}}"#);
    tune(&config("plain", "")).assert().success();
    tune(&config("taught", &mentor("own.json"))).assert().success();
    // The saved configuration names the mentor by its program's full path.
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(runs.join("taught/config.json")).unwrap()).unwrap();
    assert_eq!(
        saved["texel"]["mentor"]["player"]["path"],
        env!("CARGO_BIN_EXE_qitune")
    );
    // The same games, other targets: the mentor's scores.
    assert_ne!(held_out_start("plain"), held_out_start("taught"));
    tune(&config("crash", &mentor("crash.json")))
        .assert()
        .failure()
        .stderr(predicates::str::contains("the mentor failed on"));
    tune(&config("missing", &mentor("missing.json")))
        .assert()
        .failure()
        .stderr(predicates::str::contains("texel.mentor.player"));
    assert!(!runs.join("missing").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
