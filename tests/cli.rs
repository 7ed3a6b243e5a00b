//! The `qitune` binary as users run it: output contracts and error messages.

use assert_cmd::Command;
use predicates::prelude::*;

fn qitune() -> Command {
    Command::cargo_bin("qitune").unwrap()
}

#[test]
fn perft_last_line_is_the_count() {
    let out = qitune().args(["perft", "--depth", "3"]).assert().success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(stdout.lines().last(), Some("79666"));
}

#[test]
fn perft_divide_sums_to_the_count() {
    let fen = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1";
    let out = qitune()
        .args(["perft", "--fen", fen, "--depth", "2", "--divide"])
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.last(), Some(&"1128"));
    let split: u64 = lines
        .iter()
        .filter_map(|l| l.split_once(": "))
        .map(|(_, n)| n.parse::<u64>().unwrap())
        .sum();
    assert_eq!(split, 1128);
    assert_eq!(lines.iter().filter(|l| l.contains(": ")).count(), 38);
}

#[test]
fn perft_after_moves_and_without_bulk() {
    qitune()
        .args(["perft", "--depth", "2", "--moves", "h2e2 h9g7", "--no-bulk"])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"\n?\d+\n$").unwrap());
}

/// Each bad input gets exit code 1 and one `error:` line naming the problem; never a panic.
fn rejects(args: &[&str], needle: &str) {
    let out = qitune().args(args).assert().failure().code(1);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains(needle), "expected '{needle}' in: {stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("backtrace"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
}

#[test]
fn malformed_fens_are_named() {
    let perft = |fen: &'static str| ["perft", "--depth", "1", "--fen", fen];
    rejects(
        &perft("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w"),
        "9 rows",
    );
    rejects(
        &perft("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w"),
        "'X' is not a Xiangqi piece",
    );
    rejects(&perft("4k4/9/9/9/9/9/9/9/9/3KK4 w"), "red has more than one king");
    rejects(
        &perft("3k5/9/9/9/9/9/9/P8/9/4K4 w"),
        "pawn on a2 stands behind its starting rank",
    );
    rejects(
        &perft("3k5/9/9/9/9/9/9/9/9/3RK4 w"),
        "black, the side not to move, is in check",
    );
    rejects(
        &perft("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR q"),
        "'q' is not a side to move",
    );
    rejects(&perft(""), "empty FEN");
}

#[test]
fn malformed_moves_are_named() {
    rejects(
        &["perft", "--depth", "1", "--moves", "h2e9x"],
        "not a move in ICCS",
    );
    rejects(&["perft", "--depth", "1", "--moves", "e5e6"], "no piece on e5");
    rejects(
        &["perft", "--depth", "1", "--moves", "h7h6"],
        "belongs to the side not to move",
    );
    rejects(
        &["perft", "--depth", "1", "--moves", "h2h8"],
        "illegal move h2h8: the piece cannot move there",
    );
    rejects(
        &["perft", "--depth", "1", "--moves", "a0a3"],
        "lands on a piece of its own side",
    );
}

#[test]
fn unknown_flags_are_usage_errors() {
    qitune()
        .args(["perft", "--depth", "1", "--bogus"])
        .assert()
        .failure()
        .code(2)
        .stderr(predicate::str::contains("--bogus"));
}

#[test]
fn bench_depths_out_of_range_are_usage_errors() {
    for depth in ["0", "128", "x"] {
        qitune()
            .args(["bench", "--depth", depth])
            .assert()
            .failure()
            .code(2)
            .stderr(predicate::str::contains("from 1 to 127"));
    }
    rejects(
        &["bench", "--game", "amazons", "--depth", "3"],
        "--depth is for the Xiangqi bench",
    );
}

#[test]
fn bench_last_line_has_nodes_and_nps() {
    let out = qitune().args(["bench", "--depth", "4"]).assert().success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let last = stdout.lines().last().unwrap();
    assert!(regex_like_bench(last), "{last}");
}

