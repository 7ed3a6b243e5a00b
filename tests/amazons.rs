//! The Game of the Amazons: the perft suite (tests/data/amazons-perft.txt), every line, and the
//! CLI. The start position's depth-3 count (8,350,439,170) is `#[ignore]`d:
//! `cargo test --release --test amazons -- --ignored` runs it (a few seconds in release).

use assert_cmd::Command;
use qitune::amazons::{perft, Board};

const QUICK_LIMIT: u64 = 50_000_000;

fn suite() -> Vec<(String, u32, u64)> {
    include_str!("data/amazons-perft.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split(';').collect();
            (f[0].to_string(), f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect()
}

fn run(keep: impl Fn(u64) -> bool) {
    let cases: Vec<_> = suite().into_iter().filter(|c| keep(c.2)).collect();
    assert!(!cases.is_empty());
    for (fen, depth, expected) in cases {
        let mut b = Board::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(perft(&mut b, depth), expected, "{fen} depth {depth}");
        assert_eq!(Board::from_fen(&b.fen()).unwrap(), b, "FEN round trip of {fen}");
        assert_eq!(
            perft(&mut b.color_flipped(), depth.min(2)),
            perft(&mut b, depth.min(2)),
            "colour-flip of {fen}"
        );
    }
}

#[test]
fn perft_suite_quick() {
    run(|n| n <= QUICK_LIMIT);
}

#[test]
#[ignore = "8.35e9 leaves: cargo test --release --test amazons -- --ignored"]
fn perft_suite_deep() {
    run(|n| n > QUICK_LIMIT);
}

#[test]
fn perft_cli_and_errors() {
    let out = Command::cargo_bin("qitune")
        .unwrap()
        .args(["perft", "--game", "amazons", "--depth", "2"])
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(stdout.lines().last(), Some("4307152"));
    let out = Command::cargo_bin("qitune")
        .unwrap()
        .args([
            "perft", "--game", "amazons", "--depth", "1", "--moves", "a4-a8/a9",
        ])
        .assert()
        .failure()
        .code(1);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.starts_with("error: illegal move a4-a8/a9"), "{stderr}");
    let out = Command::cargo_bin("qitune")
        .unwrap()
        .args([
            "perft",
            "--game",
            "amazons",
            "--depth",
            "1",
            "--fen",
            "3q2q3/10/10/q8q w",
        ])
        .assert()
        .failure()
        .code(1);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("4 ranks"), "{stderr}");
}
