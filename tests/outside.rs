//! Outside engines in the arena: a second qitune binary through both protocols, and scripted
//! engines that crash, hang, answer late, resign or play an illegal move.

use qitune::arena::{Agent, OutsideEngine, Player, Protocol};
use qitune::arena::{Conditions, Match};
use qitune::game::{Budget, Ending};
use qitune::xiangqi::game::XiangqiGame;
use qitune::xiangqi::Board;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

const QITUNE: &str = env!("CARGO_BIN_EXE_qitune");

fn clock(base_ms: u64, inc_ms: u64) -> Budget {
    Budget::Clock {
        base: Duration::from_millis(base_ms),
        increment: Duration::from_millis(inc_ms),
    }
}

fn qitune_engine(protocol: Protocol) -> Agent<qitune::xiangqi::eval::Weights> {
    Agent::Outside(Arc::new(OutsideEngine {
        name: format!("qitune {protocol:?}"),
        path: QITUNE.into(),
        args: vec!["engine".into()],
        protocol,
        options: [("Hash".to_string(), serde_json::json!(4))].into_iter().collect(),
        provenance: Default::default(),
        dir: None,
    }))
}

/// A UCCI engine written in sh that answers `go` with `reply`.
fn scripted(reply: &str) -> Agent<qitune::xiangqi::eval::Weights> {
    let script = format!(
        "while read line; do case \"$line\" in ucci) echo ucciok;; isready) echo readyok;; go*) {reply};; quit) exit 0;; esac; done"
    );
    Agent::Outside(Arc::new(OutsideEngine {
        name: "script".into(),
        path: "/bin/sh".into(),
        args: vec!["-c".into(), script],
        protocol: Protocol::Ucci,
        options: Default::default(),
        provenance: Default::default(),
        dir: None,
    }))
}

fn game_against(
    a: Agent<qitune::xiangqi::eval::Weights>,
    budget: Budget,
    games: usize,
) -> Match<XiangqiGame> {
    Match {
        a: Player { agent: a, budget },
        b: Player::weights(Default::default(), budget),
        positions: vec![Board::startpos()],
        games,
        conditions: Conditions::for_budget(budget),
        sprt: None,
    }
}

#[test]
fn a_second_qitune_plays_legal_games_through_both_protocols() {
    for protocol in [Protocol::Ucci, Protocol::Uci] {
        let m = game_against(qitune_engine(protocol), clock(600, 10), 2);
        for p in m.run(2, |_| {}).unwrap() {
            let r = &p.record;
            assert!(
                !matches!(r.ending, Ending::IllegalMove | Ending::Crash | Ending::Hang),
                "{protocol:?}: {} {:?}",
                r.ending,
                r.fault
            );
            assert!(r.plies() > 10, "{protocol:?}: {}", r.plies());
            // The outside engine reported its depth through info lines.
            let heard = (0..r.depths.len()).any(|i| r.mover(i) == p.a_seat() && r.depths[i] > 0);
            assert!(heard, "{protocol:?}: no depth heard");
        }
    }
}

#[test]
fn faults_and_resignations_lose_the_game() {
    let cases = [
        ("echo 'bestmove a0a0'", Ending::IllegalMove),
        ("echo 'bestmove h2e2 resign'", Ending::Resigned),
        ("echo nobestmove", Ending::FalseClaim),
        ("exit 3", Ending::Crash),
        (":", Ending::Hang),
        ("sleep 0.5; echo 'bestmove h2e2'", Ending::Time),
    ];
    for (reply, ending) in cases {
        // Two games: the engine is started afresh for the second after it failed the first.
        let m = game_against(scripted(reply), clock(200, 0), 2);
        for p in m.run(1, |_| {}).unwrap() {
            assert_eq!(p.record.ending, ending, "{reply}: {:?}", p.record.fault);
            assert_eq!(p.record.winner, Some(p.a_seat().flip()), "{reply}");
            // A resignation is a normal ending; every other one names the engine at fault.
            match ending {
                Ending::Resigned => assert_eq!(p.record.fault, None, "{reply}"),
                _ => assert!(
                    p.record.fault.as_deref().unwrap_or("").starts_with("script: "),
                    "{reply}"
                ),
            }
        }
    }
}

