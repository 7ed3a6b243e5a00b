//! What the arena and the GA need of a game, so that one arena and one GA serve Xiangqi and
//! the Game of the Amazons alike: the [`Game`] and [`Engine`] traits, and the neutral
//! vocabulary of a played game (seats, budgets, players, records, endings, adjudication).
//! Each game implements the traits in its own folder (`xiangqi/game.rs`, `amazons/game.rs`);
//! nothing here knows either game.

use crate::params::{Params, Specs};
use serde::{Deserialize, Serialize};
use std::fmt::{Debug, Display};
use std::time::Duration;

/// A seat at the board: the player who moves first in the game (Red, White) or second
/// (Black). A game that starts from a position with the second seat to move still has
/// its first seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Seat {
    First,
    Second,
}

impl Seat {
    pub const BOTH: [Seat; 2] = [Seat::First, Seat::Second];

    /// 0 for the first seat, 1 for the second.
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn flip(self) -> Seat {
        match self {
            Seat::First => Seat::Second,
            Seat::Second => Seat::First,
        }
    }

    /// +1 for the first seat, -1 for the second: turns a mover's score to the first seat's view.
    pub fn sign(self) -> i32 {
        match self {
            Seat::First => 1,
            Seat::Second => -1,
        }
    }
}

/// The end of a game as its rules rule it: the winner (none for a draw) and the reason in
/// the game's own words ("checkmate", "perpetual check", "no move").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub winner: Option<Seat>,
    pub reason: &'static str,
}

/// A game the arena can play and the GA can tune.
pub trait Game: Sized + Send + Sync + 'static {
    type Board: Clone + Send + Sync + PartialEq + Debug;
    type Move: Copy + Eq + Display + Debug + Send + Sync;
    /// Compiled evaluation (and search) weights.
    type Weights: Clone + Send + Sync + Debug;
    /// A game in progress: the board and whatever history its rules need.
    type State: Clone + Send;
    /// The game's own engine, playing with a set of weights.
    type Engine: Engine<Self>;
    /// The name in weight files, configurations and `--game`.
    const NAME: &'static str;
    /// The PGN `Game` tag.
    const PGN_GAME: &'static str;
    /// The PGN `Format` tag (the move notation), if the game's tools name one.
    const PGN_FORMAT: Option<&'static str> = None;
    /// The seats' names in records (PGN tags): first, second.
    const SEATS: [&'static str; 2];
    /// The deepest fixed depth a move may be asked for (`--depth`).
    const MAX_DEPTH: u32 = 64;
    /// How the report draws the parameters that are squares' values, if the game has any.
    const PICTURE: Option<BoardPicture> = None;
    /// The tunable parameters, in order.
    fn specs() -> Specs;
    /// Parameters the game no longer has, which old weight files may still name.
    const RETIRED: &'static [crate::params::Retired] = &[];
    /// A parameter's meaning in one line (`qitune params`).
    fn describe(name: &str) -> String;
    /// Compiles a parameter set of this game; another game's set is refused.
    fn weights(params: &Params) -> Result<Self::Weights, crate::params::WeightFileError>;
    /// The weights of a weight file of this game, with a message naming what is wrong.
    fn load_weights(path: &std::path::Path) -> Result<Self::Weights, crate::params::LoadError> {
        let params = Params::load(path, Self::NAME, &Self::specs(), Self::RETIRED)?;
        Self::weights(&params).map_err(|source| crate::params::LoadError {
            path: path.to_path_buf(),
            source,
        })
    }
    /// The names of [`Game::named_player`]'s players.
    const PLAYER_NAMES: &'static [&'static str] = &[];
    /// Built-in players besides `default` and `random:SEED` (Xiangqi: `material`).
    fn named_player(_name: &str) -> Option<Self::Weights> {
        None
    }
    /// Why a position could not be read.
    type PositionError: std::error::Error + Send + Sync + 'static;
    /// Reads one position (a line of a position file).
    fn parse_position(text: &str) -> Result<Self::Board, Self::PositionError>;
    fn fen(board: &Self::Board) -> String;
    /// The start position after `plies` random moves drawn from `seed`.
    fn random_opening(seed: u64, plies: usize) -> Self::Board;
    /// A game starting from `board`.
    fn start(board: &Self::Board) -> Self::State;
    fn board(state: &Self::State) -> &Self::Board;
    /// The seat to move.
    fn to_move(board: &Self::Board) -> Seat;
    /// The rules' verdict when the game is over.
    fn verdict(state: &Self::State) -> Option<Verdict>;
    /// The rule under which the side to move may claim a draw here, in its own words (an
    /// outside engine that answers with no move while it has moves claims one); `None` when
    /// the claim would be false.
    fn claimable_draw(_state: &Self::State) -> Option<&'static str> {
        None
    }
    fn is_legal(state: &Self::State, mv: Self::Move) -> bool;
    /// Plays a legal move.
    fn play(state: &mut Self::State, mv: Self::Move);
    /// Reads a move in the game's notation, if it is legal here.
    fn parse_move(state: &Self::State, text: &str) -> Option<Self::Move>;
    /// Whether the evaluation is linear in the parameters, so that [`Game::features`] can
    /// describe it and the weights can be fitted on positions (`method: texel`).
    const LINEAR_EVALUATION: bool = false;
    /// For fitting on positions: the evaluation of `board` from the first seat's point of
    /// view as (spec index, coefficient) pairs whose sum of value times coefficient it is.
    /// `false` (and nothing pushed) when the position is no fair sample of the evaluation
    /// (the side to move in check, a capture pending) or the evaluation is not linear.
    fn features(_board: &Self::Board, _out: &mut Vec<(u32, f32)>) -> bool {
        false
    }
    /// A fresh engine for one game from `start` with a table of `tt_mb` MiB: it shares
    /// nothing, so a game depends only on its inputs.
    fn engine(weights: &Self::Weights, tt_mb: usize, start: &Self::Board) -> Self::Engine;
}

