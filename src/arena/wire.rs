//! Schedules and game records as plain data, so that another process (an MPI rank) can play
//! a schedule's games and send back records that rebuild exactly what a local run makes.

use super::outside::Engines;
use super::{play_game, ArenaError, Conditions, Schedule};
use super::{Agent, OutsideEngine, Player};
use crate::game::{Adjudication, Budget, Ending, Game, GameRecord, MoveTime, Seat};
use crate::params::Params;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;

/// A schedule in plain data: its players by their parameter values or engine descriptions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScheduleWire {
    /// The game's name (`Game::NAME`).
    pub game: String,
    pub players: Vec<PlayerWire>,
    pub budgets: Vec<BudgetWire>,
    /// Start positions as FENs.
    pub positions: Vec<String>,
    /// (first, second, position) per game.
    pub fixtures: Vec<[usize; 3]>,
    pub max_plies: usize,
    pub adjudication: Adjudication,
    pub tt_mb: usize,
    /// The grace on a clock for an outside engine's pipes, in nanoseconds.
    pub time_margin_ns: u64,
}

/// A player in plain data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PlayerWire {
    /// The game's own engine with these parameter values, in the game's spec order.
    Params(Vec<i32>),
    /// An outside engine, started by the playing process (so its path must be valid there).
    Outside(OutsideEngine),
}

/// A budget in plain data; a clock in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BudgetWire {
    Nodes(u64),
    Depth(u32),
    Clock { base_ns: u64, increment_ns: u64 },
}

impl BudgetWire {
    fn of(budget: Budget) -> BudgetWire {
        match budget {
            Budget::Nodes(n) => BudgetWire::Nodes(n),
            Budget::Depth(d) => BudgetWire::Depth(d),
            Budget::Clock { base, increment } => BudgetWire::Clock {
                base_ns: nanos(base),
                increment_ns: nanos(increment),
            },
        }
    }

    fn budget(self) -> Budget {
        match self {
            BudgetWire::Nodes(n) => Budget::Nodes(n),
            BudgetWire::Depth(d) => Budget::Depth(d),
            BudgetWire::Clock {
                base_ns,
                increment_ns,
            } => Budget::Clock {
                base: Duration::from_nanos(base_ns),
                increment: Duration::from_nanos(increment_ns),
            },
        }
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// One move's time on a clock, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveTimeWire {
    /// 0: the first seat, 1: the second.
    pub seat: u8,
    pub used_ns: u64,
    pub left_ns: u64,
    pub planned_ns: Option<u64>,
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
    pub move_times: Vec<MoveTimeWire>,
    pub fault: Option<String>,
}

impl ScheduleWire {
    /// Describes `schedule`: its outside engines by their descriptions, and its own engines
    /// by the parameters in `schedule.params` (a player's entry there when it has none).
    /// `None` when one of the game's own engines has no parameters to send.
    pub fn of<G: Game>(schedule: &Schedule<'_, G>) -> Option<ScheduleWire> {
        let players = schedule
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| match &p.agent {
                Agent::Outside(engine) => Some(PlayerWire::Outside(OutsideEngine::clone(engine))),
                Agent::Weights(_) => Some(PlayerWire::Params(schedule.params?.get(i)?.values().to_vec())),
            })
            .collect::<Option<_>>()?;
        Some(ScheduleWire {
            game: G::NAME.to_string(),
            players,
            budgets: schedule
                .players
                .iter()
                .map(|p| BudgetWire::of(p.budget))
                .collect(),
            positions: schedule.positions.iter().map(|b| G::fen(b)).collect(),
            fixtures: schedule
                .fixtures
                .iter()
                .map(|f| [f.first, f.second, f.position])
                .collect(),
            max_plies: schedule.conditions.max_plies,
            adjudication: schedule.conditions.adjudication,
            tt_mb: schedule.conditions.tt_mb,
            time_margin_ns: nanos(schedule.conditions.time_margin),
        })
    }

    /// Plays game `index` of the schedule on the calling thread, exactly as a local run
    /// would, its outside engines taken from and given back to `engines`.
    pub fn play<G: Game>(&self, index: usize, engines: &Engines) -> Result<RecordWire, ArenaError> {
        let bad = |what: String| ArenaError::Wire(what);
        if self.game != G::NAME {
            return Err(bad(format!("a {} schedule sent to {}", self.game, G::NAME)));
        }
        let [first, second, position] = *self
            .fixtures
            .get(index)
            .ok_or_else(|| bad(format!("game {index} is not in the schedule")))?;
        let player = |i: usize| -> Result<Player<G::Weights>, ArenaError> {
            let budget = self
                .budgets
                .get(i)
                .ok_or_else(|| bad(format!("no budget {i}")))?
                .budget();
            let agent = match self.players.get(i).ok_or_else(|| bad(format!("no player {i}")))? {
                PlayerWire::Params(values) => {
                    let params = Params::from_values(&G::specs(), values).map_err(|e| bad(e.to_string()))?;
                    Agent::Weights(G::weights(&params).map_err(|e| bad(e.to_string()))?)
                }
                PlayerWire::Outside(engine) => Agent::Outside(Arc::new(engine.clone())),
            };
            Ok(Player { agent, budget })
        };
        let fen = self
            .positions
            .get(position)
            .ok_or_else(|| bad(format!("no position {position}")))?;
        let start = G::parse_position(fen).map_err(|e| bad(e.to_string()))?;
        let conditions = Conditions {
            max_plies: self.max_plies,
            adjudication: self.adjudication,
            tt_mb: self.tt_mb,
            time_margin: Duration::from_nanos(self.time_margin_ns),
        };
        let record = play_game::<G>(&start, &player(first)?, &player(second)?, &conditions, engines);
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
            move_times: record
                .move_times
                .iter()
                .map(|t| MoveTimeWire {
                    seat: t.seat.index() as u8,
                    used_ns: nanos(t.used),
                    left_ns: nanos(t.left),
                    planned_ns: t.planned.map(nanos),
                })
                .collect(),
            fault: record.fault.clone(),
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
        let seat = |index: u8| match index {
            0 => Ok(Seat::First),
            1 => Ok(Seat::Second),
            other => Err(bad(format!("seat {other}"))),
        };
        record.winner = self.winner.map(seat).transpose()?;
        record.nodes = self.nodes;
        record.scores = self.scores.clone();
        record.depths = self.depths.clone();
        record.move_times = self
            .move_times
            .iter()
            .map(|t| {
                Ok(MoveTime {
                    seat: seat(t.seat)?,
                    used: Duration::from_nanos(t.used_ns),
                    left: Duration::from_nanos(t.left_ns),
                    planned: t.planned_ns.map(Duration::from_nanos),
                })
            })
            .collect::<Result<_, ArenaError>>()?;
        record.fault = self.fault.clone();
        Ok(record)
    }
}