#[test]
fn no_move_is_a_draw_claim_granted_only_where_a_rule_gives_it() {
    let cases = [
        // Kings, advisors and elephants only: no side can ever give check.
        ("3akab2/9/4b4/9/9/9/9/4B4/4A4/3AK1B2 w - - 0 1", None),
        // 100 plies without a capture: the 50-move rule engines claim by.
        ("3akab2/9/4b4/9/9/9/9/4B4/4A4/R2AK1B2 w - - 100 60", None),
        // 99 plies: too early, the claimant loses.
        (
            "3akab2/9/4b4/9/9/9/9/4B4/4A4/R2AK1B2 w - - 99 60",
            Some(Ending::FalseClaim),
        ),
    ];
    for (fen, loss) in cases {
        let mut m = game_against(scripted("echo nobestmove"), clock(200, 0), 2);
        m.positions = vec![Board::from_fen(fen).unwrap()];
        for p in m.run(1, |_| {}).unwrap() {
            let r = &p.record;
            if r.mover(0) != p.a_seat() {
                continue;
            }
            match loss {
                Some(ending) => {
                    assert_eq!(r.ending, ending, "{fen}");
                    assert_eq!(r.winner, Some(p.a_seat().flip()), "{fen}");
                }
                None => {
                    assert!(matches!(r.ending, Ending::ClaimedDraw(_)), "{fen}: {}", r.ending);
                    assert_eq!(r.winner, None, "{fen}");
                }
            }
        }
    }
}

#[test]
fn the_match_command_takes_outside_engines_and_refuses_broken_ones() {
    let out = Command::new(QITUNE)
        .args(["match", "--a", &format!("uci:{QITUNE} engine"), "--b", "default"])
        .args(["--games", "2", "--tc", "0.5+0.01"])
        .output()
        .unwrap();
    assert_played(&out, "Clock: 0 time forfeits, 0 illegal moves");
    let out = Command::new(QITUNE)
        .args([
            "match",
            "--a",
            "ucci:/no/such/engine",
            "--b",
            "default",
            "--tc",
            "1+0",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("player A") && err.contains("/no/such/engine"),
        "{err}"
    );
    let out = Command::new(QITUNE)
        .args(["match", "--a", &format!("ucci:{QITUNE} engine"), "--b", "default"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("player A is an outside engine") && err.contains("--tc"),
        "{err}"
    );
    // At fixed nodes an outside qitune plays as the embedded one does: every game a draw
    // by symmetry would be luck, so only the count and a clean finish are asked.
    let out = Command::new(QITUNE)
        .args(["match", "--a", &format!("uci:{QITUNE} engine"), "--b", "default"])
        .args(["--games", "2", "--nodes", "300"])
        .output()
        .unwrap();
    assert_played(&out, "2 games");
}

/// Asserts that a `qitune match` succeeded and printed `expected`.
fn assert_played(out: &std::process::Output, expected: &str) {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains(expected), "{text}");
}

/// The memory this test process holds, in kB.
fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))?
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

/// An engine that writes an endless line, a flood of a million lines, binary garbage, or
/// closes its output and goes on running loses its game, and the arena's memory stays small.
#[test]
fn a_misbehaving_engine_cannot_take_the_runner_down() {
    let before = rss_kb();
    let cases = [
        ("yes x | tr -d '\\n'", Ending::Crash, "longer than 64 KB"),
        (
            "yes 'info depth 1 score 0 pv h2e2' | head -n 1000000; echo 'bestmove h2e2'",
            Ending::IllegalMove,
            "",
        ),
        ("head -c 200000 /dev/urandom; echo", Ending::Hang, "no answer"),
        ("exec 1>&-; sleep 3", Ending::Crash, "closed its output"),
    ];
    for (reply, ending, says) in cases {
        let m = game_against(scripted(reply), clock(4000, 0), 2);
        for p in m.run(1, |_| {}).unwrap() {
            let fault = p.record.fault.clone().unwrap_or_default();
            // The flood's move is legal only for the first player's first move.
            if ending == Ending::IllegalMove {
                assert!(p.record.ending == Ending::IllegalMove, "{reply}: {fault}");
            } else {
                assert_eq!(p.record.ending, ending, "{reply}: {fault}");
                assert!(fault.contains(says), "{reply}: {fault}");
            }
            assert_eq!(p.record.winner, Some(p.a_seat().flip()), "{reply}");
        }
    }
    let grown = rss_kb().saturating_sub(before);
    assert!(grown < 100_000, "the arena grew by {grown} kB");
}