/// A game's own engine: chooses a move within a limit.
pub trait Engine<G: Game>: Send {
    fn think(&mut self, state: &G::State, limit: Limit) -> Thought<G::Move>;
}

/// What one move may cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Nodes(u64),
    Depth(u32),
    /// The mover's clock and increment.
    Clock {
        left: Duration,
        increment: Duration,
    },
}

/// An engine's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thought<M> {
    /// `None` when the engine has no move to give.
    pub best: Option<M>,
    /// The mover's score of the position.
    pub score: i32,
    pub nodes: u64,
    /// The last depth the engine completed (0 when it does not say).
    pub depth: u32,
    /// On a clock, the time the engine planned for the move (its Et), when it says.
    pub planned: Option<Duration>,
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

/// In words, as a result line says it: `500 nodes a move`, `depth 6`, `2+0.02 s`.
impl std::fmt::Display for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Budget::Nodes(n) => write!(f, "{n} nodes a move"),
            Budget::Depth(d) => write!(f, "depth {d}"),
            Budget::Clock { base, increment } => {
                write!(f, "{}+{} s", base.as_secs_f64(), increment.as_secs_f64())
            }
        }
    }
}

impl Budget {
    /// A clock written `BASE+INC` in seconds (`2+0.02`), or why it is not one.
    pub fn clock(text: &str) -> Result<Budget, ClockError> {
        let bad = || ClockError::Shape(text.to_string());
        let (base, inc) = text.split_once('+').ok_or_else(bad)?;
        let secs = |s: &str| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(bad)
        };
        let (base, inc) = (secs(base)?, secs(inc)?);
        if base <= 0.0 {
            return Err(ClockError::NoBase(text.to_string()));
        }
        // A day a game is already far beyond any match anyone waits for.
        if base > 86_400.0 || inc > 86_400.0 {
            return Err(ClockError::TooLong(text.to_string()));
        }
        Ok(Budget::Clock {
            base: Duration::from_secs_f64(base),
            increment: Duration::from_secs_f64(inc),
        })
    }

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

