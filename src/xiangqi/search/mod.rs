//! The search: iterative deepening over a principal-variation alpha-beta search.
//!
//! One concept a file:
//! - [`limits`]: what bounds a search (depth, nodes, the clock, `stop`) and the node count;
//! - [`iterate`]: iterative deepening with aspiration windows, and the result;
//! - [`kind`]: a node's kind (root, PV, non-PV) as marker types, and where a node stands;
//! - [`node`]: the alpha-beta node, generic over its kind, with its entry
//!   (repetitions, mate distance, check extension), the table, the move loop with principal
//!   variation search, and the store;
//! - [`prune`]: the prunings before the move loop (reverse futility, razoring, null move,
//!   internal iterative reduction, ProbCut) and inside it (futility, late-move and history
//!   pruning);
//! - [`reduce`]: late-move reductions, their table and their adjustments;
//! - [`quiesce`]: the quiescence search on captures and check evasions;
//! - [`evaluate`]: the static evaluation as the search sees it (cached, scaled, bounded by
//!   the material estimate), and [`correction`], what searches found it off by;
//! - [`movepick`]: the move picker that hands out a node's moves in stages (seed 001), by
//!   the ordering [`keys`] it scores them into;
//! - [`history`]: the history tables; [`frame`]: what the search keeps per ply;
//! - [`counts`]: what a search did, counted (where the nodes went, what each cut did).
//!
//! The search's settings are [`Knobs`] (`qitune params` lists them). Nothing here
//! allocates per node, and depth- or node-limited searches are deterministic.

mod correction;
mod counts;
mod evalcache;
mod evaluate;
mod frame;
mod history;
mod iterate;
mod keys;
mod kind;
mod limits;
mod movepick;
mod node;
mod prune;
mod quiesce;
mod reduce;

pub use super::score::{mate_in_moves, MATE, MATE_BOUND, MAX_PLY};
pub use counts::{Count, Counts};
pub use iterate::{Info, SearchResult};
pub use limits::{Limits, Signals};

use super::eval::{Score, Weights};
use super::knobs::Knobs;
use super::rules::Ply;
use super::time::TimeManager;
use super::tt::Tt;
use correction::Correction;
use evalcache::EvalCache;
use frame::Frame;
use history::{ContinuationHistory, History};
use std::sync::Arc;

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
    /// The deepest ply + 1 a PV node of the current iteration reached (the `seldepth` of
    /// [`Info`]).
    seldepth: usize,
    /// What the current search did, counted (a diagnostic).
    counts: Counts,
    node_limit: u64,
    aborted: bool,
    clock: Option<TimeManager>,
    signals: Signals,
    pondering: bool,
    root_first_ok: bool,
    /// The score of the move at the head of the root's PV when the current iteration has put one
    /// there: a search stopped mid-iteration still plays a move proven better at the new depth.
    root_partial: Option<Score>,
    /// The root's moves (legal and not banned).
    root_moves: super::moves::MoveList,
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
            seldepth: 0,
            counts: Counts::default(),
            node_limit: u64::MAX,
            aborted: false,
            clock: None,
            signals: Signals::default(),
            pondering: false,
            root_first_ok: false,
            root_partial: None,
            root_moves: super::moves::MoveList::new(),
            lazy_margin,
            evals: EvalCache::new(),
        }
    }

    /// What the last search did, counted.
    pub fn counts(&self) -> &Counts {
        &self.counts
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

    /// An [`movepick::Orderer`] for the node at `ply`.
    #[inline]
    fn orderer<'a>(&'a mut self, board: &'a super::board::Board, ply: usize) -> movepick::Orderer<'a> {
        movepick::Orderer {
            board,
            weights: &self.weights,
            history: &self.history,
            cont: &self.cont,
            frame: &mut self.frames[ply],
        }
    }
}
