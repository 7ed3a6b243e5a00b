//! One game between two players, for every game and every kind of player: the arena keeps
//! the clocks, checks every move against the rules and ends the game by the rules, the ply
//! cap, the clock, a fault of an engine, or adjudication.

use super::outside::OutsideEngine;
use super::outside::{Engines, Fault, Process};
use crate::game::{Adjudication, Budget, Ending, Engine, Game, GameRecord, Limit, MoveTime};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Who plays a seat: the game's own engine with a set of weights, or an outside engine
/// process.
#[derive(Clone, Debug)]
pub enum Agent<W> {
    Weights(W),
    Outside(Arc<OutsideEngine>),
}

/// One side of a game: who plays it and its budget.
#[derive(Clone, Debug)]
pub struct Player<W> {
    pub agent: Agent<W>,
    pub budget: Budget,
}

impl<W> Player<W> {
    /// The game's own engine with `weights`.
    pub fn weights(weights: W, budget: Budget) -> Player<W> {
        Player {
            agent: Agent::Weights(weights),
            budget,
        }
    }
}

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
    Outside(Box<Process>),
}

/// Plays a game from `start`: `first` has the seat that moves first in the game (Red,
/// White). Embedded engines start fresh, and outside ones start a new game in a process
/// from `engines` (given back after the game unless it faulted), so with node or depth
/// limits a game depends only on its inputs.
pub fn play_game<G: Game>(
    start: &G::Board,
    first: &Player<G::Weights>,
    second: &Player<G::Weights>,
    conditions: &Conditions,
    engines: &Engines,
) -> GameRecord<G::Move> {
    let players = [first, second];
    let mut record = GameRecord::new(G::fen(start), G::to_move(start));
    let mut movers: Vec<Mover<G>> = Vec::with_capacity(2);
    for (i, p) in players.iter().enumerate() {
        match &p.agent {
            Agent::Weights(w) => movers.push(Mover::Own(G::engine(w, conditions.tt_mb, start))),
            Agent::Outside(spec) => match engines.take(spec) {
                Ok(process) => movers.push(Mover::Outside(Box::new(process))),
                Err(fault) => {
                    lose(&mut record, crate::game::Seat::BOTH[i], fault);
                    give_back(movers, None, engines);
                    return record;
                }
            },
        }
    }
    let faulted = play_out::<G>(&mut record, start, players, &mut movers, conditions);
    give_back(movers, faulted, engines);
    record
}

/// Returns the outside engines of a finished game to the pool, but for the one at fault.
fn give_back<G: Game>(movers: Vec<Mover<G>>, faulted: Option<usize>, engines: &Engines) {
    for (i, mover) in movers.into_iter().enumerate() {
        if let Mover::Outside(process) = mover {
            if faulted != Some(i) {
                engines.give(*process);
            }
        }
    }
}

/// Plays the game out; the index of the seat whose outside engine faulted, if one did.
fn play_out<G: Game>(
    record: &mut GameRecord<G::Move>,
    start: &G::Board,
    players: [&Player<G::Weights>; 2],
    movers: &mut [Mover<G>],
    conditions: &Conditions,
) -> Option<usize> {
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
                    // A granted claim is an answer: the engine waits for its next game.
                    Some(rule) => {
                        record.winner = None;
                        record.ending = Ending::ClaimedDraw(rule);
                        return None;
                    }
                    None => {
                        lose(record, seat, fault);
                        return Some(i);
                    }
                }
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
        if let Some((winner, ending)) = conditions.adjudication.judge(record) {
            // The rules come first: a ruling on this move stands.
            if G::verdict(&state).is_none() {
                record.winner = winner;
                record.ending = ending;
                break;
            }
        }
    }
    None
}

fn lose<M>(record: &mut GameRecord<M>, seat: crate::game::Seat, fault: Fault) {
    record.winner = Some(seat.flip());
    record.ending = fault.ending;
    // A resignation is a legal way to end a game, not something that went wrong.
    if fault.ending != crate::game::Ending::Resigned {
        record.fault = Some(fault.to_string());
    }
}
