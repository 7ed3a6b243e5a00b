//! The search: iterative deepening over a principal-variation alpha-beta search.
//!
//! Aspiration windows; a transposition table (mate scores stored relative to the node);
//! moves in stages ordered as [`super::movepick`] says (seed 001); quiescence on captures
//! and check evasions; reverse futility, futility and late-move pruning, on the static
//! evaluation corrected by what earlier searches found (module `correction`); null-move
//! pruning guarded against zugzwang and reduced more the further the evaluation is above
//! beta; check extension; internal iterative deepening without a TT move on the PV and
//! internal iterative reduction off it; late-move reductions scaled by history; history
//! pruning, razoring, ProbCut and quiescence's delta pruning; mate-distance pruning; and the
//! game's repetition rulings (perpetual check and chase lose) inside the tree. Knobs
//! ([`Knobs`]) set each of these, and add, off by default until an SPRT keeps them, singular
//! extensions, the improving flag, cut-node reductions, quiescence's table, and the static
//! evaluation's damping toward the no-capture draw.
//!
//! A node is PV, cut or all (`Node`); what the search keeps per ply of its path lives in one
//! `Frame` per ply. Nothing here allocates per node, and depth- or node-limited searches
//! are deterministic.

use super::bitboard::Bitboard;
use super::board::{Board, Undo};
use super::correction::Correction;
use super::eval::{mating_force, MatingForce, Psq, Score, Weights};
use super::evalcache::EvalCache;
use super::knobs::Knobs;
use super::movepick::{
    self, capture_terms, key_move, order_score, pick, ContinuationHistory, Hints, History, LastMove, Stage,
    CAPTURE_BASE, PICKED,
};
use super::moves::{Move, MoveList, MAX_MOVES};
use super::rules::{examine_cycle, Ply, Xiangqi, NO_CAPTURE_LIMIT};
use super::time::{TimeControl, TimeManager};
use super::tt::{Bound, Entry, Tt};
use super::types::{Color, Role};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::score::INFINITY;
pub use super::score::{mate_in_moves, MATE, MATE_BOUND, MAX_PLY};
/// Futility pruning: up to this depth, off the principal variation and out of check, when
/// the static evaluation plus the futility margin a ply cannot reach alpha, quiet moves that
/// cannot give check are not searched (after the first move).
const FUTILITY_DEPTH: i32 = 3;
/// History pruning (knob `search_history_prune`): up to this depth, off the principal
/// variation and out of check, quiet moves that cannot give check and whose history plus
/// continuation history is below -knob × depth are not searched (after the first move).
const HISTORY_PRUNE_DEPTH: i32 = 3;
/// Razoring's depth limit (the knob `search_razor_margin` turns it on).
const RAZOR_DEPTH: i32 = 3;

/// ProbCut's shallowest node: its verification searches to depth - 4.
const PROBCUT_DEPTH: i32 = 5;

/// What limits a search. With no limit at all the search runs until stopped.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub time: Option<TimeControl>,
    /// Root moves not to play (UCCI `banmoves`).
    pub banned: Vec<Move>,
}

impl Limits {
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }
}

/// Progress after each completed iteration, and once more for an iteration stopped after it
/// had found a move (the move then played).
#[derive(Clone, Debug)]
pub struct Info<'a> {
    pub depth: u32,
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

/// Signals from outside a running search (the protocol's `stop` and `ponderhit`).
#[derive(Clone, Debug, Default)]
pub struct Signals {
    pub stop: Arc<AtomicBool>,
    /// While set, the clock does not run (pondering); clearing it starts the clock.
    pub ponder: Arc<AtomicBool>,
}

/// A hash table the machine could not allocate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot allocate a {wanted} MiB hash table; keeping the {kept} MiB one")]
pub struct HashSizeError {
    pub wanted: usize,
    pub kept: usize,
}

/// A searcher with its own tables. One per game or per thread; threads of one engine share
/// only the transposition table.
pub struct Searcher {
    weights: Weights,
    /// The weights' search and clock settings, copied out for the hot paths.
    knobs: Knobs,
    /// The transposition table, shared with the other threads of a [`super::smp::Pool`].
    tt: Arc<Tt>,
    history: History,
    cont: ContinuationHistory,
    correction: Correction,
    /// One frame per ply of the current path, the root's first.
    frames: Box<[Frame]>,
    /// The game's reversible history followed by the moves on the current search path.
    path: Vec<Ply>,
    /// Repetitions are not looked for across a null move.
    null_floor: usize,
    nodes: u64,
    node_limit: u64,
    aborted: bool,
    clock: Option<TimeManager>,
    signals: Signals,
    pondering: bool,
    root_first_ok: bool,
    /// The score of the move at the head of the root's PV when the current iteration has put one
    /// there: a search stopped mid-iteration still plays a move proven better at the new depth.
    root_partial: Option<Score>,
    /// The depth of the iteration under way.
    root_depth: i32,
    /// [`Weights::positional_margin`] of the current weights.
    lazy_margin: Score,
    evals: EvalCache,
}

impl Searcher {
    /// A searcher with the given evaluation weights and a transposition table of `tt_mb` MiB.
    pub fn new(weights: Weights, tt_mb: usize) -> Searcher {
        Searcher::with_table(weights, Arc::new(Tt::new(tt_mb)))
    }

    /// A searcher that uses `tt`, perhaps shared with other searchers.
    pub fn with_table(weights: Weights, tt: Arc<Tt>) -> Searcher {
        let lazy_margin = weights.positional_margin();
        Searcher {
            knobs: *weights.knobs(),
            weights,
            tt,
            history: History::new(),
            cont: ContinuationHistory::new(),
            correction: Correction::new(),
            frames: (0..MAX_PLY + 2).map(|_| Frame::default()).collect(),
            path: Vec::with_capacity(256 + MAX_PLY),
            null_floor: 0,
            nodes: 0,
            node_limit: u64::MAX,
            aborted: false,
            clock: None,
            signals: Signals::default(),
            pondering: false,
            root_first_ok: false,
            root_partial: None,
            root_depth: 0,
            lazy_margin,
            evals: EvalCache::new(),
        }
    }

    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    pub fn set_weights(&mut self, weights: Weights) {
        self.lazy_margin = weights.positional_margin();
        self.knobs = *weights.knobs();
        self.weights = weights;
        self.evals.clear();
    }

