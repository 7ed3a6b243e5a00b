//! The tuner through the real binary: reproducible across thread counts and across a
//! stop-and-resume, with checked configurations, and an exportable champion.

use assert_cmd::Command;
use predicates::prelude::PredicateBooleanExt;
use std::path::{Path, PathBuf};

fn qitune() -> Command {
    Command::cargo_bin("qitune").unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qitune-tune-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A tiny run: 6 individuals in 2 groups, 12 games a generation, an environment change to
/// other positions, and a validation on held-out positions every 2 generations.
fn tiny_config(dir: &Path, generations: usize) -> PathBuf {
    let path_of = |p: &str| std::fs::canonicalize(p).unwrap().display().to_string();
    let text = format!(
        r#"{{"name":"tiny","seed":5,"population":6,"groups":2,"generations":{generations},
           "evolve":["advisor","elephant","horse","rook","cannon","pawn","mobility_*"],
           "environments":[{{"from_generation":1,"positions":"{a}","nodes":400}},
                           {{"from_generation":3,"positions":"{b}","nodes":600}}],
           "validation":{{"every":2,"games":6,"positions":"{h}"}}}}"#,
        a = path_of("positions/xiangqi-train-a.epd"),
        b = path_of("positions/xiangqi-train-b.epd"),
        h = path_of("positions/xiangqi-holdout.epd"),
    );
    let path = dir.join("tiny.json");
    std::fs::write(&path, text).unwrap();
    path
}

/// `qitune tune --config CONFIG --runs RUNS`, to which a test adds its own flags.
fn tune_cmd(config: &Path, runs: &Path) -> Command {
    let mut cmd = qitune();
    cmd.arg("tune")
        .arg("--config")
        .arg(config)
        .arg("--runs")
        .arg(runs);
    cmd
}

fn tune(config: &Path, runs: &Path, extra: &[&str]) {
    tune_cmd(config, runs).args(extra).assert().success();
}

/// `qitune export --run RUN --out OUT`, to which a test adds its own flags.
fn export(run: &Path, out: &Path) -> Command {
    let mut cmd = qitune();
    cmd.arg("export").arg("--run").arg(run).arg("--out").arg(out);
    cmd
}

/// Runs `qitune ARGS` expecting failure with `needle` in the error.
fn fails(args: &[&str], needle: &str) {
    qitune()
        .args(args)
        .assert()
        .failure()
        .code(1)
        .stderr(predicates::str::contains(needle));
}

/// Runs `config` (whose run is named `name`) with 1 and with 2 threads; both runs' champions.
fn on_one_and_two_threads(dir: &Path, config: &Path, name: &str) -> (Vec<String>, Vec<String>) {
    tune(config, &dir.join("one"), &["--threads", "1"]);
    tune(config, &dir.join("two"), &["--threads", "2"]);
    (
        champions(&dir.join("one").join(name)),
        champions(&dir.join("two").join(name)),
    )
}

