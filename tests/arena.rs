//! The arena with the game's own engines: legal replays, rulings, thread independence.

use qitune::arena::Player;
use qitune::arena::{pgn, player_weights, Conditions, Match};
use qitune::game::GameRecord;
use qitune::game::{Budget, Ending, Game, Seat};
use qitune::xiangqi::game::{seat, XiangqiGame};
use qitune::xiangqi::Board;
use qitune::xiangqi::Xiangqi;

fn small_match(games: usize, max_plies: usize) -> Match<XiangqiGame> {
    let budget = Budget::Nodes(300);
    Match {
        a: Player::weights(player_weights::<XiangqiGame>("default").unwrap(), budget),
        b: Player::weights(player_weights::<XiangqiGame>("random:3").unwrap(), budget),
        positions: (0..games as u64)
            .map(|s| XiangqiGame::random_opening(s, 6))
            .collect(),
        games,
        conditions: Conditions {
            max_plies,
            tt_mb: 1,
            ..Conditions::for_budget(budget)
        },
        sprt: None,
    }
}

#[test]
fn every_game_replays_legally_within_the_cap() {
    let m = small_match(8, 60);
    for p in m.run(2, |_| {}).unwrap() {
        let r = &p.record;
        assert!(r.plies() <= 60);
        let mut g = Xiangqi::from_fen(&r.start_fen).unwrap();
        for mv in &r.moves {
            assert!(g.board().is_legal(*mv), "{} in {}", mv, g.board().fen());
            g.play(*mv);
        }
        match r.ending {
            Ending::Rules(reason) => {
                let o = g.outcome().unwrap();
                assert_eq!((o.winner.map(seat), o.termination.name()), (r.winner, reason));
            }
            Ending::PlyCap => assert!(g.outcome().is_none() && r.plies() == 60 && r.winner.is_none()),
            other => panic!("unexpected ending {other}"),
        }
        assert_eq!(
            p.a_seat(),
            if p.index % 2 == 0 {
                Seat::First
            } else {
                Seat::Second
            }
        );
    }
}

#[test]
fn results_do_not_depend_on_threads() {
    let m = small_match(6, 80);
    assert_eq!(m.run(1, |_| {}).unwrap(), m.run(2, |_| {}).unwrap());
}

/// A stop keeps the schedule's unbroken beginning, whatever order the threads finish in, so
/// that a `--pgn` record resumes from the first game it lacks.
#[test]
fn a_stop_keeps_an_unbroken_beginning() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let m = small_match(24, 40);
    let stop = AtomicBool::new(false);
    let mut kept = Vec::new();
    let n = m
        .run_until(
            2,
            &stop,
            |p| {
                if p.index == 0 {
                    stop.store(true, Ordering::SeqCst);
                }
            },
            |p| kept.push(p.index),
        )
        .unwrap();
    assert_eq!(kept, (0..n).collect::<Vec<_>>());
    assert!(n < 24, "the stop stopped nothing: {kept:?}");
}

/// An SPRT stops the match at the first whole pair where its pairs decide, and not before.
#[test]
fn an_sprt_stops_at_the_first_deciding_pair() {
    use qitune::arena::stats::{Sprt, SprtDecision, Tally};
    let sprt = Sprt::new(0.0, 100.0);
    let m = Match {
        sprt: Some(sprt),
        ..small_match(200, 80)
    };
    let played = m.run(2, |_| {}).unwrap();
    let n = played.len();
    assert!(n % 2 == 0 && n < 200, "stopped after {n} games");
    let mut tally = Tally::default();
    for (i, p) in played.iter().enumerate() {
        tally.add(p.a_result());
        if i % 2 == 1 && i + 1 < n {
            assert_eq!(
                sprt.decide(&tally.pairs),
                None,
                "decided already after {} games",
                i + 1
            );
        }
    }
    assert_eq!(sprt.decide(&tally.pairs), Some(SprtDecision::H1));
}

#[test]
fn players_and_positions_are_checked() {
    assert!(player_weights::<XiangqiGame>("random:abc")
        .unwrap_err()
        .to_string()
        .contains("random:abc"));
    assert!(player_weights::<XiangqiGame>("/no/such/weights.json").is_err());
    assert_ne!(
        format!("{:?}", player_weights::<XiangqiGame>("random:1")),
        format!("{:?}", player_weights::<XiangqiGame>("random:2"))
    );
}