/// An engine process plays game after game: a new game in it is the game a fresh process
/// would play (at fixed nodes, every repeat of a pairing is the same game), and a match
/// starts no more processes than it plays games at once.
#[test]
fn engine_processes_are_reused_between_games_without_changing_them() {
    let dir = std::env::temp_dir().join(format!("qitune-reuse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("starts");
    for threads in [1, 2] {
        let _ = std::fs::remove_file(&log);
        let engine = Agent::Outside(Arc::new(OutsideEngine {
            name: "qitune uci".into(),
            path: "/bin/sh".into(),
            args: vec![
                "-c".into(),
                format!("echo start >> '{}'; exec '{QITUNE}' engine", log.display()),
            ],
            protocol: Protocol::Uci,
            options: [("Hash".to_string(), serde_json::json!(1))].into_iter().collect(),
            provenance: Default::default(),
            dir: None,
        }));
        let games = 8;
        let played = game_against(engine, Budget::Nodes(400), games)
            .run(threads, |_| {})
            .unwrap();
        assert_eq!(played.len(), games);
        for p in &played[2..] {
            let first = &played[p.index % 2].record;
            assert_eq!(
                p.record.moves, first.moves,
                "{threads} threads: game {} differs",
                p.index
            );
            assert_eq!(
                p.record.scores, first.scores,
                "{threads} threads: game {}",
                p.index
            );
        }
        let starts = std::fs::read_to_string(&log).unwrap().lines().count();
        assert!(
            starts <= threads,
            "{threads} threads: {starts} processes for {games} games"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A schedule with an outside engine, played here and game by game through its plain-data
/// description (as an MPI rank plays it): the same records.
#[test]
fn outside_engines_survive_the_wire() {
    use qitune::arena::outside::Engines;
    use qitune::arena::wire::{RecordWire, ScheduleWire};
    use qitune::arena::{Fixture, Runner, Schedule};
    use qitune::game::Game;
    use qitune::params::Params;
    let budget = Budget::Nodes(300);
    let params = vec![Params::defaults(&XiangqiGame::specs()); 2];
    let players = [
        Player {
            agent: qitune_engine(Protocol::Uci),
            budget,
        },
        Player::weights(Default::default(), budget),
    ];
    let positions: Vec<Board> = (0..2).map(|s| XiangqiGame::random_opening(s, 4)).collect();
    let fixtures: Vec<Fixture> = (0..2).flat_map(|k| Fixture::pair(0, 1, k)).collect();
    let schedule = Schedule::<XiangqiGame> {
        players: &players,
        params: Some(&params),
        positions: &positions,
        fixtures: &fixtures,
        conditions: Conditions {
            max_plies: 60,
            ..Conditions::for_budget(budget)
        },
    };
    let local = schedule.run(&Runner::new(2).unwrap(), |_| {}).unwrap();
    let wire = ScheduleWire::of(&schedule).unwrap();
    let wire: ScheduleWire = serde_json::from_str(&serde_json::to_string(&wire).unwrap()).unwrap();
    let engines = Engines::new(1);
    for (i, record) in local.iter().enumerate() {
        let sent = wire.play::<XiangqiGame>(i, &engines).unwrap();
        let sent: RecordWire = serde_json::from_str(&serde_json::to_string(&sent).unwrap()).unwrap();
        let rebuilt = sent
            .record::<XiangqiGame>(&positions[fixtures[i].position])
            .unwrap();
        assert_eq!(&rebuilt, record, "game {i}");
    }
    // Without parameters for the game's own engine there is nothing to send.
    let unsendable = Schedule::<XiangqiGame> {
        params: None,
        ..schedule
    };
    assert!(ScheduleWire::of(&unsendable).is_none());
}

/// A reused engine process given other options plays its next game exactly as a fresh one
/// (and as the embedded engine) does. Before new games forgot the last search's root move
/// hint, this pair of games (found among 960 of an SPSA-like schedule) differed at ply 22.
#[test]
fn a_reused_engine_with_new_options_plays_as_a_fresh_one() {
    use qitune::arena::{Fixture, Runner, Schedule};
    use qitune::game::Game;
    use qitune::params::Params;
    use rand::{Rng, SeedableRng};
    let names = [
        "advisor",
        "elephant",
        "horse",
        "rook",
        "cannon",
        "pawn",
        "advisor_eg",
        "elephant_eg",
        "horse_eg",
        "rook_eg",
        "cannon_eg",
        "pawn_crossed_eg",
        "mobility_horse",
        "mobility_rook",
        "mobility_cannon",
        "hanging",
        "attacked_defended",
        "protected",
        "missing_advisor",
        "missing_elephant",
        "king_file_rook",
        "king_file_cannon",
        "palace_pressure",
        "linked_advisors",
        "linked_elephants",
        "tempo",
    ];
    let file = "examples/xiangqi-hand-set.json";
    let base = Params::load(
        std::path::Path::new(file),
        "xiangqi",
        &XiangqiGame::specs(),
        XiangqiGame::RETIRED,
    )
    .unwrap();
    // Players 766 to 769 of the schedule: each value 7% of its range up or down.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let params: Vec<Params> = (0..770)
        .map(|_| {
            let mut p = base.clone();
            for name in names {
                let i = p.index_of(name).unwrap();
                let s = &p.specs()[i];
                let step = ((s.max - s.min) as i64 * 7 / 100).max(1);
                let v = p.values()[i] as i64 + if rng.gen::<bool>() { step } else { -step };
                p.set(name, v.clamp(s.min as i64, s.max as i64)).unwrap();
            }
            p
        })
        .collect();
    let budget = Budget::Nodes(1000);
    let engine = OutsideEngine {
        name: "qitune".into(),
        path: QITUNE.into(),
        args: vec!["engine".into(), "--weights".into(), file.into()],
        protocol: Protocol::Uci,
        options: [("Hash".to_string(), serde_json::json!(1))].into_iter().collect(),
        provenance: Default::default(),
        dir: None,
    };
    let outside: Vec<Player<_>> = params
        .iter()
        .map(|p| {
            let mut e = engine.clone();
            for name in names {
                e.options
                    .insert(name.into(), serde_json::json!(p.get(name).unwrap()));
            }
            Player {
                agent: Agent::Outside(Arc::new(e)),
                budget,
            }
        })
        .collect();
    let embedded: Vec<Player<_>> = params
        .iter()
        .map(|p| Player::weights(XiangqiGame::weights(p).unwrap(), budget))
        .collect();
    let positions =
        qitune::arena::read_positions::<XiangqiGame>(std::path::Path::new("positions/xiangqi-train-a.epd"))
            .unwrap();
    let play = |players: &[Player<_>], fixtures: &[Fixture]| {
        Schedule::<XiangqiGame> {
            players,
            params: None,
            positions: &positions,
            fixtures,
            conditions: Conditions {
                max_plies: 240,
                ..Conditions::for_budget(budget)
            },
        }
        .run(&Runner::new(1).unwrap(), |_| {})
        .unwrap()
    };
    let earlier = Fixture {
        first: 767,
        second: 766,
        position: 383,
    };
    let target = Fixture {
        first: 768,
        second: 769,
        position: 384,
    };
    let reused = play(&outside, &[earlier, target]);
    let fresh = play(&embedded, &[target]);
    assert_eq!(reused[1].moves, fresh[0].moves);
}

#[test]
fn a_description_with_a_folder_reads_its_program_and_files_from_where_it_says() {
    // As scripts/sprt.sh writes them: a program path relative to the description, `dir` the
    // description's folder, a weight file there, and the description named by a relative
    // path from another folder.
    let root = std::env::temp_dir().join(format!("qitune-desc-dir-{}", std::process::id()));
    let (bin, desc) = (root.join("bin"), root.join("tests").join("one"));
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&desc).unwrap();
    std::os::unix::fs::symlink(QITUNE, bin.join("qitune")).unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/xiangqi-hand-set.json");
    std::fs::copy(shipped, desc.join("weights.json")).unwrap();
    std::fs::write(
        desc.join("engine.json"),
        r#"{"name": "one", "path": "../../bin/qitune", "args": ["engine", "--weights", "weights.json"],
            "dir": ".", "protocol": "uci", "options": {"Hash": 1}}"#,
    )
    .unwrap();
    let out = Command::new(QITUNE)
        .current_dir(&root)
        .args(["match", "--a", "tests/one/engine.json", "--b", "default"])
        .args(["--games", "2", "--nodes", "300"])
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&root);
    assert_played(&out, "2 games");
}