    /// Replaces the transposition table with one of `tt_mb` MiB; if that much memory cannot
    /// be had, keeps the current table and says so.
    pub fn resize_tt(&mut self, tt_mb: usize) -> Result<(), HashSizeError> {
        self.tt = Arc::new(Tt::try_new(tt_mb).ok_or(HashSizeError {
            wanted: tt_mb,
            kept: self.tt.bytes() >> 20,
        })?);
        Ok(())
    }

    /// The transposition table, to share with another searcher.
    pub fn table(&self) -> &Arc<Tt> {
        &self.tt
    }

    /// Uses `tt` from now on (the table of the other threads).
    pub fn share_table(&mut self, tt: Arc<Tt>) {
        self.tt = tt;
    }

    /// Forgets everything learned (for a new game), so that games are independent.
    pub fn clear(&mut self) {
        self.tt.clear();
        self.clear_own();
    }

    /// Forgets what this searcher learned by itself (evaluations, killers, history), but not
    /// the transposition table, which other threads may share.
    pub fn clear_own(&mut self) {
        self.evals.clear();
        // Every frame as a fresh searcher has it, so that a reused engine plays as a fresh
        // one: the root's last PV is a move hint for the next search, and quiescence nodes
        // read the move that led to them from a frame only the main search writes.
        self.frames.iter_mut().for_each(|f| *f = Frame::default());
        self.history.clear();
        self.cont.clear();
        self.correction.clear();
    }

    /// Uses these signals for `stop` and `ponderhit`.
    pub fn set_signals(&mut self, signals: Signals) {
        self.signals = signals;
    }

    /// Searches the game's current position.
    pub fn search(&mut self, game: &Xiangqi, limits: &Limits, mut report: impl FnMut(&Info)) -> SearchResult {
        let started = Instant::now();
        let mut board = game.board().clone();
        let history = game.history();
        let keep = (board.halfmoves() as usize).min(history.len());
        self.path.clear();
        self.path.extend_from_slice(&history[history.len() - keep..]);
        self.null_floor = 0;
        self.nodes = 0;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX).max(1);
        self.aborted = false;
        self.pondering = self.signals.ponder.load(Ordering::Relaxed);
        let time_knobs = self.knobs.time();
        self.clock = limits.time.map(|control| TimeManager::new(control, time_knobs));
        self.tt.new_search();
        self.frames.iter_mut().for_each(|f| f.killers = [None; 2]);
        self.frames[0].psq = self.weights.psq(&board);

