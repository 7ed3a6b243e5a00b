//! Hostile configurations: every shipped configuration, made tiny, with one value at a time
//! replaced by a wrong type, a huge, negative, zero or empty value, or taken out. Each must
//! be refused with one message naming the key or a key above it (exit 1, no run folder
//! left), or run and make progress; never a panic (the test profile keeps overflow checks
//! on, so a wrapped number is one), never a hang. A key taken out gets its default, so its
//! message may be about what that default meets: one `error:` line is all it must be.
//!
//! A sample of the cases runs by default; `QITUNE_HOSTILE=all cargo test --test hostile --
//! --nocapture` tries them all and prints the tally.

mod common;

use common::scratch;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A shipped configuration with its paths made absolute and its budgets made tiny, so that
/// a run it allows ends in seconds: 2 steps, 8 players, 100 nodes a move, 60 plies a game.
fn tiny(name: &str) -> Value {
    let text = std::fs::read_to_string(format!("configs/{name}.json")).unwrap();
    let mut config: Value = serde_json::from_str(&text).unwrap();
    let configs = std::fs::canonicalize("configs").unwrap();
    shrink(&mut config, &configs);
    config
}

fn shrink(value: &mut Value, configs: &Path) {
    match value {
        Value::String(s) if s.starts_with("../") => {
            *value = json!(configs.join(&*s).display().to_string());
        }
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match (key.as_str(), &*v) {
                    ("path", _) => *v = json!(env!("CARGO_BIN_EXE_qitune")),
                    ("generations", _) => *v = json!(2),
                    ("population", _) => *v = json!(8),
                    ("groups", _) => *v = json!(2),
                    ("nodes", _) => *v = json!(100),
                    ("max_plies", _) => *v = json!(60),
                    ("iterations", _) => *v = json!(4),
                    ("games", _) => *v = json!(4),
                    ("epochs", _) => *v = json!(5),
                    ("every", _) => *v = json!(1),
                    ("from_generation", Value::Number(n)) if n.as_u64() != Some(1) => *v = json!(2),
                    _ => shrink(v, configs),
                }
            }
            // A fit needs enough quiet positions from its games.
            if map.get("epochs").is_some() {
                map.insert("games".into(), json!(40));
            }
            // Twins pair every player with its mirror: groups are half the population.
            if map.get("fitness") == Some(&json!("twins")) {
                map.insert("groups".into(), json!(4));
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| shrink(v, configs)),
        _ => {}
    }
}

/// One hostile change: the path of the value changed (object keys and array indices) and
/// what it becomes (`None`: taken out).
struct Case {
    config: &'static str,
    path: Vec<String>,
    value: Option<Value>,
    what: &'static str,
}

/// The values a leaf (or a whole object or array) is replaced by.
fn replacements(v: &Value) -> Vec<(&'static str, Option<Value>)> {
    let mut out = vec![("missing", None), ("null", Some(Value::Null))];
    match v {
        Value::Number(_) => out.extend([
            ("a string", Some(json!("12"))),
            ("huge", Some(json!(18446744073709551615u64))),
            ("huger than any integer", Some(json!(1e300))),
            ("negative", Some(json!(-1))),
            ("zero", Some(json!(0))),
            ("fractional", Some(json!(0.5))),
        ]),
        Value::String(_) => out.extend([
            ("a number", Some(json!(7))),
            ("empty", Some(json!(""))),
            ("huge", Some(json!("x".repeat(10_000)))),
            ("a path to nothing", Some(json!("/nonexistent/qitune"))),
            ("a folder", Some(json!("/"))),
        ]),
        Value::Bool(_) => out.extend([("a string", Some(json!("true"))), ("a number", Some(json!(1)))]),
        Value::Array(_) => out.extend([
            ("empty", Some(json!([]))),
            ("a string", Some(json!("all"))),
            ("an object", Some(json!({}))),
        ]),
        Value::Object(_) => out.extend([("empty", Some(json!({}))), ("an array", Some(json!([])))]),
        Value::Null => {}
    }
    out
}

