//! What the arena and the GA need of a game, so that one arena and one GA serve Xiangqi and
//! the Game of the Amazons alike.

use crate::arena::game::{Adjudication, GameRecord, Player};
use crate::params::{Params, Spec};
use std::fmt::{Debug, Display};

/// The tunable parameters of the game called `name`, if qitune knows it.
pub fn specs_for(name: &str) -> Option<&'static [Spec]> {
    match name {
        n if n == XiangqiGame::NAME => Some(XiangqiGame::specs()),
        n if n == AmazonsGame::NAME => Some(AmazonsGame::specs()),
        _ => None,
    }
}

/// A game the arena can play and the GA can tune.
pub trait Game: Send + Sync + 'static {
    type Board: Clone + Send + Sync + PartialEq + Debug;
    type Move: Copy + Eq + Display + Debug + Send + Sync;
    /// Compiled evaluation (and search) weights.
    type Weights: Clone + Send + Sync + Debug;
    /// The name in weight files, configurations and `--game`.
    const NAME: &'static str;
    /// The tunable parameters, in order.
    fn specs() -> &'static [Spec];
    fn weights(params: &Params) -> Self::Weights;
    /// Built-in players besides `default` and `random:SEED` (Xiangqi: `material`).
    fn named_player(_name: &str) -> Option<Self::Weights> {
        None
    }
    /// Reads one position (a line of a position file).
    fn parse_position(text: &str) -> Result<Self::Board, String>;
    fn fen(board: &Self::Board) -> String;
    /// The start position after `plies` random moves drawn from `seed`.
    fn random_opening(seed: u64, plies: usize) -> Self::Board;
    /// Plays one game; the first player has the side that moves first in the game (Red, White).
    fn play(
        start: &Self::Board,
        first: &Player<Self::Weights>,
        second: &Player<Self::Weights>,
        max_plies: usize,
        adjudication: &Adjudication,
        tt_mb: usize,
    ) -> GameRecord<Self::Move>;
}

/// Xiangqi, the main game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XiangqiGame;

impl Game for XiangqiGame {
    type Board = crate::xiangqi::Board;
    type Move = crate::xiangqi::Move;
    type Weights = crate::xiangqi::eval::Weights;
    const NAME: &'static str = crate::xiangqi::eval::GAME;

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
        crate::arena::random_opening(seed, plies)
    }

    fn play(
        start: &Self::Board,
        first: &Player<Self::Weights>,
        second: &Player<Self::Weights>,
        max_plies: usize,
        adjudication: &Adjudication,
        tt_mb: usize,
    ) -> GameRecord<Self::Move> {
        crate::arena::game::play(start, first, second, max_plies, adjudication, tt_mb)
    }
}

/// The Game of the Amazons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AmazonsGame;

impl Game for AmazonsGame {
    type Board = crate::amazons::Board;
    type Move = crate::amazons::Move;
    type Weights = crate::amazons::eval::Weights;
    const NAME: &'static str = crate::amazons::eval::GAME;

    fn specs() -> &'static [Spec] {
        crate::amazons::eval::specs()
    }

    fn weights(params: &Params) -> Self::Weights {
        crate::amazons::eval::Weights::new(params)
    }

    fn parse_position(text: &str) -> Result<Self::Board, String> {
        crate::amazons::Board::from_fen(text).map_err(|e| e.to_string())
    }

    fn fen(board: &Self::Board) -> String {
        board.fen()
    }

    fn random_opening(seed: u64, plies: usize) -> Self::Board {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut board = crate::amazons::Board::startpos();
        for _ in 0..plies {
            match crate::amazons::search::random_move(&board, &mut rng) {
                Some(m) => board.play(m),
                None => break,
            }
        }
        board
    }

    fn play(
        start: &Self::Board,
        first: &Player<Self::Weights>,
        second: &Player<Self::Weights>,
        max_plies: usize,
        adjudication: &Adjudication,
        _tt_mb: usize,
    ) -> GameRecord<Self::Move> {
        crate::amazons::play::play(start, first, second, max_plies, adjudication)
    }
}
