use super::params::*;
use super::terms::*;
use super::*;
use crate::params::check_specs;
use crate::xiangqi::{attacks, knobs};

#[test]
fn the_parameter_list_lines_up() {
    check_specs(&specs()).unwrap();
    assert_eq!(SCALAR_COUNT, SCALARS.len());
    assert_eq!(
        specs().len(),
        SCALARS.len() + 2 * PST_POINTS.len() + knobs::SPECS.len()
    );
    assert_eq!(specs()[endgame_first()].name, "endgame_king_d0");
    // Reachable points only: king 6, advisor 3, elephant 4, horse/rook/cannon 50, pawn 31.
    assert_eq!(PST_POINTS.len(), 6 + 3 + 4 + 150 + 31);
    assert_eq!(specs()[S::king as usize].bits, 0, "the king is never evolved");
    let specs = specs();
    let names: Vec<&str> = specs.iter().map(|s| s.name.as_ref()).collect();
    assert!(names.contains(&"pst_horse_c2"));
    assert!(names.contains(&"pst_pawn_e9"));
    assert!(!names.contains(&"pst_pawn_b3"), "a pawn never stands on b3");
    // The imbalance terms stand in the order its walk counts them.
    let role = |i: usize| IMBALANCE_ROLES[i].name();
    let (n, mut imbalance) = (IMBALANCE_ROLES.len(), Vec::new());
    for i in 0..n {
        imbalance.extend((0..=i).map(|j| format!("imbalance_{}_{}", role(i), role(j))));
    }
    for i in 1..n {
        imbalance.extend((0..i).map(|j| format!("imbalance_{}_vs_{}", role(i), role(j))));
    }
    assert_eq!(
        names[IMBALANCE_FIRST..IMBALANCE_FIRST + IMBALANCE_COUNT],
        imbalance
    );
}

#[test]
fn start_position_is_balanced_and_material_counts() {
    let w = Weights::default();
    let b = Board::startpos();
    assert_eq!(w.evaluate_red(&b), 0);
    assert_eq!(w.evaluate(&b), w.s(S::tempo));
    let no_rook = Board::from_fen("rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w").unwrap();
    assert!(w.evaluate_red(&no_rook) > 700, "{}", w.evaluate_red(&no_rook));
}

#[test]
fn incremental_psq_matches_the_sum() {
    let w = Weights::default();
    let mut b =
        Board::from_fen("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1").unwrap();
    for _ in 0..40 {
        let moves = b.legal_moves();
        let Some(&mv) = moves
            .iter()
            .find(|m| b.piece_at(m.to()).is_some())
            .or(moves.first())
        else {
            break;
        };
        let expected = w.psq_after(&b, mv, w.psq(&b));
        b.make(mv);
        assert_eq!(w.psq(&b), expected);
    }
}

#[test]
fn the_hand_set_and_former_built_in_weights_stay_loadable() {
    // The paper's baseline and the tuners' start, and the two built-in sets before the
    // current one: they must follow any change to the specs.
    let load = |name: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
        Params::load(&path, GAME, &specs(), knobs::RETIRED).unwrap()
    };
    let hand = load("examples/xiangqi-hand-set.json");
    assert_eq!(hand.get("rook"), Some(900));
    assert_eq!(
        load("experiments/weights/xiangqi-old-built-in.json").get("rook"),
        Some(925)
    );
    assert_eq!(
        load("experiments/weights/xiangqi-spsa-built-in.json").get("rook"),
        Some(984)
    );
    assert_ne!(hand.values(), default_params().values());
}

#[test]
fn features_sum_to_the_evaluation() {
    let mut out = Vec::new();
    use crate::game::Game;
    let text = include_str!("../../../positions/xiangqi-middlegames.epd");
    for (n, line) in text.lines().filter(|l| !l.starts_with('#')).take(200).enumerate() {
        let board = crate::xiangqi::game::XiangqiGame::parse_position(line).unwrap();
        let params = if n % 2 == 0 {
            default_params()
        } else {
            let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(n as u64);
            let mut params = Params::random(&specs(), &mut rng);
            // The terms on trial too, which random players keep at zero.
            for s in specs().iter().filter(|s| s.opt_in) {
                params
                    .set(&s.name, rand::Rng::gen_range(&mut rng, s.min..=s.max).into())
                    .unwrap();
            }
            params
        };
        let w = Weights::new(&params).unwrap();
        out.clear();
        features(&board, &mut out);
        let v = params.values();
        let sum: f64 = out.iter().map(|&(i, c)| v[i as usize] as f64 * c as f64).sum();
        let expected = w.evaluate_red(&board) + board.turn().sign() * w.s(S::tempo);
        // The taper and the shelter quarter round in the evaluation, not here.
        assert!(
            (sum - expected as f64).abs() <= 3.0,
            "{line}: {sum} against {expected}"
        );
    }
}

