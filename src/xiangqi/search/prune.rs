//! Pruning: the cuts a node makes before its move loop, off the principal variation and out
//! of check (reverse futility, razoring, the null move, ProbCut; and internal iterative
//! reduction), and the moves its loop leaves out (futility, late-move and history pruning).
//!
//! Each cut before the loop is a function that returns the node's score when it cuts. The
//! static evaluation they share is taken lazily: the material estimate and the lazy margin
//! settle most decisions without the full evaluation.

use super::counts::Count;
use super::keys::{order_score, pick};
use super::kind::{At, NonPv};
use super::movepick::{capture_terms, CAPTURE_BASE};
use super::reduce::late_move_reduction;
use super::Searcher;
use crate::xiangqi::bitboard::Bitboard;
use crate::xiangqi::board::Board;
use crate::xiangqi::eval::{Score, Weights};
use crate::xiangqi::moves::Move;
use crate::xiangqi::score::MATE_BOUND;
use crate::xiangqi::tt::{Bound, Entry};
use crate::xiangqi::types::{Color, Role};

/// Futility pruning: up to this depth, when the static evaluation plus the futility margin a
/// ply cannot reach alpha, quiet moves that cannot give check are not searched (after the
/// first move).
const FUTILITY_DEPTH: i32 = 3;
/// History pruning (knob `search_history_prune`): up to this depth, quiet moves that cannot
/// give check and whose history plus continuation history is below -knob × depth are not
/// searched (after the first move).
const HISTORY_PRUNE_DEPTH: i32 = 3;
/// Capture futility's depth limit (the knob `search_capture_futility` turns it on).
/// Pikafish-HCE prunes captures while their reduced depth is below 9, but deeper than this
/// qitune's margin (seven times the knob and more) leaves almost nothing to prune.
const CAPTURE_FUTILITY_DEPTH: i32 = 6;
/// Razoring's depth limit (the knob `search_razor_margin` turns it on).
const RAZOR_DEPTH: i32 = 3;
/// ProbCut's shallowest node: its verification searches to depth - 4.
const PROBCUT_DEPTH: i32 = 5;

/// What a node knows of its static evaluation.
pub(super) struct StaticEval {
    /// The raw static evaluation, once taken (the table keeps it).
    pub eval: Option<Score>,
    /// The table's stored evaluation of the position.
    pub hit_eval: Option<Score>,
    /// The table's stored score and bound, where knob `search_tt_feedback` lets it refine
    /// the evaluation.
    pub hit_bound: Option<(Score, Bound)>,
    /// What the correction history adds (taken only where pruning may use it).
    pub correction: Score,
    /// The corrected evaluation as the cuts by evaluation took it, if they did.
    pub corrected: Option<Score>,
}

impl Searcher {
    /// The cuts the static evaluation decides: reverse futility far above beta, razoring far
    /// below alpha, and the null move above beta.
    pub(super) fn cut_by_eval(
        &mut self,
        board: &mut Board,
        at: At,
        alpha: Score,
        ev: &mut StaticEval,
    ) -> Option<Score> {
        let null_allowed = !self.frames[at.ply].after_null
            && at.depth >= self.knobs.null_min_depth
            && has_attackers(board, board.turn());
        let reverse_futile = at.depth <= self.knobs.rfp_depth && at.beta.abs() < MATE_BOUND;
        if null_allowed || reverse_futile {
            // Evaluated only where the material estimate leaves a cut possible.
            let needed = if null_allowed {
                at.beta
            } else {
                at.beta + self.knobs.rfp_margin * at.depth
            } - ev.correction;
            ev.eval = ev.hit_eval.or_else(|| {
                let estimate = self.estimate(board, at.ply);
                (estimate + self.lazy_margin >= needed).then(|| self.evaluate(board, at.ply).0)
            });
        }
        ev.corrected = refine_by_table(ev.eval.map(|e| e + ev.correction), ev.hit_bound);
        // Reverse futility: up to the knob's depth, a static evaluation that beats beta by the
        // margin a ply cuts the node without a search.
        if let Some(eval) = ev.corrected.filter(|_| reverse_futile) {
            let margin = self.knobs.rfp_margin * at.depth;
            if eval - margin >= at.beta {
                self.counts.bump(Count::ReverseFutilityCuts);
                return Some(eval - margin);
            }
        }
        if let Some(score) = self.razor(board, at, alpha, ev) {
            return Some(score);
        }
        match ev.corrected {
            Some(eval) if null_allowed && eval >= at.beta => self.null_move(board, at, eval),
            _ => None,
        }
    }

