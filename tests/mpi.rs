//! A tuning run spread over MPI ranks gives byte for byte the run of one process, for 1, 2
//! and 3 ranks, and an MPI job killed mid-run resumes to the same end. Built and run only
//! with the `mpi` feature and an MPI launcher (`mpirun`) on the PATH:
//! `cargo test --features mpi --test mpi`.
#![cfg(feature = "mpi")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qitune-mpi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A small run with an environment change and validations (which are spread too).
fn config(dir: &Path, generations: usize) -> PathBuf {
    let path_of = |p: &str| std::fs::canonicalize(p).unwrap().display().to_string();
    let text = format!(
        r#"{{"name":"spread","seed":9,"population":8,"groups":2,"generations":{generations},
           "evolve":["advisor","elephant","horse","rook","cannon","pawn","mobility_*"],
           "openings_per_pair":2, "carry": true,
           "environments":[{{"from_generation":1,"positions":"{a}","nodes":300}},
                           {{"from_generation":3,"positions":"{b}","nodes":400}}],
           "validation":{{"every":2,"games":10,"positions":"{h}"}}}}"#,
        a = path_of("positions/xiangqi-train-a.epd"),
        b = path_of("positions/xiangqi-train-b.epd"),
        h = path_of("positions/xiangqi-holdout.epd"),
    );
    let path = dir.join("spread.json");
    std::fs::write(&path, text).unwrap();
    path
}

/// `qitune tune` under `mpirun -np ranks` (ranks 0: one plain process).
fn tune(ranks: usize, config: &Path, runs: &Path, extra: &[&str]) -> Command {
    let qitune = assert_cmd::cargo::cargo_bin("qitune");
    let mut cmd = if ranks == 0 {
        Command::new(&qitune)
    } else {
        let mut c = Command::new("mpirun");
        // Oversubscribed on a small machine; Open MPI refuses root without these.
        c.args(["--oversubscribe", "-np", &ranks.to_string()])
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .arg(&qitune);
        c
    };
    cmd.args(["tune", "--quiet", "--threads", "1", "--config"])
        .arg(config)
        .arg("--runs")
        .arg(runs)
        .args(extra);
    if ranks > 0 {
        cmd.arg("--mpi");
    }
    cmd
}

