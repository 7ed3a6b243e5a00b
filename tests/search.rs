//! The engine's search: forced mates at the right distance, legal answers everywhere,
//! determinism, and limits.

use qitune::params::Params;
use qitune::xiangqi::eval::Weights;
use qitune::xiangqi::search::{mate_in_moves, Limits, Searcher, MATE};
use qitune::xiangqi::time::TimeControl;
use qitune::xiangqi::{Board, Move, Xiangqi};
use std::time::Duration;

/// Whether the side to move forces a win (the opponent left without a legal move, which
/// loses in Xiangqi) within `n` of its own moves. Brute force over the move generator only,
/// so it checks the search independently.
fn wins_in(b: &mut Board, n: u32) -> bool {
    n > 0
        && b.legal_moves().iter().any(|&m| {
            let u = b.make(m);
            let ok = loses_within(b, n - 1);
            b.unmake(m, u);
            ok
        })
}

/// Whether the side to move (after the attacker's move) has no move, or every reply allows
/// a win within `n` more attacker moves.
fn loses_within(b: &mut Board, n: u32) -> bool {
    let replies = b.legal_moves();
    replies.is_empty()
        || (n > 0
            && replies.iter().all(|&r| {
                let u = b.make(r);
                let w = wins_in(b, n);
                b.unmake(r, u);
                w
            }))
}

fn search(fen: &str, limits: Limits) -> qitune::xiangqi::search::SearchResult {
    search_with(Weights::default(), fen, limits)
}

fn search_with(weights: Weights, fen: &str, limits: Limits) -> qitune::xiangqi::search::SearchResult {
    let game = Xiangqi::from_fen(fen).unwrap();
    Searcher::new(weights, 8).search(&game, &limits, |_| {})
}

/// The built-in weights with the search knobs `settings` changed.
fn with_knobs(settings: &[(&str, i64)]) -> Weights {
    let mut p = Params::defaults(&qitune::xiangqi::eval::specs());
    for &(name, value) in settings {
        p.set(name, value).unwrap();
    }
    Weights::new(&p).unwrap()
}

fn check_mate(fen: &str, moves: u32) {
    check_mate_with(Weights::default(), fen, moves);
}

fn check_mate_with(weights: Weights, fen: &str, moves: u32) {
    let mut b = Board::from_fen(fen).unwrap();
    assert!(wins_in(&mut b, moves), "{fen} is a mate in {moves}");
    assert!(
        !wins_in(&mut b, moves - 1),
        "{fen} is not a mate in {}",
        moves - 1
    );
    // Reductions can hide a quiet first move for a few plies; the depth leaves room for that.
    let r = search_with(weights, fen, Limits::depth(12));
    assert_eq!(r.score, MATE - (2 * moves as i32 - 1), "{fen}: score {}", r.score);
    assert_eq!(mate_in_moves(r.score), Some(moves as i32));
    let best = r.best.unwrap();
    b.make(best);
    assert!(
        loses_within(&mut b, moves - 1),
        "{fen}: {best} does not mate in {moves}"
    );
}

#[test]
fn mate_in_one() {
    check_mate("3k5/R8/9/9/9/9/9/9/1R7/4K4 w", 1);
    // Stalemating is winning too: a7a8 leaves the black king no move.
    check_mate("3k5/9/R8/9/9/9/9/9/9/4K4 w", 1);
}

#[test]
fn mates_in_two() {
    for fen in [
        "9/4k4/9/9/3P5/9/9/7R1/9/5K3 w",
        "9/3k5/9/9/9/6N2/9/9/4n4/4K2R1 w",
        "9/4k4/9/9/9/1R7/4P4/9/9/3K5 w",
        "3k1a3/9/9/9/1N7/9/9/9/4R4/5K3 w",
    ] {
        check_mate(fen, 2);
    }
}

#[test]
fn mates_in_three() {
    for fen in [
        "9/4k4/4N4/2p6/9/9/9/9/R8/4K4 w",
        "9/4k4/9/6p2/8R/9/9/8N/9/5K3 w",
        "9/4k4/9/9/C8/4P4/9/7C1/9/2R1K4 w",
        "9/3k5/9/5C3/C2P5/9/9/7N1/9/3K5 w",
    ] {
        check_mate(fen, 3);
    }
}

/// Mates in two and three that a search knob must not lose: (position, moves to mate).
const KNOB_MATES: [(&str, u32); 4] = [
    ("9/3k5/9/9/9/6N2/9/9/4n4/4K2R1 w", 2),
    ("3k1a3/9/9/9/1N7/9/9/9/4R4/5K3 w", 2),
    ("9/4k4/4N4/2p6/9/9/9/9/R8/4K4 w", 3),
    ("9/3k5/9/5C3/C2P5/9/9/7N1/9/3K5 w", 3),
];

