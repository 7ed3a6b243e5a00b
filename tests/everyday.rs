//! Everyday rough edges: names and messages a user meets, overrides, ranges, and a saved run
//! that works from any folder.

use assert_cmd::Command;
use std::path::PathBuf;

fn qitune() -> Command {
    Command::cargo_bin("qitune").unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qitune-everyday-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn stdout_of(cmd: &mut Command) -> String {
    String::from_utf8_lossy(&cmd.assert().success().get_output().stdout).to_string()
}

#[test]
fn a_mistyped_player_lists_the_valid_ones() {
    let out = qitune()
        .args(["match", "--a", "defualt", "--b", "default"])
        .assert()
        .failure()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("'defualt'") && err.contains("default, material, random:SEED"),
        "{err}"
    );
}

#[test]
fn elo_lines_have_no_infinities_or_negative_zeros() {
    // Default against itself, one pair: one win each, an Elo of exactly zero.
    let text = stdout_of(qitune().args([
        "match", "--a", "default", "--b", "default", "--games", "2", "--nodes", "50",
    ]));
    assert!(!text.contains("inf") && !text.contains("-0.0"), "{text}");
    let text = stdout_of(qitune().args([
        "match", "--a", "default", "--b", "random:1", "--games", "2", "--nodes", "1000",
    ]));
    assert!(text.contains("unbounded (every game won)"), "{text}");
}

#[test]
fn the_engine_names_its_weights() {
    let out = qitune()
        .args(["engine", "--weights", "examples/xiangqi-hand-set.json"])
        .write_stdin("uci\nquit\n")
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        text.contains("id name qitune") && text.contains("(weights examples/xiangqi-hand-set.json)"),
        "{text}"
    );
}

#[test]
fn name_and_seed_override_the_config_and_a_saved_run_works_from_anywhere() {
    let dir = scratch("anywhere");
    let runs = dir.join("runs");
    // Paths in the configuration relative to the configuration's own folder.
    std::fs::create_dir_all(dir.join("pos")).unwrap();
    for (from, to) in [
        ("xiangqi-train-a.epd", "train.epd"),
        ("xiangqi-holdout.epd", "holdout.epd"),
    ] {
        std::fs::copy(format!("positions/{from}"), dir.join("pos").join(to)).unwrap();
    }
    let config = dir.join("small.json");
    std::fs::write(
        &config,
        r#"{"name":"small","seed":3,"population":4,"groups":2,"generations":5,"evolve":["rook","cannon"],
            "environments":[{"from_generation":1,"positions":"pos/train.epd","nodes":100}],
            "validation":{"every":1,"games":2,"positions":"pos/holdout.epd"}}"#,
    )
    .unwrap();
    qitune()
        .args(["tune", "--config", config.to_str().unwrap(), "--generations", "1"])
        .args([
            "--name",
            "renamed",
            "--seed",
            "77",
            "--runs",
            runs.to_str().unwrap(),
        ])
        .assert()
        .success();
    let run = runs.join("renamed");
    let config = std::fs::read_to_string(run.join("config.json")).unwrap();
    assert!(
        config.contains("\"name\": \"renamed\"") && config.contains("\"seed\": 77"),
        "{config}"
    );
    // From another folder: resume, export and a round robin find the run's files.
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    qitune()
        .current_dir(&elsewhere)
        .args([
            "tune",
            "--config",
            run.join("config.json").to_str().unwrap(),
            "--runs",
            runs.to_str().unwrap(),
        ])
        .args(["--name", "renamed"])
        .args(["--resume", "--generations", "2"])
        .assert()
        .success();
    qitune()
        .current_dir(&elsewhere)
        .args(["export", "--run", run.to_str().unwrap(), "--out", "champion.json"])
        .assert()
        .success();
    assert!(elsewhere.join("champion.json").exists());
    qitune()
        .current_dir(&elsewhere)
        .args([
            "roundrobin",
            "--run",
            run.to_str().unwrap(),
            "--gens",
            "1-2",
            "--games-per-pair",
            "2",
            "--nodes",
            "50",
        ])
        .assert()
        .success();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn params_lists_every_tunable_parameter_with_its_meaning() {
    let text = stdout_of(qitune().args(["params"]));
    let specs = qitune::xiangqi::eval::specs();
    assert_eq!(
        text.lines().count(),
        specs.len() + 2,
        "a header, a line each and a summary"
    );
    for s in specs.iter() {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(s.name.as_ref()))
            .unwrap();
        assert!(line.contains(&format!("[{}, {}]", s.min, s.max)), "{line}");
        // Every parameter has a meaning, not just its name again.
        assert!(line.split_whitespace().count() > 6, "{line}");
    }
    let text = stdout_of(qitune().args(["params", "--game", "amazons"]));
    assert!(
        text.contains("uct_c") && text.contains("27 parameters of amazons"),
        "{text}"
    );
}