    /// Razoring: far enough below alpha, a quiescence search that stays below it decides.
    fn razor(&mut self, board: &mut Board, at: At, alpha: Score, ev: &mut StaticEval) -> Option<Score> {
        let razor = self.knobs.razor_margin;
        if razor == 0 || at.depth > RAZOR_DEPTH || alpha.abs() >= MATE_BOUND {
            return None;
        }
        let needed = alpha - razor * at.depth - ev.correction;
        if !self.eval_at_most(board, at.ply, &mut ev.eval, ev.hit_eval, needed) {
            return None;
        }
        self.counts.bump(Count::RazorTries);
        let score = self.quiescence(board, alpha, alpha + 1, at.ply, false);
        if self.aborted {
            return Some(0);
        }
        let cut = score <= alpha;
        if cut {
            self.counts.bump(Count::RazorCuts);
        }
        cut.then_some(score)
    }

    /// The null move: where the corrected evaluation `eval` is at or above beta, the side to
    /// move passes; if a reduced search still beats beta, so would a real move. The reduction
    /// grows with depth and with the evaluation's lead.
    fn null_move(&mut self, board: &mut Board, at: At, eval: Score) -> Option<Score> {
        let by_eval = match self.knobs.null_eval_divisor {
            0 => 0,
            d => ((eval - at.beta) / d).min(3),
        };
        let r = self.knobs.null_reduction + at.depth / self.knobs.null_depth_divisor + by_eval;
        self.counts.bump(Count::NullTries);
        let ply = at.ply;
        self.frames[ply + 1].psq = self.frames[ply].psq;
        let undo = board.make_null();
        let floor = std::mem::replace(&mut self.null_floor, self.path.len());
        // The opponent cannot be in check: it was not before our pass.
        let next = &mut self.frames[ply + 1];
        next.in_check = false;
        next.after_null = true;
        next.last = None;
        next.quiet_in = None;
        let score = -self.node::<NonPv>(board, at.depth - 1 - r, -at.beta, -at.beta + 1, ply + 1);
        self.null_floor = floor;
        board.unmake_null(undo);
        if self.aborted {
            return Some(0);
        }
        if score < at.beta {
            return None;
        }
        self.counts.bump(Count::NullCuts);
        Some(if score >= MATE_BOUND { at.beta } else { score })
    }

    /// Internal iterative reduction: off the PV, a node the table knows nothing of is seldom
    /// critical, and the shallower search finds a move for its next visit. The plies to take
    /// off the node's `depth`.
    pub(super) fn iir(&self, depth: i32, tt_move: Option<Move>) -> i32 {
        let iir = self.knobs.iir_depth;
        (iir > 0 && depth >= iir && tt_move.is_none()) as i32
    }