/// How the report draws a game's piece-square parameters: boards of `files` x `ranks`,
/// one a group (a piece), each square coloured by its value.
#[derive(Clone, Copy, Debug)]
pub struct BoardPicture {
    pub files: u32,
    pub ranks: u32,
    /// Said above the boards: which side is at the bottom, what mirrors what.
    pub note: &'static str,
    /// Where a parameter stands; `None` for a parameter that is no square's.
    pub squares: fn(&str) -> Option<Squares<'_>>,
}

/// A piece-square parameter in a picture: its group (a piece) and the squares (file, rank
/// from the bottom) that take its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Squares<'a> {
    pub group: &'a str,
    pub squares: Vec<(u32, u32)>,
}

/// Why a text is not a clock.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    #[error("'{0}' is not BASE+INC in seconds (e.g. 2+0.1)")]
    Shape(String),
    #[error("'{0}': the base time must be positive")]
    NoBase(String),
    #[error("'{0}': base and increment are at most 86400 seconds (a day)")]
    TooLong(String),
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// A ruling of the game's rules, in its own words.
    Rules(&'static str),
    /// The ply cap was reached: a draw by adjudication.
    PlyCap,
    /// The loser's clock ran out.
    Time,
    /// The loser's engine gave no legal move (the arena never trusts an engine).
    IllegalMove,
    /// An outside engine claimed a draw (answered with no move) and the rules grant it.
    ClaimedDraw(&'static str),
    /// The loser claimed a draw that no rule grants.
    FalseClaim,
    /// Adjudicated: both engines agreed the loser was lost.
    Resignation,
    /// Adjudicated: both engines agreed the game was level.
    AgreedDraw,
    /// The loser resigned (an outside engine's `resign`).
    Resigned,
    /// The loser's outside engine exited, closed its pipes or broke the protocol.
    Crash,
    /// The loser's outside engine ran out of time and then did not answer `stop`.
    Hang,
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ending::Rules(reason) => f.write_str(reason),
            Ending::PlyCap => f.write_str("ply cap"),
            Ending::Time => f.write_str("time forfeit"),
            Ending::IllegalMove => f.write_str("illegal move"),
            Ending::ClaimedDraw(rule) => f.write_str(rule),
            Ending::FalseClaim => f.write_str("false draw claim"),
            Ending::Resignation => f.write_str("adjudicated loss"),
            Ending::AgreedDraw => f.write_str("adjudicated draw"),
            Ending::Resigned => f.write_str("resignation"),
            Ending::Crash => f.write_str("engine crash"),
            Ending::Hang => f.write_str("engine hang"),
        }
    }
}

impl Ending {
    /// The ending whose display is `text`; `rules` is the rules' verdict of the final
    /// position and `claim` the draw it allows claiming, in their own words (what
    /// `Ending::Rules` and `Ending::ClaimedDraw` hold).
    pub fn from_words(
        text: &str,
        rules: Option<&'static str>,
        claim: Option<&'static str>,
    ) -> Option<Ending> {
        const FIXED: [Ending; 9] = [
            Ending::PlyCap,
            Ending::Time,
            Ending::IllegalMove,
            Ending::FalseClaim,
            Ending::Resignation,
            Ending::AgreedDraw,
            Ending::Resigned,
            Ending::Crash,
            Ending::Hang,
        ];
        if let Some(e) = FIXED.into_iter().find(|e| e.to_string() == text) {
            return Some(e);
        }
        match (rules, claim) {
            (Some(r), _) if r == text => Some(Ending::Rules(r)),
            (_, Some(c)) if c == text => Some(Ending::ClaimedDraw(c)),
            _ => None,
        }
    }
}

/// The time one move took on a clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveTime {
    pub seat: Seat,
    pub used: Duration,
    /// The clock before the move.
    pub left: Duration,
    /// The engine's own plan (Et), when it says.
    pub planned: Option<Duration>,
}

