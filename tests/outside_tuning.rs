//! Tuning an outside engine through its options: qitune's own engine over UCI, and scripted
//! engines that lack an option or crash for some values of one.

use assert_cmd::Command;
use qitune::arena::OutsideEngine;
use qitune::arena::{tally_players, Conditions, Fixture, Runner, Schedule};
use qitune::game::{Budget, Ending};
use qitune::params::Params;
use qitune::tune::config::Config;
use qitune::tune::subject::{resolve_engine, Subject};
use qitune::xiangqi::game::XiangqiGame;
use qitune::xiangqi::Board;
use std::path::{Path, PathBuf};

const QITUNE: &str = env!("CARGO_BIN_EXE_qitune");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qitune-outside-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn path_of(p: &str) -> String {
    std::fs::canonicalize(p).unwrap().display().to_string()
}

/// A small SPSA run of qitune's engine over UCI, tuning `options`, with a validation.
fn config(dir: &Path, engine: &str, options: &str) -> PathBuf {
    let text = format!(
        r#"{{"name":"outside","seed":9,"method":"spsa","generations":2,
           "spsa":{{"iterations":6,"pairs":1}},
           "engine":{engine},
           "options":{options},
           "evolve":["all"],"init":"defaults",
           "environments":[{{"from_generation":1,"positions":"{a}","nodes":300}}],
           "validation":{{"every":1,"games":4,"positions":"{h}"}}}}"#,
        a = path_of("positions/xiangqi-train-a.epd"),
        h = path_of("positions/xiangqi-holdout.epd"),
    );
    let path = dir.join("outside.json");
    std::fs::write(&path, text).unwrap();
    path
}