#[test]
fn bench_takes_a_weight_file_and_its_knobs() {
    let nodes = |extra: &[&str]| {
        let out = qitune()
            .args(["bench", "--depth", "5"])
            .args(extra)
            .assert()
            .success();
        let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        stdout
            .lines()
            .last()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse::<u64>()
            .unwrap()
    };
    let dir = std::env::temp_dir().join(format!("qitune-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("razor.json");
    std::fs::write(
        &file,
        r#"{"game": "xiangqi", "format": 1, "params": {"search_razor_margin": 300}}"#,
    )
    .unwrap();
    let path = file.to_str().unwrap();
    assert_ne!(
        nodes(&["--weights", path]),
        nodes(&[]),
        "the knob changed nothing"
    );
    rejects(&["bench", "--weights", "no/such.json"], "no/such.json");
    rejects(
        &["bench", "--game", "amazons", "--weights", path],
        "--weights is for the Xiangqi bench",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn regex_like_bench(line: &str) -> bool {
    let w: Vec<&str> = line.split(' ').collect();
    w.len() == 5
        && w[0] == "bench:"
        && w[1].parse::<u64>().is_ok()
        && w[2] == "nodes"
        && w[3].parse::<u64>().is_ok()
        && w[4] == "nps"
}

#[test]
fn match_results_do_not_depend_on_threads() {
    let dir = std::env::temp_dir().join(format!("qitune-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = |threads: &str| {
        let path = dir.join(format!("m{threads}.json"));
        qitune()
            .args([
                "match", "--a", "default", "--b", "material", "--games", "6", "--nodes", "300",
            ])
            .args([
                "--threads",
                threads,
                "--seed",
                "7",
                "--json",
                path.to_str().unwrap(),
            ])
            .assert()
            .success()
            .stdout(predicate::str::contains("Elo difference:"));
        std::fs::read_to_string(path).unwrap()
    };
    let one = json("1");
    assert_eq!(one, json("2"));
    let v: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(v["games"], 6);
    for key in ["wins", "draws", "losses", "score", "elo", "elo_error", "los"] {
        assert!(v.get(key).is_some(), "{key} missing");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A match stopped part way goes on with `--resume` from its PGN file: the games and the
/// result are those of the match played in one go, whatever the thread count; a file that
/// is not this match's, or a match already complete, is refused before anything is written.
#[test]
fn a_stopped_match_resumes_to_the_same_games_and_result() {
    let dir = std::env::temp_dir().join(format!("qitune-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let play = |games: &str, seed: &str, threads: &str, pgn: &str, extra: &[&str]| {
        let mut c = qitune();
        c.args(["match", "--a", "default", "--b", "material", "--nodes", "300"])
            .args(["--games", games, "--seed", seed, "--threads", threads, "--quiet"])
            .args(["--pgn", &path(pgn)])
            .args(extra);
        c.assert()
    };
    let whole = play("6", "7", "2", "whole.pgn", &["--json", &path("whole.json")]).success();
    let whole_out = String::from_utf8(whole.get_output().stdout.clone()).unwrap();
    // Three games, an odd number: the resumed run must join the open pair.
    play("3", "7", "1", "part.pgn", &[]).success();
    let resumed = play(
        "6",
        "7",
        "2",
        "part.pgn",
        &["--resume", "--json", &path("part.json")],
    )
    .success()
    .stdout(predicate::str::contains("Resumed after game 3"));
    let resumed_out = String::from_utf8(resumed.get_output().stdout.clone()).unwrap();
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    assert_eq!(read("whole.pgn"), read("part.pgn"));
    let score_lines = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| {
                l.starts_with("Score")
                    || l.starts_with("Elo")
                    || l.starts_with("Pairs")
                    || l.starts_with("Endings")
            })
            .map(str::to_string)
            .collect()
    };
    assert_eq!(score_lines(&whole_out), score_lines(&resumed_out));
    let summary = |name: &str| {
        let mut v: serde_json::Value = serde_json::from_str(&read(name)).unwrap();
        v.as_object_mut().unwrap().remove("nodes");
        v
    };
    assert_eq!(summary("whole.json"), summary("part.json"));
    let before = read("part.pgn");
    play("6", "7", "1", "part.pgn", &["--resume"])
        .failure()
        .stderr(predicate::str::contains("nothing to resume"));
    play("8", "8", "1", "part.pgn", &["--resume"])
        .failure()
        .stderr(predicate::str::contains("another position"));
    assert_eq!(read("part.pgn"), before, "a refused resume writes nothing");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A match writes each game to its PGN as soon as every earlier game is done, so a match
/// killed outright (no Ctrl-C, no chance to clean up) keeps an unbroken beginning of its
/// games, and `--resume` completes it to the match played in one go.
#[test]
fn a_killed_match_keeps_its_finished_games_and_resumes() {
    let dir = std::env::temp_dir().join(format!("qitune-killed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let args = |pgn: &str| -> Vec<String> {
        let fixed = "match --a default --b material --nodes 300 --games 40 --seed 3 --threads 2 --quiet";
        let mut v: Vec<String> = fixed.split(' ').map(str::to_string).collect();
        v.extend(["--pgn".to_string(), path(pgn)]);
        v
    };
    qitune().args(args("whole.pgn")).assert().success();
    let rounds = |name: &str| -> Vec<usize> {
        std::fs::read_to_string(dir.join(name))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.strip_prefix("[Round \"")?.strip_suffix("\"]")?.parse().ok())
            .collect()
    };

    let bin = assert_cmd::cargo::cargo_bin("qitune");
    let mut child = std::process::Command::new(bin)
        .args(args("part.pgn"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Games must reach the file while the match still plays (40 games are fewer than one
    // batch of the old runner, which wrote nothing before the end).
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the match ended ({status}) before its PGN held 4 games");
        }
        if rounds("part.pgn").len() >= 4 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = rounds("part.pgn");
    assert!(kept.len() >= 4 && kept.len() < 40, "{kept:?}");
    assert_eq!(kept, (1..=kept.len()).collect::<Vec<_>>());

    let mut resumed = args("part.pgn");
    resumed.push("--resume".to_string());
    qitune().args(resumed).assert().success();
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    assert_eq!(read("whole.pgn"), read("part.pgn"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn match_inputs_are_checked() {
    rejects(
        &["match", "--a", "default", "--b", "random:x", "--games", "2"],
        "random:x",
    );
    rejects(
        &[
            "match",
            "--a",
            "default",
            "--b",
            "no/such/file.json",
            "--games",
            "2",
        ],
        "no/such/file.json",
    );
    // Values of the wrong shape or range are usage errors (exit 2), named by clap.
    for (flag, value, needle) in [
        ("--tc", "2x1", "not BASE+INC"),
        ("--tc", "1e30+0", "at most 86400 seconds"),
        ("--games", "0", "'0' is not a whole number from 1 to 1000000"),
        ("--nodes", "0", "'0' is not a whole number of at least 1"),
        ("--hash", "4097", "from 1 to 4096"),
        ("--sprt", "5,1", "ELO0 must be below ELO1"),
        ("--sprt", "0", "is not ELO0,ELO1"),
        ("--resign", "0,3", "SCORE and MOVES must be positive"),
        ("--draw", "10,8", "is not SCORE,MOVES,PLY"),
    ] {
        let out = qitune()
            .args(["match", "--a", "default", "--b", "default", flag, value])
            .assert()
            .failure()
            .code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(stderr.starts_with("error: invalid value"), "{stderr}");
        assert!(
            stderr.contains(flag) && stderr.contains(needle),
            "{flag} {value}: {stderr}"
        );
    }
    let dir = std::env::temp_dir().join(format!("qitune-pos-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.epd");
    std::fs::write(
        &bad,
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w\n# comment\n9/9 w\n",
    )
    .unwrap();
    let path = bad.to_str().unwrap().to_string();
    let args = [
        "match",
        "--a",
        "default",
        "--b",
        "default",
        "--positions",
        path.as_str(),
    ];
    rejects(&args, "line 3");
    std::fs::remove_dir_all(&dir).unwrap();
}