/// Everything a run folder holds that does not depend on timing.
fn contents(run: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for name in ["state.json", "validation.csv"] {
        files.push((name.to_string(), std::fs::read_to_string(run.join(name)).unwrap()));
    }
    // The seconds and games/s columns are timing.
    let csv = std::fs::read_to_string(run.join("generations.csv")).unwrap();
    let rows: Vec<String> = csv
        .lines()
        .map(|l| l.split(',').take(13).collect::<Vec<_>>().join(","))
        .collect();
    files.push(("generations.csv".to_string(), rows.join("\n")));
    let mut champions: Vec<_> = std::fs::read_dir(run.join("champions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    champions.sort();
    for c in champions {
        files.push((
            c.file_name().unwrap().to_string_lossy().to_string(),
            std::fs::read_to_string(&c).unwrap(),
        ));
    }
    files
}

#[test]
fn ranks_give_the_run_of_one_process_byte_for_byte() {
    let dir = scratch("ranks");
    let cfg = config(&dir, 4);
    let one = dir.join("one");
    assert!(tune(0, &cfg, &one, &[]).status().unwrap().success());
    let expected = contents(&one.join("spread"));
    assert_eq!(expected.iter().filter(|(n, _)| n.starts_with("step-")).count(), 4);
    for ranks in 1..=3 {
        let runs = dir.join(format!("np{ranks}"));
        let out = tune(ranks, &cfg, &runs, &[]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(contents(&runs.join("spread")), expected, "{ranks} ranks");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An SPSA run of an outside engine (qitune's own over UCI, tuning two of its options): the
/// other ranks start their own engine processes and give the run of one process.
#[test]
fn an_outside_engine_run_spreads_over_ranks() {
    let dir = scratch("outside");
    let path_of = |p: &str| std::fs::canonicalize(p).unwrap().display().to_string();
    let qitune = assert_cmd::cargo::cargo_bin("qitune");
    // Each engine process says which rank started it.
    let starts = dir.join("starts");
    let text = format!(
        r#"{{"name":"outside","seed":9,"method":"spsa","generations":2,
           "spsa":{{"iterations":6,"pairs":1}},
           "engine":{{"path":"/bin/sh","args":["-c","echo ${{OMPI_COMM_WORLD_RANK:-$PMI_RANK}} >> '{log}'; exec '{q}' engine"],
                     "protocol":"uci","options":{{"Hash":1}}}},
           "options":["rook","cannon"],"evolve":["all"],"init":"defaults",
           "environments":[{{"from_generation":1,"positions":"{a}","nodes":300}}],
           "validation":{{"every":1,"games":4,"positions":"{h}"}}}}"#,
        q = qitune.display(),
        log = starts.display(),
        a = path_of("positions/xiangqi-train-a.epd"),
        h = path_of("positions/xiangqi-holdout.epd"),
    );
    let cfg = dir.join("outside.json");
    std::fs::write(&cfg, text).unwrap();
    let read = |run: &Path| -> Vec<String> {
        ["state.json", "validation.csv", "champions/step-0002.json"]
            .iter()
            .map(|f| std::fs::read_to_string(run.join(f)).unwrap())
            .collect()
    };
    let one = dir.join("one");
    assert!(tune(0, &cfg, &one, &[]).status().unwrap().success());
    let runs = dir.join("np2");
    let out = tune(2, &cfg, &runs, &[]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(read(&runs.join("outside")), read(&one.join("outside")));
    let ranks = std::fs::read_to_string(&starts).unwrap();
    assert!(
        ranks.lines().any(|r| r == "1"),
        "rank 1 started no engine: {ranks:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_killed_mpi_job_resumes_to_the_same_end() {
    let dir = scratch("killed");
    let cfg = config(&dir, 6);
    let one = dir.join("one");
    assert!(tune(0, &cfg, &one, &[]).status().unwrap().success());
    let runs = dir.join("killed");
    // The job in a process group of its own, so that the kill reaches every rank.
    let mut cmd = tune(3, &cfg, &runs, &[]);
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut job = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let second = runs.join("spread/champions/step-0002.json");
    let since = std::time::Instant::now();
    while !second.exists() {
        assert!(since.elapsed().as_secs() < 300, "the job made no progress");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let group = format!("-{}", job.id());
    Command::new("kill")
        .args(["-KILL", "--", &group])
        .status()
        .unwrap();
    let _ = job.wait();
    end_rank_zero(&runs.join("spread"));
    let out = tune(3, &cfg, &runs, &["--resume"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(contents(&runs.join("spread")), contents(&one.join("spread")));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rank 0 may outlive the launcher a moment (Open MPI starts it in a group of its own): its
/// lock names it. A resume is refused while it lives; end it and wait.
fn end_rank_zero(run: &Path) {
    if let Ok(pid) = std::fs::read_to_string(run.join("run.lock")) {
        let _ = Command::new("kill").args(["-KILL", pid.trim()]).status();
        let proc = Path::new("/proc").join(pid.trim());
        let since = std::time::Instant::now();
        while proc.exists() && !std::fs::read_to_string(proc.join("stat")).is_ok_and(|s| s.contains(") Z")) {
            assert!(since.elapsed().as_secs() < 60, "rank 0 did not end");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

/// The process of MPI rank `rank` whose command line names `runs`, by the rank its launcher
/// put in its environment (Open MPI's, or MPICH's).
fn rank_process(rank: usize, runs: &Path) -> Option<u32> {
    let marks = [
        format!("OMPI_COMM_WORLD_RANK={rank}\0"),
        format!("PMI_RANK={rank}\0"),
    ];
    let runs = runs.to_string_lossy().into_owned();
    std::fs::read_dir("/proc").ok()?.find_map(|entry| {
        let path = entry.ok()?.path();
        let pid: u32 = path.file_name()?.to_str()?.parse().ok()?;
        let environ = String::from_utf8_lossy(&std::fs::read(path.join("environ")).ok()?).into_owned();
        let cmdline = String::from_utf8_lossy(&std::fs::read(path.join("cmdline")).ok()?).into_owned();
        let ours = cmdline.contains(&runs) && !cmdline.starts_with("mpirun");
        (ours && marks.iter().any(|m| environ.contains(m.as_str()))).then_some(pid)
    })
}

/// One rank killed mid-run (rank 2 alone, by SIGKILL): the job stops, its launcher names
/// the rank, every file is whole, and the run resumes with fewer ranks (one plain process)
/// to the files of a run never stopped.
#[test]
fn a_dying_rank_stops_the_job_and_the_run_resumes_on_one_process() {
    let dir = scratch("dying");
    let cfg = config(&dir, 6);
    let one = dir.join("one");
    assert!(tune(0, &cfg, &one, &[]).status().unwrap().success());
    let runs = dir.join("dying");
    let mut cmd = tune(3, &cfg, &runs, &[]);
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let job = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let second = runs.join("spread/champions/step-0002.json");
    let since = std::time::Instant::now();
    while !second.exists() {
        assert!(since.elapsed().as_secs() < 300, "the job made no progress");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let rank = rank_process(2, &runs).expect("rank 2's process");
    Command::new("kill")
        .args(["-KILL", &rank.to_string()])
        .status()
        .unwrap();
    let out = job.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the job went on without rank 2: {err}");
    assert!(err.contains("rank 2"), "the rank is not named: {err}");
    let run = runs.join("spread");
    end_rank_zero(&run);
    // Nothing half written: every JSON file parses, every CSV row has its columns.
    for file in std::fs::read_dir(run.join("champions")).unwrap() {
        let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap();
    }
    serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(run.join("state.json")).unwrap())
        .unwrap();
    for csv in ["generations.csv", "validation.csv"] {
        let text = std::fs::read_to_string(run.join(csv)).unwrap();
        let widths: Vec<usize> = text.lines().map(|l| l.split(',').count()).collect();
        assert!(widths.iter().all(|&w| w == widths[0]), "{csv}: {text}");
    }
    let out = tune(0, &cfg, &runs, &["--resume"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(contents(&run), contents(&one.join("spread")));
    let _ = std::fs::remove_dir_all(&dir);
}