        let mut root_moves = board.legal_moves();
        retain(&mut root_moves, |m| !limits.banned.contains(&m));
        let mut result = SearchResult {
            best: root_moves.first().copied(),
            ponder: None,
            score: 0,
            depth: 0,
            nodes: 0,
            pv: root_moves.first().copied().into_iter().collect(),
        };
        if root_moves.len() <= 1 {
            // Nothing to choose: answer at once (seed 000: a single reply needs no thought).
            result.score = if root_moves.is_empty() {
                -MATE
            } else {
                self.weights.evaluate(&board)
            };
            return result;
        }
        if let (Some(clock), Some(last)) = (&mut self.clock, history.last()) {
            // An obvious recapture: the opponent just captured and we can take back on that point.
            if last.undo.captured().is_some() && root_moves.iter().any(|m| m.to() == last.mv.to()) {
                clock.easy_move(4);
            }
        }
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 1)
            .clamp(1, MAX_PLY as u32 - 1);
        let rook = self.weights.value(Role::Rook);
        let mut previous = 0;
        for depth in 1..=max_depth {
            self.root_first_ok = false;
            self.root_partial = None;
            self.root_depth = depth as i32;
            let score = self.aspiration(&mut board, depth as i32, previous, &root_moves);
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
                score,
                nodes: self.nodes,
                elapsed: started.elapsed(),
                pv: &result.pv,
                partial: self.aborted,
            });
            if self.aborted {
                break;
            }
            // A proven mate cannot get better with depth.
            if score.abs() >= MATE_BOUND && (MATE - score.abs()) as u32 <= depth {
                break;
            }
            if self.nodes >= self.node_limit {
                break;
            }
            if let Some(clock) = &mut self.clock {
                if depth > 1 {
                    clock.after_iteration(previous, score, rook);
                }
                if !self.pondering && clock.iteration_unaffordable() {
                    break;
                }
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

    fn aspiration(&mut self, board: &mut Board, depth: i32, previous: Score, root_moves: &MoveList) -> Score {
        let mut window = self.knobs.aspiration_window;
        let (mut alpha, mut beta) = if depth >= 4 && previous.abs() < MATE_BOUND {
            (previous - window, previous + window)
        } else {
            (-INFINITY, INFINITY)
        };
        loop {
            let score = self.root(board, depth, alpha, beta, root_moves);
            if self.aborted {
                return score;
            }
            if score <= alpha && alpha > -INFINITY {
                alpha = (alpha - window).max(-INFINITY);
            } else if score >= beta && beta < INFINITY {
                beta = (beta + window).min(INFINITY);
            } else {
                return score;
            }
            window *= 2;
        }
    }

    fn root(
        &mut self,
        board: &mut Board,
        depth: i32,
        mut alpha: Score,
        beta: Score,
        root_moves: &MoveList,
    ) -> Score {
        self.nodes += 1;
        self.frames[0].pv_len = 0;
        let hash_move = self
            .tt
            .probe(board.hash(), 0, board.halfmoves())
            .and_then(|h| h.mv);
        let hint = hash_move.or(self.frames[0].pv[0]);
        let n = self.score_moves(board, root_moves, hint, 0, 0, None);
        let mut best = -INFINITY;
        let mut best_move = None;
        let alpha_orig = alpha;
        for i in 0..n {
            let mv = pick(&mut self.frames[0].keys[..n], i);
            let quiet = board.piece_at(mv.to()).is_none();
            let score = self.child(board, mv, depth, alpha, beta, 0, i, Node::Pv, quiet);
            if self.aborted {
                return best;
            }
            if i == 0 && score > alpha_orig {
                self.root_first_ok = true;
            }
            if score > best {
                best = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    self.update_pv(0, mv);
                    self.root_partial = Some(score);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        let entry = Entry {
            mv: best_move,
            score: best,
            depth,
            bound: bound_of(best, alpha_orig, beta),
            eval: None,
        };
        self.tt.store(board.hash(), 0, entry);
        best
    }

    /// Makes `mv`, searches the child with PVS and (when `reducible` and late) late-move
    /// reductions, and unmakes it.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn child(
        &mut self,
        board: &mut Board,
        mv: Move,
        depth: i32,
        alpha: Score,
        beta: Score,
        ply: usize,
        index: usize,
        node: Node,
        reducible: bool,
    ) -> Score {
        // Only a child with depth left probes the table (quiescence does not; a check
        // extends, so a child at depth 1 may probe too). Prefetching before the move is made
        // gives the load the longest head start.
        if depth > 1 {
            self.tt.prefetch(board.hash_after(mv));
        }
        let undo = self.enter(board, mv, ply);
        let gives_check = self.frames[ply + 1].in_check;
        if depth == 1 && gives_check {
            self.tt.prefetch(board.hash());
        }
        let score = if index == 0 {
            -self.negamax(board, depth - 1, -beta, -alpha, ply + 1, node.child(true))
        } else {
            // Xiangqi's checks are many, and a check's reply is extended: they are never reduced.
            let reduction = if depth >= 3 && index >= 2 && reducible && !gives_check {
                let killer = self.frames[ply].killers.contains(&Some(mv));
                // The move is made: its piece stands on its destination.
                let piece = board.piece_at(mv.to());
                let history = piece.map_or(0, |p| self.history.get(p, mv));
                let mut r = late_move_reduction(depth, index, self.knobs.lmr_divisor);
                r -= (node == Node::Pv) as i32 + killer as i32;
                // By history: a ply less for a move that has cut off more than failed, or
                // (knob `search_lmr_history`) plies in proportion to history and continuation
                // history, more or less.
                r -= match self.knobs.lmr_history {
                    0 => (history > 0) as i32,
                    scale => {
                        let cont = piece.map_or(0, |p| self.cont.get(self.frames[ply].last, p, mv));
                        (history + cont) / scale
                    }
                };
                r.clamp(0, depth - 2)
            } else {
                0
            };
            let mut s = -self.negamax(
                board,
                depth - 1 - reduction,
                -alpha - 1,
                -alpha,
                ply + 1,
                Node::NonPv,
            );
            if s > alpha && reduction > 0 {
                s = -self.negamax(board, depth - 1, -alpha - 1, -alpha, ply + 1, Node::NonPv);
            }
            if s > alpha && s < beta && node == Node::Pv {
                s = -self.negamax(board, depth - 1, -beta, -alpha, ply + 1, Node::Pv);
            }
            s
        };
        self.leave(board, mv, undo);
        score
    }

    /// Makes `mv` at `ply` and sets up the next ply's frame (its evaluation terms, whether
    /// it is in check, the move that led to it).
    fn enter(&mut self, board: &mut Board, mv: Move, ply: usize) -> Undo {
        self.frames[ply + 1].psq = self.weights.psq_after(board, mv, self.frames[ply].psq);
        let undo = board.make(mv);
        self.path.push(Ply { mv, undo });
        let next = &mut self.frames[ply + 1];
        next.in_check = board.in_check();
        next.after_null = false;
        next.last = moved(board, mv);
        undo
    }

    /// Whether the raw static evaluation is at most `needed`: from `eval` or the table's
    /// `hit_eval` when known, else from the material estimate where the lazy margin settles
    /// it, else evaluated (and kept in `eval`).
    fn eval_at_most(
        &mut self,
        board: &Board,
        ply: usize,
        eval: &mut Option<Score>,
        hit_eval: Option<Score>,
        needed: Score,
    ) -> bool {
        if let Some(e) = eval.or(hit_eval) {
            return e <= needed;
        }
        let estimate = self.estimate(board, ply);
        if estimate + self.lazy_margin <= needed {
            true
        } else if estimate - self.lazy_margin > needed {
            false
        } else {
            let e = self.evaluate(board, ply).0;
            *eval = Some(e);
            e <= needed
        }
    }

    /// Takes back `mv`, made by [`Searcher::enter`].
    fn leave(&mut self, board: &mut Board, mv: Move, undo: Undo) {
        self.path.pop();
        board.unmake(mv, undo);
    }

    /// The alpha-beta search of the node at `ply`; the frame at `ply` says whether it is in
    /// check and whether a null move led to it.
    fn negamax(
        &mut self,
        board: &mut Board,
        mut depth: i32,
        mut alpha: Score,
        mut beta: Score,
        ply: usize,
        node: Node,
    ) -> Score {
        let (pv_node, in_check) = (node == Node::Pv, self.frames[ply].in_check);
        self.frames[ply].pv_len = 0;
        if let Some(score) = self.rule_score(board, ply) {
            return score;
        }
        // Mate-distance pruning: no line from here can beat a mate already found nearer the root.
        alpha = alpha.max(-(MATE - ply as Score));
        beta = beta.min(MATE - ply as Score - 1);
        if alpha >= beta {
            return alpha;
        }
        // Check extension. (A null move's child is never in check, so a node in check has
        // depth 0 or more here.)
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.quiescence(board, alpha, beta, ply, in_check);
        }
        if self.tick() {
            return 0;
        }
        if ply >= MAX_PLY - 1 {
            return self.weights.evaluate_with(board, self.frames[ply].psq);
        }

        let hash = board.hash();
        let hit = self.tt.probe(hash, ply, board.halfmoves());
        let mut tt_move = hit.and_then(|h| h.mv).filter(|&m| board.is_legal(m));
        if let Some(h) = hit {
            if !pv_node && h.depth >= depth && h.settles(alpha, beta) {
                return h.score;
            }
        }

        // Off the principal variation, a static evaluation far enough above beta cuts the node
        // at once (reverse futility, shallow depths) or lets the opponent move twice (null
        // move). The evaluation is skipped where the material estimate rules both out.
        let prunable = !pv_node && !in_check;
        let null_allowed = prunable
            && !self.frames[ply].after_null
            && depth >= self.knobs.null_min_depth
            && has_attackers(board, board.turn());
        // Reverse futility: up to the knob's depth, a static evaluation that beats beta by the
        // margin a ply cuts the node without a search.
        let reverse_futile = prunable && depth <= self.knobs.rfp_depth && beta.abs() < MATE_BOUND;
        // `eval` is the raw static evaluation (the table keeps it); the pruning decisions, all
        // of them off the PV and out of check, use it corrected.
        let correction = if prunable { self.correction.get(board) } else { 0 };
        let hit_eval = hit.and_then(|h| h.eval);
        let mut eval = if !(null_allowed || reverse_futile) {
            None
        } else {
            let needed = if null_allowed {
                beta
            } else {
                beta + self.knobs.rfp_margin * depth
            } - correction;
            hit_eval.or_else(|| {
                let estimate = self.estimate(board, ply);
                (estimate + self.lazy_margin >= needed).then(|| self.evaluate(board, ply).0)
            })
        };
        let corrected = eval.map(|e| e + correction);
        if let Some(eval) = corrected {
            let margin = self.knobs.rfp_margin * depth;
            if reverse_futile && eval - margin >= beta {
                return eval - margin;
            }
        }
        // Razoring: far enough below alpha, a quiescence search that stays below it decides.
        let razor = self.knobs.razor_margin;
        if prunable
            && razor > 0
            && depth <= RAZOR_DEPTH
            && alpha.abs() < MATE_BOUND
            && self.eval_at_most(
                board,
                ply,
                &mut eval,
                hit_eval,
                alpha - razor * depth - correction,
            )
        {
            let score = self.quiescence(board, alpha, alpha + 1, ply, false);
            if self.aborted {
                return 0;
            }
            if score <= alpha {
                return score;
            }
        }
        if let Some(eval) = corrected.filter(|_| null_allowed) {
            if eval >= beta {
                let by_eval = match self.knobs.null_eval_divisor {
                    0 => 0,
                    d => ((eval - beta) / d).min(3),
                };
                let r = self.knobs.null_reduction + depth / self.knobs.null_depth_divisor + by_eval;
                self.frames[ply + 1].psq = self.frames[ply].psq;
                let undo = board.make_null();
                let floor = std::mem::replace(&mut self.null_floor, self.path.len());
                // The opponent cannot be in check: it was not before our pass.
                let next = &mut self.frames[ply + 1];
                next.in_check = false;
                next.after_null = true;
                next.last = None;
                let score = -self.negamax(board, depth - 1 - r, -beta, -beta + 1, ply + 1, Node::NonPv);
                self.null_floor = floor;
                board.unmake_null(undo);
                if self.aborted {
                    return 0;
                }
                if score >= beta {
                    return if score >= MATE_BOUND { beta } else { score };
                }
            }
        }

        // Internal iterative reduction: off the PV, a node the table knows nothing of is
        // seldom critical, and the shallower search finds a move for its next visit.
        let iir = self.knobs.iir_depth;
        if !pv_node && iir > 0 && depth >= iir && tt_move.is_none() {
            depth -= 1;
        }

        // ProbCut: a capture whose reduced search beats beta by a margin would almost surely
        // make the full search fail high too. Skipped when the table already holds a search
        // nearly as deep that stayed below the raised bound.
        let probcut_margin = self.knobs.probcut_margin;
        if prunable && probcut_margin > 0 && depth >= PROBCUT_DEPTH && beta.abs() < MATE_BOUND {
            let raised = beta + probcut_margin;
            if !hit.is_some_and(|h| h.depth >= depth - 3 && h.score < raised) {
                let base = corrected.unwrap_or_else(|| self.estimate(board, ply) + correction);
                if let Some(score) = self.probcut(board, depth, raised, ply, base, eval) {
                    return score;
                }
                if self.aborted {
                    return 0;
                }
            }
        }

        // Futility: far enough below alpha, quiet moves cannot bring the score back. The lazy
        // bounds settle most nodes without the full evaluation.
        let futile = prunable
            && depth <= FUTILITY_DEPTH
            && alpha.abs() < MATE_BOUND
            && self.eval_at_most(
                board,
                ply,
                &mut eval,
                hit_eval,
                alpha - self.knobs.futility_margin * depth - correction,
            );
        // Per-move futility by the reduced depth needs the evaluation itself.
        let futility_base = if prunable && self.knobs.futility_lmr_depth > 0 && alpha.abs() < MATE_BOUND {
            let raw = *eval.get_or_insert_with(|| hit_eval.unwrap_or_else(|| self.evaluate(board, ply).0));
            raw + correction
        } else {
            Score::MAX / 2
        };
        let history_floor = if prunable && depth <= HISTORY_PRUNE_DEPTH && self.knobs.history_prune > 0 {
            -self.knobs.history_prune * depth
        } else {
            i32::MIN
        };
        let quiet_limit = if prunable && depth <= self.knobs.lmp_depth {
            let count = self.knobs.lmp_base + self.knobs.lmp_square * depth * depth;
            (count * self.knobs.lmp_percent / 100) as usize
        } else {
            usize::MAX
        };

        // Internal iterative deepening: without a hash move, a shallower search finds one.
        if tt_move.is_none() && pv_node && depth >= 5 {
            self.negamax(board, depth - 2, alpha, beta, ply, Node::Pv);
            if self.aborted {
                return 0;
            }
            tt_move = self
                .tt
                .probe(hash, ply, board.halfmoves())
                .and_then(|h| h.mv)
                .filter(|&m| board.is_legal(m));
        }

        let alpha_orig = alpha;
        let mut best = NodeBest {
            score: -INFINITY,
            mv: None,
            alpha,
        };
        // Moves come in stages (see [`movepick`]), so that a node cut off early never
        // generates the rest. (Over the bench, four in five nodes that generate moves are
        // cut off by a capture or a killer.)
        let mut stage = StageSearch {
            depth,
            beta,
            ply,
            node,
            skip: [None; 3],
            searched: 0,
            futile,
            quiet_limit,
            history_floor,
            futility_base,
            quiets: 0,
            check_zone: check_zone(board),
            captures: 0..0,
        };
        let mut flow = Flow::Rest(0);
        let mut next = Some(Stage::HashMove);
        while let (Flow::Rest(_), Some(kind)) = (&flow, next) {
            flow = self.search_stage(board, &mut best, &mut stage, kind, tt_move);
            next = kind.next(in_check);
        }
        match flow {
            Flow::Aborted => return 0,
            Flow::Rest(_) if stage.searched == 0 => {
                // Checkmated or stalemated: both lose in Xiangqi.
                return -(MATE - ply as Score);
            }
            // A cut-off's score is at least beta: its bound comes out a lower bound.
            Flow::Cut | Flow::Rest(_) => {}
        }
        let bound = bound_of(best.score, alpha_orig, beta);
        // Only where pruning may use it is the evaluation corrected, and so taught.
        let corrected = eval.filter(|_| prunable).map(|e| e + correction);
        self.learn_correction(board, &best, depth, bound, corrected);
        // Below alpha every score is only a bound: the best of them is noise, and the
        // table's earlier move (which the store keeps when given none) may be worth more.
        let mv = if bound == Bound::Upper && self.knobs.fail_low_keeps_move {
            None
        } else {
            best.mv
        };
        let entry = Entry {
            mv,
            score: best.score,
            depth,
            bound,
            eval,
        };
        self.tt.store(hash, ply, entry);
        best.score
    }

    /// ProbCut's captures at a node of `depth`: those that win or trade material and whose
    /// gain could lift `base` (the corrected evaluation) to `raised`, each searched with a
    /// null window at `raised`, first by quiescence and then to depth - 4. The first that
    /// holds is the node's score (stored as a lower bound at depth - 3).
    fn probcut(
        &mut self,
        board: &mut Board,
        depth: i32,
        raised: Score,
        ply: usize,
        base: Score,
        eval: Option<Score>,
    ) -> Option<Score> {
        let captures = board.legal_moves_to_in(board.by_color(board.turn().flip()), false);
        let n = self.score_moves(board, &captures, None, ply, 0, None);
        for i in 0..n {
            let mv = pick(&mut self.frames[ply].keys[..n], i);
            if order_score(self.frames[ply].keys[i]) < CAPTURE_BASE {
                break;
            }
            let victim = board.piece_at(mv.to()).expect("a capture lands on a piece");
            let mover = board.piece_at(mv.from()).expect("a move starts on a piece");
            let (v, a, protected) = capture_terms(board, &self.weights, mv, mover, victim, None);
            let gain = if protected { v - a } else { v };
            if base + gain < raised {
                continue;
            }
            let undo = self.enter(board, mv, ply);
            let in_check = self.frames[ply + 1].in_check;
            let mut score = -self.quiescence(board, -raised, -raised + 1, ply + 1, in_check);
            if score >= raised && !self.aborted {
                score = -self.negamax(board, depth - 4, -raised, -raised + 1, ply + 1, Node::NonPv);
            }
            self.leave(board, mv, undo);
            if self.aborted {
                return None;
            }
            if score >= raised {
                let entry = Entry {
                    mv: Some(mv),
                    score,
                    depth: depth - 3,
                    bound: Bound::Lower,
                    eval,
                };
                self.tt.store(board.hash(), ply, entry);
                return Some(score);
            }
        }
        None
    }

    /// Teaches the correction history the node's searched score when it says more than the
    /// corrected static evaluation `eval` (known only where pruning took it): the best move
    /// is quiet or there is none, the score is no mate, and its bound does not leave the
    /// evaluation possibly right.
    fn learn_correction(
        &mut self,
        board: &Board,
        best: &NodeBest,
        depth: i32,
        bound: Bound,
        eval: Option<Score>,
    ) {
        let Some(eval) = eval else { return };
        let quiet = !best.mv.is_some_and(|m| board.piece_at(m.to()).is_some());
        let informative = match bound {
            Bound::Exact => true,
            Bound::Lower => best.score > eval,
            Bound::Upper => best.score < eval,
        };
        if quiet && informative && best.score.abs() < MATE_BOUND {
            self.correction.update(board, depth, best.score, eval);
        }
    }

    /// The quiescence search: captures (out of check) or every evasion (in check) until the
    /// position is quiet.
    fn quiescence(
        &mut self,
        board: &mut Board,
        mut alpha: Score,
        beta: Score,
        ply: usize,
        in_check: bool,
    ) -> Score {
        self.frames[ply].pv_len = 0;
        if self.tick() {
            return 0;
        }
        if ply >= MAX_PLY - 1 {
            return self.weights.evaluate_with(board, self.frames[ply].psq);
        }
        let mut best = -INFINITY;
        // Delta pruning (knob `search_qs_delta`): out of check, a capture that would leave
        // the side below alpha even if the victim came free and the position gained the
        // margin besides is not searched, unless it gives check.
        let delta = if in_check { 0 } else { self.knobs.qs_delta };
        let moves = if in_check {
            let all = board.legal_moves_to_in(Bitboard::FULL, true);
            if all.is_empty() {
                return -(MATE - ply as Score);
            }
            self.score_moves(board, &all, None, ply, 0, None);
            all
        } else {
            // Lazy evaluation: far enough above beta, the attack-based terms cannot matter.
            let correction = self.correction.get(board);
            let estimate = self.estimate(board, ply) + correction;
            if estimate - self.lazy_margin >= beta {
                return estimate - self.lazy_margin;
            }
            let (stand, attacked) = self.evaluate(board, ply);
            let stand = stand + correction;
            if stand >= beta {
                return stand;
            }
            let us = board.turn();
            // With only king, advisors and elephants a side may have no move at all, which
            // loses; such sparse positions are cheap to check.
            if !has_attackers(board, us) && board.pieces(us, Role::Pawn).is_empty() && !board.has_legal_move()
            {
                return -(MATE - ply as Score);
            }
            alpha = alpha.max(stand);
            best = stand;
            // Every capture lands on an enemy piece we attack: with none, there is nothing to do.
            let targets = attacked[us.index()] & board.by_color(us.flip());
            if targets.is_empty() {
                return best;
            }
            let captures = board.legal_captures_of(targets);
            self.score_moves(board, &captures, None, ply, 0, Some(attacked[us.flip().index()]));
            captures
        };
        let stand = best;
        let mut zone = None;
        for i in 0..moves.len() {
            let mv = pick(&mut self.frames[ply].keys[..moves.len()], i);
            // Out of check, captures that lose material (a protected piece worth less than the
            // capturer) are left out.
            if !in_check && order_score(self.frames[ply].keys[i]) < CAPTURE_BASE {
                break;
            }
            if delta > 0 {
                let victim = board.piece_at(mv.to()).expect("quiescence out of check captures");
                let hope = stand + self.weights.value(victim.role) + delta;
                if hope <= alpha
                    && !gives_check_near(board, *zone.get_or_insert_with(|| check_zone(board)), mv)
                {
                    best = best.max(hope);
                    continue;
                }
            }
            let score = self.quiescence_child(board, mv, alpha, beta, ply);
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                alpha = alpha.max(score);
                if score >= beta {
                    break;
                }
            }
        }
        best
    }

    /// Makes `mv` at quiescence's `ply`, searches the child (its evasions if it is in check)
    /// and takes the move back; the score is from this ply's side.
    fn quiescence_child(
        &mut self,
        board: &mut Board,
        mv: Move,
        alpha: Score,
        beta: Score,
        ply: usize,
    ) -> Score {
        self.frames[ply + 1].psq = self.weights.psq_after(board, mv, self.frames[ply].psq);
        let undo = board.make(mv);
        let gives_check = board.in_check();
        // The evasions of a check are ordered by the continuation history of the move that
        // led to it; without the knob the frame holds what the main search last made there.
        if self.knobs.qs_last_move {
            self.frames[ply + 1].last = moved(board, mv);
        }
        let score = -self.quiescence(board, -beta, -alpha, ply + 1, gives_check);
        board.unmake(mv, undo);
        score
    }

    /// The evaluation of the position at `ply` and both sides' attack maps.
    #[inline]
    fn evaluate(&mut self, board: &Board, ply: usize) -> (Score, [Bitboard; 2]) {
        let (weights, psq) = (&self.weights, self.frames[ply].psq);
        let (score, attacked) = self
            .evals
            .get_or(board.hash(), || weights.evaluate_with_attacks(board, psq));
        (self.damp(board, score), attacked)
    }

    /// [`Weights::material_estimate`] of the position at `ply`, damped as the evaluation is
    /// (so that the lazy margin still bounds their difference).
    #[inline]
    fn estimate(&self, board: &Board, ply: usize) -> Score {
        self.damp(board, self.weights.material_estimate(board, self.frames[ply].psq))
    }

    /// Scales a static evaluation toward zero where the side it favours has too little left
    /// to mate (`search_scale_no_mating`, `search_scale_lone_attacker`), so that the search
    /// neither trades into an advantage it cannot convert nor fears one. The scaling is
    /// monotone and shrinks differences, so the lazy margin still bounds the estimate's error.
    #[inline]
    fn damp(&self, board: &Board, mut score: Score) -> Score {
        let (none, lone) = (self.knobs.scale_no_mating, self.knobs.scale_lone_attacker);
        if (none < 64 || lone < 64) && score != 0 {
            let ahead = if score > 0 {
                board.turn()
            } else {
                board.turn().flip()
            };
            let scale = match mating_force(board, ahead) {
                MatingForce::None => none,
                MatingForce::Lone => lone,
                MatingForce::Enough => 64,
            };
            score = score * scale / 64;
        }
        score
    }

    /// Counts a node and says whether the search must stop (node limit, clock, `stop`).
    #[inline]
    fn tick(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        self.nodes += 1;
        if self.nodes >= self.node_limit {
            self.aborted = true;
        } else if self.nodes & 1023 == 0 {
            if self.signals.stop.load(Ordering::Relaxed) {
                self.aborted = true;
            }
            let pondering = self.signals.ponder.load(Ordering::Relaxed);
            if let Some(clock) = &mut self.clock {
                if self.pondering && !pondering {
                    clock.restart(); // ponderhit: our clock starts now
                }
                // Stop at the hard cap, or once the target is spent and this iteration's
                // first root move has been searched without failing low (seed 000).
                if !pondering && (clock.out_of_time() || (self.root_first_ok && clock.target_spent())) {
                    self.aborted = true;
                }
            }
            self.pondering = pondering;
        }
        self.aborted
    }

    /// The score the rules give the current node, if they end the game here: a repetition
    /// (perpetual check or chase loses, otherwise a draw) or 120 plies without capture.
    fn rule_score(&self, board: &Board, ply: usize) -> Option<Score> {
        if ply == 0 {
            return None;
        }
        let n = self.path.len();
        let window = (board.halfmoves() as usize).min(n - self.null_floor.min(n));
        let hash = board.hash();
        let mut back = 4;
        while back <= window {
            if self.path[n - back].undo.hash_before() == hash {
                let outcome = examine_cycle(board, &self.path[n - back..]).outcome();
                return Some(match outcome.winner {
                    None => 0,
                    Some(c) if c == board.turn() => MATE - ply as Score,
                    Some(_) => -(MATE - ply as Score),
                });
            }
            back += 2;
        }
        if board.halfmoves() >= NO_CAPTURE_LIMIT {
            return Some(0);
        }
        None
    }

    /// Takes a searched move's score into the node's best (and its PV, killers and history);
    /// returns true on a beta cut-off.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn consider(
        &mut self,
        node: &mut NodeBest,
        board: &Board,
        mv: Move,
        score: Score,
        beta: Score,
        ply: usize,
        depth: i32,
        pv_node: bool,
        quiet: bool,
        tried: Range<usize>,
        earlier: [Option<Move>; 3],
    ) -> bool {
        if score <= node.score {
            return false;
        }
        node.score = score;
        node.mv = Some(mv);
        if score <= node.alpha {
            return false;
        }
        node.alpha = score;
        if pv_node {
            self.update_pv(ply, mv);
        }
        if score < beta {
            return false;
        }
        if quiet {
            self.reward_quiet(board, mv, depth, ply, tried, earlier);
        }
        true
    }

    /// Makes `mv` followed by the child's PV this ply's PV.
    fn update_pv(&mut self, ply: usize, mv: Move) {
        let (here, below) = self.frames.split_at_mut(ply + 1);
        let (frame, child) = (&mut here[ply], &below[0]);
        let len = if ply < MAX_PLY { child.pv_len } else { 0 }.min(MAX_PLY - 1);
        frame.pv[0] = Some(mv);
        frame.pv[1..=len].copy_from_slice(&child.pv[..len]);
        frame.pv_len = len + 1;
    }

    /// Rewards the quiet move `mv` that cut off (killer, history) and penalises the quiet
    /// moves tried before it: `tried` indexes this ply's ordering keys, and `earlier` holds
    /// the moves of earlier stages (hash move, killers).
    fn reward_quiet(
        &mut self,
        board: &Board,
        mv: Move,
        depth: i32,
        ply: usize,
        tried: Range<usize>,
        earlier: [Option<Move>; 3],
    ) {
        if self.frames[ply].killers[0] != Some(mv) {
            self.frames[ply].killers[1] = self.frames[ply].killers[0];
            self.frames[ply].killers[0] = Some(mv);
        }
        let bonus = movepick::history_bonus(depth);
        let (history, cont, last) = (&mut self.history, &mut self.cont, self.frames[ply].last);
        let mut update = |m: Move, delta: i32| {
            if let Some(p) = board.piece_at(m.from()) {
                history.update(p, m, delta);
                cont.update(last, p, m, delta);
            }
        };
        update(mv, bonus);
        let tried_keys = self.frames[ply].keys[tried].iter().map(|&k| key_move(k));
        for m in tried_keys.chain(earlier.into_iter().flatten()) {
            if board.piece_at(m.to()).is_none() {
                update(m, -bonus);
            }
        }
    }

    /// Searches one stage of a node's moves (see [`movepick::Stage`]).
    fn search_stage(
        &mut self,
        board: &mut Board,
        node: &mut NodeBest,
        stage: &mut StageSearch,
        kind: Stage,
        tt_move: Option<Move>,
    ) -> Flow {
        let ply = stage.ply;
        match kind {
            Stage::HashMove => {
                let Some(mv) = tt_move else {
                    return Flow::Rest(0);
                };
                let flow = self.search_move(board, node, stage, mv, 0..0);
                stage.skip[0] = Some(mv);
                flow.unwrap_or(Flow::Rest(0))
            }
            Stage::Evasions => {
                let evasions = board.legal_moves_to_in(Bitboard::FULL, true);
                let n = self.score_moves(board, &evasions, tt_move, ply, 0, None);
                self.search_keys(board, node, stage, 0..n, None)
            }
            Stage::GoodCaptures => {
                // Every enemy piece is a possible victim here, too many to look up one by one
                // as quiescence does: generating each piece's targets, masked, is cheaper.
                let captures = board.legal_moves_to_in(board.by_color(board.turn().flip()), false);
                let n = self.score_moves(board, &captures, None, ply, 0, None);
                let flow = self.search_keys(board, node, stage, 0..n, Some(CAPTURE_BASE));
                if let Flow::Rest(losing) = flow {
                    stage.captures = losing..n;
                }
                flow
            }
            Stage::Killers => {
                let mut n_killers = 0;
                for killer in self.frames[ply].killers.into_iter().flatten() {
                    if Some(killer) == stage.skip[0]
                        || board.piece_at(killer.to()).is_some()
                        || !board.is_legal(killer)
                    {
                        continue;
                    }
                    if let Some(flow) = self.search_move(board, node, stage, killer, 0..0) {
                        return flow;
                    }
                    stage.skip[1 + n_killers] = Some(killer);
                    n_killers += 1;
                }
                Flow::Rest(0)
            }
            Stage::QuietsAndBadCaptures => {
                // The quiet moves' keys follow the captures', so that the losing captures,
                // left in place by their stage, sort after them.
                let quiets = board.legal_moves_to_in(!board.occupied(), false);
                let end = stage.captures.end;
                let n = self.score_moves(board, &quiets, None, ply, end, None);
                self.search_keys(board, node, stage, stage.captures.start..end + n, None)
            }
        }
    }

    /// Searches one move of a node and takes its score into the node's best; `Some` when the
    /// node is done (a cut-off, or the search was stopped). `tried` indexes the keys of the
    /// quiet moves searched before it in its stage (see [`Searcher::reward_quiet`]).
    fn search_move(
        &mut self,
        board: &mut Board,
        node: &mut NodeBest,
        stage: &mut StageSearch,
        mv: Move,
        tried: Range<usize>,
    ) -> Option<Flow> {
        let quiet = board.piece_at(mv.to()).is_none();
        let (depth, ply) = (stage.depth, stage.ply);
        let score = self.child(
            board,
            mv,
            depth,
            node.alpha,
            stage.beta,
            ply,
            stage.searched,
            stage.node,
            quiet,
        );
        stage.searched += 1;
        stage.quiets += quiet as usize;
        if self.aborted {
            return Some(Flow::Aborted);
        }
        let cut = self.consider(
            node,
            board,
            mv,
            score,
            stage.beta,
            ply,
            depth,
            stage.node == Node::Pv,
            quiet,
            tried,
            stage.skip,
        );
        cut.then_some(Flow::Cut)
    }

    /// Searches the moves whose ordering keys are `range` of this ply's keys, best first,
    /// skipping those searched in an earlier stage. With a `floor`, stops at the first move
    /// scored below it and returns where (the rest stays in place for a later stage).
    fn search_keys(
        &mut self,
        board: &mut Board,
        node: &mut NodeBest,
        stage: &mut StageSearch,
        range: Range<usize>,
        floor: Option<i32>,
    ) -> Flow {
        let ply = stage.ply;
        for i in range.clone() {
            let mv = pick(
                &mut self.frames[ply].keys[range.start..range.end],
                i - range.start,
            );
            if floor.is_some_and(|f| order_score(self.frames[ply].keys[i]) < f) {
                return Flow::Rest(i);
            }
            if stage.skip.contains(&Some(mv)) {
                continue;
            }
            let quiet = board.piece_at(mv.to()).is_none();
            if floor.is_none()
                && quiet
                && stage.prunes(
                    board,
                    order_score(self.frames[ply].keys[i]),
                    mv,
                    node.alpha,
                    &self.knobs,
                )
            {
                continue;
            }
            // Past the first picks the keys are sorted, so the next move is known: start
            // loading its child's table entry while this move is searched.
            if i - range.start >= PICKED && i + 1 < range.end && stage.depth > 1 {
                self.tt
                    .prefetch(board.hash_after(key_move(self.frames[ply].keys[i + 1])));
            }
            if let Some(flow) = self.search_move(board, node, stage, mv, range.start..i) {
                return flow;
            }
        }
        Flow::Rest(range.end)
    }

    /// Writes the ordering keys of `moves` into this ply's keys from `offset` on (see
    /// [`movepick::score_moves`]); returns their number.
    fn score_moves(
        &mut self,
        board: &Board,
        moves: &MoveList,
        hash_move: Option<Move>,
        ply: usize,
        offset: usize,
        defended: Option<Bitboard>,
    ) -> usize {
        let hints = Hints {
            hash_move,
            killers: self.frames[ply].killers,
            cont: self.cont.row(self.frames[ply].last),
        };
        let out = &mut self.frames[ply].keys[offset..];
        movepick::score_moves(board, &self.weights, &self.history, hints, moves, defended, out)
    }
}

