//! The Game of the Amazons in the arena and the GA: the [`Game`] implementation over the
//! board, UCT and alpha-beta.

use super::eval::Weights;
use super::search::{alphabeta, random_position, uct_in, AbLimits, Tree, UctConfig};
use super::{Board, Move, Side};
use crate::game::{Engine, Game, Limit, Seat, Thought, Verdict};
use crate::params::{Params, Specs};
use std::time::{Duration, Instant};

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
    /// Alpha-beta looks at 24 moves a node: depth 6 already takes minutes a move.
    const MAX_DEPTH: u32 = 6;

    fn specs() -> Specs {
        super::eval::specs()
    }

    fn weights(params: &Params) -> Result<Weights, crate::params::WeightFileError> {
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
            tree: Tree::default(),
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

/// Alpha-beta's moves a node below the root (the best by the cheap ordering, after the
/// table's move).
const ALPHABETA_WIDTH: usize = 24;
/// Alpha-beta's moves at the root (the best by the evaluation after them).
const ALPHABETA_ROOT_WIDTH: usize = 64;

/// Plies an Amazons game lasts at most: one arrow a ply on the 92 free points.
const MAX_GAME_PLIES: u32 = 92;

/// The time to spend on a move with `left` on the clock: an even share over the mover's
/// moves still to come (a quarter of the free points, at least 5: games end when the
/// territories are sealed, well before the board is full), plus most of the increment, never
/// more than what is left less a reserve for the arena's own work.
pub fn move_time(left: Duration, increment: Duration, plies_played: u32) -> Duration {
    let reserve = Duration::from_millis(20) + left / 20;
    let usable = left.saturating_sub(reserve);
    let moves_left = (MAX_GAME_PLIES.saturating_sub(plies_played) / 4).max(5);
    (usable / moves_left + increment * 4 / 5).min(usable + increment / 2)
}

/// The Amazons player of the arena: UCT, or alpha-beta when the weights' `search_alphabeta`
/// knob says so. A node limit gives UCT that many playouts and alpha-beta that many nodes; a
/// depth limit always gives alpha-beta; a clock gives either a deadline ([`move_time`]).
#[derive(Clone, Debug)]
pub struct AmazonsEngine {
    weights: Weights,
    seed: u64,
    /// UCT's tree from the previous move; the next search goes on from it under the
    /// `search_tree_reuse` knob.
    tree: Tree,
}

impl Engine<AmazonsGame> for AmazonsEngine {
    fn think(&mut self, board: &Board, limit: Limit) -> Thought<Move> {
        let started = Instant::now();
        // Moves played so far in the game, whatever the opening: one arrow each.
        let plies = board.arrows().count_ones();
        let (budget, deadline, planned) = match limit {
            Limit::Nodes(n) => (n, None, None),
            Limit::Depth(_) => (u64::MAX, None, None),
            Limit::Clock { left, increment } => {
                let t = move_time(left, increment, plies);
                (u64::MAX, Some(started + t), Some(t))
            }
        };
        let (best, score, nodes, depth) = match limit {
            Limit::Depth(d) => self.alphabeta(board, plies, d, budget, deadline),
            _ if self.weights.knobs.alphabeta => self.alphabeta(board, plies, 64, budget, deadline),
            _ => {
                let playouts = budget.clamp(1, u32::MAX as u64) as u32;
                let config = UctConfig {
                    deadline,
                    ..UctConfig::of(&self.weights, playouts)
                };
                let r = uct_in(
                    &mut self.tree,
                    board,
                    plies,
                    &self.weights,
                    &config,
                    self.seed ^ plies as u64,
                );
                // The expected result as a score: 0.5 is level, +-1000 certain.
                (r.best, ((r.value - 0.5) * 2000.0) as i32, r.playouts as u64, 0)
            }
        };
        Thought {
            best,
            score,
            nodes,
            depth,
            planned,
        }
    }
}

impl AmazonsEngine {
    fn alphabeta(
        &self,
        board: &Board,
        plies: u32,
        depth: u32,
        nodes: u64,
        deadline: Option<Instant>,
    ) -> (Option<Move>, i32, u64, u32) {
        let limits = AbLimits {
            depth,
            nodes,
            deadline,
            width: ALPHABETA_WIDTH,
            root_width: ALPHABETA_ROOT_WIDTH,
        };
        let r = alphabeta(board, plies, &self.weights, limits);
        (r.best, (r.value * 100.0) as i32, r.nodes, r.depth)
    }
}
