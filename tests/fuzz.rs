//! Fuzzing of every parser a user or a GUI feeds: Xiangqi and Amazons FEN and moves, weight
//! files, run configurations and whole UCCI/UCI sessions. Inputs are valid ones mutated byte
//! by byte (where the bugs live) and arbitrary text; the checks are that nothing panics, that
//! what is accepted is consistent (a FEN read back is the same board), that every `isready`
//! is answered, and that every move the engine gives is legal in the position it was given.
//!
//! A quick slice runs in `cargo test`. The long campaign sets the cases per property:
//! `QITUNE_FUZZ_CASES=20000 cargo test --test fuzz` (the test profile keeps overflow checks on,
//! which is where the Amazons square parser was caught).

use proptest::prelude::*;
use qitune::amazons;
use qitune::params::{Params, WeightFile};
use qitune::tune::config::Config;
use qitune::xiangqi::eval::Weights;
use qitune::xiangqi::protocol::Engine;
use qitune::xiangqi::{Board, Move, Xiangqi};
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Cases per property: a quick slice by default, the long campaign from the environment.
fn cases(quick: u32) -> u32 {
    std::env::var("QITUNE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(quick)
}

/// Some text mutated: bytes replaced, inserted, deleted or duplicated, drawn from the text's
/// own alphabet and a few troublemakers.
fn mutate(text: &str, seed: u64, edits: usize) -> String {
    const EXTRA: &[u8] = b" /-0123456789abkrnpcKRNPCwbx\t\"{}[],:.e+\\\x00\xff";
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..edits {
        let at = rng.gen_range(0..=bytes.len());
        let byte = if rng.gen_bool(0.5) && !bytes.is_empty() {
            bytes[rng.gen_range(0..bytes.len())]
        } else {
            EXTRA[rng.gen_range(0..EXTRA.len())]
        };
        match rng.gen_range(0..4) {
            0 if at < bytes.len() => bytes[at] = byte,
            1 => bytes.insert(at, byte),
            2 if at < bytes.len() => {
                bytes.remove(at);
            }
            _ => {
                let end = (at + rng.gen_range(1..8)).min(bytes.len());
                let piece = bytes[at..end].to_vec();
                bytes.splice(at..at, piece);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A Xiangqi position reached by random legal moves from the start.
fn xiangqi_position(seed: u64, plies: usize) -> (Xiangqi, Vec<String>) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut game = Xiangqi::new();
    let mut played = Vec::new();
    for _ in 0..plies {
        let moves = game.board().legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv = moves.as_slice()[rng.gen_range(0..moves.len())];
        game.play_iccs(&mv.to_string()).unwrap();
        played.push(mv.to_string());
    }
    (game, played)
}

fn amazons_position(seed: u64, plies: usize) -> amazons::Board {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut board = amazons::Board::startpos();
    for _ in 0..plies {
        let moves = board.legal_moves();
        if moves.is_empty() {
            break;
        }
        board.play(moves[rng.gen_range(0..moves.len())]);
    }
    board
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(512)))]

    #[test]
    fn xiangqi_fens_read_back_as_the_same_board(seed in any::<u64>(), plies in 0usize..80, edits in 0usize..6) {
        let (game, _) = xiangqi_position(seed, plies);
        let text = mutate(&game.board().fen(), seed, edits);
        if let Ok(board) = Board::from_fen(&text) {
            let again = Board::from_fen(&board.fen()).expect("a board's own FEN is accepted");
            prop_assert_eq!(again.fen(), board.fen());
            // The board is fit to play on: every generated move can be made and unmade.
            let mut b = board.clone();
            for &mv in b.clone().legal_moves().as_slice() {
                let undo = b.make(mv);
                b.unmake(mv, undo);
            }
            prop_assert_eq!(b.fen(), board.fen());
        }
    }

    #[test]
    fn iccs_moves_are_read_or_refused(text in "[a-j0-9xX -]{0,6}|\\PC{0,6}", seed in any::<u64>(), plies in 0usize..60) {
        let (game, _) = xiangqi_position(seed, plies);
        if let Ok(mv) = Move::parse_iccs(&text) {
            prop_assert_eq!(Move::parse_iccs(&mv.to_string()).unwrap(), mv);
        }
        if let Ok(mv) = game.board().parse_move(&text) {
            prop_assert!(game.board().is_legal(mv), "{} accepted but not legal", text);
        }
    }

    #[test]
    fn amazons_fens_and_moves_are_read_or_refused(seed in any::<u64>(), plies in 0usize..40, edits in 0usize..6, text in "\\PC{0,12}") {
        let board = amazons_position(seed, plies);
        let fen = mutate(&board.fen(), seed, edits);
        if let Ok(b) = amazons::Board::from_fen(&fen) {
            prop_assert_eq!(amazons::Board::from_fen(&b.fen()).unwrap().fen(), b.fen());
            let _ = b.legal_moves();
        }
        let moves = board.legal_moves();
        let good = moves.first().map(|m| m.to_string()).unwrap_or_default();
        for candidate in [text.clone(), mutate(&good, seed, edits)] {
            if let Ok(mv) = board.parse_move(&candidate) {
                prop_assert!(board.is_legal(mv), "{} accepted but not legal", candidate);
            }
        }
    }

    #[test]
    fn weight_files_are_read_or_refused(seed in any::<u64>(), edits in 1usize..8) {
        let specs = qitune::games::specs_for("xiangqi").unwrap();
        let good = std::fs::read_to_string("examples/xiangqi-hand-set.json").unwrap();
        let text = mutate(&good, seed, edits);
        if let Ok(file) = serde_json::from_str::<WeightFile>(&text) {
            if let Ok(params) = Params::from_weight_file(&file, "xiangqi", &specs, &[]) {
                for (spec, &v) in specs.iter().zip(params.values()) {
                    prop_assert!(spec.min <= v && v <= spec.max, "{} = {}", spec.name, v);
                }
                prop_assert!(Weights::new(&params).is_ok());
            }
        }
    }

    #[test]
    fn run_configurations_are_read_or_refused(seed in any::<u64>(), edits in 1usize..8, which in 0usize..4) {
        let name = ["xiangqi-ga-random", "xiangqi-paper", "xiangqi-hand-set", "amazons-quick"][which];
        let good = std::fs::read_to_string(format!("configs/{name}.json")).unwrap();
        let text = mutate(&good, seed, edits);
        if let Ok(config) = serde_json::from_str::<Config>(&text) {
            if let Some(specs) = qitune::games::specs_for(&config.game) {
                let _ = qitune::tune::methods::validate(&config, std::path::Path::new("configs"), &specs);
            }
        }
    }
}

/// Collects what the engine says.
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One line of a GUI's session.
fn session_line(rng: &mut rand_chacha::ChaCha8Rng) -> String {
    match rng.gen_range(0..10) {
        // A position, mostly good, sometimes mutated: the test keeps its own reading of it.
        0..=3 => {
            let (game, moves) = xiangqi_position(rng.gen(), rng.gen_range(0..30));
            let mut line = if rng.gen_bool(0.5) {
                format!("position startpos moves {}", moves.join(" "))
            } else {
                format!("position fen {}", game.board().fen())
            };
            if rng.gen_bool(0.3) {
                line = mutate(&line, rng.gen(), rng.gen_range(1..4));
            }
            line
        }
        4..=5 if rng.gen_bool(0.5) => format!("go depth {}", rng.gen_range(1..4)),
        4..=5 => format!("go nodes {}", rng.gen_range(100..3000)),
        6 => "isready".to_string(),
        7 => "stop".to_string(),
        8 => [
            "setoption name Hash value 2",
            "setoption hashsize 1",
            "setoption name Threads value 2",
            "setoption threads 1",
            "ucinewgame",
            "setoption newgame",
            "probe",
            "banmoves",
        ][rng.gen_range(0..8)]
        .to_string(),
        _ => mutate("go depth 2 isready position startpos setoption", rng.gen(), 6),
    }
}

/// Whether a `go` line is one of the generator's own (`go depth N`, `go nodes N`).
fn well_formed_go(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    matches!(words.as_slice(), ["go", "depth" | "nodes", n] if n.parse::<u32>().is_ok_and(|n| n > 0))
}

/// The position a `position` line sets, read the way the protocols define it.
fn read_position(line: &str) -> Option<Xiangqi> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.first() != Some(&"position") {
        return None;
    }
    let args = &words[1..];
    let moves_at = args.iter().position(|w| *w == "moves").unwrap_or(args.len());
    let (setup, moves) = (&args[..moves_at], args.get(moves_at + 1..).unwrap_or(&[]));
    let mut game = match setup {
        ["startpos"] => Xiangqi::new(),
        ["fen", fen @ ..] if !fen.is_empty() => Xiangqi::from_fen(&fen.join(" ")).ok()?,
        _ => return None,
    };
    for mv in moves {
        game.play_iccs(mv).ok()?;
    }
    Some(game)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]

    /// Whole sessions: every `isready` is answered, every `go` gets exactly one answer, and
    /// that answer is a legal move of the position in force when the `go` came, or no move
    /// when there was none (a rejected position, or no legal move).
    #[test]
    fn engine_sessions_answer_every_go_with_a_legal_move(seed in any::<u64>(), uci in any::<bool>(), length in 1usize..14) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut current = Some(Xiangqi::new());
        let mut script = vec![if uci { "uci" } else { "ucci" }.to_string()];
        // Each `go`: the position in force, and whether the line was one the generator wrote
        // whole (a mangled `go` may be refused with no move).
        let mut asked: Vec<(Option<Xiangqi>, bool)> = Vec::new();
        let mut readies = 0;
        for _ in 0..length {
            let line = session_line(&mut rng);
            let first = line.split_whitespace().next().unwrap_or("");
            match first {
                "go" => asked.push((current.clone(), well_formed_go(&line))),
                "isready" => readies += 1,
                // A mangled line that is still a position command changes the position.
                "position" => current = read_position(&line),
                _ => {}
            }
            script.push(line);
        }
        script.push("isready".to_string());
        readies += 1;
        let sink = Sink::default();
        let mut engine = Engine::new(sink.clone(), Params::defaults(&qitune::xiangqi::eval::specs())).unwrap();
        engine.run(std::io::Cursor::new(script.join("\n") + "\n"));
        let out = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        let answers: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with("bestmove") || *l == "nobestmove")
            .collect();
        prop_assert_eq!(out.lines().filter(|l| *l == "readyok").count(), readies, "{}\n---\n{}", script.join("\n"), out);
        prop_assert_eq!(answers.len(), asked.len(), "{}\n---\n{}", script.join("\n"), out);
        for (answer, (position, well_formed)) in answers.iter().zip(&asked) {
            let mv = answer.split_whitespace().nth(1).filter(|m| *m != "(none)");
            match (position, mv) {
                (Some(_), None) if !well_formed => {}
                (Some(game), Some(mv)) => {
                    let parsed = game.board().parse_move(mv);
                    prop_assert!(parsed.is_ok(), "{} is not legal in {}\n{}\n---\n{}", mv, game.board().fen(), script.join("\n"), out);
                }
                (Some(game), None) => prop_assert!(!game.board().has_legal_move(), "no move in {}\n{}\n---\n{}", game.board().fen(), script.join("\n"), out),
                (None, Some(mv)) => prop_assert!(false, "{} answered with no position\n{}\n---\n{}", mv, script.join("\n"), out),
                (None, None) => {}
            }
        }
    }
}