/// Whether a node is on the principal variation (searched with an open window) or off it
/// (a null window, where pruning is allowed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    Pv,
    NonPv,
}

impl Node {
    /// The type of a child searched at full depth: a PV node's first child is on the PV,
    /// every other child is off it.
    #[inline]
    fn child(self, first: bool) -> Node {
        match self {
            Node::Pv if first => Node::Pv,
            _ => Node::NonPv,
        }
    }
}

/// What the search keeps for one ply of the current path.
#[derive(Clone)]
struct Frame {
    /// Material and piece-square sums of the position.
    psq: Psq,
    /// The two quiet moves that last cut off at this ply.
    killers: [Option<Move>; 2],
    /// The principal variation from here: its first `pv_len` moves.
    pv: [Option<Move>; MAX_PLY + 1],
    pv_len: usize,
    /// Whether the side to move is in check, and whether a null move led here.
    in_check: bool,
    after_null: bool,
    /// The move that led here, for the continuation history (none at the root or after a
    /// null move).
    last: LastMove,
    /// Move-ordering keys (see [`movepick::order_key`]), kept here so that no node clears
    /// a fresh array.
    keys: [i64; MAX_MOVES],
}

impl Default for Frame {
    fn default() -> Frame {
        Frame {
            psq: Psq::default(),
            killers: [None; 2],
            pv: [None; MAX_PLY + 1],
            pv_len: 0,
            in_check: false,
            after_null: false,
            last: None,
            keys: [0; MAX_MOVES],
        }
    }
}