/// Everything about one finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord<M> {
    pub start_fen: String,
    /// The seat to move in the start position: it played the even plies.
    pub starts: Seat,
    pub moves: Vec<M>,
    /// The winner, or `None` for a draw.
    pub winner: Option<Seat>,
    pub ending: Ending,
    /// Nodes searched by the first and by the second seat.
    pub nodes: [u64; 2],
    /// The mover's search score for each move, from the mover's point of view.
    pub scores: Vec<i32>,
    /// The mover's last completed depth for each move (0 when the engine does not say).
    pub depths: Vec<u32>,
    /// For clock games: each move's time, in order.
    pub move_times: Vec<MoveTime>,
    /// What went wrong with an outside engine, when one ended the game.
    pub fault: Option<String>,
}

/// Optional early ends by agreement of the engines' scores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adjudication {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resign: Option<Resign>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<DrawRule>,
}

/// A side loses when, for the last `moves` moves of each side, both engines' scores put it
/// behind by at least `score`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resign {
    pub score: i32,
    pub moves: usize,
}

/// After ply `after`, a draw when for the last `moves` moves of each side every score is
/// within `score` of zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawRule {
    pub score: i32,
    pub moves: usize,
    pub after: usize,
}

impl Adjudication {
    /// Whether no rule is set: every game is played out.
    pub fn is_off(&self) -> bool {
        self.resign.is_none() && self.draw.is_none()
    }

    /// Names what is wrong with a rule: a resignation's score and moves must be positive, a
    /// draw's score must not be negative and its moves must be positive.
    pub fn check(&self) -> Result<(), String> {
        if let Some(r) = self.resign {
            if r.score <= 0 || r.moves == 0 {
                return Err(format!(
                    "resign: score {} and moves {} must be positive",
                    r.score, r.moves
                ));
            }
        }
        if let Some(d) = self.draw {
            if d.score < 0 || d.moves == 0 {
                return Err(format!(
                    "draw: score {} must not be negative and moves {} must be positive",
                    d.score, d.moves
                ));
            }
        }
        Ok(())
    }

    /// The adjudicated outcome after the moves in `record`, if any.
    pub fn judge<M>(&self, record: &GameRecord<M>) -> Option<(Option<Seat>, Ending)> {
        let n = record.scores.len();
        // Scores turned to the first seat's point of view.
        let first_view = |i: usize| record.mover(i).sign() * record.scores[i];
        if let Some(Resign { score, moves }) = self.resign {
            let k = moves.saturating_mul(2);
            if moves > 0 && n >= k {
                if (n - k..n).all(|i| first_view(i) >= score) {
                    return Some((Some(Seat::First), Ending::Resignation));
                }
                if (n - k..n).all(|i| first_view(i) <= -score) {
                    return Some((Some(Seat::Second), Ending::Resignation));
                }
            }
        }
        if let Some(DrawRule { score, moves, after }) = self.draw {
            let k = moves.saturating_mul(2);
            if moves > 0 && n >= after.max(k) && (n - k..n).all(|i| record.scores[i].abs() <= score) {
                return Some((None, Ending::AgreedDraw));
            }
        }
        None
    }
}

impl<M> GameRecord<M> {
    /// A game about to start from `start_fen` with `starts` to move: no moves yet, a draw by
    /// the ply cap unless something else ends it.
    pub fn new(start_fen: String, starts: Seat) -> GameRecord<M> {
        GameRecord {
            start_fen,
            starts,
            moves: Vec::new(),
            winner: None,
            ending: Ending::PlyCap,
            nodes: [0; 2],
            scores: Vec::new(),
            depths: Vec::new(),
            move_times: Vec::new(),
            fault: None,
        }
    }

    pub fn plies(&self) -> usize {
        self.moves.len()
    }

    /// The seat that played ply `i` (0-based).
    pub fn mover(&self, i: usize) -> Seat {
        if i % 2 == 0 {
            self.starts
        } else {
            self.starts.flip()
        }
    }
}
