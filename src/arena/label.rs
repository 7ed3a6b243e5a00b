//! A mentor's scores of positions: the game's own engine (with any weights) or an outside
//! engine searches each position to a fixed depth or node count, and its score becomes the
//! position's label, for a fit that learns the mentor's judgement instead of game results
//! (David-Tabibi, Koppel and Netanyahu's mentor-assisted evolution; the deeper-score labels
//! of the engines that fit their evaluation on positions).

use super::outside::{Engines, Fault};
use super::play::Agent;
use crate::game::{Ending, Engine, Game, Limit};
use std::time::Duration;

/// A mentor's score of one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label {
    /// The score for the side to move, in the mentor's units (mates near ±30,000).
    pub score: i32,
    /// The depth the mentor completed (as it reported it).
    pub depth: u32,
}

/// Why a position has no label.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unlabelled {
    #[error("the game is over in this position")]
    Over,
    #[error("{0}")]
    Fault(Fault),
    #[error("the mentor gave a move but no depth or score")]
    Silent,
}

impl Unlabelled {
    /// Whether the mentor failed on the position (rather than the game being over there).
    pub fn is_fault(&self) -> bool {
        !matches!(self, Unlabelled::Over)
    }
}

/// Scores `board` with `mentor` searching under `limit` (a depth or a node count). The
/// game's own engine starts fresh for each position, so that a label depends only on the
/// position and the mentor; an outside engine starts a new game in a process from
/// `engines`, and after a fault the position is tried once more on a fresh process.
pub fn label<G: Game>(
    mentor: &Agent<G::Weights>,
    board: &G::Board,
    limit: Limit,
    tt_mb: usize,
    engines: &Engines,
) -> Result<Label, Unlabelled> {
    let state = G::start(board);
    if G::verdict(&state).is_some() {
        return Err(Unlabelled::Over);
    }
    let thought = match mentor {
        Agent::Weights(w) => G::engine(w, tt_mb, board).think(&state, limit),
        Agent::Outside(spec) => {
            let fen = G::fen(board);
            let seat = G::to_move(board);
            let ask = || -> Result<_, Fault> {
                let mut process = engines.take(spec)?;
                // No clock: an answer may take as long as the arena lets an untimed move.
                let none = [Duration::ZERO; 2];
                let thought =
                    process.think::<G>(&fen, &[], &state, seat, limit, none, none, Duration::ZERO)?;
                engines.give(process);
                Ok(thought)
            };
            match ask() {
                Ok(t) => t,
                // A process that faulted is not given back, so the second try is a fresh one;
                // a false claim or resignation is the engine's answer, not an accident.
                Err(f) if !matches!(f.ending, Ending::FalseClaim | Ending::Resigned) => {
                    ask().map_err(Unlabelled::Fault)?
                }
                Err(f) => return Err(Unlabelled::Fault(f)),
            }
        }
    };
    if thought.depth == 0 && matches!(mentor, Agent::Outside(_)) {
        return Err(Unlabelled::Silent);
    }
    Ok(Label {
        score: thought.score,
        depth: thought.depth,
    })
}
