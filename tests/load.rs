//! Load: long work holds flat. A 100,000-game match, a tuning run of 1,000 steps and a
//! 10,000-game match against an outside engine, each sampled from outside every quarter
//! second (resident memory, open files, child processes): what the process holds once it
//! has warmed up must still be what it holds at the end. Minutes each, so behind --ignored:
//! `cargo test --release --test load -- --ignored --nocapture --test-threads 1`
//! (`QITUNE_LOAD_SCALE=0.1` runs a tenth of each).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// What a process holds at one moment.
#[derive(Clone, Copy, Debug)]
struct Sample {
    rss_kb: u64,
    files: usize,
    children: usize,
}

/// The sample of process `pid`, or none once it is gone.
fn sample(pid: u32) -> Option<Sample> {
    let proc = Path::new("/proc").join(pid.to_string());
    let status = std::fs::read_to_string(proc.join("status")).ok()?;
    let rss_kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())?;
    let files = std::fs::read_dir(proc.join("fd")).ok()?.count();
    // Children: processes whose parent (the fourth field of stat) is `pid`.
    let children = std::fs::read_dir("/proc")
        .ok()?
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("stat")).ok())
        .filter(|stat| {
            let after = stat.rsplit_once(") ").map_or("", |(_, rest)| rest);
            after.split(' ').nth(1) == Some(pid.to_string().as_str())
        })
        .count();
    Some(Sample {
        rss_kb,
        files,
        children,
    })
}

/// How many of `n` the load runs (`QITUNE_LOAD_SCALE`, a share; 1 by default).
fn scaled(n: u64) -> u64 {
    let scale: f64 = std::env::var("QITUNE_LOAD_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    ((n as f64 * scale).round() as u64).max(1)
}

/// Runs `qitune ARGS` to its end, sampling it; checks that it succeeded and held flat after
/// its first tenth, and prints its figures.
fn flat(what: &str, args: &[&str]) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_qitune"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let mut samples = Vec::new();
    while child.try_wait().unwrap().is_none() {
        if let Some(s) = sample(child.id()) {
            samples.push(s);
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        samples.len() >= 10,
        "{what}: too short to judge ({} samples)",
        samples.len()
    );
    let (warm, end) = (samples[samples.len() / 10], samples[samples.len() - 1]);
    let peak = |f: fn(&Sample) -> u64| samples[samples.len() / 10..].iter().map(f).max().unwrap();
    println!(
        "{what}: {:.0} s, {} samples; after its first tenth RSS {} kB, files {}, children {}; at the end RSS {} kB, files {}, children {}; peak after warm-up RSS {} kB, files {}, children {}",
        started.elapsed().as_secs_f64(),
        samples.len(),
        warm.rss_kb,
        warm.files,
        warm.children,
        end.rss_kb,
        end.files,
        end.children,
        peak(|s| s.rss_kb),
        peak(|s| s.files as u64),
        peak(|s| s.children as u64),
    );
    // Flat: no more than a quarter and 16 MB above the warm figure, the same open files and
    // children give or take the ones a game in flight holds.
    assert!(
        peak(|s| s.rss_kb) <= warm.rss_kb + warm.rss_kb / 4 + 16 * 1024,
        "{what}: memory grew"
    );
    assert!(
        peak(|s| s.files as u64) <= warm.files as u64 + 4,
        "{what}: files grew"
    );
    assert!(
        peak(|s| s.children as u64) <= warm.children as u64 + 2,
        "{what}: children grew"
    );
}

/// A match of `games` (scaled) between players `a` and `b` at 30 nodes a move,
/// sampled to its end.
fn flat_match(what: &str, a: &str, b: &str, games: u64) {
    let games = scaled(games).next_multiple_of(2).to_string();
    let positions = common::path_of("positions/xiangqi-train-a.epd");
    let args = [
        "match",
        "--a",
        a,
        "--b",
        b,
        "--games",
        &games,
        "--nodes",
        "30",
        "--max-plies",
        "60",
        "--threads",
        "2",
        "--quiet",
        "--positions",
        &positions,
    ];
    flat(&format!("match of {games} games{what}"), &args);
}

#[test]
#[ignore = "minutes: cargo test --release --test load -- --ignored"]
fn a_100000_game_match_holds_flat() {
    flat_match("", "default", "material", 100_000);
}

#[test]
#[ignore = "minutes: cargo test --release --test load -- --ignored"]
fn a_1000_step_tuning_run_holds_flat() {
    let dir = common::scratch("load-steps");
    let steps = scaled(1_000);
    let config = dir.join("steps.json");
    std::fs::write(
        &config,
        format!(
            r#"{{"name":"steps","seed":2,"population":4,"groups":2,"generations":{steps},"evolve":["rook","horse"],
               "max_plies":40,"environments":[{{"from_generation":1,"positions":"{}","nodes":30}}],
               "validation":{{"every":100,"games":4,"positions":"{}"}}}}"#,
            common::path_of("positions/xiangqi-train-a.epd"),
            common::path_of("positions/xiangqi-holdout.epd"),
        ),
    )
    .unwrap();
    let runs = dir.join("runs");
    let (config, runs) = (config.to_str().unwrap(), runs.to_str().unwrap());
    flat(
        &format!("tuning run of {steps} steps"),
        &[
            "tune",
            "--config",
            config,
            "--runs",
            runs,
            "--threads",
            "2",
            "--quiet",
        ],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "minutes: cargo test --release --test load -- --ignored"]
fn a_10000_game_match_against_an_outside_engine_holds_flat() {
    let dir = common::scratch("load-outside");
    let engine = dir.join("engine.json");
    std::fs::write(
        &engine,
        format!(
            r#"{{"name":"outside","path":"{}","args":["engine"],"protocol":"uci","options":{{"Hash":1}}}}"#,
            env!("CARGO_BIN_EXE_qitune")
        ),
    )
    .unwrap();
    flat_match(
        " against an outside engine",
        engine.to_str().unwrap(),
        "default",
        10_000,
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
