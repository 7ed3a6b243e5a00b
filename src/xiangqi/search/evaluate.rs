//! The static evaluation as the search sees it: cached with its attack maps, scaled toward
//! a draw where the side ahead cannot mate, and bounded by the material estimate so that
//! many prunings decide without evaluating at all.

use super::Searcher;
use crate::xiangqi::bitboard::Bitboard;
use crate::xiangqi::board::Board;
use crate::xiangqi::eval::{mating_force, MatingForce, Score};

impl Searcher {
    /// The evaluation of the position at `ply` and both sides' attack maps.
    #[inline]
    pub(super) fn evaluate(&mut self, board: &Board, ply: usize) -> (Score, [Bitboard; 2]) {
        let (weights, psq) = (&self.weights, self.frames[ply].psq);
        let (score, attacked) = self
            .evals
            .get_or(board.hash(), || weights.evaluate_with_attacks(board, psq));
        (self.damp(board, score), attacked)
    }

    /// [`crate::xiangqi::eval::Weights::material_estimate`] of the position at `ply`, damped
    /// as the evaluation is (so that the lazy margin still bounds their difference).
    #[inline]
    pub(super) fn estimate(&self, board: &Board, ply: usize) -> Score {
        self.damp(board, self.weights.material_estimate(board, self.frames[ply].psq))
    }

    /// Whether the raw static evaluation is at most `needed`: from `eval` or the table's
    /// `hit_eval` when known, else from the material estimate where the lazy margin settles
    /// it, else evaluated (and kept in `eval`).
    pub(super) fn eval_at_most(
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
}