/// The best score and move found so far at a node, and its raised alpha.
struct NodeBest {
    score: Score,
    mv: Option<Move>,
    alpha: Score,
}

/// How a stage of a node's moves ended.
enum Flow {
    /// A move failed high.
    Cut,
    /// The search was stopped.
    Aborted,
    /// Every move of the stage was searched, or it stopped at this index of the keys.
    Rest(usize),
}

/// What the stages of one node share.
struct StageSearch {
    depth: i32,
    beta: Score,
    ply: usize,
    node: Node,
    /// Moves already searched in an earlier stage: the hash move and the killers.
    skip: [Option<Move>; 3],
    /// Moves searched so far (late-move reductions grow with it).
    searched: usize,
    /// Quiet moves that cannot give check are pruned: all of them (futility), or those past
    /// the first `quiet_limit` quiet moves (late-move pruning).
    futile: bool,
    quiet_limit: usize,
    /// Quiet moves whose ordering score (history) is below this are pruned.
    history_floor: i32,
    /// The corrected static evaluation for per-move futility by reduced depth (knob
    /// `search_futility_lmr_depth`); out of reach of any alpha when that is off.
    futility_base: Score,
    /// Quiet moves searched so far.
    quiets: usize,
    /// Where a move must start or end to be able to give check (see [`check_zone`]).
    check_zone: Bitboard,
    /// This ply's keys of the captures left for the last stage (the losing ones).
    captures: Range<usize>,
}

