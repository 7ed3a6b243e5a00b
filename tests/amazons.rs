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
fn bench_reports_playouts() {
    let out = Command::cargo_bin("qitune")
        .unwrap()
        .args(["bench", "--game", "amazons"])
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let last: Vec<&str> = stdout.lines().last().unwrap().split(' ').collect();
    assert_eq!(
        (last[0], last[1], last[2], last[4]),
        ("bench:", "120000", "nodes", "nps"),
        "{stdout}"
    );
    assert!(last[3].parse::<u64>().is_ok());
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

/// Plays UCT (White if `uct_white`) against a uniformly random mover; true if UCT wins.
fn uct_beats_random(uct_white: bool, seed: u64, playouts: u32) -> bool {
    use qitune::amazons::eval::Weights;
    use qitune::amazons::search::{random_move, uct, UctConfig};
    use qitune::amazons::Side;
    use rand::SeedableRng;
    let weights = Weights::default();
    let config = UctConfig {
        playouts,
        ..UctConfig::default()
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut board = Board::startpos();
    let uct_side = if uct_white { Side::White } else { Side::Black };
    for ply in 0.. {
        let mv = if board.turn() == uct_side {
            uct(&board, ply, &weights, &config, seed * 1000 + ply as u64).best
        } else {
            random_move(&board, &mut rng)
        };
        match mv {
            Some(m) => {
                assert!(board.is_legal(m));
                board.play(m);
            }
            // The side to move has no move: it loses.
            None => return board.turn() != uct_side,
        }
    }
    unreachable!()
}

#[test]
fn uct_beats_random_play() {
    let wins = (0..10u64)
        .filter(|&g| uct_beats_random(g % 2 == 0, g, 200))
        .count();
    assert!(wins >= 10, "UCT won {wins} of 10 against random play");
}

#[test]
#[ignore = "200 games, about a minute: cargo test --release --test amazons -- --ignored uct_vs_random_200"]
fn uct_vs_random_200() {
    let wins = (0..200u64)
        .filter(|&g| uct_beats_random(g % 2 == 0, 1000 + g, 500))
        .count();
    println!("UCT (500 playouts) vs random: {wins}/200");
    assert!(wins >= 190, "UCT won {wins} of 200");
}

#[test]
fn balanced_openings_are_reproducible() {
    let dir = std::env::temp_dir().join(format!("qitune-amazons-openings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |name: &str| {
        let out = dir.join(name);
        Command::cargo_bin("qitune")
            .unwrap()
            .args([
                "positions",
                "--game",
                "amazons",
                "--count",
                "3",
                "--window",
                "25",
                "--out",
                out.to_str().unwrap(),
            ])
            .assert()
            .success();
        std::fs::read_to_string(out).unwrap()
    };
    let a = run("a.fen");
    assert_eq!(a, run("b.fen"));
    assert_eq!(a.lines().count(), 3);
    for line in a.lines() {
        Board::from_fen(line).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
