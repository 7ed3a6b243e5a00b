//! Iterative deepening with aspiration windows: the search's outer loop, its progress
//! reports and its result.

use super::kind::Root;
use super::Searcher;
use crate::xiangqi::board::Board;
use crate::xiangqi::eval::Score;
use crate::xiangqi::moves::Move;
use crate::xiangqi::rules::Xiangqi;
use crate::xiangqi::score::{INFINITY, MATE, MATE_BOUND, MAX_PLY};
use crate::xiangqi::time::TimeManager;
use crate::xiangqi::types::Role;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::limits::Limits;

/// Progress after each completed iteration, and once more for an iteration stopped after it
/// had found a move (the move then played).
#[derive(Clone, Debug)]
pub struct Info<'a> {
    pub depth: u32,
    /// The deepest ply a PV node of the iteration reached, counted from 1 (UCI's
    /// `seldepth` as Stockfish and Pikafish-HCE count it), so that engines whose nominal
    /// depths mean different amounts of lookahead can be compared.
    pub seldepth: u32,
    pub score: Score,
    pub nodes: u64,
    pub elapsed: Duration,
    pub pv: &'a [Move],
    /// The iteration was stopped: `score` is what its best move reached so far, a lower
    /// bound on the iteration's value.
    pub partial: bool,
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// `None` only when the side to move has no legal (or no unbanned) move.
    pub best: Option<Move>,
    /// The expected reply, for pondering.
    pub ponder: Option<Move>,
    pub score: Score,
    pub depth: u32,
    pub nodes: u64,
    pub pv: Vec<Move>,
}

impl Searcher {
    /// Searches the game's current position.
    pub fn search(&mut self, game: &Xiangqi, limits: &Limits, mut report: impl FnMut(&Info)) -> SearchResult {
        let started = Instant::now();
        let mut board = self.start(game, limits);
        let first = self.root_moves.first().copied();
        let mut result = SearchResult {
            best: first,
            ponder: None,
            score: 0,
            depth: 0,
            nodes: 0,
            pv: first.into_iter().collect(),
        };
        if first.is_none() || (self.root_moves.len() == 1 && limits.time.is_some()) {
            // Nothing to choose: on a clock a single reply needs no thought (seed 000). A
            // search to a depth or node count, or an analysis, still searches it, so that its
            // caller (a mentor's label, a GUI) gets the score it asked for.
            result.score = if first.is_none() {
                -MATE
            } else {
                self.weights.evaluate(&board)
            };
            return result;
        }
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 1)
            .clamp(1, MAX_PLY as u32 - 1);
        let mut previous = 0;
        for depth in 1..=max_depth {
            self.root_first_ok = false;
            self.root_partial = None;
            self.seldepth = 0;
            let score = self.aspiration(&mut board, depth as i32, previous);
            // A stopped iteration still counts for the move it proved best, if any; the
            // reported depth stays the last one completed.
            let (score, done) = match (
                self.aborted,
                self.root_partial.filter(|_| self.frames[0].pv_len > 0),
            ) {
                (false, _) => (score, depth),
                (true, Some(partial)) => (partial, result.depth),
                (true, None) => break,
            };
            let root = &self.frames[0];
            let pv: Vec<Move> = root.pv[..root.pv_len].iter().flatten().copied().collect();
            result = SearchResult {
                best: pv.first().copied().or(result.best),
                ponder: pv.get(1).copied(),
                score,
                depth: done,
                nodes: self.nodes,
                pv,
            };
            report(&Info {
                depth,
                seldepth: self.seldepth as u32,
                score,
                nodes: self.nodes,
                elapsed: started.elapsed(),
                pv: &result.pv,
                partial: self.aborted,
            });
            if self.aborted || self.last_iteration(depth, previous, score) {
                break;
            }
            previous = score;
        }
        // Pondering: hold the answer until the opponent moves (ponderhit) or `stop`.
        while self.signals.ponder.load(Ordering::Relaxed) && !self.signals.stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(1));
        }
        result.nodes = self.nodes;
        result
    }

    /// Sets the searcher up for a search of the game's position under `limits`: the path
    /// for repetitions, the counters, the clock, the root's moves; returns the board.
    fn start(&mut self, game: &Xiangqi, limits: &Limits) -> Board {
        let board = game.board().clone();
        let history = game.history();
        let keep = (board.halfmoves() as usize).min(history.len());
        self.path.clear();
        self.path.extend_from_slice(&history[history.len() - keep..]);
        self.null_floor = 0;
        self.nodes = 0;
        self.counts = super::Counts::default();
        self.node_limit = limits.nodes.unwrap_or(u64::MAX).max(1);
        self.aborted = false;
        self.pondering = self.signals.ponder.load(Ordering::Relaxed);
        let time_knobs = self.knobs.time();
        self.clock = limits.time.map(|control| TimeManager::new(control, time_knobs));
        self.tt.new_search();
        self.frames.iter_mut().for_each(|f| f.killers = [None; 2]);
        self.frames[0].psq = self.weights.psq(&board);
        let mut root_moves = crate::xiangqi::moves::MoveList::new();
        for &m in board.legal_moves().iter() {
            if !limits.banned.contains(&m) {
                root_moves.push(m);
            }
        }
        if let (Some(clock), Some(last)) = (&mut self.clock, history.last()) {
            // An obvious recapture: the opponent just captured and we can take back on that point.
            if last.undo.captured().is_some() && root_moves.iter().any(|m| m.to() == last.mv.to()) {
                clock.easy_move(4);
            }
        }
        self.root_moves = root_moves;
        board
    }

    /// Whether the iteration of `depth` that scored `score` (after `previous`) is the last:
    /// a proven mate, the node limit reached, or no time for another.
    fn last_iteration(&mut self, depth: u32, previous: Score, score: Score) -> bool {
        // A proven mate cannot get better with depth.
        if score.abs() >= MATE_BOUND && (MATE - score.abs()) as u32 <= depth {
            return true;
        }
        if self.nodes >= self.node_limit {
            return true;
        }
        let rook = self.weights.value(Role::Rook);
        if let Some(clock) = &mut self.clock {
            if depth > 1 {
                clock.after_iteration(previous, score, rook);
            }
            if !self.pondering && clock.iteration_unaffordable() {
                return true;
            }
        }
        false
    }

    /// The root searched to `depth` in a window around the previous iteration's score,
    /// widened on each side it fails until the score falls inside.
    fn aspiration(&mut self, board: &mut Board, depth: i32, previous: Score) -> Score {
        let mut window = self.knobs.aspiration_window;
        let (mut alpha, mut beta) = if depth >= 4 && previous.abs() < MATE_BOUND {
            (previous - window, previous + window)
        } else {
            (-INFINITY, INFINITY)
        };
        // A fail high mostly confirms the move already best; its re-searches can be shallower,
        // so that the wider window costs less (Stockfish's `failedHighCnt`). Not past a mate
        // score, which only the full depth can prove at its distance.
        let mut failed_high = 0;
        loop {
            let score = self.node::<Root>(board, (depth - failed_high).max(1), alpha, beta, 0);
            if self.aborted {
                return score;
            }
            if score <= alpha && alpha > -INFINITY {
                alpha = (alpha - window).max(-INFINITY);
                failed_high = 0;
            } else if score >= beta && beta < INFINITY {
                beta = (beta + window).min(INFINITY);
                failed_high += i32::from(self.knobs.fail_high_shallower && score < MATE_BOUND);
            } else {
                return score;
            }
            window *= 2;
        }
    }
}