impl StageSearch {
    /// Whether the quiet move `mv`, of ordering score `score`, is pruned here: a move has
    /// been searched already, futility, the quiet-move count or its history rules it out,
    /// and it cannot give check.
    #[inline]
    fn prunes(&self, board: &Board, score: i32, mv: Move, alpha: Score, knobs: &Knobs) -> bool {
        self.searched > 0
            && (self.futile
                || self.quiets >= self.quiet_limit
                || score < self.history_floor
                || self.futile_by_reduced_depth(alpha, knobs))
            && !self.may_give_check(board, mv, knobs)
    }

    /// The depth the next move would be searched to after its late-move reduction (before
    /// the move's own adjustments).
    #[inline]
    fn reduced_depth(&self, knobs: &Knobs) -> i32 {
        (self.depth - 1 - late_move_reduction(self.depth, self.searched, knobs.lmr_divisor)).max(0)
    }

    /// Whether `mv` may give check: it starts or ends in the check zone and, with the knob
    /// `search_exact_check_prune`, really does (about one zone move in thirty that pruning
    /// would otherwise take gives check, so the exact test saves the searches of the rest).
    #[inline]
    fn may_give_check(&self, board: &Board, mv: Move, knobs: &Knobs) -> bool {
        if !knobs.exact_check_prune {
            touches(self.check_zone, mv)
        } else {
            gives_check_near(board, self.check_zone, mv)
        }
    }