fn champions(run: &Path) -> Vec<String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(run.join("champions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect()
}

#[test]
fn champions_do_not_depend_on_threads() {
    let dir = scratch("threads");
    let config = tiny_config(&dir, 4);
    let (a, b) = on_one_and_two_threads(&dir, &config, "tiny");
    assert_eq!(a.len(), 4);
    assert!(a == b, "champion files differ between 1 and 2 threads");
    let state = |d: &str| std::fs::read_to_string(dir.join(d).join("tiny/state.json")).unwrap();
    assert!(
        state("one") == state("two"),
        "state.json differs between 1 and 2 threads"
    );
    let validation = |d: &str| std::fs::read_to_string(dir.join(d).join("tiny/validation.csv")).unwrap();
    assert_eq!(
        validation("one").lines().count(),
        3,
        "a header and generations 2 and 4"
    );
    assert_eq!(
        validation("one"),
        validation("two"),
        "validation differs between 1 and 2 threads"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_resumed_run_equals_an_uninterrupted_one() {
    let dir = scratch("resume");
    let whole = tiny_config(&dir, 4);
    tune(&whole, &dir.join("whole"), &[]);
    // The same run stopped after 2 generations, then resumed to 4.
    tune(&whole, &dir.join("parts"), &["--generations", "2"]);
    assert_eq!(champions(&dir.join("parts/tiny")).len(), 2);
    tune(&whole, &dir.join("parts"), &["--resume"]);
    let (whole_champions, parts_champions) = (
        champions(&dir.join("whole/tiny")),
        champions(&dir.join("parts/tiny")),
    );
    assert_eq!(whole_champions.len(), 4);
    assert!(
        whole_champions == parts_champions,
        "a resumed run's champions differ from an uninterrupted run's"
    );
    let csv = |d: &str| std::fs::read_to_string(dir.join(d).join("tiny/generations.csv")).unwrap();
    let rows = |text: String| {
        text.lines()
            .map(|l| l.split(',').take(11).collect::<Vec<_>>().join(","))
            .collect::<Vec<_>>()
    };
    // Everything but the timings agrees.
    assert_eq!(rows(csv("whole")), rows(csv("parts")));
    let validation = |d: &str| std::fs::read_to_string(dir.join(d).join("tiny/validation.csv")).unwrap();
    assert_eq!(
        validation("whole"),
        validation("parts"),
        "validation differs after a resume"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A knob the run tuned stays in the exported file; the others are left out.
#[test]
fn export_keeps_the_knobs_a_run_tuned() {
    let dir = scratch("export-knob");
    let text = std::fs::read_to_string(tiny_config(&dir, 1))
        .unwrap()
        .replace(r#""name":"tiny""#, r#""name":"knob""#)
        .replace(r#""mobility_*"]"#, r#""mobility_*","search_rfp_margin"]"#);
    let config = dir.join("knob.json");
    std::fs::write(&config, text).unwrap();
    tune(&config, &dir.join("runs"), &[]);
    let out = dir.join("champ.json");
    export(&dir.join("runs/knob"), &out).assert().success();
    let file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let params = file["params"].as_object().unwrap();
    assert!(params.contains_key("search_rfp_margin"), "{file}");
    assert!(!params.contains_key("search_futility_margin"), "{file}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn export_writes_a_loadable_weight_file() {
    let dir = scratch("export");
    let config = tiny_config(&dir, 2);
    tune(&config, &dir.join("runs"), &[]);
    let out = dir.join("champ.json");
    export(&dir.join("runs/tiny"), &out).assert().success();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("\"generation\": 2") && text.contains("exported_from"),
        "{text}"
    );
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    // The knobs the run did not tune are the engine's, so the file leaves them out.
    let params = file["params"].as_object().unwrap();
    assert!(
        params.contains_key("horse") && params.contains_key("pst_rook_a0"),
        "{text}"
    );
    assert!(
        !params
            .keys()
            .any(|k| k.starts_with("search_") || k.starts_with("time_")),
        "{text}"
    );
    assert!(file["provenance"]["knobs"].is_string(), "{text}");
    // What the run had spent by then: both generations' 12 games.
    let provenance = &file["provenance"];
    assert_eq!(provenance["tuning_games"], 24, "{text}");
    assert!(
        provenance["tuning_hours"].as_f64().is_some_and(|h| h >= 0.0),
        "{text}"
    );
    qitune()
        .args([
            "match",
            "--a",
            out.to_str().unwrap(),
            "--b",
            "default",
            "--games",
            "2",
            "--nodes",
            "100",
        ])
        .assert()
        .success();
    let run = dir.join("runs/tiny");
    // --best: the champion with the best validation (the tiny run validates at generation 2).
    let best = dir.join("best.json");
    export(&run, &best).arg("--best").assert().success();
    assert!(std::fs::read_to_string(&best)
        .unwrap()
        .contains("\"generation\": 2"));
    // --games and --hours: the last generation finished within the budget (12 games each).
    for (budget, value, expected) in [
        ("--games", "12", "generation 1 champion"),
        ("--games", "23", "generation 1 champion"),
        ("--games", "24", "generation 2 champion"),
        ("--hours", "100", "generation 2 champion"),
    ] {
        export(&run, &best)
            .args(["--force", budget, value])
            .assert()
            .success()
            .stdout(predicates::str::contains(expected));
    }
    for (flag, needle) in [
        ("--games=11", "has no champion within 11 tuning games"),
        ("--hours=0", "--hours must be a positive number of hours"),
    ] {
        let run = run.to_str().unwrap();
        fails(
            &["export", "--run", run, flag, "--out", best.to_str().unwrap()],
            needle,
        );
    }
    fails(
        &[
            "export",
            "--run",
            dir.join("nothing").to_str().unwrap(),
            "--out",
            best.to_str().unwrap(),
        ],
        "is not a run folder",
    );
    fails(
        &[
            "export",
            "--run",
            run.to_str().unwrap(),
            "--gen",
            "9",
            "--out",
            out.to_str().unwrap(),
        ],
        "no champion of step 9",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn runs_are_protected_and_configs_checked() {
    let dir = scratch("checks");
    let config = tiny_config(&dir, 1);
    tune(&config, &dir.join("runs"), &[]);
    let (config_arg, runs) = (config.to_str().unwrap(), dir.join("runs"));
    let runs_arg = runs.to_str().unwrap();
    // Resuming a run that was never started says how to start it, and writes nothing.
    let elsewhere = dir.join("elsewhere");
    let elsewhere_arg = elsewhere.to_str().unwrap();
    fails(
        &[
            "tune",
            "--config",
            config_arg,
            "--runs",
            elsewhere_arg,
            "--resume",
        ],
        "no run tiny in",
    );
    assert!(!elsewhere.exists());
    // Starting the same run again would overwrite it: refused.
    fails(
        &["tune", "--config", config_arg, "--runs", runs_arg],
        "already exists",
    );
    let bad = dir.join("bad.json");
    let bad_arg = bad.to_str().unwrap();
    std::fs::write(
        &bad,
        std::fs::read_to_string(&config)
            .unwrap()
            .replace("\"groups\":2", "\"groups\":4"),
    )
    .unwrap();
    fails(
        &["tune", "--config", bad_arg],
        "groups = 4 is too many for population = 6",
    );
    std::fs::write(
        &bad,
        std::fs::read_to_string(&config)
            .unwrap()
            .replace("\"seed\":5", "\"seed\":6"),
    )
    .unwrap();
    fails(
        &["tune", "--config", bad_arg, "--runs", runs_arg, "--resume"],
        "'seed' differs",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_killed_mid_generation_resumes_to_the_same_champions() {
    let dir = scratch("kill");
    let config = tiny_config(&dir, 4);
    tune(&config, &dir.join("whole"), &[]);
    let runs = dir.join("killed");
    // SIGKILL at a few moments: whatever was in progress is lost, nothing else.
    for wait_ms in [150u64, 400] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_qitune"))
            .args([
                "tune",
                "--config",
                config.to_str().unwrap(),
                "--runs",
                runs.to_str().unwrap(),
                "--threads",
                "1",
            ])
            .args(if runs.join("tiny").exists() {
                &["--resume"][..]
            } else {
                &[][..]
            })
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(wait_ms));
        let _ = child.kill();
        child.wait().unwrap();
    }
    // A kill in the middle of saving leaves a temporary file; the resume clears it away.
    if runs.join("tiny/champions").exists() {
        std::fs::write(runs.join("tiny/champions/.step-0002.json.tmp-1"), "{\"half").unwrap();
    }
    tune(&config, &runs, &["--resume"]);
    assert!(
        champions(&dir.join("whole/tiny")) == champions(&runs.join("tiny")),
        "champions differ after kills"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_amazons_run_is_reproducible_too() {
    let dir = scratch("amazons");
    let positions = std::fs::canonicalize("positions/amazons-openings.fen").unwrap();
    let config = dir.join("amz.json");
    std::fs::write(
        &config,
        format!(
            r#"{{"name":"amz","game":"amazons","seed":3,"population":4,"groups":2,"generations":2,
               "evolve":["opening_*","tie","uct_c"],"max_plies":40,
               "environments":[{{"from_generation":1,"positions":"{}","nodes":60}}]}}"#,
            positions.display()
        ),
    )
    .unwrap();
    let (a, b) = on_one_and_two_threads(&dir, &config, "amz");
    assert_eq!(a.len(), 2);
    assert!(a == b, "Amazons champions differ between 1 and 2 threads");
    assert!(a[0].contains("\"game\": \"amazons\""));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn noise_aware_options_are_reproducible_and_unique_means_no_clones() {
    let dir = scratch("noise");
    let config = tiny_config(&dir, 3);
    let text = std::fs::read_to_string(&config).unwrap().replace(
        r#""generations":3,"#,
        r#""generations":3,"encoding":"gray","openings_per_pair":2,"unique":true,"#,
    );
    std::fs::write(&config, text).unwrap();
    let (a, b) = on_one_and_two_threads(&dir, &config, "tiny");
    assert_eq!(a.len(), 3);
    assert!(a == b, "champion files differ between 1 and 2 threads");
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("one/tiny/state.json")).unwrap()).unwrap();
    let population: Vec<&str> = state["population"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_str().unwrap())
        .collect();
    let distinct: std::collections::HashSet<&&str> = population.iter().collect();
    assert_eq!(distinct.len(), population.len(), "clones in {population:?}");
    // Two openings a pair: twice the paper's games.
    let csv = std::fs::read_to_string(dir.join("one/tiny/generations.csv")).unwrap();
    let games: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(7).unwrap())
        .collect();
    assert_eq!(games, vec!["24", "24", "24"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Real genes with each crossover, fitness against the reference, racing and the survivors'
/// mean as champion: the same files on 1 and 2 threads and after a resume, steps within
/// bounds, and the games each asks for.
#[test]
fn real_genes_reference_fitness_racing_and_the_centre_are_reproducible() {
    // Against the reference six individuals play two games each, and with racing in three
    // rounds then the better three and the better two again (22); in groups of three, 12;
    // three pairs of twins, 6.
    for (crossover, extra, games) in [
        (
            "blend",
            r#","fitness":"reference","champion":"centre","carry":true,"race":3"#,
            "22",
        ),
        ("sbx", r#","unique":true"#, "12"),
        ("uniform", r#","fitness":"reference""#, "12"),
        // Twins need groups of two: the tiny run's 2 groups become 3.
        (
            "blend",
            r#","fitness":"twins","champion":"centre","groups":3"#,
            "6",
        ),
    ] {
        let twins = extra.contains("twins");
        let label = format!("{crossover}{}", if twins { "-twins" } else { "" });
        let dir = scratch(&format!("real-{label}"));
        let config = tiny_config(&dir, 4);
        let mut text = std::fs::read_to_string(&config).unwrap();
        if twins {
            text = text.replace(r#""groups":2,"#, "");
        }
        let text = text.replace(
            r#""generations":4,"#,
            &format!(
                r#""generations":4,"genes":"real","real":{{"crossover":"{crossover}","sigma":0.05}}{extra},"#
            ),
        );
        std::fs::write(&config, text).unwrap();
        let (a, b) = on_one_and_two_threads(&dir, &config, "tiny");
        assert_eq!(a.len(), 4);
        assert!(a == b, "{label}: champion files differ between 1 and 2 threads");
        tune(&config, &dir.join("parts"), &["--generations", "2"]);
        tune(&config, &dir.join("parts"), &["--resume"]);
        assert!(
            a == champions(&dir.join("parts/tiny")),
            "{label}: a resumed run differs"
        );
        let read = |p: &str| std::fs::read_to_string(dir.join(p)).unwrap();
        assert_eq!(read("one/tiny/state.json"), read("parts/tiny/state.json"));
        assert_eq!(read("one/tiny/state.json"), read("two/tiny/state.json"));
        let state: serde_json::Value = serde_json::from_str(&read("one/tiny/state.json")).unwrap();
        let individuals = state["individuals"].as_array().unwrap();
        assert_eq!(individuals.len(), 6);
        for i in individuals {
            for s in i["steps"].as_array().unwrap() {
                let s = s.as_f64().unwrap();
                assert!((0.002..=0.25).contains(&s), "{label}: step {s}");
            }
        }
        // Twins keep their centre where the reference lives.
        let reference = extra.contains("reference") || twins;
        assert_eq!(state["reference"].is_array(), reference, "{state}");
        if twins {
            // Each pair is mirrored around the centre (but where a bound clips a twin: the
            // unit tests check that; here most values lie well inside).
            let centre: Vec<f64> = state["reference"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            let mut mirrored = 0;
            for pair in individuals.chunks(2) {
                let value = |i: usize, k: usize| pair[i]["values"][k].as_f64().unwrap();
                for (k, c) in centre.iter().enumerate() {
                    mirrored += ((value(0, k) + value(1, k) - 2.0 * c).abs() < 1e-6) as usize;
                }
            }
            assert!(4 * mirrored >= 3 * 3 * centre.len(), "{label}: {state}");
        }
        let csv = read("one/tiny/generations.csv");
        let played: Vec<&str> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(7).unwrap())
            .collect();
        assert_eq!(played, vec![games; 4], "{label}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
    // Settings of real genes are refused with binary ones, and bad bounds are named.
    let dir = scratch("real-bad");
    let config = tiny_config(&dir, 2);
    let text = std::fs::read_to_string(&config).unwrap();
    for (with, needle) in [
        (
            r#""real":{"crossover":"blend"},"#,
            "real: settings of real genes, but genes = binary",
        ),
        (
            r#""genes":"real","real":{"sigma_min":0.5},"#,
            "real.sigma_min = 0.5",
        ),
        (
            r#""genes":"real","encoding":"gray","#,
            "encoding: a spelling of binary genes",
        ),
        (r#""race":2,"#, "race: racing needs fitness = reference"),
        (r#""fitness":"twins","#, "fitness = twins needs genes = real"),
        (
            r#""genes":"real","fitness":"twins","champion":"centre","#,
            "population = 6 must be even and groups = 2 half of it",
        ),
    ] {
        std::fs::write(
            &config,
            text.replace(r#""generations":2,"#, &format!(r#""generations":2,{with}"#)),
        )
        .unwrap();
        fails(
            &[
                "tune",
                "--config",
                config.to_str().unwrap(),
                "--runs",
                dir.join("r").to_str().unwrap(),
            ],
            needle,
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn carried_records_survive_a_resume_and_do_not_depend_on_threads() {
    let dir = scratch("carry");
    let config = tiny_config(&dir, 4);
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace(r#""generations":4,"#, r#""generations":4,"carry":true,"#);
    std::fs::write(&config, text).unwrap();
    let (a, b) = on_one_and_two_threads(&dir, &config, "tiny");
    assert!(a == b, "champion files differ between 1 and 2 threads");
    tune(&config, &dir.join("parts"), &["--generations", "2"]);
    tune(&config, &dir.join("parts"), &["--resume"]);
    assert!(a == champions(&dir.join("parts/tiny")), "a resumed run differs");
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("one/tiny/state.json")).unwrap()).unwrap();
    let games: Vec<u64> = state["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["games"].as_u64().unwrap())
        .collect();
    // The two champions come first with their games (four a generation in a group of three,
    // for at least one generation), the four children after them with none yet.
    assert_eq!(games.len(), 6, "{state}");
    assert!(games[..2].iter().all(|&g| g >= 4 && g % 4 == 0), "{games:?}");
    assert_eq!(&games[2..], &[0, 0, 0, 0]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn jsonl_quiet_and_the_run_log() {
    let dir = scratch("jsonl");
    let config = tiny_config(&dir, 2);
    let runs = dir.join("runs");
    let out = tune_cmd(&config, &runs).arg("--jsonl").output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    assert_eq!(rows[1]["stats"]["generation"], 2);
    assert_eq!(rows[1]["validation"]["games"], 6, "validated every 2 generations");
    assert!(rows[0]["validation"].is_null());
    let log = std::fs::read_to_string(runs.join("tiny/run.log")).unwrap();
    assert!(
        log.contains("] generation    2: fitness") && log.contains("] done: 2 generations"),
        "{log}"
    );
    // --quiet: the summary alone, and the log goes on.
    tune_cmd(&config, &runs)
        .args(["--resume", "--generations", "3", "--quiet"])
        .assert()
        .success()
        .stdout(predicates::str::contains("done: 3 generations"))
        .stdout(predicates::str::contains("fitness").not());
    let log = std::fs::read_to_string(runs.join("tiny/run.log")).unwrap();
    assert!(log.contains("] generation    3: fitness"), "{log}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A tiny SPSA or fitting run (`method` with its `settings`) from the hand-set weights.
fn method_config(dir: &Path, method: &str, settings: &str) -> PathBuf {
    let path_of = |p: &str| std::fs::canonicalize(p).unwrap().display().to_string();
    let text = format!(
        r#"{{"name":"m","seed":9,"method":"{method}","{method}":{settings},"generations":3,
           "evolve":["advisor","horse","rook","cannon","pawn","mobility_*","pst_pawn_*"],
           "init":"weights","base_weights":"{w}",
           "environments":[{{"from_generation":1,"positions":"{a}","nodes":300}}],
           "validation":{{"every":2,"games":4,"positions":"{h}"}}}}"#,
        w = path_of("examples/xiangqi-hand-set.json"),
        a = path_of("positions/xiangqi-train-a.epd"),
        h = path_of("positions/xiangqi-holdout.epd"),
    );
    let path = dir.join(format!("{method}.json"));
    std::fs::write(&path, text).unwrap();
    path
}

/// Every file of a run folder that must not depend on threads or on a resume: champions,
/// state, validations, data files, and the step rows without their timings.
fn run_files(run: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for folder in ["", "champions", "data"] {
        let Ok(entries) = std::fs::read_dir(run.join(folder)) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".json") || n.ends_with(".csv") || n.ends_with(".txt"))
            .collect();
        names.sort();
        for name in names {
            let text = std::fs::read_to_string(run.join(folder).join(&name)).unwrap();
            let text = if name == "steps.csv" || name == "generations.csv" {
                // The last two columns are seconds and games/s.
                text.lines()
                    .map(|l| {
                        let fields: Vec<&str> = l.split(',').collect();
                        fields[..fields.len() - 2].join(",")
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            } else {
                text
            };
            out.push((format!("{folder}/{name}"), text));
        }
    }
    out
}

/// Two runs of one configuration, one whole and one stopped and resumed on another thread
/// count, hold the same files (their saved configurations aside).
fn assert_same_run(whole: &Path, parts: &Path, what: &str) {
    let (a, b) = (run_files(whole), run_files(parts));
    assert_eq!(
        a.len(),
        b.len(),
        "{what}: {:?}",
        b.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(
            name == "/config.json" || x == y,
            "{what}: {name} differs after a resume on another thread count"
        );
    }
}

#[test]
fn spsa_fitting_and_es_runs_resume_to_the_same_files_on_any_thread_count() {
    let dir = scratch("methods");
    for (method, settings) in [
        ("spsa", r#"{"iterations":6,"pairs":1}"#),
        ("es", r#"{"pairs":3,"sigma":0.1}"#),
        (
            "texel",
            r#"{"games":12,"positions_per_game":4,"epochs":30,"holdout":0.25}"#,
        ),
    ] {
        let config = method_config(&dir, method, settings);
        let whole = dir.join(format!("{method}-whole"));
        let parts = dir.join(format!("{method}-parts"));
        tune(&config, &whole, &["--threads", "2"]);
        tune(&config, &parts, &["--threads", "1", "--generations", "2"]);
        if method == "texel" {
            // What a kill during step 3 leaves: its games, to be played again.
            std::fs::write(parts.join("m/data/step-0003.txt"), "half a line").unwrap();
        }
        tune(&config, &parts, &["--threads", "1", "--resume"]);
        assert_same_run(&whole.join("m"), &parts.join("m"), method);
        assert_eq!(champions(&whole.join("m")).len(), 3);
        let steps = std::fs::read_to_string(whole.join("m/steps.csv")).unwrap();
        assert_eq!(steps.lines().count(), 4, "{method}: a header and three steps");
        let champion: serde_json::Value = serde_json::from_str(&champions(&whole.join("m"))[2]).unwrap();
        assert_eq!(champion["provenance"]["method"], method);
    }
    // A tuned value edited out of its range is refused on a resume, naming the file.
    let state = dir.join("spsa-whole/m/state.json");
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    value["theta"][0] = serde_json::json!(1e9);
    std::fs::write(&state, value.to_string()).unwrap();
    tune_cmd(
        &method_config(&dir, "spsa", r#"{"iterations":6,"pairs":1}"#),
        &dir.join("spsa-whole"),
    )
    .args(["--resume", "--generations", "4"])
    .assert()
    .failure()
    .stderr(predicates::str::contains("state.json").and(predicates::str::contains("outside")));
    // SPSA's per-parameter settings name tuned parameters, checked before any file.
    let config = method_config(&dir, "spsa", r#"{"iterations":2,"c_end_values":{"tempo":2}}"#);
    tune_cmd(&config, &dir.join("named"))
        .assert()
        .failure()
        .stderr(predicates::str::contains("'tempo' is not a tuned parameter"));
    assert!(!dir.join("named/m").exists());
    // Fitting needs an evaluation linear in its weights; the Amazons one says it is not.
    let config = dir.join("amazons.json");
    let openings = std::fs::canonicalize("positions/amazons-openings.fen").unwrap();
    let text = format!(
        r#"{{"name":"a","game":"amazons","seed":1,"method":"texel","texel":{{"games":4}},
           "generations":1,"evolve":["all"],
           "environments":[{{"from_generation":1,"positions":"{}","nodes":100}}]}}"#,
        openings.display()
    );
    std::fs::write(&config, text).unwrap();
    tune_cmd(&config, &dir.join("amazons"))
        .assert()
        .failure()
        .stderr(predicates::str::contains("amazons"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// SPSA's chains: the first is the run of one chain, step for step; the champion is the
/// chains' mean; and a run of chains resumes to the same files on another thread count.
#[test]
fn spsa_chains_run_beside_each_other_and_their_mean_is_the_champion() {
    let dir = scratch("chains");
    let one = method_config(&dir, "spsa", r#"{"iterations":3,"pairs":1}"#);
    tune(&one, &dir.join("one"), &[]);
    let three = dir.join("three.json");
    let text = std::fs::read_to_string(&one).unwrap();
    std::fs::write(&three, text.replace(r#""pairs":1"#, r#""pairs":1,"chains":3"#)).unwrap();
    tune(&three, &dir.join("whole"), &["--threads", "2"]);
    tune(
        &three,
        &dir.join("parts"),
        &["--threads", "1", "--generations", "2"],
    );
    tune(&three, &dir.join("parts"), &["--threads", "2", "--resume"]);
    assert_same_run(&dir.join("whole/m"), &dir.join("parts/m"), "chains");
    let state = |run: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(run).join("m/state.json")).unwrap()).unwrap()
    };
    let (single, chains) = (state("one"), state("whole"));
    assert!(
        single.get("chains").is_none(),
        "a run of one chain keeps its files as they were"
    );
    let chains_of = chains["chains"].as_array().unwrap();
    assert_eq!(chains_of.len(), 3);
    assert_eq!(
        chains_of[0], single["theta"],
        "the first chain is the run of one chain"
    );
    assert_ne!(chains_of[1], chains_of[0], "each chain has its own directions");
    let theta = chains["theta"].as_array().unwrap();
    for (t, mean) in theta.iter().enumerate() {
        let sum: f64 = chains_of.iter().map(|c| c[t].as_f64().unwrap()).sum();
        assert!((mean.as_f64().unwrap() - sum / 3.0).abs() < 1e-9);
    }
    // Three chains play three times the games a step.
    let steps = std::fs::read_to_string(dir.join("whole/m/steps.csv")).unwrap();
    let games: Vec<&str> = steps
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap())
        .collect();
    assert_eq!(games, ["18", "18", "18"]);
    // The champion is the mean, rounded.
    let champion: serde_json::Value = serde_json::from_str(&champions(&dir.join("whole/m"))[2]).unwrap();
    assert_eq!(
        champion["params"]["horse"],
        theta[1].as_f64().unwrap().round() as i64
    );
    // A resume with another number of chains is refused before anything is written.
    std::fs::write(&three, text.replace(r#""pairs":1"#, r#""pairs":1,"chains":2"#)).unwrap();
    tune_cmd(&three, &dir.join("whole"))
        .args(["--resume", "--generations", "4"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("spsa"));
    assert_eq!(champions(&dir.join("whole/m")).len(), 3);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Adjudicated tuning games end as soon as both players' scores agree; validation games are
/// played out whatever the rule.
#[test]
fn adjudication_ends_tuning_games_early() {
    let dir = scratch("adjudication");
    let plain = method_config(&dir, "spsa", r#"{"iterations":6,"pairs":1}"#);
    let text = std::fs::read_to_string(&plain).unwrap();
    let judged = |name: &str, rule: &str| {
        let path = dir.join(format!("{name}.json"));
        let rule = format!(r#""adjudication":{rule},"seed":9"#);
        std::fs::write(&path, text.replace(r#""seed":9"#, &rule)).unwrap();
        tune(&path, &dir.join(name), &["--generations", "2"]);
    };
    // A loss as soon as both players see one side ahead at all; a draw whatever they see.
    judged("resign", r#"{"resign":{"score":1,"moves":1}}"#);
    judged("draw", r#"{"draw":{"score":100000,"moves":1,"after":0}}"#);
    tune(&plain, &dir.join("plain"), &["--generations", "2"]);
    let column = |runs: &str, file: &str, name: &str| -> Vec<u64> {
        let columns = qitune::tune::folder::step_columns(&dir.join(runs).join("m").join(file)).unwrap();
        let (_, points) = columns.into_iter().find(|(column, _)| column == name).unwrap();
        points.into_iter().map(|(_, y)| y as u64).collect()
    };
    assert_eq!(column("resign", "steps.csv", "draws"), [0, 0]);
    assert!(column("plain", "steps.csv", "draws").iter().sum::<u64>() > 0);
    assert_eq!(column("draw", "steps.csv", "plus_wins"), [0, 0]);
    assert_eq!(column("draw", "steps.csv", "minus_wins"), [0, 0]);
    // Every tuning game drawn, the validation's games still decided some.
    let decided =
        |runs: &str| column(runs, "validation.csv", "wins")[0] + column(runs, "validation.csv", "losses")[0];
    assert!(decided("draw") > 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A run in stages: a GA stage, then SPSA from the GA's best validated champion, each in its
/// own folder; a run stopped between the stages resumes to the same files.
#[test]
fn a_run_in_stages_starts_each_stage_from_the_last_ones_best() {
    let dir = scratch("stages");
    let path_of = |p: &str| std::fs::canonicalize(p).unwrap().display().to_string();
    let write = |name: &str, stages: &str| {
        let text = format!(
            r#"{{"name":"g","seed":4,"evolve":["advisor","horse","rook","cannon","pawn"],
               "init":"weights","base_weights":"{w}",
               "environments":[{{"from_generation":1,"positions":"{a}","nodes":300}}],
               "validation":{{"every":2,"games":4,"positions":"{h}","anchor":"{w}"}},
               "stages":{stages}}}"#,
            w = path_of("examples/xiangqi-hand-set.json"),
            a = path_of("positions/xiangqi-train-a.epd"),
            h = path_of("positions/xiangqi-holdout.epd"),
        );
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let config = write(
        "stages.json",
        r#"[{"method":"ga","population":6,"groups":2,"generations":3},
            {"method":"spsa","generations":2,"evolve":["all"],"spsa":{"iterations":4}}]"#,
    );
    let (whole, parts) = (dir.join("whole"), dir.join("parts"));
    tune_cmd(&config, &whole)
        .args(["--threads", "2"])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "stage 2 of 2: spsa, from stage 1's generation",
        ));
    // Stopped after the first stage: the second is begun by the resume.
    tune(&config, &parts, &["--threads", "1"]);
    std::fs::remove_dir_all(parts.join("g/stage-2")).unwrap();
    tune(&config, &parts, &["--threads", "1", "--resume"]);
    for stage in ["stage-1", "stage-2"] {
        let files = |root: &Path| {
            let prefix = root.display().to_string();
            run_files(&root.join("g").join(stage))
                .into_iter()
                .filter(|(name, _)| name != "/config.json")
                .map(|(name, text)| (name, text.replace(&prefix, "")))
                .collect::<Vec<_>>()
        };
        assert!(files(&whole) == files(&parts), "{stage} differs after a resume");
    }
    // Stage 2 starts from stage 1's best validated champion and tunes every weight.
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(whole.join("g/stage-2/config.json")).unwrap()).unwrap();
    let base = saved["base_weights"].as_str().unwrap();
    assert!(base.contains("stage-1/champions/step-000"), "{base}");
    assert_eq!(saved["method"], "spsa");
    // `export` given the run's folder takes its latest stage.
    let out = dir.join("best.json");
    qitune()
        .args([
            "export",
            "--run",
            whole.join("g").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .assert()
        .success();
    let exported: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(exported["provenance"]["run"], "stage-2");
    // A budget of games counts the earlier stages': all of stage 1's leave stage 2 nothing.
    let games_of = |stage: &str, csv: &str| -> Vec<u64> {
        let path = whole.join("g").join(stage).join(csv);
        let columns = qitune::tune::folder::step_columns(&path).unwrap();
        let (_, games) = columns.into_iter().find(|(name, _)| name == "games").unwrap();
        games.into_iter().map(|(_, n)| n as u64).collect()
    };
    let generations = games_of("stage-1", "generations.csv");
    let stage_1: u64 = generations.iter().sum();
    let stage_2 = games_of("stage-2", "steps.csv");
    let export_within = |games: u64| {
        let mut cmd = qitune();
        cmd.args([
            "export",
            "--run",
            whole.join("g").to_str().unwrap(),
            "--force",
            "--out",
        ])
        .arg(&out)
        .args(["--games", &games.to_string()]);
        cmd.assert()
    };
    // A budget that ends in the first stage takes its champion from there.
    export_within(stage_1)
        .success()
        .stdout(predicates::str::contains(format!(
            "generation {} champion",
            generations.len()
        )));
    let none = generations[0] - 1;
    export_within(none)
        .failure()
        .stderr(predicates::str::contains(format!(
            "has no champion within {none} tuning games"
        )));
    export_within(stage_1 + stage_2[0])
        .success()
        .stdout(predicates::str::contains("step 1 champion"));
    // A run in stages exists once, sets generations per stage, and keeps its keys in place.
    tune_cmd(&config, &whole)
        .assert()
        .failure()
        .stderr(predicates::str::contains("exists"));
    tune_cmd(&config, &dir.join("other"))
        .args(["--generations", "5"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("each stage sets its own generations"));
    for (stages, needle) in [
        (
            r#"[{"method":"ga","seed":3,"generations":1}]"#,
            "stage 1: 'seed' belongs to the whole run",
        ),
        (
            r#"[{"method":"ga","population":6,"groups":2,"generations":1},
                {"method":"spsa","generations":1,"init":"random","spsa":{"iterations":2}}]"#,
            "stage 2: 'init'",
        ),
        (
            r#"[{"method":"ga","population":6,"groups":2,"generations":1},{"method":"spsa","generations":1}]"#,
            "stage 2: method = \"spsa\" needs an \"spsa\" section",
        ),
        ("[]", "stages must be a list of at least one stage"),
    ] {
        let bad = write("bad.json", stages);
        tune_cmd(&bad, &dir.join("bad"))
            .assert()
            .failure()
            .stderr(predicates::str::contains(needle));
        assert!(!dir.join("bad").exists(), "{needle}: nothing is written");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every configuration shipped in `configs/` is one `tune` accepts: a file that a change of
/// keys or ranges left behind fails here, not in a user's first run. The configurations are
/// read from a copy of the tree whose `target/release/qitune` is this build, so that one
/// tuning an outside engine (this binary as a UCI engine) is checked on a clean clone too.
#[test]
fn every_shipped_configuration_is_accepted() {
    let root = scratch("shipped");
    for shared in ["positions", "examples"] {
        std::os::unix::fs::symlink(std::fs::canonicalize(shared).unwrap(), root.join(shared)).unwrap();
    }
    std::fs::create_dir_all(root.join("target/release")).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_qitune"), root.join("target/release/qitune")).unwrap();
    std::fs::create_dir_all(root.join("configs")).unwrap();
    let mut read = 0;
    for entry in std::fs::read_dir("configs").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let copy = root.join("configs").join(path.file_name().unwrap());
            std::fs::copy(&path, &copy).unwrap();
            if let Err(e) = qitune::tune::stages::Plan::read(&copy) {
                panic!("{}: {e}", path.display());
            }
            read += 1;
        }
    }
    assert!(read >= 10, "only {read} configurations found in configs/");
    std::fs::remove_dir_all(&root).unwrap();
}
