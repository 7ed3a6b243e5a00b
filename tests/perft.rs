//! The published Xiangqi perft suite (tests/data/xiangqi-perft.txt), every line.
//!
//! Lines above `QUICK_LIMIT` leaves are left to the `#[ignore]`d test:
//! `cargo test --release --test perft -- --ignored` runs them (a few minutes).

use qitune::xiangqi::{perft::perft, Board};

const QUICK_LIMIT: u64 = 50_000_000;

struct Case {
    fen: String,
    depth: u32,
    expected: u64,
}

fn suite() -> Vec<Case> {
    include_str!("data/xiangqi-perft.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split(';').collect();
            Case {
                fen: f[0].to_string(),
                depth: f[1].parse().unwrap(),
                expected: f[2].parse().unwrap(),
            }
        })
        .collect()
}

fn run(filter: impl Fn(&Case) -> bool) {
    let cases: Vec<Case> = suite().into_iter().filter(|c| filter(c)).collect();
    assert!(!cases.is_empty());
    for c in cases {
        let mut b = Board::from_fen(&c.fen).unwrap_or_else(|e| panic!("{}: {e}", c.fen));
        assert_eq!(perft(&mut b, c.depth), c.expected, "{} depth {}", c.fen, c.depth);
    }
}

#[test]
fn perft_suite_quick() {
    run(|c| c.expected <= QUICK_LIMIT);
}

#[test]
#[ignore = "deep perft, minutes: cargo test --release --test perft -- --ignored"]
fn perft_suite_deep() {
    run(|c| c.expected > QUICK_LIMIT);
}
