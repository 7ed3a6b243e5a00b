//! Reductions: how many plies shallower a late move is searched first, by a logarithmic
//! table and the move's own adjustments.

use super::kind::Kind;
use super::Searcher;
use crate::xiangqi::board::Board;
use crate::xiangqi::moves::Move;

impl Searcher {
    /// The reduction of the `index`-th move `mv` (already made on `board`) of the node at
    /// `ply` of `depth`: none for the first two moves, shallow nodes, checks (Xiangqi's
    /// checks are many, and their replies are extended) and captures; else the table's, a
    /// ply less on the principal variation and for a killer, less (or more) by the move's
    /// history, and never into quiescence.
    #[inline]
    pub(super) fn reduction<N: Kind>(
        &self,
        board: &Board,
        mv: Move,
        depth: i32,
        ply: usize,
        index: usize,
        quiet: bool,
    ) -> i32 {
        if depth < 3 || index < 2 || self.frames[ply + 1].in_check || !quiet {
            return 0;
        }
        let r = late_move_reduction(depth, index, self.knobs.lmr_divisor)
            - self.quiet_adjustment::<N>(board, mv, ply);
        r.clamp(0, depth - 2)
    }

    /// The plies a late quiet move's reduction falls by (or grows, when negative): one on the
    /// principal variation; one for a killer; and by history: a ply for a move that has cut
    /// off more than failed, or (knob `search_lmr_history`) plies in proportion to history
    /// and continuation history.
    #[inline]
    fn quiet_adjustment<N: Kind>(&self, board: &Board, mv: Move, ply: usize) -> i32 {
        let killer = self.frames[ply].killers.contains(&Some(mv));
        // The move is made: its piece stands on its destination.
        let piece = board.piece_at(mv.to());
        let history = piece.map_or(0, |p| self.history.get(p, mv));
        let by_history = match self.knobs.lmr_history {
            0 => (history > 0) as i32,
            scale => {
                let cont = piece.map_or(0, |p| self.cont.get(self.frames[ply].last, p, mv));
                (history + cont) / scale
            }
        };
        N::PV as i32 + killer as i32 + by_history
    }
}

/// Late-move reductions in plies before the node's and the move's own adjustments, by depth
/// and by how many moves the node has searched: 1 + ln(depth) ln(index) / (divisor / 100),
/// a logarithmic rule as Ethereal and Stockfish have (later moves at greater depths are
/// worth less); the divisor is the knob `search_lmr_divisor`.
pub(super) fn late_move_reduction(depth: i32, index: usize, divisor: i32) -> i32 {
    static LN: std::sync::LazyLock<[f64; 64]> =
        std::sync::LazyLock::new(|| std::array::from_fn(|i| if i == 0 { 0.0 } else { (i as f64).ln() }));
    let (d, i) = (depth.clamp(0, 63) as usize, index.min(63));
    if d == 0 || i == 0 {
        return 0;
    }
    (1.0 + LN[d] * LN[i] / (divisor as f64 / 100.0)) as i32
}
