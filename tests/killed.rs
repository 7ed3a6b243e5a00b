//! A tuning run killed with SIGKILL at random moments, again and again, and resumed after
//! each kill, ends with the files of a run never stopped; after every kill each file of
//! its folder is whole (JSON that parses, CSV that reads), whatever write was cut.
//!
//! `QITUNE_KILLS=200 cargo test --test killed -- --nocapture` kills each run 200 times
//! (default 4) and prints what it did.

mod common;

use common::{config, contents, files, scratch, start};
use rand::{Rng, SeedableRng};
use std::path::Path;
use std::time::{Duration, Instant};

/// Whether every file in the run folder is whole: what a reader finds after a kill.
fn check_whole(run: &Path) {
    for path in files(run) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') {
            // A temporary file of a cut write: never read, removed by the resume.
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if name.ends_with(".json") {
            assert!(
                serde_json::from_str::<serde_json::Value>(&text).is_ok(),
                "{} is not whole after a kill",
                path.display()
            );
        } else if name.ends_with(".csv") {
            let mut reader = csv::Reader::from_reader(text.as_bytes());
            assert!(
                reader.records().all(|r| r.is_ok()),
                "{} is not whole after a kill",
                path.display()
            );
            assert!(text.ends_with('\n'), "{} ends in a half row", path.display());
        }
    }
}

/// Kills the run of `method` `kills` times at moments drawn from `seed`, resuming after
/// each, and compares its end with a run never stopped.
fn killed_run_ends_as_a_whole_one(method: &str, seed: u64) {
    let kills: usize = std::env::var("QITUNE_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
    let dir = scratch(&format!("killed-{method}"));
    let config = config(&dir, method);
    let began = Instant::now();
    let whole = start(&config, &dir.join("whole")).wait_with_output().unwrap();
    assert!(
        whole.status.success(),
        "{}",
        String::from_utf8_lossy(&whole.stderr)
    );
    // A kill lands anywhere from the start of the process to about the end of a whole run.
    let span = began.elapsed().as_millis() as u64;
    let runs = dir.join("killed");
    let expected = contents(&dir.join("whole/run"));
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let (mut landed, mut runs_ended) = (0, 0);
    // Run after run from an empty folder, each killed until a start reaches its end.
    while landed < kills {
        let _ = std::fs::remove_dir_all(&runs);
        loop {
            let mut child = start(&config, &runs);
            let wait = Duration::from_millis(rng.gen_range(0..span.max(1)));
            let deadline = Instant::now() + wait;
            while Instant::now() < deadline && child.try_wait().unwrap().is_none() {
                std::thread::sleep(Duration::from_millis(2).min(wait));
            }
            if child.try_wait().unwrap().is_some() {
                let output = child.wait_with_output().unwrap();
                assert!(
                    output.status.success(),
                    "{}",
                    String::from_utf8_lossy(&output.stderr)
                );
                break;
            }
            child.kill().unwrap();
            child.wait().unwrap();
            landed += 1;
            if runs.join("run").exists() {
                check_whole(&runs.join("run"));
            }
        }
        runs_ended += 1;
        let found = contents(&runs.join("run"));
        let names = |files: &[(String, String)]| files.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
        assert_eq!(
            names(&expected),
            names(&found),
            "{method}: other files after the kills"
        );
        for ((name, x), (_, y)) in expected.iter().zip(&found) {
            assert!(x == y, "{method}: {name} differs after {landed} kills");
        }
    }
    println!(
        "{method}: {landed} kills landed over {runs_ended} runs, each ending with the {} files \
         of the run never stopped",
        expected.len()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_ga_run_killed_anywhere_ends_as_a_run_never_stopped() {
    killed_run_ends_as_a_whole_one("ga", 1);
}

#[test]
fn an_spsa_run_killed_anywhere_ends_as_a_run_never_stopped() {
    killed_run_ends_as_a_whole_one("spsa", 2);
}
