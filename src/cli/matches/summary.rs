//! What a match's counted games add up to: the result lines, the `--json` summary and the
//! clock figures of each player.

use super::{Args, Session};
use anyhow::{Context, Result};
use qitune::arena;
use qitune::arena::stats::{Sprt, SprtDecision, Tally, Wdl};
use qitune::game::{Budget, Ending, Game, Seat};
use std::collections::BTreeMap;
use std::time::Duration;

/// What a match's counted games add up to, gathered game by game in schedule order.
pub struct Summary {
    /// A's games and pairs.
    pub tally: Tally,
    plies: usize,
    nodes: u64,
    endings: BTreeMap<String, u32>,
    forfeits: usize,
    illegal: usize,
    false_claims: usize,
    faults: Vec<String>,
    /// A's and B's depths and clock figures.
    clocks: [ClockStats; 2],
    pub sprt: Option<Sprt>,
}

impl Summary {
    pub fn new(sprt: Option<Sprt>) -> Summary {
        Summary {
            tally: Tally::default(),
            plies: 0,
            nodes: 0,
            endings: BTreeMap::new(),
            forfeits: 0,
            illegal: 0,
            false_claims: 0,
            faults: Vec::new(),
            clocks: Default::default(),
            sprt,
        }
    }

    pub fn add<G: Game>(&mut self, p: &arena::Played<G>) {
        let r = &p.record;
        self.count(p.a_result(), r.plies(), &r.ending.to_string(), Some(r.ending));
        self.nodes += r.nodes.iter().sum::<u64>();
        self.faults.extend(r.fault.clone());
        for (clock, player_a) in self.clocks.iter_mut().zip([true, false]) {
            let seat = if p.a_first == player_a {
                Seat::First
            } else {
                Seat::Second
            };
            clock.add(r, seat);
        }
    }

    /// Counts a game's result for A, its length and its ending (in [`Ending`]'s words, and
    /// as an `Ending` where known): what a PGN record keeps of a game, so that a resumed
    /// match counts its earlier games.
    pub fn count(&mut self, result: Wdl, plies: usize, ending: &str, kind: Option<Ending>) {
        self.tally.add(result);
        self.plies += plies;
        *self.endings.entry(ending.to_string()).or_default() += 1;
        self.forfeits += usize::from(kind == Some(Ending::Time));
        self.illegal += usize::from(kind == Some(Ending::IllegalMove));
        self.false_claims += usize::from(kind == Some(Ending::FalseClaim));
    }

    pub fn plies_mean(&self) -> f64 {
        self.plies as f64 / self.tally.wdl.games().max(1) as f64
    }
}

/// One player's depths and clock over a match's games.
#[derive(Default)]
struct ClockStats {
    depth_sum: u64,
    depths: u64,
    moves: u64,
    used_sum: Duration,
    used_max: Duration,
    planned_sum: Duration,
    planned: u64,
    least_left: Option<Duration>,
    /// Moves that came after the flag (within --time-margin, or they would have lost).
    late: usize,
    latest: Duration,
}

impl ClockStats {
    fn add<M>(&mut self, r: &qitune::game::GameRecord<M>, seat: Seat) {
        for (i, d) in r.depths.iter().enumerate() {
            if r.mover(i) == seat {
                self.depth_sum += *d as u64;
                self.depths += 1;
            }
        }
        for t in r.move_times.iter().filter(|t| t.seat == seat) {
            self.moves += 1;
            self.used_sum += t.used;
            self.used_max = self.used_max.max(t.used);
            if let Some(p) = t.planned {
                self.planned_sum += p;
                self.planned += 1;
            }
            let left = t.left.saturating_sub(t.used);
            self.least_left = Some(self.least_left.map_or(left, |l| l.min(left)));
            if t.used > t.left {
                self.late += 1;
                self.latest = self.latest.max(t.used - t.left);
            }
        }
    }