    /// ProbCut: a capture whose reduced search beats beta by a margin would almost surely
    /// make the full search fail high too. Skipped when the table already holds a search
    /// nearly as deep that stayed below the raised bound.
    pub(super) fn probcut(
        &mut self,
        board: &mut Board,
        at: At,
        hit: Option<Entry>,
        ev: &StaticEval,
    ) -> Option<Score> {
        let margin = self.knobs.probcut_margin;
        if margin == 0 || at.depth < PROBCUT_DEPTH || at.beta.abs() >= MATE_BOUND {
            return None;
        }
        let raised = at.beta + margin;
        if hit.is_some_and(|h| h.depth >= at.depth - 3 && h.score < raised) {
            return None;
        }
        let base = ev
            .corrected
            .unwrap_or_else(|| self.estimate(board, at.ply) + ev.correction);
        self.counts.bump(Count::ProbCutTries);
        let score = self.probcut_captures(board, at, raised, base, ev.eval);
        if self.aborted {
            return Some(0);
        }
        if score.is_some() {
            self.counts.bump(Count::ProbCutCuts);
        }
        score
    }

    /// ProbCut's captures: those that win or trade material and whose gain could lift
    /// `base` (the corrected evaluation) to `raised`, each searched with a null window at
    /// `raised`, first by quiescence and then to depth - 4. The first that holds is the
    /// node's score (stored as a lower bound at depth - 3, with the raw evaluation `eval`).
    fn probcut_captures(
        &mut self,
        board: &mut Board,
        at: At,
        raised: Score,
        base: Score,
        eval: Option<Score>,
    ) -> Option<Score> {
        let ply = at.ply;
        let captures = board.legal_moves_to_in(board.by_color(board.turn().flip()), false);
        let n = self.orderer(board, ply).score(&captures, None, 0, None);
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
                score = -self.node::<NonPv>(board, at.depth - 4, -raised, -raised + 1, ply + 1);
            }
            self.leave(board, mv, undo);
            if self.aborted {
                return None;
            }
            if score >= raised {
                let entry = Entry {
                    mv: Some(mv),
                    score,
                    depth: at.depth - 3,
                    bound: Bound::Lower,
                    eval,
                };
                self.tt.store(board.hash(), ply, entry, self.knobs.tt_keep_deeper);
                return Some(score);
            }
        }
        None
    }

    /// The move loop's pruning at a node: what futility, the quiet-move count and the
    /// history allow (nothing on the PV or in check, where `prunable` is false).
    pub(super) fn move_pruning(
        &mut self,
        board: &Board,
        at: At,
        alpha: Score,
        prunable: bool,
        ev: &mut StaticEval,
    ) -> MovePruning {
        let k = self.knobs;
        // Futility: far enough below alpha, quiet moves cannot bring the score back.
        let needed = alpha - k.futility_margin * at.depth - ev.correction;
        let futile = prunable
            && at.depth <= FUTILITY_DEPTH
            && alpha.abs() < MATE_BOUND
            && self.eval_at_most(board, at.ply, &mut ev.eval, ev.hit_eval, needed);
        // Per-move futility by the reduced depth needs the evaluation itself.
        let per_move_futility = k.futility_lmr_depth > 0 || k.capture_futility > 0;
        let futility_base = if prunable && per_move_futility && alpha.abs() < MATE_BOUND {
            let raw = match (ev.eval, ev.hit_eval) {
                (Some(e), _) | (None, Some(e)) => e,
                (None, None) => self.evaluate(board, at.ply).0,
            };
            ev.eval = Some(raw);
            raw + ev.correction
        } else {
            Score::MAX / 2
        };
        let history_floor = if prunable && at.depth <= HISTORY_PRUNE_DEPTH && k.history_prune > 0 {
            -k.history_prune * at.depth
        } else {
            i32::MIN
        };
        let quiet_limit = if prunable && at.depth <= k.lmp_depth {
            let count = k.lmp_base + k.lmp_square * at.depth * at.depth;
            (count * k.lmp_percent / 100) as usize
        } else {
            usize::MAX
        };
        MovePruning {
            depth: at.depth,
            futile,
            quiet_limit,
            history_floor,
            futility_base,
            check_zone: check_zone(board),
            exact_check: k.exact_check_prune,
            futility_margin: k.futility_margin,
            futility_lmr_depth: k.futility_lmr_depth,
            futility_history: k.futility_history,
            lmr_divisor: k.lmr_divisor,
            capture_futility: if at.depth <= CAPTURE_FUTILITY_DEPTH {
                k.capture_futility
            } else {
                0
            },
        }
    }
}