/// Starts `qitune tune` with `args`, its errors piped, to be stopped by [`interrupt_once`].
fn spawn_tune(args: &[&str]) -> std::process::Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("qitune"))
        .arg("tune")
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Sends Ctrl-C's signal to `child` once `ready` holds, and checks it ends with status 130.
fn interrupt_once(child: std::process::Child, ready: impl Fn() -> bool) -> std::process::Output {
    let since = std::time::Instant::now();
    while !ready() {
        assert!(since.elapsed().as_secs() < 120, "the command made no progress");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    out
}

#[test]
fn a_match_writes_games_as_they_finish_and_ctrl_c_shows_the_result_so_far() {
    let dir = scratch("ctrl-c");
    let (pgn, json) = (dir.join("games.pgn"), dir.join("match.json"));
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("qitune"))
        .args(["match", "--a", "default", "--b", "material", "--games", "100000"])
        .args(["--nodes", "3000", "--threads", "2", "--pgn"])
        .arg(&pgn)
        .arg("--json")
        .arg(&json)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Games reach the PGN file while the match is still playing.
    let games_in = |path: &PathBuf| {
        std::fs::read_to_string(path)
            .map(|t| t.matches("[Result ").count())
            .unwrap_or(0)
    };
    let out = interrupt_once(child, || games_in(&pgn) >= 4);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("Interrupted: "))
        .unwrap_or_else(|| panic!("{stdout}"));
    let played: usize = line["Interrupted: ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((4..100_000).contains(&played), "{line}");
    assert!(stdout.contains(&format!("{played} games\n")), "{stdout}");
    // The files hold exactly the games the result counts.
    assert_eq!(games_in(&pgn), played);
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(summary["games"], played);
    assert_eq!(summary["partial"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_shipped_config_runs_from_any_folder() {
    let dir = scratch("any-folder");
    let config = std::env::current_dir()
        .unwrap()
        .join("configs/xiangqi-ga-random.json");
    qitune()
        .current_dir(&dir)
        .args(["tune", "--quiet", "--generations", "1", "--config"])
        .arg(&config)
        .assert()
        .success();
    assert!(dir
        .join("runs/xiangqi-ga-random/champions/step-0001.json")
        .exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn match_jsonl_gives_one_object_a_game_then_the_result() {
    let out = stdout_of(qitune().args([
        "match", "--a", "default", "--b", "material", "--games", "4", "--nodes", "100", "--jsonl",
    ]));
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 5, "{out}");
    let mut games: Vec<u64> = lines[..4].iter().map(|g| g["game"].as_u64().unwrap()).collect();
    games.sort();
    assert_eq!(games, [1, 2, 3, 4]);
    let wins = lines[..4].iter().filter(|g| g["result"] == "win").count() as u64;
    assert_eq!(lines[4]["games"], 4);
    assert_eq!(lines[4]["wins"].as_u64().unwrap(), wins);
    // --quiet leaves only the result.
    let assert = qitune()
        .args([
            "match", "--a", "default", "--b", "material", "--games", "2", "--nodes", "100", "--quiet",
        ])
        .assert()
        .success();
    assert!(assert.get_output().stderr.is_empty());
}

#[cfg(not(feature = "mpi"))]
#[test]
fn mpi_without_the_feature_says_how_to_build_it_and_makes_no_folder() {
    let dir = scratch("no-mpi");
    let out = qitune()
        .args([
            "tune",
            "--config",
            "configs/xiangqi-ga-random.json",
            "--mpi",
            "--runs",
        ])
        .arg(&dir)
        .assert()
        .failure()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("--features mpi"), "{err}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_during_a_tuning_run_says_how_to_resume() {
    let dir = scratch("tune-ctrl-c");
    let child = spawn_tune(&[
        "--quiet",
        "--config",
        "configs/xiangqi-ga-random.json",
        "--generations",
        "6",
        "--threads",
        "1",
        "--runs",
        dir.to_str().unwrap(),
    ]);
    let first = dir.join("xiangqi-ga-random/champions/step-0001.json");
    let out = interrupt_once(child, || first.exists());
    let err = String::from_utf8_lossy(&out.stderr);
    // The program as started, from the project's folder (target/debug or target/release).
    let bin = assert_cmd::cargo::cargo_bin("qitune");
    let bin = bin.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(&bin);
    let bin = bin.strip_prefix("/").unwrap_or(bin).display().to_string();
    assert!(
        err.contains("keeps every finished generation")
            && err.contains(&format!(
                "{bin} tune --config configs/xiangqi-ga-random.json --resume --runs"
            )),
        "the command to go on with, as qitune was started: {err}"
    );
    // With the session's own flags: without --generations it would go on to the
    // configuration's target instead.
    assert!(
        err.contains(" --generations 6 --threads 1 --quiet"),
        "the session's flags: {err}"
    );
    // The log says so too, and the run is no longer marked as running.
    let log = std::fs::read_to_string(dir.join("xiangqi-ga-random/run.log")).unwrap();
    assert!(log.lines().last().unwrap().contains("interrupted: "), "{log}");
    assert!(!dir.join("xiangqi-ga-random/run.lock").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Ctrl-C in a run's second stage speaks of that stage: its folder, its log, its lock.
#[test]
fn ctrl_c_in_a_later_stage_names_that_stage() {
    let dir = scratch("stage-ctrl-c");
    let path_of = |p: &str| std::fs::canonicalize(p).unwrap().display().to_string();
    let config = dir.join("s.json");
    std::fs::write(
        &config,
        format!(
            r#"{{"name":"s","seed":5,"method":"spsa","generations":2,"evolve":["rook","horse"],
               "init":"defaults","spsa":{{"iterations":2}},
               "environments":[{{"from_generation":1,"positions":"{a}","nodes":100}}],
               "stages":[{{}},{{"generations":100000}}]}}"#,
            a = path_of("positions/xiangqi-train-a.epd"),
        ),
    )
    .unwrap();
    let child = spawn_tune(&[
        "--quiet",
        "--threads",
        "1",
        "--config",
        config.to_str().unwrap(),
        "--runs",
        dir.to_str().unwrap(),
    ]);
    let stage = dir.join("s/stage-2");
    let out = interrupt_once(child, || stage.join("champions/step-0001.json").exists());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("s/stage-2 keeps every finished step"), "{err}");
    let log = std::fs::read_to_string(stage.join("run.log")).unwrap();
    assert!(log.lines().last().unwrap().contains("interrupted: "), "{log}");
    assert!(!stage.join("run.lock").exists());
    let first = std::fs::read_to_string(dir.join("s/stage-1/run.log")).unwrap();
    assert!(!first.contains("interrupted: "), "{first}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_output_file_in_a_missing_folder_is_refused_before_any_game() {
    let out = qitune()
        .args([
            "match", "--a", "default", "--b", "material", "--games", "2", "--nodes", "50",
        ])
        .args(["--pgn", "/nonexistent-qitune-folder/games.pgn"])
        .assert()
        .failure()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("the folder /nonexistent-qitune-folder does not exist"),
        "{err}"
    );
}

/// A long match writes every counted game to its PGN in schedule order and sums them all in
/// its JSON, holding only a running summary and the games under way.
#[test]
fn a_long_match_streams_its_games_in_schedule_order() {
    let dir = std::env::temp_dir().join(format!("qitune-stream-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (pgn, json) = (dir.join("m.pgn"), dir.join("m.json"));
    qitune()
        .args([
            "match", "--a", "default", "--b", "material", "--games", "150", "--nodes", "30",
        ])
        .args(["--threads", "2", "--quiet", "--pgn", pgn.to_str().unwrap()])
        .args(["--json", json.to_str().unwrap()])
        .assert()
        .success();
    let text = std::fs::read_to_string(&pgn).unwrap();
    let rounds: Vec<usize> = text
        .lines()
        .filter_map(|l| l.strip_prefix("[Round \"")?.strip_suffix("\"]")?.parse().ok())
        .collect();
    assert_eq!(rounds, (1..=150).collect::<Vec<_>>());
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(summary["games"], 150);
    assert_eq!(summary["partial"], false);
    let pairs: u64 = summary["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(pairs, 75);
    std::fs::remove_dir_all(&dir).unwrap();
}
