//! Xiangqi in the arena: the trait implementation and one game between two searchers.

use super::{Adjudication, Budget, Ending, Game, GameRecord, Player};
use crate::params::{Params, Spec};
use crate::xiangqi::search::{Limits, Searcher};
use crate::xiangqi::time::TimeControl;
use crate::xiangqi::{Board, Xiangqi};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};

/// Xiangqi, the main game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XiangqiGame;

impl Game for XiangqiGame {
    type Board = crate::xiangqi::Board;
    type Move = crate::xiangqi::Move;
    type Weights = crate::xiangqi::eval::Weights;
    const NAME: &'static str = crate::xiangqi::eval::GAME;
    const PGN_GAME: &'static str = "Chinese Chess";
    const PGN_FORMAT: Option<&'static str> = Some("ICCS");

    fn specs() -> &'static [Spec] {
        crate::xiangqi::eval::specs()
    }

    fn weights(params: &Params) -> Self::Weights {
        crate::xiangqi::eval::Weights::new(params)
    }

    fn named_player(name: &str) -> Option<Self::Weights> {
        (name == "material")
            .then(|| crate::xiangqi::eval::Weights::new(&crate::xiangqi::eval::material_only_params()))
    }

    fn parse_position(text: &str) -> Result<Self::Board, String> {
        // EPD lines carry opcodes after the side to move: fall back to the first two fields.
        crate::xiangqi::Board::from_fen(text)
            .or_else(|e| {
                let fields: Vec<&str> = text.split_whitespace().take(2).collect();
                crate::xiangqi::Board::from_fen(&fields.join(" ")).map_err(|_| e)
            })
            .map_err(|e| e.to_string())
    }

    fn fen(board: &Self::Board) -> String {
        board.fen()
    }

    fn random_opening(seed: u64, plies: usize) -> Self::Board {
        random_opening(seed, plies)
    }

    fn play(
        start: &Self::Board,
        first: &Player<Self::Weights>,
        second: &Player<Self::Weights>,
        max_plies: usize,
        adjudication: &Adjudication,
        tt_mb: usize,
    ) -> GameRecord<Self::Move> {
        play(start, first, second, max_plies, adjudication, tt_mb)
    }
}

/// Seeded random plies from the start position: a different, reproducible opening per pair
/// when no position file is given.
pub fn random_opening(seed: u64, plies: usize) -> Board {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut board = Board::startpos();
    for _ in 0..plies {
        let moves = board.legal_moves();
        if moves.is_empty() {
            break;
        }
        board.make(moves[rng.gen_range(0..moves.len())]);
    }
    board
}

/// Plays a game from `start` between `red` and `black`; each gets a fresh search state, so
/// a game depends only on its inputs. Draws at `max_plies` if nothing ends it before.
pub fn play(
    start: &Board,
    red: &Player,
    black: &Player,
    max_plies: usize,
    adjudication: &Adjudication,
    tt_mb: usize,
) -> GameRecord {
    let players = [red, black];
    let mut searchers = players.map(|p| Searcher::new(p.weights.clone(), tt_mb));
    let mut game = Xiangqi::from_board(start.clone());
    let mut clocks = players.map(|p| match p.budget {
        Budget::Clock { base, .. } => base,
        _ => Duration::ZERO,
    });
    let mut record = GameRecord::new(start.fen());
    loop {
        if let Some(outcome) = game.outcome() {
            record.winner = outcome.winner;
            record.ending = Ending::Rules(outcome.termination);
            break;
        }
        if game.ply() >= max_plies {
            break;
        }
        let side = game.board().turn();
        let i = side.index();
        let limits = match players[i].budget {
            Budget::Nodes(n) => Limits::nodes(n),
            Budget::Depth(d) => Limits::depth(d),
            Budget::Clock { increment, .. } => Limits {
                time: Some(TimeControl::Clock {
                    left: clocks[i],
                    increment,
                    moves_to_go: None,
                }),
                ..Limits::default()
            },
        };
        let started = Instant::now();
        let result = searchers[i].search(&game, &limits, |_| {});
        let used = started.elapsed();
        record.nodes[i] += result.nodes;
        if let Budget::Clock { increment, .. } = players[i].budget {
            let budget = limits
                .time
                .map(|t| crate::xiangqi::time::TimeManager::new(t).expected())
                .unwrap_or_default();
            record.move_times.push((used, budget));
            if used > clocks[i] {
                record.winner = Some(side.flip());
                record.ending = Ending::Time;
                break;
            }
            clocks[i] = clocks[i] - used + increment;
        }
        // The arena trusts no engine: every move is checked against the rules.
        let Some(mv) = result.best.filter(|&m| game.board().is_legal(m)) else {
            record.winner = Some(side.flip());
            record.ending = Ending::IllegalMove;
            break;
        };
        game.play(mv);
        record.moves.push(mv);
        record.scores.push(result.score);
        if let Some((winner, ending)) = adjudication.judge(&record, start.turn()) {
            // The rules come first: a mate or a repetition ruling on this move stands.
            if game.outcome().is_none() {
                record.winner = winner;
                record.ending = ending;
                break;
            }
        }
    }
    record
}