/// Every value's path in `v`, objects and arrays included.
fn paths(v: &Value, at: &mut Vec<String>, out: &mut Vec<(Vec<String>, Value)>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                at.push(k.clone());
                out.push((at.clone(), child.clone()));
                paths(child, at, out);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                at.push(i.to_string());
                out.push((at.clone(), child.clone()));
                paths(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn apply(config: &mut Value, path: &[String], value: &Option<Value>) {
    let (last, parents) = path.split_last().unwrap();
    let mut at = config;
    for p in parents {
        at = match at {
            Value::Object(map) => map.get_mut(p).unwrap(),
            Value::Array(items) => &mut items[p.parse::<usize>().unwrap()],
            _ => unreachable!(),
        };
    }
    match (at, value) {
        (Value::Object(map), None) => {
            map.remove(last);
        }
        (Value::Object(map), Some(v)) => {
            map.insert(last.clone(), v.clone());
        }
        (Value::Array(items), None) => {
            items.remove(last.parse::<usize>().unwrap());
        }
        (Value::Array(items), Some(v)) => items[last.parse::<usize>().unwrap()] = v.clone(),
        _ => unreachable!(),
    }
}

const CONFIGS: [&str; 13] = [
    "amazons-quick",
    "amazons-spsa",
    "xiangqi-fast",
    "xiangqi-ga-random",
    "xiangqi-ga-then-spsa",
    "xiangqi-ga-twins-all",
    "xiangqi-ga-twins",
    "xiangqi-hand-set",
    "xiangqi-outside",
    "xiangqi-paper",
    "xiangqi-quick",
    "xiangqi-spsa",
    "xiangqi-texel",
];

/// What one case came to.
#[derive(Debug, PartialEq)]
enum Outcome {
    Refused,
    Ran,
}

/// How long a tiny run may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(120);

/// Runs `qitune tune` on `config` in `dir`; the outcome, or why the case failed.
fn try_config(dir: &Path, label: &str, keys: &[String], config: &Value) -> Result<Outcome, String> {
    let file = dir.join("config.json");
    std::fs::write(&file, serde_json::to_string_pretty(config).unwrap()).unwrap();
    let runs = dir.join("runs");
    let _ = std::fs::remove_dir_all(&runs);
    let mut child = Command::new(env!("CARGO_BIN_EXE_qitune"))
        .args(["tune", "--quiet", "--threads", "1", "--config"])
        .arg(&file)
        .arg("--runs")
        .arg(&runs)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let began = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if began.elapsed() > HANG {
            let _ = child.kill();
            return Err(format!("{label}: still running after {HANG:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    match output.status.code() {
        Some(0) => {
            let made = std::fs::read_dir(&runs).map(|d| d.count()).unwrap_or(0);
            if made == 0 {
                return Err(format!("{label}: exit 0 but no run folder"));
            }
            Ok(Outcome::Ran)
        }
        Some(1) => {
            let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
            if stderr.contains("panicked") || lines.is_empty() || !lines[0].starts_with("error: ") {
                return Err(format!("{label}: not one clear message: {stderr}"));
            }
            if !keys.iter().any(|k| stderr.contains(k.as_str())) {
                return Err(format!("{label}: the message names none of {keys:?}: {stderr}"));
            }
            let left = std::fs::read_dir(&runs).map(|d| d.count()).unwrap_or(0);
            if left != 0 {
                return Err(format!(
                    "{label}: refused, yet {left} entries left in the runs folder"
                ));
            }
            Ok(Outcome::Refused)
        }
        code => Err(format!("{label}: exit {code:?}: {stderr}")),
    }
}

/// What a message about the value at `path` may name: a key on the path (a stage is
/// named "stage N"); none for a key taken out, whose default the run then meets.
fn keys_of(path: &[String], taken_out: bool) -> Vec<String> {
    if taken_out {
        return vec!["error: ".to_string()];
    }
    let mut keys: Vec<String> = path
        .iter()
        .filter(|p| p.parse::<usize>().is_err())
        .cloned()
        .collect();
    if path.first().map(String::as_str) == Some("stages") {
        keys.push("stage ".to_string());
    }
    keys
}

#[test]
fn hostile_configurations_are_refused_by_key_or_run() {
    let dir = scratch("hostile-configs");
    let mut cases = Vec::new();
    for name in CONFIGS {
        let config = tiny(name);
        let mut found = Vec::new();
        paths(&config, &mut Vec::new(), &mut found);
        for (path, value) in found {
            for (what, replacement) in replacements(&value) {
                cases.push(Case {
                    config: name,
                    path: path.clone(),
                    value: replacement,
                    what,
                });
            }
        }
    }
    let all = cases.len();
    if std::env::var("QITUNE_HOSTILE").as_deref() != Ok("all") {
        cases.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(84));
        cases.truncate(60);
    }
    let (mut refused, mut ran, mut failures) = (0, 0, Vec::new());
    for case in &cases {
        let mut config = tiny(case.config);
        apply(&mut config, &case.path, &case.value);
        let label = format!("{} {} {}", case.config, case.path.join("."), case.what);
        match try_config(&dir, &label, &keys_of(&case.path, case.value.is_none()), &config) {
            Ok(Outcome::Refused) => refused += 1,
            Ok(Outcome::Ran) => ran += 1,
            Err(why) => failures.push(why),
        }
    }
    println!(
        "{} of {all} hostile configurations tried: {refused} refused naming their key, {ran} ran, {} failed",
        cases.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The review's cases by name: each refused before any file, naming its key.
#[test]
fn the_reviews_configurations_are_refused_by_name() {
    let dir = scratch("hostile-named");
    let mut overflow = tiny("xiangqi-spsa");
    overflow["generations"] = json!(4611686018427387904u64);
    let mut endless = tiny("xiangqi-ga-twins");
    endless["evolve"] = json!(["search_fail_low_keeps_move"]);
    endless["unique"] = json!(true);
    endless.as_object_mut().unwrap().remove("fitness");
    endless.as_object_mut().unwrap().remove("champion");
    endless["groups"] = json!(2);
    for (label, key, config) in [
        ("generations 2^62", "generations", overflow),
        ("unique real genes on a switch", "unique", endless),
    ] {
        let keys = [key.to_string()];
        assert_eq!(
            try_config(&dir, label, &keys, &config),
            Ok(Outcome::Refused),
            "{label}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
