//! One game between two players, for every game and every kind of player: the arena keeps
//! the clocks, checks every move against the rules and ends the game by the rules, the ply
//! cap, the clock, a fault of an engine, or adjudication.

use super::outside::{Fault, Process};
use crate::game::{Adjudication, Agent, Budget, Ending, Engine, Game, GameRecord, Limit, MoveTime, Player};
use std::time::{Duration, Instant};

/// What holds for every game of a match or a generation, besides its players.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conditions {
    /// A game reaching this many plies is a draw ([`super::DEFAULT_MAX_PLIES`] unless told).
    pub max_plies: usize,
    pub adjudication: Adjudication,
    /// Transposition table per embedded engine, MiB.
    pub tt_mb: usize,
    /// How far past its clock an answer may come before it loses on time.
    pub time_margin: Duration,
}

/// Who moves for a seat during one game.
enum Mover<G: Game> {
    Own(G::Engine),
    Outside(Process),
}

/// Plays a game from `start`: `first` has the seat that moves first in the game (Red,
/// White). Embedded engines start fresh, so with node or depth limits a game depends only
/// on its inputs.
pub fn play_game<G: Game>(
    start: &G::Board,
    first: &Player<G::Weights>,
    second: &Player<G::Weights>,
    conditions: &Conditions,
) -> GameRecord<G::Move> {
    let players = [first, second];
    let mut record = GameRecord::new(G::fen(start), G::to_move(start));
    let mut movers: Vec<Mover<G>> = Vec::with_capacity(2);
    for (i, p) in players.iter().enumerate() {
        match &p.agent {
            Agent::Weights(w) => movers.push(Mover::Own(G::engine(w, conditions.tt_mb, start))),
            Agent::Outside(spec) => match Process::start(spec) {
                Ok(process) => movers.push(Mover::Outside(process)),
                Err(fault) => {
                    lose(&mut record, crate::game::Seat::BOTH[i], fault);
                    return record;
                }
            },
        }
    }
    let increments = players.map(|p| match p.budget {
        Budget::Clock { increment, .. } => increment,
        _ => Duration::ZERO,
    });
    let mut clocks = players.map(|p| match p.budget {
        Budget::Clock { base, .. } => base,
        _ => Duration::ZERO,
    });
    let mut state = G::start(start);
    loop {
        if let Some(verdict) = G::verdict(&state) {
            record.winner = verdict.winner;
            record.ending = Ending::Rules(verdict.reason);
            break;
        }
        if record.plies() >= conditions.max_plies {
            break;
        }
        let seat = G::to_move(G::board(&state));
        let i = seat.index();
        let limit = match players[i].budget {
            Budget::Nodes(n) => Limit::Nodes(n),
            Budget::Depth(d) => Limit::Depth(d),
            Budget::Clock { increment, .. } => Limit::Clock {
                left: clocks[i],
                increment,
            },
        };
        let started = Instant::now();
        let answer = match &mut movers[i] {
            Mover::Own(engine) => Ok(engine.think(&state, limit)),
            Mover::Outside(p) => p.think::<G>(
                &record.start_fen,
                &record.moves,
                &state,
                seat,
                limit,
                clocks,
                increments,
                conditions.time_margin,
            ),
        };
        let used = started.elapsed();
        let thought = match answer {
            Ok(t) => t,
            Err(fault) => {
                match G::claimable_draw(&state).filter(|_| fault.ending == Ending::FalseClaim) {
                    Some(rule) => {
                        record.winner = None;
                        record.ending = Ending::ClaimedDraw(rule);
                    }
                    None => lose(&mut record, seat, fault),
                }
                break;
            }
        };
        record.nodes[i] += thought.nodes;
        if let Budget::Clock { increment, .. } = players[i].budget {
            record.move_times.push(MoveTime {
                seat,
                used,
                left: clocks[i],
                planned: thought.planned,
            });
            if used > clocks[i] + conditions.time_margin {
                record.winner = Some(seat.flip());
                record.ending = Ending::Time;
                break;
            }
            clocks[i] = clocks[i].saturating_sub(used) + increment;
        }
        // The arena trusts no engine: every move is checked against the rules.
        let Some(mv) = thought.best.filter(|&m| G::is_legal(&state, m)) else {
            record.winner = Some(seat.flip());
            record.ending = Ending::IllegalMove;
            break;
        };
        G::play(&mut state, mv);
        record.moves.push(mv);
        record.scores.push(thought.score);
        record.depths.push(thought.depth);
        if let Some((winner, ending)) = conditions.adjudication.judge(&record) {
            // The rules come first: a ruling on this move stands.
            if G::verdict(&state).is_none() {
                record.winner = winner;
                record.ending = ending;
                break;
            }
        }
    }
    record
}

fn lose<M>(record: &mut GameRecord<M>, seat: crate::game::Seat, fault: Fault) {
    record.winner = Some(seat.flip());
    record.ending = fault.ending;
    // A resignation is a legal way to end a game, not something that went wrong.
    if fault.ending != crate::game::Ending::Resigned {
        record.fault = Some(fault.to_string());
    }
}
