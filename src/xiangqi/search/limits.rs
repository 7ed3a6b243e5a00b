//! What bounds a search: its depth, its nodes, the clock and the protocol's signals; and the
//! node count that checks them.

use super::Searcher;
use crate::xiangqi::moves::Move;
use crate::xiangqi::time::TimeControl;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

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

/// Signals from outside a running search (the protocol's `stop` and `ponderhit`).
#[derive(Clone, Debug, Default)]
pub struct Signals {
    pub stop: Arc<AtomicBool>,
    /// While set, the clock does not run (pondering); clearing it starts the clock.
    pub ponder: Arc<AtomicBool>,
}

impl Searcher {
    /// Counts a node and says whether the search must stop (node limit, clock, `stop`).
    #[inline]
    pub(super) fn tick(&mut self) -> bool {
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
}