fn qitune_uci() -> String {
    format!(r#"{{"path":"{QITUNE}","args":["engine"],"protocol":"uci","options":{{"Hash":1}}}}"#)
}

fn tune(config: &Path, runs: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    Command::new(QITUNE)
        .args(["tune", "--quiet", "--config"])
        .arg(config)
        .arg("--runs")
        .arg(runs)
        .args(extra)
        .assert()
}

fn files(run: &Path) -> Vec<String> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(run.join("champions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    names.push(run.join("state.json"));
    names.push(run.join("validation.csv"));
    names
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect()
}

/// The same outside run straight on 1 thread and stopped after a step then resumed on 2
/// gives the same champions, state and validations; its export is an engine description
/// that plays, with the setoption lines printed.
#[test]
fn an_outside_run_is_reproducible_resumable_and_exported() {
    let dir = scratch("resume");
    let config = config(
        &dir,
        &qitune_uci(),
        r#"["rook", {"name":"cannon","min":300,"max":700}]"#,
    );
    tune(&config, &dir.join("whole"), &["--threads", "1"]).success();
    tune(
        &config,
        &dir.join("parts"),
        &["--threads", "2", "--generations", "1"],
    )
    .success();
    tune(&config, &dir.join("parts"), &["--threads", "2", "--resume"]).success();
    let whole = files(&dir.join("whole/outside"));
    assert_eq!(whole.len(), 4, "two champions, the state and the validations");
    assert!(
        whole == files(&dir.join("parts/outside")),
        "a resumed outside run differs"
    );
    // The saved configuration holds every option complete.
    let saved = std::fs::read_to_string(dir.join("whole/outside/config.json")).unwrap();
    assert!(
        saved.contains(r#""name": "cannon""#) && saved.contains(r#""min": 300"#),
        "{saved}"
    );
    let out = dir.join("tuned.json");
    let export = Command::new(QITUNE)
        .args(["export", "--run"])
        .arg(dir.join("whole/outside"))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let printed = String::from_utf8_lossy(&export.get_output().stdout).to_string();
    let tuned: OutsideEngine = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    for name in ["rook", "cannon"] {
        let value = &tuned.options[name];
        assert!(
            printed.contains(&format!("setoption name {name} value {value}")),
            "{printed}"
        );
    }
    assert_eq!(tuned.options["Hash"], 1);
    // The export is a player.
    Command::new(QITUNE)
        .args([
            "match", "--b", "default", "--games", "2", "--tc", "1+0.01", "--quiet", "--a",
        ])
        .arg(&out)
        .assert()
        .success();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An option the engine does not offer is refused before any game, by name, and nothing is
/// written; so is an option that is not a spin option.
#[test]
fn an_option_the_engine_lacks_is_refused_before_any_game() {
    let dir = scratch("lacks");
    for (options, says) in [
        (r#"["rook", "rook_value"]"#, "offers no option 'rook_value'"),
        (r#"["Ponder"]"#, "'Ponder' of engine"),
        (r#"[{"name":"rook","min":900,"max":900}]"#, "min < max"),
    ] {
        let config = config(&dir, &qitune_uci(), options);
        let assert = tune(&config, &dir.join("runs"), &[]).failure().code(1);
        let err = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
        assert!(err.contains(says), "{options}: {err}");
        assert_eq!(err.lines().filter(|l| l.starts_with("error")).count(), 1, "{err}");
        assert!(
            !dir.join("runs/outside").exists(),
            "{options}: a run folder was made"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A UCI engine (qitune's, behind a shell relay) that offers one more spin option, `crash`,
/// and exits when it is set to 1: the players with `crash` 1 lose every game by a crash, and
/// the games of the others are the games they would play without them.
/// An engine description of qitune's engine behind a relay that dies when told
/// `setoption name crash value 1`, offering the spin option `crash` (0 or 1).
fn crashing_engine(dir: &Path) -> String {
    let relay = format!(
        r#"f="$0.$$"; mkfifo "$f"; '{QITUNE}' engine < "$f" & exec 3> "$f"
while read -r line; do
  case "$line" in
    uci) echo 'option name crash type spin default 0 min 0 max 1'; echo uci >&3;;
    'setoption name crash value 1') exit 3;;
    'setoption name crash value'*) ;;
    *) echo "$line" >&3;;
  esac
done"#
    );
    format!(
        r#"{{"path":"/bin/sh","args":["-c",{},"{}"],"protocol":"uci","options":{{"Hash":1}}}}"#,
        serde_json::to_string(&relay).unwrap(),
        dir.join("relay").display()
    )
}

/// A run whose engine crashes for some settings goes on, and says how many of its games the
/// faults cost, step by step in run.log and for the session at its end.
#[test]
fn a_run_counts_the_games_lost_to_engine_faults() {
    let dir = scratch("faults");
    let config = config(&dir, &crashing_engine(&dir), r#"["crash", "rook"]"#);
    let runs = dir.join("runs");
    let out = tune(&config, &runs, &[]).success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let summary = stdout
        .lines()
        .find(|l| l.starts_with("faults: "))
        .unwrap_or_else(|| panic!("no faults line: {stdout}"));
    let lost: usize = summary["faults: ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(lost > 0, "{summary}");
    let log = std::fs::read_to_string(runs.join("outside/run.log")).unwrap();
    let per_step: usize = log
        .lines()
        .filter_map(|l| l.split_once("] ").map(|(_, rest)| rest.trim_start()))
        .filter(|l| l.contains("lost to outside-engine faults: "))
        .map(|l| l.split(' ').next().unwrap().parse::<usize>().unwrap())
        .sum();
    assert_eq!(per_step, lost, "{log}");
    assert!(
        log.contains("exited (exit status: 3)"),
        "the first faults are named: {log}"
    );
    assert!(runs.join("outside/champions/step-0002.json").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_individual_whose_engine_crashes_loses_its_games_and_nothing_else() {
    let dir = scratch("crash");
    let engine = crashing_engine(&dir);
    let text = std::fs::read_to_string(config(&dir, &engine, r#"["crash", "rook"]"#)).unwrap();
    let parsed: Config = serde_json::from_str(&text).unwrap();
    let resolved = resolve_engine(&parsed, &dir).unwrap();
    let subject = Subject::of::<XiangqiGame>(&resolved).unwrap();
    let specs = subject.specs();
    assert_eq!(
        specs.iter().map(|s| s.name.as_ref()).collect::<Vec<_>>(),
        ["crash", "rook"]
    );
    let player = |crash: i64, rook: i64| {
        let mut p = Params::defaults(specs);
        p.set("crash", crash).unwrap();
        p.set("rook", rook).unwrap();
        p
    };
    let params = [player(0, 900), player(1, 900), player(0, 1000)];
    let budget = Budget::Nodes(300);
    let players: Vec<_> = params
        .iter()
        .map(|p| subject.player::<XiangqiGame>(p, budget).unwrap())
        .collect();
    let fixtures: Vec<Fixture> = [(0, 1), (0, 2), (1, 2), (2, 0)]
        .into_iter()
        .flat_map(|(a, b)| Fixture::pair(a, b, 0))
        .collect();
    let positions = [Board::startpos()];
    let schedule = Schedule::<XiangqiGame> {
        players: &players,
        params: None,
        positions: &positions,
        fixtures: &fixtures,
        conditions: Conditions::for_budget(budget),
    };
    let records = schedule.run(&Runner::new(2).unwrap(), |_| {}).unwrap();
    for (f, r) in fixtures.iter().zip(&records) {
        let crashed = [f.first, f.second].iter().position(|&p| p == 1);
        match crashed {
            Some(seat) => {
                assert_eq!(r.ending, Ending::Crash, "{f:?}: {:?}", r.fault);
                assert_eq!(r.winner.map(|w| w.index()), Some(1 - seat), "{f:?}");
                assert_eq!(r.plies(), 0, "{f:?}");
            }
            None => assert!(
                r.fault.is_none() && r.plies() > 20,
                "{f:?}: {} {:?}",
                r.ending,
                r.fault
            ),
        }
    }
    // Players 0 and 2 met twice with each colour: the same games both times.
    assert_eq!(records[2].moves, records[7].moves);
    assert_eq!(records[3].moves, records[6].moves);
    let wdl = tally_players(&fixtures, &records, 3);
    assert_eq!(wdl[1].losses, 4);
    assert_eq!(wdl[1].wins + wdl[1].draws, 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
