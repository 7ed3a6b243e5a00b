//! The Game of the Amazons in the arena: the trait implementation and one game between two
//! engines.

use super::{Adjudication, Budget, Ending, Game, GameRecord, Player};
use crate::amazons::eval::Weights;
use crate::amazons::search::{alphabeta, random_position, uct, UctConfig};
use crate::amazons::{Board, Move, Side};
use crate::params::{Params, Spec};
use crate::xiangqi::Color;

/// The Game of the Amazons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AmazonsGame;

impl Game for AmazonsGame {
    type Board = Board;
    type Move = Move;
    type Weights = Weights;
    const NAME: &'static str = crate::amazons::eval::GAME;
    const PGN_GAME: &'static str = "Amazons";

    fn specs() -> &'static [Spec] {
        crate::amazons::eval::specs()
    }

    fn weights(params: &Params) -> Self::Weights {
        Weights::new(params)
    }

    fn parse_position(text: &str) -> Result<Self::Board, String> {
        Board::from_fen(text).map_err(|e| e.to_string())
    }

    fn fen(board: &Self::Board) -> String {
        board.fen()
    }

    fn random_opening(seed: u64, plies: usize) -> Self::Board {
        use rand::SeedableRng;
        let plies = plies.min(u32::MAX as usize) as u32;
        random_position(plies, &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed))
    }

    fn play(
        start: &Self::Board,
        first: &Player<Self::Weights>,
        second: &Player<Self::Weights>,
        max_plies: usize,
        adjudication: &Adjudication,
        _tt_mb: usize,
    ) -> GameRecord<Self::Move> {
        play(start, first, second, max_plies, adjudication)
    }
}

/// Alpha-beta's width when a depth budget asks for it.
const ALPHABETA_WIDTH: usize = 24;

/// Plays a game from `start`: White is `first`. A node budget gives UCT that many playouts a
/// move, a depth budget gives alpha-beta that depth; a clock budget is not supported and
/// plays as 1,000 playouts. The side to move with no move loses.
pub fn play(
    start: &Board,
    first: &Player<Weights>,
    second: &Player<Weights>,
    max_plies: usize,
    adjudication: &Adjudication,
) -> GameRecord<Move> {
    let players = [first, second];
    let mut board = start.clone();
    let fen = board.fen();
    // Per-game seed for UCT, from the start position, so that games depend only on inputs.
    let game_seed = fen.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    let mut record = GameRecord::new(fen);
    let seat = |s: Side| {
        if s == Side::White {
            Color::Red
        } else {
            Color::Black
        }
    };
    loop {
        if !board.has_move() {
            record.winner = Some(seat(board.turn().flip()));
            record.ending = Ending::NoMove;
            break;
        }
        if record.moves.len() >= max_plies {
            break;
        }
        let i = board.turn().index();
        let player = players[i];
        // Moves played so far in the game, whatever the opening: one arrow each.
        let plies = board.arrows().count_ones();
        let (mv, score, nodes) = match player.budget {
            Budget::Depth(d) => {
                let (mv, v) = alphabeta(&mut board.clone(), plies, &player.weights, d, ALPHABETA_WIDTH);
                (mv, (v * 100.0) as i32, 0)
            }
            Budget::Nodes(n) => uct_move(&board, plies, &player.weights, n, game_seed),
            Budget::Clock { .. } => uct_move(&board, plies, &player.weights, 1000, game_seed),
        };
        record.nodes[i] += nodes;
        let Some(mv) = mv.filter(|&m| board.is_legal(m)) else {
            record.winner = Some(seat(board.turn().flip()));
            record.ending = Ending::IllegalMove;
            break;
        };
        board.play(mv);
        record.moves.push(mv);
        record.scores.push(score);
        if let Some((winner, ending)) = adjudication.judge(&record, Color::Red) {
            record.winner = winner;
            record.ending = ending;
            break;
        }
    }
    record
}

fn uct_move(
    board: &Board,
    plies: u32,
    weights: &Weights,
    playouts: u64,
    game_seed: u64,
) -> (Option<Move>, i32, u64) {
    let playouts = playouts.clamp(1, u32::MAX as u64) as u32;
    let config = UctConfig {
        playouts,
        ..UctConfig::default()
    };
    let r = uct(board, plies, weights, &config, game_seed ^ plies as u64);
    // The expected result as a score: 0.5 is level, +-1000 certain.
    (r.best, ((r.value - 0.5) * 2000.0) as i32, playouts as u64)
}
