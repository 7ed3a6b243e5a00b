//! Faults a long unattended run meets, each refused with one clear message and nothing lost:
//! a run folder out of step with its state, files the user owns, absurd inputs, endless
//! devices, and a closed pipe.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn qitune() -> Command {
    Command::cargo_bin("qitune").unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qitune-robust-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A run of 4 individuals, 2 generations at 200 nodes a move: a second or two.
fn small_run(dir: &Path) -> (PathBuf, PathBuf) {
    let positions = std::fs::canonicalize("positions/xiangqi-train-a.epd").unwrap();
    let config = dir.join("small.json");
    std::fs::write(
        &config,
        format!(
            r#"{{"name":"small","seed":3,"population":4,"groups":2,"generations":2,
               "evolve":["rook","cannon"],
               "environments":[{{"from_generation":1,"positions":"{}","nodes":200}}]}}"#,
            positions.display()
        ),
    )
    .unwrap();
    let runs = dir.join("runs");
    qitune()
        .args([
            "tune",
            "--config",
            config.to_str().unwrap(),
            "--runs",
            runs.to_str().unwrap(),
        ])
        .assert()
        .success();
    (config, runs)
}

fn resume(config: &Path, runs: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    qitune()
        .args([
            "tune",
            "--config",
            config.to_str().unwrap(),
            "--runs",
            runs.to_str().unwrap(),
            "--resume",
        ])
        .args(extra)
        .assert()
}

fn error_of(assert: assert_cmd::assert::Assert) -> String {
    let out = assert.failure().code(1).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        !err.contains("panicked") && !err.contains("internal error"),
        "{err}"
    );
    err
}