    /// Futility by the depth the next move would be searched to after its late-move
    /// reduction, where that is below the knob `search_futility_lmr_depth`.
    #[inline]
    fn futile_by_reduced_depth(&self, alpha: Score, knobs: &Knobs) -> bool {
        if self.futility_base >= alpha {
            return false;
        }
        let reduced = self.reduced_depth(knobs);
        reduced < knobs.futility_lmr_depth
            && self.futility_base + knobs.futility_margin * (reduced + 1) <= alpha
    }
}

/// The points a move must start or end on to be able to give check to the side not to move:
/// the lines through its king (rooks, cannons, their screens, pawns, the facing kings),
/// the horse points around it, and the horse legs next to it.
fn check_zone(board: &Board) -> Bitboard {
    let king = board.king(board.turn().flip());
    super::attacks::lines_through(king)
        | super::attacks::horse_zone(king)
        | super::attacks::diagonal_neighbours(king)
}

/// Whether `mv` starts or ends in `zone`.
#[inline]
fn touches(zone: Bitboard, mv: Move) -> bool {
    zone.contains(mv.from()) || zone.contains(mv.to())
}

/// Whether `mv` gives check, with `zone` the side to move's [`check_zone`]: a move that
/// does not touch it cannot, and most moves are ruled out so without looking further.
#[inline]
fn gives_check_near(board: &Board, zone: Bitboard, mv: Move) -> bool {
    touches(zone, mv) && board.gives_check(mv)
}