    /// The player's figures: none for a player without timed moves.
    fn figures(&self) -> Option<ClockFigures> {
        if self.moves == 0 {
            return None;
        }
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        Some(ClockFigures {
            moves: self.moves,
            // A player without depths (UCT, or an engine that sends no info) has no mean depth.
            mean_depth: (self.depth_sum > 0).then(|| self.depth_sum as f64 / self.depths.max(1) as f64),
            mean_ms: ms(self.used_sum) / self.moves as f64,
            planned_ms: (self.planned > 0).then(|| ms(self.planned_sum) / self.planned as f64),
            longest_ms: ms(self.used_max),
            least_left_ms: ms(self.least_left.unwrap_or_default()),
            late_moves: self.late,
            latest_ms: ms(self.latest),
        })
    }

    /// The player's mean depth, mean time used a move against its planned time, longest
    /// move and the least time ever left.
    fn line(&self) -> Option<String> {
        let f = self.figures()?;
        let plan = f
            .planned_ms
            .map_or(String::new(), |p| format!(" against {p:.0} ms planned (Et)"));
        let late = match f.late_moves {
            0 => String::new(),
            n => format!(
                "; {n} move{} past the flag within the margin, by at most {:.0} ms",
                if n == 1 { "" } else { "s" },
                f.latest_ms
            ),
        };
        let depth = f
            .mean_depth
            .map_or(String::new(), |d| format!("mean depth {d:.1}; "));
        Some(format!(
            "{depth}per move {:.0} ms used on average{plan}, longest {:.0} ms; least time left after a move {:.0} ms{late}",
            f.mean_ms, f.longest_ms, f.least_left_ms,
        ))
    }
}

/// One player's depth and clock figures over the moves it made in this run's games (a
/// resumed match's earlier games, read back from PGN, have no clock records).
#[derive(serde::Serialize)]
struct ClockFigures {
    moves: u64,
    mean_depth: Option<f64>,
    mean_ms: f64,
    /// The mean expected time (Et) the engine reported planning, where it did.
    planned_ms: Option<f64>,
    longest_ms: f64,
    least_left_ms: f64,
    /// Moves that came past the flag within --time-margin.
    late_moves: usize,
    latest_ms: f64,
}

/// The summary as JSON; `partial` says the match has not played all its games (still
/// running, or interrupted).
pub fn summary_json(s: &Summary, args: &Args, partial: bool) -> serde_json::Value {
    let (w, pairs) = (&s.tally.wdl, &s.tally.pairs);
    let sprt = s.sprt.map(|t| {
        let (lo, hi) = t.bounds();
        serde_json::json!({"elo0": t.elo0, "elo1": t.elo1, "llr": t.llr(pairs), "lower": lo,
            "upper": hi, "decision": t.decide(pairs)})
    });
    serde_json::json!({
        "a": args.a, "b": args.b, "partial": partial,
        "games": w.games(), "wins": w.wins, "draws": w.draws, "losses": w.losses,
        "score": w.score(), "elo": w.elo(), "elo_error": w.elo_error(), "los": w.los(),
        "plies_mean": s.plies_mean(), "nodes": s.nodes,
        "time_forfeits": s.forfeits, "illegal_moves": s.illegal,
        "false_draw_claims": s.false_claims, "endings": s.endings,
        "pentanomial": pairs.0, "faults": s.faults,
        "clock": {"a": s.clocks[0].figures(), "b": s.clocks[1].figures()},
        "sprt": sprt,
    })
}