#[test]
fn mating_force_reads_what_is_left_to_mate_with() {
    let force = |fen: &str, color| mating_force(&Board::from_fen(fen).unwrap(), color);
    use MatingForce::*;
    // Advisors, elephants and a pawn on the last rank cannot mate; nor can one advisor.
    let defenders_only = "3k3P1/4a4/9/9/9/9/9/9/9/2BAKAB2 w";
    assert_eq!(force(defenders_only, Color::Red), None);
    assert_eq!(force(defenders_only, Color::Black), None);
    // A lone horse against two defenders (an advisor and an elephant) counts as lone; a
    // pawn short of the last rank, or one defender fewer, makes it enough.
    assert_eq!(force("3k5/4a4/4b4/9/9/9/9/9/4N4/4K4 w", Color::Red), Lone);
    assert_eq!(force("3k5/4a4/4b4/9/4P4/9/9/9/4N4/4K4 w", Color::Red), Enough);
    assert_eq!(force("3k5/4a4/9/9/9/9/9/9/4N4/4K4 w", Color::Red), Enough);
    // A rook beats three defenders; all four often hold it.
    assert_eq!(force("2bakab2/9/9/9/9/9/9/9/9/3K1R3 w", Color::Red), Lone);
    assert_eq!(force("2bak4/4a4/9/9/9/9/9/9/9/3K1R3 w", Color::Red), Enough);
    // Black's pawns count from Black's side: one on rank 0 is spent, one on rank 1 is not.
    assert_eq!(force("3k5/9/9/9/9/9/9/9/9/4K1p2 w", Color::Black), None);
    assert_eq!(force("3k5/9/9/9/9/9/9/9/6p2/4K4 w", Color::Black), Enough);
}