#[test]
fn a_run_folder_out_of_step_with_its_state_is_refused_on_resume() {
    let dir = scratch("folder");
    let (config, runs) = small_run(&dir);
    let run = runs.join("small");
    // Each fault: `file` given `contents` makes the resume fail naming `needles`; then the
    // file is put back.
    let refused = |file: &str, contents: &[u8], needles: &[&str]| {
        let path = run.join(file);
        let kept = std::fs::read(&path).unwrap();
        std::fs::write(&path, contents).unwrap();
        let err = error_of(resume(&config, &runs, &["--generations", "6"]));
        for needle in needles {
            assert!(err.contains(needle), "{file}: '{needle}' not in {err}");
        }
        std::fs::write(&path, kept).unwrap();
    };
    // state.json says more steps than the folder holds: its last champion is missing.
    let state = std::fs::read_to_string(run.join("state.json")).unwrap();
    let at = |g: &str| state.replace("\"step\": 2", &format!("\"step\": {g}"));
    refused("state.json", at("5").as_bytes(), &["step-0005.json", "missing"]);
    // A state older than the champions would overwrite them silently.
    refused("state.json", at("0").as_bytes(), &["state.json", "older"]);
    // A folder of a format this qitune does not know (a newer one's).
    let newer = state.replace("\"format\": 2", "\"format\": 3");
    refused("state.json", newer.as_bytes(), &["state.json", "its format is 3"]);
    // A truncated generations.csv (its header gone) is not appended to.
    let csv = std::fs::read_to_string(run.join("generations.csv")).unwrap();
    let lines = |skip: usize, take: usize| -> String {
        csv.lines()
            .skip(skip)
            .take(take)
            .map(|l| format!("{l}\n"))
            .collect()
    };
    refused(
        "generations.csv",
        lines(1, 9).as_bytes(),
        &["generations.csv", "header"],
    );
    // Rows missing for completed generations.
    refused(
        "generations.csv",
        lines(0, 2).as_bytes(),
        &["generations.csv", "1 rows for the 2"],
    );
    // The last champion deleted: the next step has nothing to stand on. (An earlier one may
    // go: an archived run keeps only some, tests/report.rs.)
    let champion = run.join("champions/step-0002.json");
    let kept = std::fs::read(&champion).unwrap();
    std::fs::remove_file(&champion).unwrap();
    let err = error_of(resume(&config, &runs, &["--generations", "3"]));
    assert!(err.contains("step-0002.json") && err.contains("missing"), "{err}");
    std::fs::write(&champion, kept).unwrap();

    // The repaired folder resumes; --generations does not rewrite the saved configuration.
    let saved = std::fs::read_to_string(run.join("config.json")).unwrap();
    resume(&config, &runs, &["--generations", "3"]).success();
    assert_eq!(std::fs::read_to_string(run.join("config.json")).unwrap(), saved);
    assert!(run.join("champions/step-0003.json").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A run goes on tuning the parameters it began with when its `evolve` patterns name more
/// today (a game gains parameters between a run's sessions): its champions name them.
#[test]
fn a_run_resumes_with_the_parameters_it_began_with() {
    let dir = scratch("patterns");
    let (config, runs) = small_run(&dir);
    let run = runs.join("small");
    // "c*" names the cannon, as the run began, and today many more (cannon_eg, ...).
    for path in [config.clone(), run.join("config.json")] {
        let text = std::fs::read_to_string(&path).unwrap();
        let widened = text.replace(r#""cannon""#, r#""c*""#);
        assert_ne!(text, widened, "{}", path.display());
        std::fs::write(&path, widened).unwrap();
    }
    resume(&config, &runs, &["--generations", "3"]).success();
    let champion: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("champions/step-0003.json")).unwrap())
            .unwrap();
    assert_eq!(
        champion["provenance"]["evolved"],
        serde_json::json!(["rook", "cannon"])
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A GA run of four players evolving the rook, `generations` long at `nodes` a move, written
/// as `dir/NAME.json`.
fn tiny_config(dir: &Path, name: &str, generations: usize, nodes: u64) -> PathBuf {
    let positions = std::fs::canonicalize("positions/xiangqi-train-a.epd").unwrap();
    let config = dir.join(format!("{name}.json"));
    std::fs::write(
        &config,
        format!(
            r#"{{"name":"{name}","seed":3,"population":4,"groups":2,"generations":{generations},"evolve":["rook"],
               "environments":[{{"from_generation":1,"positions":"{}","nodes":{nodes}}}]}}"#,
            positions.display()
        ),
    )
    .unwrap();
    config
}

#[test]
fn checks_run_before_a_run_folder_is_made() {
    let dir = scratch("early");
    let config = tiny_config(&dir, "early", 2, 200);
    let runs = dir.join("runs");
    for flags in [["--threads", "0"], ["--generations", "0"]] {
        // Usage errors: exit 2.
        let out = qitune()
            .args([
                "tune",
                "--config",
                config.to_str().unwrap(),
                "--runs",
                runs.to_str().unwrap(),
            ])
            .args(flags)
            .assert()
            .failure()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(flags[0]), "{err}");
        assert!(!runs.join("early").exists(), "{flags:?} left a run folder");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn files_the_user_owns_are_not_overwritten_without_force() {
    let dir = scratch("force");
    let (_, runs) = small_run(&dir);
    let out = dir.join("mine.json");
    std::fs::write(&out, "precious").unwrap();
    let run = runs.join("small");
    let err = error_of(
        qitune()
            .args([
                "export",
                "--run",
                run.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ])
            .assert(),
    );
    assert!(err.contains("--force"), "{err}");
    // Not even the run's own state.
    let err = error_of(
        qitune()
            .args([
                "export",
                "--run",
                run.to_str().unwrap(),
                "--out",
                run.join("state.json").to_str().unwrap(),
            ])
            .assert(),
    );
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
    let err = error_of(
        qitune()
            .args([
                "match", "--a", "default", "--b", "material", "--games", "2", "--nodes", "50",
            ])
            .args(["--pgn", out.to_str().unwrap()])
            .assert(),
    );
    assert!(err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
    qitune()
        .args([
            "export",
            "--run",
            run.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--force",
        ])
        .assert()
        .success();
    assert!(std::fs::read_to_string(&out).unwrap().contains("\"game\""));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn absurd_numbers_and_endless_files_are_refused() {
    let dir = scratch("absurd");
    let positions = std::fs::canonicalize("positions/xiangqi-train-a.epd").unwrap();
    for (key, value, needle) in [
        ("groups", "9223372036854775808", "too many for population"),
        ("nodes", "9223372036854775808", "must be from 1 to"),
        // 100,000 individuals in 2 groups: 5 billion games a generation.
        ("population", "100000", "MiB this machine offers"),
    ] {
        let mut text = format!(
            r#"{{"name":"absurd","seed":3,"population":4,"groups":2,"generations":2,"evolve":["rook"],
               "environments":[{{"from_generation":1,"positions":"{}","nodes":200}}]}}"#,
            positions.display()
        );
        let old = match key {
            "groups" => "2",
            "population" => "4",
            _ => "200",
        };
        text = text.replace(&format!(r#""{key}":{old}"#), &format!(r#""{key}":{value}"#));
        let config = dir.join("c.json");
        std::fs::write(&config, text).unwrap();
        let err = error_of(
            qitune()
                .args([
                    "tune",
                    "--config",
                    config.to_str().unwrap(),
                    "--runs",
                    dir.to_str().unwrap(),
                ])
                .assert(),
        );
        assert!(err.contains(needle), "{key}: {err}");
        assert!(!dir.join("absurd").exists(), "{key} left a run folder");
    }
    // An endless device as a weight file: refused, not read until memory runs out.
    let err = error_of(
        qitune()
            .args(["match", "--a", "/dev/zero", "--b", "default", "--games", "2"])
            .assert(),
    );
    assert!(err.contains("larger than"), "{err}");
    let out = qitune()
        .args(["match", "--a", "default", "--b", "default", "--max-plies", "0"])
        .assert()
        .failure()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("--max-plies"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs qitune with `args`, reads one byte of its output and closes the pipe, as `head -c 1`
/// would, so that its later lines meet a closed pipe; returns how it ended.
fn with_closed_pipe(args: &[&std::ffi::OsStr]) -> std::process::Output {
    use std::io::Read;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_qitune"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut one = [0u8; 1];
    child.stdout.take().unwrap().read_exact(&mut one).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_pipe_ends_perft_quietly() {
    let args = ["perft", "--game", "amazons", "--depth", "2", "--divide"].map(std::ffi::OsStr::new);
    let out = with_closed_pipe(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("error"), "{err}");
}

/// A tuning run whose reader goes away (`qitune tune ... | head -1`) goes on to its end:
/// its lines are lost, its files are not, and no panic is reported.
#[test]
fn a_closed_pipe_does_not_stop_a_tuning_run() {
    let dir = scratch("pipe");
    let config = tiny_config(&dir, "p", 3, 100);
    let runs = dir.join("runs");
    let args = [
        "tune".as_ref(),
        "--threads".as_ref(),
        "1".as_ref(),
        "--config".as_ref(),
        config.as_os_str(),
        "--runs".as_ref(),
        runs.as_os_str(),
    ];
    let out = with_closed_pipe(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("error"), "{err}");
    assert!(runs.join("p/champions/step-0003.json").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A mistake in a configuration is named by its key and its line, and a path that is not
/// there says where paths are read from.
#[test]
fn configuration_mistakes_name_the_key_and_the_line() {
    let dir = scratch("keys");
    let positions = std::fs::canonicalize("positions/xiangqi-train-a.epd").unwrap();
    let good = format!(
        "{{\n  \"name\": \"k\",\n  \"seed\": 3,\n  \"population\": 4,\n  \"groups\": 2,\n  \"generations\": 2,\n  \"evolve\": [\"rook\"],\n  \"environments\": [{{\"from_generation\": 1, \"positions\": \"{}\", \"nodes\": 200}}],\n  \"validation\": {{\"every\": 20, \"games\": 4, \"positions\": \"{}\"}}\n}}\n",
        positions.display(),
        std::fs::canonicalize("positions/xiangqi-holdout.epd").unwrap().display()
    );
    let config = dir.join("c.json");
    for (from, to, needles) in [
        (
            "\"every\": 20",
            "\"every\": \"20\"",
            [
                "line 9",
                "validation.every: invalid type: string \"20\", expected usize",
            ],
        ),
        (
            "\"groups\": 2",
            "\"groups\": -2",
            ["line 5", "groups: invalid value"],
        ),
        ("\"groups\": 2", "\"grups\": 2", ["line 5", "grups: unknown key"]),
        (
            "\"nodes\": 200",
            "\"nodes\": \"many\"",
            ["line 8", "environments[0].nodes: invalid type"],
        ),
    ] {
        std::fs::write(&config, good.replace(from, to)).unwrap();
        let err = error_of(
            qitune()
                .args(["tune", "--config", config.to_str().unwrap(), "--runs"])
                .arg(dir.join("runs"))
                .assert(),
        );
        for needle in needles {
            assert!(err.contains(needle), "{to}: {err}");
        }
    }
    std::fs::write(
        &config,
        good.replace(
            &positions.display().to_string(),
            "../positions/xiangqi-train-a.epd",
        ),
    )
    .unwrap();
    let err = error_of(
        qitune()
            .args(["tune", "--config", config.to_str().unwrap()])
            .assert(),
    );
    assert!(
        err.contains("paths are read beside the configuration file"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Hash tables the machine cannot hold (two engines a game, a game a thread) are refused by
/// name before any game starts, instead of the process dying of them mid-match.
#[test]
fn hash_tables_the_machine_cannot_hold_are_refused_before_any_game() {
    let out = qitune()
        .args([
            "match",
            "--a",
            "default",
            "--b",
            "material",
            "--games",
            "2048",
            "--nodes",
            "50",
            "--threads",
            "1024",
            "--hash",
            "4096",
        ])
        .assert()
        .failure()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains(
            "--hash 4096 with --threads 1024: 1024 games at once of two engines each need 8388608 MiB"
        ),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one line: {err}");
}