/// What the move loop of one node prunes.
pub(super) struct MovePruning {
    depth: i32,
    /// Quiet moves that cannot give check are pruned: all of them (futility), or those past
    /// the first `quiet_limit` quiet moves (late-move pruning).
    futile: bool,
    quiet_limit: usize,
    /// Quiet moves whose ordering score (history) is below this are pruned.
    history_floor: i32,
    /// The corrected static evaluation for per-move futility (knobs
    /// `search_futility_lmr_depth`, `search_capture_futility`); out of reach of any alpha
    /// when both are off.
    futility_base: Score,
    /// Where a move must start or end to be able to give check (see [`check_zone`]).
    check_zone: Bitboard,
    /// The knobs the loop's pruning reads (`search_exact_check_prune`,
    /// `search_futility_margin`, `search_futility_lmr_depth`, `search_futility_history`,
    /// `search_lmr_divisor`, and `search_capture_futility`, 0 past its depth).
    exact_check: bool,
    futility_margin: i32,
    futility_lmr_depth: i32,
    futility_history: i32,
    lmr_divisor: i32,
    capture_futility: i32,
}

impl MovePruning {
    /// Whether the quiet move `mv`, of ordering score `score`, is pruned after `searched`
    /// moves (`quiets` of them quiet): futility, the quiet-move count or its history rules it
    /// out, and it cannot give check. The first move is never pruned.
    #[inline]
    pub fn prunes(
        &self,
        board: &Board,
        mv: Move,
        score: i32,
        alpha: Score,
        searched: usize,
        quiets: usize,
    ) -> bool {
        searched > 0
            && (self.futile
                || quiets >= self.quiet_limit
                || score < self.history_floor
                || self.futile_by_reduced_depth(alpha, searched, score))
            && !self.may_give_check(board, mv)
    }

    /// Whether the capture `mv` of a `victim` is pruned after `searched` moves: even with
    /// the victim won (at its value in `weights`) and the knob's margin a ply, the static
    /// evaluation stays at or below alpha, and it cannot give check. The first move is never
    /// pruned; with the knob off nothing more is looked up.
    #[inline]
    pub fn prunes_capture(
        &self,
        board: &Board,
        mv: Move,
        weights: &Weights,
        victim: Role,
        alpha: Score,
        searched: usize,
    ) -> bool {
        searched > 0
            && self.capture_futility > 0
            && self.futility_base + weights.value(victim) + self.capture_futility * (self.depth + 1) <= alpha
            && !self.may_give_check(board, mv)
    }

    /// Whether `mv` may give check: it starts or ends in the check zone and, with the knob
    /// `search_exact_check_prune`, really does (about one zone move in thirty that pruning
    /// would otherwise take gives check, so the exact test saves the searches of the rest).
    #[inline]
    fn may_give_check(&self, board: &Board, mv: Move) -> bool {
        if !self.exact_check {
            touches(self.check_zone, mv)
        } else {
            gives_check_near(board, self.check_zone, mv)
        }
    }

    /// Futility by the depth the next move would be searched to after its late-move
    /// reduction (before the move's own adjustments), where that is below the knob
    /// `search_futility_lmr_depth`; with `search_futility_history`, the move's history
    /// (`score`) widens the margin of a move that has cut off and narrows it for one that
    /// has failed.
    #[inline]
    fn futile_by_reduced_depth(&self, alpha: Score, searched: usize, score: i32) -> bool {
        if self.futility_base >= alpha {
            return false;
        }
        let reduced = (self.depth - 1 - late_move_reduction(self.depth, searched, self.lmr_divisor)).max(0);
        reduced < self.futility_lmr_depth
            && self.futility_base + self.futility_margin * (reduced + 1) + self.history_margin(score) <= alpha
    }

