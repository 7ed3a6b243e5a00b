//! One game between two engines, judged by the rules.

use crate::xiangqi::eval::Weights;
use crate::xiangqi::search::{Limits, Searcher};
use crate::xiangqi::time::TimeControl;
use crate::xiangqi::{Board, Color, Move, Termination, Xiangqi};
use serde::Serialize;
use std::time::{Duration, Instant};

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