/// Plays a schedule locally and game by game through its plain-data description (as an MPI
/// rank does): the records rebuilt from the wire are the local ones.
fn records_survive_the_wire<G: Game>(players: &[&str], budget: Budget, max_plies: usize) {
    use qitune::arena::wire::ScheduleWire;
    use qitune::arena::{Fixture, Runner, Schedule};
    use qitune::params::Params;
    let params: Vec<Params> = players
        .iter()
        .map(|name| match name.strip_prefix("random:") {
            Some(seed) => {
                use rand::SeedableRng;
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed.parse().unwrap());
                Params::random(&G::specs(), &mut rng)
            }
            None => Params::defaults(&G::specs()),
        })
        .collect();
    let compiled: Vec<Player<G::Weights>> = params
        .iter()
        .map(|p| Player::weights(G::weights(p).unwrap(), budget))
        .collect();
    let positions: Vec<G::Board> = (0..3).map(|s| G::random_opening(s, 4)).collect();
    let fixtures: Vec<Fixture> = (0..3).flat_map(|k| Fixture::pair(k % 2, 1 - k % 2, k)).collect();
    let schedule = Schedule::<G> {
        players: &compiled,
        params: Some(&params),
        positions: &positions,
        fixtures: &fixtures,
        conditions: Conditions {
            max_plies,
            tt_mb: 1,
            ..Conditions::for_budget(budget)
        },
    };
    let local = schedule.run(&Runner::new(2).unwrap(), |_| {}).unwrap();
    let wire = ScheduleWire::of(&schedule).unwrap();
    let wire: ScheduleWire = serde_json::from_str(&serde_json::to_string(&wire).unwrap()).unwrap();
    for (i, record) in local.iter().enumerate() {
        let sent = wire
            .play::<G>(i, &qitune::arena::outside::Engines::new(0))
            .unwrap();
        let sent =
            serde_json::from_str::<qitune::arena::wire::RecordWire>(&serde_json::to_string(&sent).unwrap())
                .unwrap();
        let rebuilt = sent.record::<G>(&positions[fixtures[i].position]).unwrap();
        assert_eq!(&rebuilt, record, "game {i}");
    }
}

#[test]
fn schedules_and_records_survive_the_wire() {
    records_survive_the_wire::<XiangqiGame>(&["default", "random:3"], Budget::Nodes(300), 80);
    records_survive_the_wire::<qitune::amazons::game::AmazonsGame>(
        &["default", "random:4"],
        Budget::Nodes(200),
        92,
    );
}

/// `qitune match --resume` reads its PGN file back: the tags as written, escapes undone, and
/// a game whose moves do not end with its result marked incomplete.
#[test]
fn written_games_read_back_with_their_tags_and_a_cut_one_is_incomplete() {
    let board = Board::startpos();
    let mut record = GameRecord::new(board.fen(), Seat::First);
    record.moves = vec![board.parse_move("h2e2").unwrap()];
    record.winner = Some(Seat::Second);
    record.ending = Ending::Resigned;
    let one = pgn::game::<XiangqiGame>(&record, "qitune match", 1, "a \"quoted\" name", "b\\c");
    let two = pgn::game::<XiangqiGame>(&record, "qitune match", 2, "x", "y");
    let games = pgn::read(&format!("{one}{two}")).unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].tag("Red"), Some("a \"quoted\" name"));
    assert_eq!(games[0].tag("Black"), Some("b\\c"));
    assert_eq!(
        (games[0].tag("Result"), games[1].tag("Round")),
        (Some("0-1"), Some("2"))
    );
    assert!(games.iter().all(|g| g.complete));
    assert_eq!(
        pgn::winner_of(games[0].tag("Result").unwrap()),
        Some(Some(Seat::Second))
    );
    assert_eq!(pgn::winner_of("*"), None);
    let cut = &two[..two.len() - 8];
    let games = pgn::read(&format!("{one}{cut}")).unwrap();
    assert!(games[0].complete && !games[1].complete);
    assert!(pgn::read("e2e4 1-0\n").is_err(), "moves before any tag");
    assert!(pgn::read("[Round 1]\n").is_err(), "an unquoted value");
}

/// One game that stalls holds the others back: the results that wait for it stay within
/// the stream's window, instead of every later game's piling up in memory.
#[test]
fn a_stalled_game_holds_the_stream_back_instead_of_piling_up_results() {
    use qitune::arena::{Runner, STREAM_AHEAD};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
    let threads = 4;
    let runner = Runner::new(threads).unwrap();
    let stop = AtomicBool::new(false);
    let (produced, consumed, peak) = (AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0));
    let mut seen = Vec::new();
    runner.stream(
        0..400,
        &stop,
        |i| {
            if i == 0 {
                std::thread::sleep(std::time::Duration::from_millis(300));
            }
            let waiting = produced.fetch_add(1, SeqCst) + 1 - consumed.load(SeqCst);
            peak.fetch_max(waiting, SeqCst);
            i
        },
        |i| {
            consumed.fetch_add(1, SeqCst);
            seen.push(i);
            true
        },
    );
    assert_eq!(seen, (0..400).collect::<Vec<_>>(), "in index order, every one");
    // A window of a few results a thread, and the one each thread is playing.
    let bound = 5 * threads;
    assert!(
        peak.load(SeqCst) <= bound,
        "{} results waited at once, more than {bound}",
        peak.load(SeqCst)
    );
    const { assert!(STREAM_AHEAD < 5, "the window the bound above counts on") };
}
