//! Game-ending rulings, each shown with a concrete move sequence.

use qitune::xiangqi::{Color, Outcome, Termination, Xiangqi};

fn play(fen: &str, moves: &str) -> Xiangqi {
    let mut g = Xiangqi::from_fen(fen).unwrap();
    for m in moves.split_whitespace() {
        assert!(g.outcome().is_none(), "game ended before {m}: {:?}", g.outcome());
        g.play_iccs(m).unwrap_or_else(|e| panic!("{e}"));
    }
    g
}

fn win(winner: Color, termination: Termination) -> Option<Outcome> {
    Some(Outcome {
        winner: Some(winner),
        termination,
    })
}

fn draw(termination: Termination) -> Option<Outcome> {
    Some(Outcome {
        winner: None,
        termination,
    })
}

#[test]
fn checkmate_loses() {
    // The rook on a8 holds rank 8; b1b9 checks on rank 9 and the king has no square.
    let g = play("3k5/R8/9/9/9/9/9/9/1R7/4K4 w", "b1b9");
    assert_eq!(g.outcome(), win(Color::Red, Termination::Checkmate));
}

#[test]
fn stalemate_loses() {
    // After a7a8 the black king on d9 is not in check, but d8 is covered by the rook and
    // e9 would face the red king: no legal move, and in Xiangqi that loses.
    let g = play("3k5/9/R8/9/9/9/9/9/9/4K4 w", "a7a8");
    assert!(!g.board().in_check());
    assert_eq!(g.outcome(), win(Color::Red, Termination::Stalemate));
}

#[test]
fn perpetual_check_loses() {
    // The rook checks from i9 and i8 in turn; the king steps between d9 and d8.
    let cycle = "i8i9 d9d8 i9i8 d8d9";
    let g = play("3k5/8R/9/9/9/9/9/9/9/4K4 w", cycle);
    assert_eq!(g.repetitions(), 2);
    assert_eq!(g.outcome(), None, "two occurrences are not yet a ruling");
    let g = play("3k5/8R/9/9/9/9/9/9/9/4K4 w", &format!("{cycle} {cycle}"));
    assert_eq!(g.repetitions(), 3);
    let report = g.cycle_report().unwrap();
    assert_eq!(report.plies, 8);
    assert_eq!(report.checked_every_move, [true, false]);
    assert_eq!(g.outcome(), win(Color::Black, Termination::PerpetualCheck));
}

#[test]
fn perpetual_chase_loses() {
    // The black cannon (unprotected) steps between a7 and a8; the red rook follows it along
    // the rank, newly attacking it with every move.
    let cycle = "a7a8 h7h8 a8a7 h8h7";
    let g = play("5k3/9/c6R1/9/9/9/9/9/9/4K4 b", &format!("{cycle} {cycle}"));
    let report = g.cycle_report().unwrap();
    assert!(report.chases(Color::Red));
    assert!(!report.chases(Color::Black));
    assert_eq!(
        report.chased[Color::Red.index()].first().unwrap().to_string(),
        "a7"
    );
    assert_eq!(g.outcome(), win(Color::Black, Termination::PerpetualChase));
}

#[test]
fn chasing_a_protected_piece_is_not_a_chase() {
    // As above, but a black rook on a9 protects the cannon on both squares: a rook attacking a
    // protected cannon threatens nothing, so the repetition is a draw.
    let cycle = "a7a8 h7h8 a8a7 h8h7";
    let g = play("r4k3/9/c6R1/9/9/9/9/9/9/4K4 b", &format!("{cycle} {cycle}"));
    let report = g.cycle_report().unwrap();
    assert!(!report.chases(Color::Red));
    assert_eq!(g.outcome(), draw(Termination::Repetition));
}

#[test]
fn rook_chased_by_a_horse_counts_even_when_protected() {
    // The black rook (protected by the rook on a7) steps between b7 and c7; the red horse
    // hops between c5 and e6, newly attacking it each time. A horse attacking a rook is a
    // chase whatever protects the rook. Black's rook threatens the horse once (from c7 down
    // the c-file) but not with every move, so only Red chases.
    let cycle = "b7c7 c5e6 c7b7 e6c5";
    let g = play("3k5/9/rr7/9/2N6/9/9/9/9/4K4 b", &format!("{cycle} {cycle}"));
    let report = g.cycle_report().unwrap();
    assert!(report.chases(Color::Red));
    assert!(!report.chases(Color::Black));
    assert_eq!(g.outcome(), win(Color::Black, Termination::PerpetualChase));
}

#[test]
fn mutual_chase_is_a_draw() {
    // a3g3 makes the rook a screen for the g7 cannon against the black rook on g1 (a cannon
    // attacking a rook always chases). b2g2 blocks that line and also cuts the red rook's
    // protection of the g0 cannon, which the black rook on g1 now attacks. The retreats
    // g3a3 and g2b2 renew both threats: each side chases one piece with every move.
    let cycle = "a3g3 b2g2 g3a3 g2b2";
    let g = play("3k5/9/6C2/9/9/9/R8/cc7/6r2/4K1C2 w", &format!("{cycle} {cycle}"));
    let report = g.cycle_report().unwrap();
    assert!(!report.any_check);
    let squares = |c: Color| {
        report.chased[c.index()]
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(squares(Color::Red), ["g1"]);
    assert_eq!(squares(Color::Black), ["g0"]);
    assert_eq!(g.outcome(), draw(Termination::Repetition));
}

#[test]
fn idle_repetition_is_a_draw() {
    let cycle = "a0a1 d9d8 a1a0 d8d9";
    let g = play("3k5/9/9/9/9/9/9/9/9/R3K4 w", &format!("{cycle} {cycle}"));
    assert_eq!(g.outcome(), draw(Termination::Repetition));
    let report = g.cycle_report().unwrap();
    assert!(!report.chases(Color::Red) && !report.chases(Color::Black));
}

#[test]
fn checks_mixed_into_a_cycle_draw() {
    // Red alternates a check (a5d5, up the d-file) with a quiet retreat: not every red move
    // checks, so this is no perpetual check, and with a check in it no chase ruling applies.
    let cycle = "a5d5 d9e9 d5a5 e9d9";
    let g = play("3k5/9/9/9/R8/9/9/9/9/5K3 w", &format!("{cycle} {cycle}"));
    assert!(g.cycle_report().unwrap().any_check);
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.outcome(), draw(Termination::Repetition));
}

#[test]
fn hundred_twenty_plies_without_capture_draw() {
    let g = play("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 118 60", "a0a1");
    assert_eq!(g.outcome(), None);
    let g = play("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 118 60", "a0a1 d9d8");
    assert_eq!(g.board().halfmoves(), 120);
    assert_eq!(g.outcome(), draw(Termination::NoCaptureLimit));
}

#[test]
fn a_capture_resets_the_clock_and_the_repetition_window() {
    let g = play("3k5/9/9/9/9/9/9/9/p8/R3K4 w - - 118 60", "a0a1");
    assert_eq!(g.board().halfmoves(), 0);
    assert_eq!(g.outcome(), None);
}

#[test]
fn mate_takes_precedence_over_the_move_limit() {
    let g = play("3k5/R8/9/9/9/9/9/9/1R7/4K4 w - - 119 60", "b1b9");
    assert_eq!(g.outcome(), win(Color::Red, Termination::Checkmate));
}
