//! The quiescence search: captures (out of check) or every evasion (in check) until the
//! position is quiet, standing pat on the static evaluation, with delta pruning.

use super::counts::Count;
use super::keys::{order_score, pick};
use super::movepick::CAPTURE_BASE;
use super::prune::{check_zone, gives_check_near, has_attackers};
use super::Searcher;
use crate::xiangqi::bitboard::Bitboard;
use crate::xiangqi::board::Board;
use crate::xiangqi::eval::Score;
use crate::xiangqi::moves::Move;
use crate::xiangqi::score::{INFINITY, MATE, MAX_PLY};
use crate::xiangqi::types::Role;

impl Searcher {
    /// The quiescence search of the node at `ply`, in check or not.
    pub(super) fn quiescence(
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
        self.counts.bump(Count::QuiescenceNodes);
        if in_check {
            self.counts.bump(Count::QuiescenceInCheck);
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
            self.orderer(board, ply).score(&all, None, 0, None);
            all
        } else {
            // Lazy evaluation: far enough above beta, the attack-based terms cannot matter.
            let correction = self.correction.get(board, self.knobs.correction_pieces);
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
            let defended = Some(attacked[us.flip().index()]);
            self.orderer(board, ply).score(&captures, None, 0, defended);
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
        // Entered as the main search enters a node, so that the evasions of a check are
        // ordered by the continuation history of the move that led to it.
        let undo = self.enter(board, mv, ply);
        let gives_check = self.frames[ply + 1].in_check;
        let score = -self.quiescence(board, -beta, -alpha, ply + 1, gives_check);
        self.leave(board, mv, undo);
        score
    }
}