/// Writes the summary as JSON, atomically.
pub fn write_json(path: &std::path::Path, s: &Summary, args: &Args, partial: bool) -> Result<()> {
    let text =
        serde_json::to_string_pretty(&summary_json(s, args, partial)).expect("summary serialises") + "\n";
    qitune::fsutil::write_atomic(path, text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// The Elo line: the difference and its 95% interval, in words where a bound is infinite
/// (every game won or lost, or an interval that reaches a score of 0 or 1).
pub fn elo_line(wdl: &Wdl) -> String {
    // -0.0 is shown as 0.0.
    let num = |v: f64| format!("{:.1}", if v.abs() < 0.05 { 0.0 } else { v });
    match (wdl.elo(), wdl.elo_error()) {
        (Some(e), Some(d)) => format!("Elo difference: {} +/- {} (95%)", num(e), num(d)),
        (Some(e), None) => format!(
            "Elo difference: {} (the interval is unbounded: too few games)",
            num(e)
        ),
        (None, _) if wdl.score() >= 1.0 => "Elo difference: unbounded (every game won)".to_string(),
        (None, _) => "Elo difference: unbounded (every game lost)".to_string(),
    }
}

/// The result lines: the score and Elo, the pairs, the SPRT, the endings, the speed, the
/// clocks and the first faults. With --jsonl, standard output stays JSON: they go to
/// standard error.
pub fn print(args: &Args, summary: &Summary, session: &Session, budget: Budget) {
    let say = |line: String| {
        if args.jsonl {
            eprintln!("{line}");
        } else {
            super::super::out(line);
        }
    };
    let (first, kept, threads) = (session.first, session.kept, session.threads);
    if session.interrupted {
        say(format!("Interrupted: {} of {} games played", kept, args.games));
    }
    if first > 0 {
        say(format!(
            "Resumed after game {first} of {}: the score counts every game, the nodes and clock lines this session's {}",
            args.pgn.as_deref().map_or(String::new(), |p| p.display().to_string()),
            kept - first
        ));
    }
    let wdl = &summary.tally.wdl;
    say(format!(
        "Score of {} vs {}: {} - {} - {}  [{:.3}]  {} games",
        args.a,
        args.b,
        wdl.wins,
        wdl.losses,
        wdl.draws,
        wdl.score(),
        wdl.games()
    ));
    say(format!("{}, LOS: {:.1}%", elo_line(wdl), 100.0 * wdl.los()));
    let pairs = &summary.tally.pairs;
    let counts: Vec<String> = pairs.0.iter().map(|n| n.to_string()).collect();
    say(format!(
        "Pairs (A's points 0, 1/2, 1, 3/2, 2): {}",
        counts.join(" ")
    ));
    if let Some(t) = summary.sprt {
        let (lo, hi) = t.bounds();
        let verdict = match t.decide(pairs) {
            Some(SprtDecision::H1) => "H1 accepted (A is stronger)",
            Some(SprtDecision::H0) => "H0 accepted",
            None => "no decision yet",
        };
        say(format!(
            "SPRT [{}, {}]: LLR {:.2} ({lo:.2}, {hi:.2}) {verdict}",
            t.elo0,
            t.elo1,
            t.llr(pairs)
        ));
    }
    let ending_list: Vec<String> = summary.endings.iter().map(|(k, v)| format!("{k} {v}")).collect();
    say(format!("Endings: {}", ending_list.join(", ")));
    say(format!(
        "{:.1} plies/game, {} nodes, {:.1} s, {:.2} games/s on {threads} thread{}",
        summary.plies_mean(),
        summary.nodes,
        session.seconds,
        session.finished as f64 / session.seconds,
        if threads == 1 { "" } else { "s" }
    ));
    if matches!(budget, Budget::Clock { .. }) {
        say(format!(
            "Clock: {} time forfeits, {} illegal moves, {} false draw claims",
            summary.forfeits, summary.illegal, summary.false_claims
        ));
    }
    for (name, clock) in [(&args.a, &summary.clocks[0]), (&args.b, &summary.clocks[1])] {
        if let Some(line) = clock.line() {
            say(format!("{name}: {line}"));
        }
    }
    for f in summary.faults.iter().take(5) {
        say(format!("Fault: {f}"));
    }
}