    /// The part of the futility margin the move's history gives (knob
    /// `search_futility_history`; 0 when it is off).
    #[inline]
    fn history_margin(&self, score: i32) -> i32 {
        if self.futility_history > 0 {
            score / self.futility_history
        } else {
            0
        }
    }
}

/// The points a move must start or end on to be able to give check to the side not to move:
/// the lines through its king (rooks, cannons, their screens, pawns, the facing kings),
/// the horse points around it, and the horse legs next to it.
pub(super) fn check_zone(board: &Board) -> Bitboard {
    use crate::xiangqi::attacks::{diagonal_neighbours, horse_zone, lines_through};
    let king = board.king(board.turn().flip());
    lines_through(king) | horse_zone(king) | diagonal_neighbours(king)
}

/// Whether `mv` starts or ends in `zone`.
#[inline]
fn touches(zone: Bitboard, mv: Move) -> bool {
    zone.contains(mv.from()) || zone.contains(mv.to())
}

/// Whether `mv` gives check, with `zone` the side to move's [`check_zone`]: a move that
/// does not touch it cannot, and most moves are ruled out so without looking further.
#[inline]
pub(super) fn gives_check_near(board: &Board, zone: Bitboard, mv: Move) -> bool {
    touches(zone, mv) && board.gives_check(mv)
}

/// Whether `color` has a rook, horse or cannon: without one, zugzwang is common and a null
/// move would lie.
pub(super) fn has_attackers(board: &Board, color: Color) -> bool {
    (board.pieces(color, Role::Rook) | board.pieces(color, Role::Horse) | board.pieces(color, Role::Cannon))
        .any()
}

/// The corrected evaluation `corrected` refined by the table's score where its bound says
/// the search found the position better (a lower bound above it) or worse (an upper bound
/// below it) than the evaluation does: a searched score knows what the evaluation missed.
/// A lower bound stands in where the evaluation was not taken (no cut by evaluation was
/// possible, or the material estimate kept it below what one needs), so ProbCut starts from it.
fn refine_by_table(corrected: Option<Score>, hit: Option<(Score, Bound)>) -> Option<Score> {
    let Some((score, bound)) = hit.filter(|&(s, _)| s.abs() < MATE_BOUND) else {
        return corrected;
    };
    match (corrected, bound) {
        (_, Bound::Exact) => Some(score),
        (Some(e), Bound::Lower) => Some(e.max(score)),
        (None, Bound::Lower) => Some(score),
        (Some(e), Bound::Upper) => Some(e.min(score)),
        (None, Bound::Upper) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_refines_the_evaluation_only_where_its_bound_says_more() {
        // A lower bound lifts, never lowers; an upper bound lowers, never lifts.
        assert_eq!(refine_by_table(Some(50), Some((120, Bound::Lower))), Some(120));
        assert_eq!(refine_by_table(Some(50), Some((20, Bound::Lower))), Some(50));
        assert_eq!(refine_by_table(Some(50), Some((20, Bound::Upper))), Some(20));
        assert_eq!(refine_by_table(Some(50), Some((120, Bound::Upper))), Some(50));
        assert_eq!(refine_by_table(Some(50), Some((-7, Bound::Exact))), Some(-7));
        // Where the evaluation was not taken, only a lower or exact score stands in.
        assert_eq!(refine_by_table(None, Some((120, Bound::Lower))), Some(120));
        assert_eq!(refine_by_table(None, Some((120, Bound::Upper))), None);
        // Mate scores and an empty table leave the evaluation as it was.
        assert_eq!(
            refine_by_table(Some(50), Some((MATE_BOUND + 3, Bound::Lower))),
            Some(50)
        );
        assert_eq!(refine_by_table(Some(50), None), Some(50));
    }
}
