//! Several threads on one search (lazy SMP): every thread runs its own iterative deepening on
//! the same position, sharing only the transposition table, so that each finds in the table
//! what the others have proved. The main thread keeps the clock, reports and answers; the
//! helpers search until it is done.
//!
//! With more than one thread a search is no longer deterministic; the arena's embedded
//! engines use one [`Searcher`] each and stay so.

use super::eval::Weights;
use super::rules::Xiangqi;
use super::search::{HashSizeError, Info, Limits, SearchResult, Searcher, Signals};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The most threads an engine runs.
pub const MAX_THREADS: usize = 256;

/// The searchers of one engine: the main one first, then its helpers.
pub struct Pool {
    main: Searcher,
    helpers: Vec<Searcher>,
}

impl Pool {
    /// One thread with the given weights and a table of `tt_mb` MiB.
    pub fn new(weights: Weights, tt_mb: usize) -> Pool {
        Pool {
            main: Searcher::new(weights, tt_mb),
            helpers: Vec::new(),
        }
    }

    /// The number of threads.
    pub fn threads(&self) -> usize {
        1 + self.helpers.len()
    }

    /// Runs `threads` threads (clamped to 1..=[`MAX_THREADS`]) from the next search on.
    pub fn set_threads(&mut self, threads: usize) {
        let helpers = threads.clamp(1, MAX_THREADS) - 1;
        self.helpers.truncate(helpers);
        while self.helpers.len() < helpers {
            let table = Arc::clone(self.main.table());
            self.helpers
                .push(Searcher::with_table(self.main.weights().clone(), table));
        }
    }

    pub fn set_weights(&mut self, weights: Weights) {
        for helper in &mut self.helpers {
            helper.set_weights(weights.clone());
        }
        self.main.set_weights(weights);
    }

    /// Replaces the shared table with one of `tt_mb` MiB, or keeps it and says why.
    pub fn resize_tt(&mut self, tt_mb: usize) -> Result<(), HashSizeError> {
        self.main.resize_tt(tt_mb)?;
        for helper in &mut self.helpers {
            helper.share_table(Arc::clone(self.main.table()));
        }
        Ok(())
    }

    /// Forgets everything learned (for a new game).
    pub fn clear(&mut self) {
        // The shared table once, through the main thread.
        self.main.clear();
        for helper in &mut self.helpers {
            helper.clear_own();
        }
    }

    /// Uses these signals for `stop` and `ponderhit`.
    pub fn set_signals(&mut self, signals: Signals) {
        self.main.set_signals(signals);
    }

    /// Searches the game's current position on every thread; the main thread's limits,
    /// reports and result count, with the nodes of all threads.
    pub fn search(&mut self, game: &Xiangqi, limits: &Limits, report: impl FnMut(&Info)) -> SearchResult {
        if self.helpers.is_empty() {
            return self.main.search(game, limits, report);
        }
        let helper_signals = Signals::default();
        for helper in &mut self.helpers {
            helper.set_signals(helper_signals.clone());
        }
        // Helpers have no limit of their own: they stop when the main thread is done.
        let helper_limits = Limits {
            banned: limits.banned.clone(),
            ..Limits::default()
        };
        let (main, helpers) = (&mut self.main, &mut self.helpers);
        std::thread::scope(|scope| {
            let running: Vec<_> = helpers
                .iter_mut()
                .map(|h| scope.spawn(|| h.search(game, &helper_limits, |_| {}).nodes))
                .collect();
            let mut result = main.search(game, limits, report);
            helper_signals.stop.store(true, Ordering::Relaxed);
            for helper in running {
                // A helper that panicked costs its nodes, not the answer.
                result.nodes += helper.join().unwrap_or(0);
            }
            result
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_threads_find_the_mate_one_thread_finds() {
        // Black's king is boxed in (the a8 rook holds d8, e9 faces the red king): h0h9 mates,
        // and most other moves leave it without a move, which loses as well.
        let game = Xiangqi::from_fen("3k5/R8/9/9/9/9/9/9/9/4K2R1 w").unwrap();
        let mut one = Pool::new(Weights::default(), 1);
        let mut two = Pool::new(Weights::default(), 1);
        two.set_threads(2);
        assert_eq!(two.threads(), 2);
        let limits = Limits::depth(4);
        let (a, b) = (
            one.search(&game, &limits, |_| {}),
            two.search(&game, &limits, |_| {}),
        );
        assert_eq!(a.score, b.score);
        assert_eq!(a.score, crate::xiangqi::score::MATE - 1, "mate in one ply");
        assert!(b.best.is_some_and(|m| game.board().is_legal(m)));
        assert!(b.nodes >= 1);
        two.set_threads(1);
        assert_eq!(two.threads(), 1);
    }
}