/// Each search knob changes the search when set away from its default, and the search still
/// finds every mate at its distance.
#[test]
fn search_knobs_keep_mates_exact() {
    // Two positions, since the root's search of the first never fails high at these depths.
    let fens = [
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    ];
    let nodes = |settings: &[(&str, i64)]| -> Vec<u64> {
        fens.iter()
            .map(|fen| search_with(with_knobs(settings), fen, Limits::depth(9)).nodes)
            .collect()
    };
    let off = nodes(&[]);
    for knob in [
        ("search_probcut_margin", 0),
        ("search_history_prune", 500),
        ("search_razor_margin", 0),
        ("search_futility_lmr_depth", 6),
        ("search_fail_low_keeps_move", 0),
        ("search_iir_depth", 0),
        ("search_null_min_depth", 1),
        ("search_exact_check_prune", 0),
        ("search_rfp_depth", 7),
        ("search_null_depth_divisor", 5),
        ("search_null_eval_divisor", 0),
        ("search_lmp_depth", 3),
        ("search_lmr_history", 0),
        ("search_lmp_square", 2),
        ("search_qs_delta", 0),
        ("search_lmp_percent", 40),
        ("search_tt_feedback", 0),
        ("search_tt_keep_deeper", 2),
        ("search_fail_high_shallower", 0),
        ("search_correction_pieces", 32),
        ("search_capture_futility", 250),
        ("search_futility_history", 32),
    ] {
        let on = nodes(&[knob]);
        assert_ne!(on, off, "{} = {} changed nothing", knob.0, knob.1);
        for (fen, moves) in KNOB_MATES {
            check_mate_with(with_knobs(&[knob]), fen, moves);
        }
    }
}

/// With the mating-force knobs, an edge the leading side cannot convert scores toward a
/// draw; an edge it can convert scores as before, and mates stay exact.
#[test]
fn an_edge_that_cannot_mate_scores_toward_a_draw() {
    let score = |weights: Weights, fen: &str| search_with(weights, fen, Limits::depth(4)).score;
    // The built-in knobs scale (to 0 and 16 64ths); 64 keeps the whole evaluation.
    let unscaled = || with_knobs(&[("search_scale_no_mating", 64), ("search_scale_lone_attacker", 64)]);
    let scaled = Weights::default;
    // Advisors and elephants against a lone advisor: material up, no way to mate.
    let defenders = "3k5/4a4/9/9/9/9/9/9/9/2BAKAB2 w";
    let (full, scaled_score) = (score(unscaled(), defenders), score(scaled(), defenders));
    assert!(
        full > 150 && scaled_score.abs() <= 5,
        "{scaled_score} against {full}"
    );
    // A lone rook against all four defenders: still ahead, a quarter as much.
    let rook = "2bakab2/9/9/9/9/9/9/9/9/3K1R3 w";
    let (full, quarter) = (score(unscaled(), rook), score(scaled(), rook));
    assert!(
        full > 500 && quarter > 0 && quarter < full / 2,
        "{quarter} against {full}"
    );
    // With a pawn beside the rook nothing changes.
    let pawn = "2bakab2/9/9/9/9/4P4/9/9/9/3K1R3 w";
    assert_eq!(score(scaled(), pawn), score(unscaled(), pawn));
    for (fen, moves) in &KNOB_MATES[..3] {
        check_mate_with(scaled(), fen, *moves);
    }
}

#[test]
fn harsher_late_move_reductions_still_find_the_mates() {
    // A harsher rule reduces the quiet mating moves more, so the nearest mate may show only
    // deeper (at depth 12 divisor 140 finds the last position's mate in 5, not its mate in
    // 3); the win itself must not be missed, and the move played must win.
    let weights = || with_knobs(&[("search_lmr_divisor", 140)]);
    let fen = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1";
    assert_ne!(
        search_with(weights(), fen, Limits::depth(9)).nodes,
        search(fen, Limits::depth(9)).nodes
    );
    for (fen, _) in KNOB_MATES {
        let r = search_with(weights(), fen, Limits::depth(12));
        let moves = mate_in_moves(r.score).unwrap_or_else(|| panic!("{fen}: no mate, score {}", r.score));
        assert!(moves > 0 && moves <= 5, "{fen}: mate in {moves}");
        let mut b = Board::from_fen(fen).unwrap();
        b.make(r.best.unwrap());
        assert!(
            loses_within(&mut b, moves as u32 - 1),
            "{fen}: the move does not win"
        );
    }
}

#[test]
fn the_mated_side_sees_its_loss() {
    // Black to move after a7a8 would be stalemated; one move earlier Black, to move, sees mate coming.
    let r = search("3k5/R8/9/9/9/9/9/9/1R7/4K4 b", Limits::depth(6));
    assert!(r.score <= -(MATE - 10), "{}", r.score);
}

