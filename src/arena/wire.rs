//! Schedules and game records as plain data, so that another process (an MPI rank) can play
//! a schedule's games and send back records that rebuild exactly what a local run makes.

use super::{play_game, ArenaError, Conditions, Schedule};
use crate::game::{Adjudication, Budget, Ending, Game, GameRecord, Player, Seat};
use crate::params::Params;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// A schedule in plain data: its players by their parameter values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScheduleWire {
    /// The game's name (`Game::NAME`).
    pub game: String,
    /// Each player's parameter values, in the game's spec order.
    pub players: Vec<Vec<i32>>,
    pub budgets: Vec<BudgetWire>,
    /// Start positions as FENs.
    pub positions: Vec<String>,
    /// (first, second, position) per game.
    pub fixtures: Vec<[usize; 3]>,
    pub max_plies: usize,
    pub resign: Option<(i32, usize)>,
    pub draw: Option<(i32, usize, usize)>,
    pub tt_mb: usize,
}

/// A deterministic budget (clocks are not played away from the arena's own process).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BudgetWire {
    Nodes(u64),
    Depth(u32),
}

/// A finished game in plain data: the moves in the game's notation and what the players said.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordWire {
    pub moves: Vec<String>,
    /// 0: the first seat, 1: the second, none: a draw.
    pub winner: Option<u8>,
    /// The ending in words (`Ending`'s display).
    pub ending: String,
    pub nodes: [u64; 2],
    pub scores: Vec<i32>,
    pub depths: Vec<u32>,
}

impl ScheduleWire {
    /// Describes `schedule`, whose players are the game's own engine with `params` (one per
    /// player, in order) on node or depth budgets.
    pub fn of<G: Game>(schedule: &Schedule<'_, G>, params: &[Params]) -> Result<ScheduleWire, ArenaError> {
        if params.len() != schedule.players.len() {
            return Err(ArenaError::Wire(format!(
                "{} parameter sets for {} players",
                params.len(),
                schedule.players.len()
            )));
        }
        let budgets = schedule
            .players
            .iter()
            .map(|p| match p.budget {
                Budget::Nodes(n) => Ok(BudgetWire::Nodes(n)),
                Budget::Depth(d) => Ok(BudgetWire::Depth(d)),
                Budget::Clock { .. } => Err(ArenaError::Wire(
                    "games on a clock are played by the arena's own process only".to_string(),
                )),
            })
            .collect::<Result<_, _>>()?;
        Ok(ScheduleWire {
            game: G::NAME.to_string(),
            players: params.iter().map(|p| p.values().to_vec()).collect(),
            budgets,
            positions: schedule.positions.iter().map(|b| G::fen(b)).collect(),
            fixtures: schedule
                .fixtures
                .iter()
                .map(|f| [f.first, f.second, f.position])
                .collect(),
            max_plies: schedule.conditions.max_plies,
            resign: schedule.conditions.adjudication.resign,
            draw: schedule.conditions.adjudication.draw,
            tt_mb: schedule.conditions.tt_mb,
        })
    }

    /// Plays game `index` of the schedule on the calling thread, exactly as a local run would.
    pub fn play<G: Game>(&self, index: usize) -> Result<RecordWire, ArenaError> {
        let bad = |what: String| ArenaError::Wire(what);
        if self.game != G::NAME {
            return Err(bad(format!("a {} schedule sent to {}", self.game, G::NAME)));
        }
        let [first, second, position] = *self
            .fixtures
            .get(index)
            .ok_or_else(|| bad(format!("game {index} is not in the schedule")))?;
        let player = |i: usize| -> Result<Player<G::Weights>, ArenaError> {
            let values = self.players.get(i).ok_or_else(|| bad(format!("no player {i}")))?;
            let params = Params::from_values(G::specs(), values).map_err(|e| bad(e.to_string()))?;
            let budget = match self.budgets.get(i).ok_or_else(|| bad(format!("no budget {i}")))? {
                BudgetWire::Nodes(n) => Budget::Nodes(*n),
                BudgetWire::Depth(d) => Budget::Depth(*d),
            };
            Ok(Player::weights(G::weights(&params), budget))
        };
        let fen = self
            .positions
            .get(position)
            .ok_or_else(|| bad(format!("no position {position}")))?;
        let start = G::parse_position(fen).map_err(|e| bad(e.to_string()))?;
        let conditions = Conditions {
            max_plies: self.max_plies,
            adjudication: Adjudication {
                resign: self.resign,
                draw: self.draw,
            },
            tt_mb: self.tt_mb,
            time_margin: Duration::ZERO,
        };
        // Players of a wired schedule are embedded engines: no outside process to keep.
        let engines = super::outside::Engines::new(0);
        let record = play_game::<G>(&start, &player(first)?, &player(second)?, &conditions, &engines);
        Ok(RecordWire::of(&record))
    }
}

impl RecordWire {
    pub fn of<M: std::fmt::Display>(record: &GameRecord<M>) -> RecordWire {
        RecordWire {
            moves: record.moves.iter().map(|m| m.to_string()).collect(),
            winner: record.winner.map(|s| s.index() as u8),
            ending: record.ending.to_string(),
            nodes: record.nodes,
            scores: record.scores.clone(),
            depths: record.depths.clone(),
        }
    }

    /// The record of this game from `start`: the moves are replayed under the rules, which
    /// also gives back the rules' own words for the ending.
    pub fn record<G: Game>(&self, start: &G::Board) -> Result<GameRecord<G::Move>, ArenaError> {
        let bad = |what: String| ArenaError::Wire(what);
        let mut record = GameRecord::new(G::fen(start), G::to_move(start));
        let mut state = G::start(start);
        for text in &self.moves {
            let mv = G::parse_move(&state, text).ok_or_else(|| {
                bad(format!(
                    "move '{text}' is not legal in {}",
                    G::fen(G::board(&state))
                ))
            })?;
            G::play(&mut state, mv);
            record.moves.push(mv);
        }
        let rules = G::verdict(&state).map(|v| v.reason);
        record.ending = Ending::from_words(&self.ending, rules, G::claimable_draw(&state))
            .ok_or_else(|| bad(format!("ending '{}' does not fit the game", self.ending)))?;
        record.winner = match self.winner {
            None => None,
            Some(0) => Some(Seat::First),
            Some(1) => Some(Seat::Second),
            Some(other) => return Err(bad(format!("winner {other}"))),
        };
        record.nodes = self.nodes;
        record.scores = self.scores.clone();
        record.depths = self.depths.clone();
        Ok(record)
    }
}
