//! What the arena and the GA need of a game, so that one arena and one GA serve Xiangqi and
//! the Game of the Amazons alike: the `Game` trait, and what a played game is made of
//! (budgets, players, records, endings, adjudication). Each game's play loop and trait
//! implementation live in a submodule.

mod amazons;
mod xiangqi;

pub use amazons::AmazonsGame;
pub use xiangqi::XiangqiGame;

use crate::params::{Params, Spec};
use crate::xiangqi::eval::Weights;
use crate::xiangqi::{Color, Move, Termination};
use serde::Serialize;
use std::fmt::{Debug, Display};
use std::time::Duration;

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
    /// The PGN `Game` tag.
    const PGN_GAME: &'static str;
    /// The PGN `Format` tag (the move notation), if the game's tools name one.
    const PGN_FORMAT: Option<&'static str> = None;
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

/// How much a player may think per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// A fixed number of nodes per move (deterministic).
    Nodes(u64),
    /// A fixed depth per move (deterministic).
    Depth(u32),
    /// A real clock: base time per game and an increment per move.
    Clock { base: Duration, increment: Duration },
}

impl Budget {
    /// A transposition table size (MiB) that suits the budget: small searches gain nothing
    /// from a big table, and many games run at once.
    pub fn tt_mb(&self) -> usize {
        match *self {
            Budget::Nodes(n) => (n / 50_000).clamp(1, 64) as usize,
            Budget::Depth(d) => (1usize << d.saturating_sub(6).min(6)).clamp(1, 64),
            Budget::Clock { base, .. } => (base.as_secs() as usize).clamp(4, 64),
        }
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    /// A ruling of the game's rules.
    Rules(Termination),
    /// The ply cap was reached: a draw by adjudication.
    PlyCap,
    /// The loser's clock ran out.
    Time,
    /// The loser's engine gave no legal move (a bug; the arena never trusts an engine).
    IllegalMove,
    /// Adjudicated: both engines agreed the loser was lost.
    Resignation,
    /// Adjudicated: both engines agreed the game was level.
    AgreedDraw,
    /// The loser had no move (the Game of the Amazons).
    NoMove,
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ending::Rules(t) => write!(f, "{t}"),
            Ending::PlyCap => f.write_str("ply cap"),
            Ending::Time => f.write_str("time forfeit"),
            Ending::IllegalMove => f.write_str("illegal move"),
            Ending::Resignation => f.write_str("adjudicated loss"),
            Ending::AgreedDraw => f.write_str("adjudicated draw"),
            Ending::NoMove => f.write_str("no move"),
        }
    }
}

/// Everything about one finished game. `Color::Red` stands for the first player's side in
/// any game (White in Amazons).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord<M = Move> {
    pub start_fen: String,
    pub moves: Vec<M>,
    /// The winner, or `None` for a draw.
    pub winner: Option<Color>,
    pub ending: Ending,
    /// Nodes searched by Red and by Black.
    pub nodes: [u64; 2],
    /// The mover's search score for each move, from the mover's point of view.
    pub scores: Vec<i32>,
    /// For clock games: (time used, time budgeted by the engine's Et) per move, in order.
    pub move_times: Vec<(Duration, Duration)>,
}

/// Optional early ends by agreement of the engines' scores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    /// (score, moves): a side loses when, for the last `moves` moves of each side, both
    /// engines' scores put it behind by at least `score`.
    pub resign: Option<(i32, usize)>,
    /// (score, moves, ply): after `ply`, a draw when for the last `moves` moves of each side
    /// every score is within `score` of zero.
    pub draw: Option<(i32, usize, usize)>,
}

impl Adjudication {
    /// The adjudicated outcome after the moves in `record`, if any; `start` moved first.
    pub fn judge<M>(&self, record: &GameRecord<M>, start: Color) -> Option<(Option<Color>, Ending)> {
        let n = record.scores.len();
        // Scores turned to Red's point of view; ply i was played by `start` when i is even.
        let red_view = |i: usize| {
            let mover = if i % 2 == 0 { start } else { start.flip() };
            mover.sign() * record.scores[i]
        };
        if let Some((margin, moves)) = self.resign {
            let k = 2 * moves;
            if moves > 0 && n >= k {
                if (n - k..n).all(|i| red_view(i) >= margin) {
                    return Some((Some(Color::Red), Ending::Resignation));
                }
                if (n - k..n).all(|i| red_view(i) <= -margin) {
                    return Some((Some(Color::Black), Ending::Resignation));
                }
            }
        }
        if let Some((margin, moves, after)) = self.draw {
            let k = 2 * moves;
            if moves > 0 && n >= after.max(k) && (n - k..n).all(|i| record.scores[i].abs() <= margin) {
                return Some((None, Ending::AgreedDraw));
            }
        }
        None
    }
}

impl<M> GameRecord<M> {
    /// A game about to start from `start_fen`: no moves yet, a draw by the ply cap unless
    /// something else ends it.
    pub fn new(start_fen: String) -> GameRecord<M> {
        GameRecord {
            start_fen,
            moves: Vec::new(),
            winner: None,
            ending: Ending::PlyCap,
            nodes: [0; 2],
            scores: Vec::new(),
            move_times: Vec::new(),
        }
    }

    pub fn plies(&self) -> usize {
        self.moves.len()
    }
}

/// One side of a game: its evaluation and its budget.
#[derive(Clone, Debug)]
pub struct Player<W = Weights> {
    pub weights: W,
    pub budget: Budget,
}
