//! The Game of the Amazons in the arena and the GA: the [`Game`] implementation over the
//! board, UCT and alpha-beta.

use super::eval::Weights;
use super::search::{alphabeta, random_position, uct, UctConfig};
use super::{Board, Move, Side};
use crate::game::{Engine, Game, Limit, Seat, Thought, Verdict};
use crate::params::{Params, Spec};

/// The Game of the Amazons. White has the first seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AmazonsGame;

impl Game for AmazonsGame {
    type Board = Board;
    type Move = Move;
    type Weights = Weights;
    type State = Board;
    type Engine = AmazonsEngine;
    const NAME: &'static str = super::eval::GAME;
    const PGN_GAME: &'static str = "Amazons";
    const SEATS: [&'static str; 2] = ["White", "Black"];

    fn specs() -> &'static [Spec] {
        super::eval::specs()
    }

    fn weights(params: &Params) -> Weights {
        Weights::new(params)
    }

    fn describe(name: &str) -> String {
        super::eval::describe(name)
    }

    type PositionError = super::AmazonsError;

    fn parse_position(text: &str) -> Result<Board, super::AmazonsError> {
        Board::from_fen(text)
    }

    fn fen(board: &Board) -> String {
        board.fen()
    }

    fn random_opening(seed: u64, plies: usize) -> Board {
        use rand::SeedableRng;
        let plies = plies.min(u32::MAX as usize) as u32;
        random_position(plies, &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed))
    }

    fn start(board: &Board) -> Board {
        board.clone()
    }

    fn board(state: &Board) -> &Board {
        state
    }

    fn to_move(board: &Board) -> Seat {
        seat(board.turn())
    }

    fn verdict(state: &Board) -> Option<Verdict> {
        // The side to move with no move loses.
        (!state.has_move()).then(|| Verdict {
            winner: Some(seat(state.turn().flip())),
            reason: "no move",
        })
    }

    fn is_legal(state: &Board, mv: Move) -> bool {
        state.is_legal(mv)
    }

    fn play(state: &mut Board, mv: Move) {
        state.play(mv);
    }

    fn parse_move(state: &Board, text: &str) -> Option<Move> {
        state.parse_move(text).ok()
    }

    fn engine(weights: &Weights, _tt_mb: usize, start: &Board) -> AmazonsEngine {
        // Per-game seed for UCT, from the start position, so that games depend only on inputs.
        let seed = start.fen().bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        AmazonsEngine {
            weights: weights.clone(),
            seed,
        }
    }
}

/// White has the first seat.
pub fn seat(side: Side) -> Seat {
    match side {
        Side::White => Seat::First,
        Side::Black => Seat::Second,
    }
}

/// Alpha-beta's width when a depth budget asks for it.
const ALPHABETA_WIDTH: usize = 24;

/// The Amazons player of the arena: a node limit gives UCT that many playouts a move, a depth
/// limit gives alpha-beta that depth; a clock is not supported and plays as 1,000 playouts.
#[derive(Clone, Debug)]
pub struct AmazonsEngine {
    weights: Weights,
    seed: u64,
}

impl Engine<AmazonsGame> for AmazonsEngine {
    fn think(&mut self, board: &Board, limit: Limit) -> Thought<Move> {
        // Moves played so far in the game, whatever the opening: one arrow each.
        let plies = board.arrows().count_ones();
        let (best, score, nodes) = match limit {
            Limit::Depth(d) => {
                let (mv, v) = alphabeta(&mut board.clone(), plies, &self.weights, d, ALPHABETA_WIDTH);
                (mv, (v * 100.0) as i32, 0)
            }
            Limit::Nodes(n) => self.uct(board, plies, n),
            Limit::Clock { .. } => self.uct(board, plies, 1000),
        };
        Thought {
            best,
            score,
            nodes,
            depth: 0,
            planned: None,
        }
    }
}

impl AmazonsEngine {
    fn uct(&self, board: &Board, plies: u32, playouts: u64) -> (Option<Move>, i32, u64) {
        let playouts = playouts.clamp(1, u32::MAX as u64) as u32;
        let config = UctConfig {
            playouts,
            ..UctConfig::default()
        };
        let r = uct(board, plies, &self.weights, &config, self.seed ^ plies as u64);
        // The expected result as a score: 0.5 is level, +-1000 certain.
        (r.best, ((r.value - 0.5) * 2000.0) as i32, playouts as u64)
    }
}