/// Late-move reductions in plies before the node's and the move's own adjustments, by depth
/// and by how many moves the node has searched: 1 + ln(depth) ln(index) / (divisor / 100),
/// a logarithmic rule as Ethereal and Stockfish have (later moves at greater depths are
/// worth less); the divisor is the knob `search_lmr_divisor` (175 by default).
fn late_move_reduction(depth: i32, index: usize, divisor: i32) -> i32 {
    static LN: std::sync::LazyLock<[f64; 64]> =
        std::sync::LazyLock::new(|| std::array::from_fn(|i| if i == 0 { 0.0 } else { (i as f64).ln() }));
    let (d, i) = (depth.clamp(0, 63) as usize, index.min(63));
    if d == 0 || i == 0 {
        return 0;
    }
    (1.0 + LN[d] * LN[i] / (divisor as f64 / 100.0)) as i32
}

fn retain(moves: &mut MoveList, keep: impl Fn(Move) -> bool) {
    let mut out = MoveList::new();
    for &m in moves.iter() {
        if keep(m) {
            out.push(m);
        }
    }
    *moves = out;
}

fn bound_of(score: Score, alpha: Score, beta: Score) -> Bound {
    if score >= beta {
        Bound::Lower
    } else if score > alpha {
        Bound::Exact
    } else {
        Bound::Upper
    }
}

/// The piece `mv` moved and where it stands, after `mv` is made on `board`.
#[inline]
fn moved(board: &Board, mv: Move) -> LastMove {
    board.piece_at(mv.to()).map(|p| (p, mv.to()))
}

/// Whether `color` has a rook, horse or cannon: without one, zugzwang is common and a null
/// move would lie.
fn has_attackers(board: &Board, color: Color) -> bool {
    (board.pieces(color, Role::Rook) | board.pieces(color, Role::Horse) | board.pieces(color, Role::Cannon))
        .any()
}
