//! Properties that must hold in every position: symmetry of perft under colour-flip and
//! mirror, FEN round-trips, incremental hashing and exact unmake. Positions come from
//! seeded random games started from the perft suite's positions.

use proptest::prelude::*;
use qitune::xiangqi::{perft::perft, Board};
use rand::{Rng, SeedableRng};

fn suite_fens() -> Vec<String> {
    let mut fens: Vec<String> = include_str!("data/xiangqi-perft.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split(';').next().unwrap().to_string())
        .collect();
    fens.dedup();
    fens
}

/// A position reached by `plies` seeded random legal moves from one of the suite positions.
fn random_position(seed: u64, plies: usize) -> Board {
    let fens = suite_fens();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut b = Board::from_fen(&fens[rng.gen_range(0..fens.len())]).unwrap();
    for _ in 0..plies {
        let moves = b.legal_moves();
        if moves.is_empty() {
            break;
        }
        b.make(moves[rng.gen_range(0..moves.len())]);
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn flip_and_mirror_keep_perft(seed in any::<u64>(), plies in 0usize..40) {
        let mut b = random_position(seed, plies);
        let n = perft(&mut b, 3);
        prop_assert_eq!(perft(&mut b.color_flipped(), 3), n, "colour-flip of {}", b.fen());
        prop_assert_eq!(perft(&mut b.mirrored(), 3), n, "mirror of {}", b.fen());
        prop_assert_eq!(b.color_flipped().color_flipped(), b.clone());
    }

    #[test]
    fn colour_flip_negates_the_evaluation(seed in any::<u64>(), plies in 0usize..80) {
        let b = random_position(seed, plies);
        let w = qitune::xiangqi::eval::Weights::default();
        prop_assert_eq!(w.evaluate_red(&b.color_flipped()), -w.evaluate_red(&b), "{}", b.fen());
        prop_assert_eq!(w.evaluate(&b.color_flipped()), w.evaluate(&b));
        prop_assert_eq!(w.evaluate_red(&b.mirrored()), w.evaluate_red(&b));
    }

    #[test]
    fn fen_round_trips(seed in any::<u64>(), plies in 0usize..80) {
        let b = random_position(seed, plies);
        let again = Board::from_fen(&b.fen()).unwrap();
        prop_assert_eq!(again.fen(), b.fen());
        prop_assert_eq!(again, b);
    }

    #[test]
    fn hash_hash_after_and_unmake_are_exact_along_games(seed in any::<u64>()) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut b = random_position(seed, 0);
        let mut stack = Vec::new();
        for _ in 0..60 {
            let moves = b.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Every legal move's make/unmake restores the position exactly.
            for &mv in moves.iter() {
                let before = b.clone();
                let predicted = b.hash_after(mv);
                let undo = b.make(mv);
                prop_assert_eq!(b.hash(), b.compute_hash());
                prop_assert_eq!(b.hash(), predicted);
                b.unmake(mv, undo);
                prop_assert_eq!(&b, &before);
            }
            let mv = moves[rng.gen_range(0..moves.len())];
            stack.push((b.clone(), mv, b.make(mv)));
            prop_assert_eq!(b.hash(), b.compute_hash());
        }
        while let Some((before, mv, undo)) = stack.pop() {
            b.unmake(mv, undo);
            prop_assert_eq!(&b, &before);
        }
    }

    #[test]
    fn generated_moves_are_exactly_the_legal_ones(seed in any::<u64>(), plies in 0usize..60) {
        // Brute force: a move is legal iff it is a geometric move of the piece and the mover's
        // king is not attacked afterwards. `is_legal` checks each of the 8010 from/to pairs.
        let b = random_position(seed, plies);
        let legal = b.legal_moves();
        prop_assert_eq!(legal.len(), b.count_legal());
        let mut n = 0;
        for from in qitune::xiangqi::Square::all() {
            for to in qitune::xiangqi::Square::all() {
                if from != to && b.is_legal(qitune::xiangqi::Move::new(from, to)) {
                    n += 1;
                    let mut after = b.clone();
                    after.make(qitune::xiangqi::Move::new(from, to));
                    prop_assert!(after.checkers_of(b.turn()).is_empty());
                }
            }
        }
        prop_assert_eq!(n, legal.len());
    }

    #[test]
    fn gives_check_says_whether_the_move_checks(seed in any::<u64>(), plies in 0usize..80) {
        let mut b = random_position(seed, plies);
        let fen = b.fen();
        for &mv in b.legal_moves().iter() {
            let said = b.gives_check(mv);
            let undo = b.make(mv);
            prop_assert_eq!(said, b.in_check(), "{} in {}", mv, fen);
            b.unmake(mv, undo);
        }
    }

    #[test]
    fn captures_found_by_victim_are_the_legal_captures(seed in any::<u64>(), plies in 0usize..80) {
        let b = random_position(seed, plies);
        prop_assume!(!b.in_check());
        for victims in [b.by_color(b.turn().flip()), b.attack_map(b.turn()) & b.by_color(b.turn().flip())] {
            let mut by_victim: Vec<u16> = b.legal_captures_of(victims).iter().map(|m| m.raw()).collect();
            let mut by_piece: Vec<u16> = b.legal_moves_to(victims).iter().map(|m| m.raw()).collect();
            by_victim.sort_unstable();
            by_piece.sort_unstable();
            prop_assert_eq!(by_victim, by_piece);
        }
    }
}