#[test]
fn the_attack_patterns_are_counted_where_they_stand() {
    // Red: a cannon behind a pawn and Black's horse beside its king (a pin), a cannon on
    // the king's rank with nothing between, a rook on a file without pawns, two crossed
    // pawns side by side, and a horse and a cannon attacking the palace.
    let b = Board::from_fen("C3k4/4n4/6N2/9/3PP4/9/9/4C4/9/1R3K3 w").unwrap();
    assert_eq!(
        pattern_counts(&b, Color::Red, 2, Bitboard::EMPTY),
        [0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0]
    );
    assert_eq!(
        pattern_counts(&b, Color::Black, 0, Bitboard::EMPTY),
        [0; PATTERNS.len()]
    );
    // The pawn gone, the cannon on the king's file has no screen; with a Black pawn on
    // its file, the rook's file is half open.
    let b = Board::from_fen("C3k4/9/6N2/9/3P5/1p7/9/4C4/9/1R3K3 w").unwrap();
    assert_eq!(
        pattern_counts(&b, Color::Red, 0, Bitboard::EMPTY),
        [1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]
    );
    // With the enemy king at home between both advisors, a pin or a hollow cannon also
    // counts as held; an advisor off its point, or the king off its own, frees the file;
    // Black's cannon against Red's held king counts alike. Wings count where two or more
    // rooks, horses and cannons stand across the river on files a to d or f to i; the
    // centre file is neither, and a piece on its own side of the river is not across.
    let (red, black) = (Color::Red, Color::Black);
    for (fen, color, counts) in [
        (
            "3aka3/4n4/9/9/4P4/9/9/4C4/9/3K5 w",
            red,
            [0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0],
        ),
        (
            "3aka3/9/9/9/9/9/9/4C4/9/3K5 w",
            red,
            [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        ),
        (
            "4ka3/9/3a5/9/9/9/9/4C4/9/3K5 w",
            red,
            [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        ),
        (
            "3a1a3/4k4/9/9/9/9/9/4C4/9/3K5 w",
            red,
            [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        ),
        (
            "4k4/9/9/9/9/9/9/4c4/9/3AKA3 w",
            black,
            [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
        ),
        (
            "4k4/9/1R7/2N6/6C2/9/9/9/9/3K5 w",
            red,
            [0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1],
        ),
        (
            "4k4/9/1R5N1/2N6/6C2/9/9/9/9/3K5 w",
            red,
            [0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 2],
        ),
        (
            "4k4/9/1R7/4N4/6C2/9/9/9/6C2/3K5 w",
            red,
            [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
        ),
        (
            "4k4/9/9/9/9/9/1r7/2n6/9/3K5 w",
            black,
            [0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1],
        ),
    ] {
        assert_eq!(
            pattern_counts(&Board::from_fen(fen).unwrap(), color, 0, Bitboard::EMPTY),
            counts,
            "{fen}"
        );
    }
    // What the evaluation adds is what the features say (the loop above counts `reach`).
    let with_patterns = |value: fn(usize) -> i64| {
        let mut params = default_params();
        for (i, &p) in PATTERNS.iter().enumerate() {
            params.set(&specs()[p as usize].name, value(i)).unwrap();
        }
        Weights::new(&params).unwrap()
    };
    let w = with_patterns(|i| 10 + i as i64);
    let base = with_patterns(|_| 0);
    let b = Board::from_fen("C3k4/4n4/6N2/9/3PP4/9/9/4C4/9/1R3K3 w").unwrap();
    // cannon_pins_horse 11 + bottom_cannon 12 + rook_open_file 13 + paired_pawns 15 +
    // palace_attackers 16 x one pair.
    assert_eq!(w.evaluate_red(&b) - base.evaluate_red(&b), 11 + 12 + 13 + 15 + 16);
    // A hollow cannon against a held king: hollow_cannon 10 + hollow_cannon_home 17.
    let b = Board::from_fen("3aka3/9/9/9/9/9/9/4C4/9/3K5 w").unwrap();
    assert_eq!(w.evaluate_red(&b) - base.evaluate_red(&b), 10 + 17);
}

#[test]
fn safe_wings_leave_out_pieces_the_defence_takes_at_a_profit() {
    let safe_wings = |fen: &str| {
        let b = Board::from_fen(fen).unwrap();
        let w = Weights::default();
        let (_, attacked) = w.evaluate_with_attacks(&b, w.psq(&b));
        let steps = Color::ALL.map(|color| b.step_attacks(color));
        let counts = pattern_counts(&b, Color::Red, 0, exposed(Color::Red, &steps, &attacked));
        (counts[9], counts[10])
    };
    // A rook and a horse across the river on the left wing.
    assert_eq!(safe_wings("4k4/9/1R7/9/2N6/9/9/9/9/3K5 w"), (1, 1));
    // A pawn attacks the horse: it is lost for less than it is worth.
    assert_eq!(safe_wings("4k4/9/1R7/2p6/2N6/9/9/9/9/3K5 w"), (1, 0));
    // A rook attacks the horse, which nothing defends; then the rook beside it defends it.
    assert_eq!(safe_wings("2r1k4/9/1R7/9/2N6/9/9/9/9/3K5 w"), (1, 0));
    assert_eq!(safe_wings("2r1k4/9/9/9/1RN6/9/9/9/9/3K5 w"), (1, 1));
}

#[test]
fn missing_advisors_weigh_the_pawns_inside() {
    // Black lacks one advisor; two Red pawns stand in Black's half, one on its back rank.
    let b = Board::from_fen("P3k4/4a4/9/4P4/9/9/9/9/9/3K5 w").unwrap();
    assert_eq!(pawns_inside(&b, Color::Black), 1);
    assert_eq!(pawns_inside(&b, Color::Red), 0);
    let weigh = |value| weights_with(&[("bare_palace_pawn", value)]).evaluate_red(&b);
    assert_eq!(weigh(-20) - weigh(0), 20);
}

#[test]
fn threats_by_lesser_pieces_count_defended_pieces_too() {
    // What the enemy's horses and cannons attack comes from the evaluation; here by hand.
    let count = |fen: &str, color| {
        threats_by_lesser(&Board::from_fen(fen).unwrap(), color, {
            let b = Board::from_fen(fen).unwrap();
            let them = color.flip();
            let occ = b.occupancy();
            let mut m = Bitboard::EMPTY;
            for sq in b.pieces(them, Role::Horse) {
                m |= attacks::horse_attacks(sq, occ);
            }
            for sq in b.pieces(them, Role::Cannon) {
                m |= attacks::slider_attacks(sq, occ).1;
            }
            m
        })
    };
    // A Black horse on b7 attacks a Red rook on c5; a Black rook would not count.
    assert_eq!(count("4k4/9/1n7/9/2R6/9/9/9/9/3K5 w", Color::Red), 1);
    assert_eq!(count("4k4/9/1r7/9/2R6/9/9/9/9/3K5 w", Color::Red), 0);
    // A Black pawn across the river attacks a Red cannon beside it; a Red rook does not
    // count as a threat to a Black horse.
    assert_eq!(count("4k4/9/9/9/9/2pC5/9/9/9/3K5 w", Color::Red), 1);
    assert_eq!(count("4k4/9/9/9/9/2nR5/9/9/9/3K5 w", Color::Black), 0);
}

#[test]
fn material_only_weights_are_pure_material() {
    let w = Weights::new(&material_only_params()).unwrap();
    let b = Board::from_fen("rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w").unwrap();
    // Black is a rook short: exactly the rook's value, with no tempo.
    assert_eq!(w.evaluate_red(&b), default_params().get("rook").unwrap());
    assert_eq!(w.evaluate(&Board::startpos()), 0);
}

#[test]
fn piece_square_names_give_their_squares() {
    use super::pst_squares;
    let at = |group, squares| Some(crate::game::Squares { group, squares });
    assert_eq!(pst_squares("pst_horse_c3"), at("horse", vec![(2, 3), (6, 3)]));
    assert_eq!(pst_squares("pst_king_e0"), at("king", vec![(4, 0)]));
    assert_eq!(
        pst_squares("endgame_horse_c3"),
        at("endgame_horse", vec![(2, 3), (6, 3)])
    );
    assert_eq!(
        pst_squares("pst_horse_f3"),
        None,
        "files f-i mirror and are not parameters"
    );
    assert_eq!(pst_squares("rook"), None);
    assert_eq!(pst_squares("pst_rook_a10"), None);
    // Every piece-square parameter is a square's, and only those.
    for s in super::specs().iter() {
        assert_eq!(
            pst_squares(&s.name).is_some(),
            s.name.starts_with("pst_") || s.name.starts_with("endgame_"),
            "{}",
            s.name
        );
    }
}

#[test]
fn the_material_imbalance_counts_pairs_and_pieces_against_pieces() {
    // Red: two rooks and a horse; Black: a rook and two advisors.
    let b = Board::from_fen("r2aka3/9/9/9/9/9/9/9/9/RN1K4R w").unwrap();
    let (eval, estimate) = eval_and_estimate(&b, &[]);
    let settings = [
        // Red's one pair of rooks: +10.
        ("imbalance_rook_rook", 10),
        // Red's horse against Black's rook, less no Black horse against Red's rooks: +3.
        ("imbalance_horse_vs_rook", 3),
        // No Red advisor against Black's rook, less Black's two advisors against Red's two
        // rooks: -4 x 5.
        ("imbalance_advisor_vs_rook", 5),
    ];
    let (with_eval, with_estimate) = eval_and_estimate(&b, &settings);
    assert_eq!(with_eval - eval, 10 + 3 - 20);
    // The estimate without attacks knows it too (Red to move).
    assert_eq!(with_estimate - estimate, 10 + 3 - 20);
    assert_eq!(
        describe("imbalance_horse_vs_rook"),
        "material imbalance: for each own horse times each enemy rook, less the same with the sides swapped"
    );
    assert_eq!(
        describe("imbalance_rook_rook"),
        "material imbalance: for each pair of own rooks"
    );
}

#[test]
fn crossed_pawns_count_by_thresholds() {
    // Red: three pawns across the river, one more on Black's back rank (which does not
    // count); Black: one pawn across.
    let b = Board::from_fen("P3k4/9/9/2P1P4/4P4/6p2/9/9/9/3K5 w").unwrap();
    let (eval, estimate) = eval_and_estimate(&b, &[]);
    let settings = [
        ("crossed_pawns_1", 50),
        ("crossed_pawns_2", 7),
        ("crossed_pawns_3", -20),
    ];
    let (with_eval, with_estimate) = eval_and_estimate(&b, &settings);
    // Red gets all three, Black the first.
    assert_eq!(with_eval - eval, 50 + 7 - 20 - 50);
    assert_eq!(with_estimate - estimate, 50 + 7 - 20 - 50);
    assert!(specs()
        .iter()
        .filter(|s| s.name.starts_with("crossed_pawns_"))
        .all(|s| s.opt_in));
    assert_eq!(
        describe("crossed_pawns_2"),
        "for 2 or more pawns across the river short of the enemy's back rank (on top of each pawn's piece-square value)"
    );
}

/// The evaluation of `board` and its estimate without attacks, under the built-in weights
/// with `settings` changed.
fn eval_and_estimate(board: &Board, settings: &[(&str, i64)]) -> (Score, Score) {
    let w = weights_with(settings);
    (w.evaluate_red(board), w.material_estimate(board, w.psq(board)))
}

/// The built-in weights with `settings` changed.
fn weights_with(settings: &[(&str, i64)]) -> Weights {
    let mut params = default_params();
    for &(name, value) in settings {
        params.set(name, value).unwrap();
    }
    Weights::new(&params).unwrap()
}