#[test]
fn answers_are_legal_at_every_depth() {
    let fens: Vec<&str> = include_str!("data/xiangqi-perft.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split(';').next().unwrap())
        .collect();
    let mut searcher = Searcher::new(Weights::default(), 4);
    let mut seen = std::collections::HashSet::new();
    for fen in fens.into_iter().filter(|f| seen.insert(*f)) {
        let game = Xiangqi::from_fen(fen).unwrap();
        for depth in 1..=4 {
            // The table is kept across depths and positions, so stale entries are probed too.
            let r = searcher.search(&game, &Limits::depth(depth), |_| {});
            let best = r.best.expect("every suite position has a move");
            assert!(game.board().is_legal(best), "{fen} depth {depth}: {best}");
            let mut b = game.board().clone();
            for &m in &r.pv {
                assert!(b.is_legal(m), "{fen} depth {depth}: pv move {m} illegal");
                b.make(m);
            }
        }
    }
}

#[test]
fn limited_searches_are_deterministic() {
    let fen = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1";
    let a = search(fen, Limits::depth(6));
    let b = search(fen, Limits::depth(6));
    assert_eq!(a, b);
    let a = search(fen, Limits::nodes(20_000));
    let b = search(fen, Limits::nodes(20_000));
    assert_eq!(a, b);
    assert!(a.nodes <= 20_000, "{}", a.nodes);
}

#[test]
fn the_counts_account_for_every_node_and_each_cut_for_its_tries() {
    use qitune::xiangqi::search::Count::*;
    let fen = "r3kab2/4a4/2n1bcn2/p1p1pR2p/5r3/2P1P1B2/P5c1P/C1N1C1N2/9/1RBAKA3 w - - 5 13";
    let game = Xiangqi::from_fen(fen).unwrap();
    let mut searcher = Searcher::new(Weights::default(), 8);
    let result = searcher.search(&game, &Limits::depth(9), |_| {});
    let c = *searcher.counts();
    // Every node is either the main search's or quiescence's, and counted once.
    assert_eq!(c.get(MainNodes) + c.get(QuiescenceNodes), result.nodes);
    for (part, whole) in [
        (DepthOne, MainNodes),
        (CheckExtensions, MainNodes),
        (QuiescenceInCheck, QuiescenceNodes),
        (RazorCuts, RazorTries),
        (NullCuts, NullTries),
        (ProbCutCuts, ProbCutTries),
        (ReSearched, Reduced),
        (CutByFirst, CutNodes),
        (CutNodes, MainNodes),
    ] {
        assert!(
            c.get(part) <= c.get(whole),
            "{part:?} {} > {whole:?} {}",
            c.get(part),
            c.get(whole)
        );
    }
    // A middlegame searched to depth 9 uses every part of the search at least once.
    for count in [
        DepthOne,
        CheckExtensions,
        QuiescenceNodes,
        ReverseFutilityCuts,
        RazorCuts,
        NullCuts,
        ProbCutTries,
        MovesPruned,
        Reduced,
        PvsReSearched,
        CutByFirst,
    ] {
        assert!(c.get(count) > 0, "no {count:?}");
    }
    // A new search starts its counts afresh.
    searcher.search(&game, &Limits::depth(2), |_| {});
    assert!(searcher.counts().get(MainNodes) < c.get(MainNodes));
}

#[test]
fn banned_moves_are_not_played() {
    let fen = "3k5/R8/9/9/9/9/9/9/1R7/4K4 w";
    let mate = Move::parse_iccs("b1b9").unwrap();
    let limits = Limits {
        depth: Some(4),
        banned: vec![mate],
        ..Limits::default()
    };
    let r = search(fen, limits);
    assert_ne!(r.best, Some(mate));
    assert!(r.best.is_some());
}

/// On a clock a single reply is played at once (seed 000); asked for a depth, the search
/// still searches it and reports its score, as a mentor's label needs.
#[test]
fn a_single_reply_is_answered_at_once_on_a_clock_and_searched_to_a_depth() {
    // In check from the rook on a9: e9 is covered by the rook and faces the red king, so
    // d9d8 is the only move.
    let fen = "R2k5/9/9/9/9/9/9/9/9/4K4 b";
    let game = Xiangqi::from_fen(fen).unwrap();
    assert_eq!(game.legal_moves().len(), 1);
    let only = Move::parse_iccs("d9d8").ok();
    let clock = Limits {
        time: Some(TimeControl::MoveTime(Duration::from_secs(60))),
        ..Limits::default()
    };
    let r = search(fen, clock);
    assert_eq!(r.nodes, 0);
    assert_eq!(r.best, only);
    let mut reports = Vec::new();
    let r = Searcher::new(Weights::default(), 8).search(&game, &Limits::depth(3), |info| {
        reports.push((info.depth, info.score))
    });
    assert_eq!(r.best, only);
    assert_eq!(r.depth, 3);
    assert!(r.nodes > 0);
    assert_eq!(reports.last(), Some(&(3, r.score)), "{reports:?}");
}

/// A searcher cleared after a game searches the next game as a fresh one does: an outside
/// engine process plays game after game, and a tuning run through it must play the games an
/// embedded run plays (`tests/data/reused-searcher.txt` holds the pair of games whose second
/// once got another move at its 45th search, and other scores from its 31st, at 500 nodes).
#[test]
fn a_cleared_searcher_searches_as_a_fresh_one() {
    let text = std::fs::read_to_string("tests/data/reused-searcher.txt").unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let mut params = Params::load(
        std::path::Path::new("examples/xiangqi-hand-set.json"),
        "xiangqi",
        &qitune::xiangqi::eval::specs(),
        <qitune::xiangqi::game::XiangqiGame as qitune::game::Game>::RETIRED,
    )
    .unwrap();
    let settings = lines.next().unwrap().strip_prefix("weights ").unwrap();
    for setting in settings.split_whitespace() {
        let (name, value) = setting.split_once('=').unwrap();
        params.set(name, value.parse().unwrap()).unwrap();
    }
    let weights = Weights::new(&params).unwrap();
    // Every other position of a game from its start: the ones its engine searched.
    let mut positions = || {
        let mut game = Xiangqi::from_fen(lines.next().unwrap()).unwrap();
        let mut searched = vec![game.clone()];
        for (ply, mv) in lines.next().unwrap().split_whitespace().enumerate() {
            game.play_iccs(mv).unwrap();
            if ply % 2 == 1 {
                searched.push(game.clone());
            }
        }
        searched
    };
    let (first, second) = (positions(), positions());
    let limits = Limits::nodes(500);
    let answers = |searcher: &mut Searcher| -> Vec<(Option<Move>, i32)> {
        second
            .iter()
            .map(|g| {
                let r = searcher.search(g, &limits, |_| {});
                (r.best, r.score)
            })
            .collect()
    };
    let fresh = answers(&mut Searcher::new(weights.clone(), 1));
    let mut reused = Searcher::new(weights, 1);
    for g in &first {
        reused.search(g, &limits, |_| {});
    }
    reused.clear();
    let again = answers(&mut reused);
    let differ = (0..fresh.len()).find(|&i| fresh[i] != again[i]);
    assert_eq!(differ, None, "{} searches", fresh.len());
}

/// A search stopped inside an iteration plays the move that iteration had found, and says
/// so: its last report is that iteration's, marked partial, naming the move played. Every
/// earlier report is a completed iteration.
#[test]
fn a_stopped_iteration_reports_the_move_it_plays() {
    let game =
        Xiangqi::from_fen("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1").unwrap();
    let mut stopped_with_a_move = 0;
    for nodes in (2_000..40_000).step_by(2_000) {
        let mut searcher = Searcher::new(Weights::default(), 16);
        let mut reports = Vec::new();
        let r = searcher.search(&game, &Limits::nodes(nodes), |i| {
            reports.push((i.depth, i.partial, i.pv.first().copied()))
        });
        let (last, earlier) = reports.split_last().expect("every search completes depth 1");
        assert!(earlier.iter().all(|&(_, partial, _)| !partial));
        assert_eq!(
            last.2, r.best,
            "{nodes} nodes: the last report names the move played"
        );
        if last.1 {
            stopped_with_a_move += 1;
            assert_eq!(
                last.0,
                r.depth + 1,
                "{nodes} nodes: a partial report is the stopped iteration's"
            );
        } else {
            assert_eq!(last.0, r.depth);
        }
    }
    assert!(
        stopped_with_a_move > 0,
        "no node limit stopped an iteration after it had found a move"
    );
}

/// The public constructors refuse what does not fit them instead of panicking: another
/// game's parameter set, a value list of the wrong length.
#[test]
fn weights_of_another_game_or_the_wrong_length_are_refused() {
    let amazons = Params::defaults(&qitune::amazons::eval::specs());
    let error = Weights::new(&amazons).unwrap_err().to_string();
    assert!(error.contains("another game"), "{error}");
    let xiangqi = Params::defaults(&qitune::xiangqi::eval::specs());
    assert!(qitune::amazons::eval::Weights::new(&xiangqi).is_err());
    let error = qitune::xiangqi::protocol::Engine::new(Vec::new(), amazons)
        .err()
        .expect("refused")
        .to_string();
    assert!(error.contains("another game"), "{error}");
    let error = Params::from_values(&qitune::xiangqi::eval::specs(), &[1, 2, 3])
        .unwrap_err()
        .to_string();
    assert!(error.contains("3 values"), "{error}");
}
