//! The alpha-beta node, generic over its kind (the root, a PV node, a non-PV node), with
//! principal variation search over the moves a [`MovePicker`] hands out.

use super::counts::Count;
use super::history::LastMove;
use super::kind::{At, Kind, NonPv, Pv};
use super::movepick::MovePicker;
use super::prune::{MovePruning, StaticEval};
use super::Searcher;
use crate::xiangqi::board::{Board, Undo};
use crate::xiangqi::eval::Score;
use crate::xiangqi::moves::Move;
use crate::xiangqi::rules::{examine_cycle, Ply, NO_CAPTURE_LIMIT};
use crate::xiangqi::score::{INFINITY, MATE, MATE_BOUND, MAX_PLY};
use crate::xiangqi::tt::{Bound, Entry};

/// The best score and move found so far at a node, its raised alpha, how many moves it
/// searched, and the depth its later moves were searched to (the node's, or less once one
/// raised alpha on the PV).
struct NodeBest {
    score: Score,
    mv: Option<Move>,
    alpha: Score,
    searched: usize,
    depth: i32,
}

/// What a searched move's score did to its node.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Raised {
    /// Nothing, or only the best score so far (still at or below alpha).
    Not,
    /// It raised alpha: the move heads the node's principal variation.
    Alpha,
    /// It reached beta: the node is cut off.
    Cut,
}

impl NodeBest {
    fn consider(&mut self, mv: Move, score: Score, beta: Score) -> Raised {
        if score <= self.score {
            return Raised::Not;
        }
        self.score = score;
        self.mv = Some(mv);
        if score <= self.alpha {
            return Raised::Not;
        }
        self.alpha = score;
        if score < beta {
            Raised::Alpha
        } else {
            Raised::Cut
        }
    }
}

impl Searcher {
    /// The alpha-beta search of the node at `ply` to `depth`; the frame at `ply` says
    /// whether it is in check and whether a null move led to it.
    pub(super) fn node<N: Kind>(
        &mut self,
        board: &mut Board,
        mut depth: i32,
        mut alpha: Score,
        mut beta: Score,
        ply: usize,
    ) -> Score {
        let in_check = self.frames[ply].in_check;
        self.frames[ply].pv_len = 0;
        if N::ROOT {
            self.nodes += 1;
            self.counts.bump(Count::MainNodes);
        } else if let Some(score) = self.enter_node(board, &mut depth, &mut alpha, &mut beta, ply) {
            return score;
        }
        // Counted past the horizon's dive into quiescence, as Stockfish counts it.
        if N::PV {
            self.seldepth = self.seldepth.max(ply + 1);
        }
        let hash = board.hash();
        let hit = self.tt.probe(hash, ply, board.halfmoves());
        let mut tt_move = hit.and_then(|h| h.mv);
        if !N::ROOT {
            tt_move = tt_move.filter(|&m| board.is_legal(m));
            if let Some(h) = hit {
                if !N::PV && h.depth >= depth && h.settles(alpha, beta) {
                    if self.knobs.tt_feedback {
                        self.learn_from_table(board, tt_move, h.score >= beta, depth, ply);
                    }
                    return h.score;
                }
            }
        }
        // `ev.eval` is the raw static evaluation (the table keeps it); the pruning
        // decisions, all of them off the PV and out of check, use it corrected.
        let prunable = !N::PV && !in_check;
        let mut ev = StaticEval {
            eval: None,
            hit_eval: hit.and_then(|h| h.eval),
            hit_bound: hit.filter(|_| self.knobs.tt_feedback).map(|h| (h.score, h.bound)),
            correction: if prunable {
                self.correction.get(board, self.knobs.correction_pieces)
            } else {
                0
            },
            corrected: None,
        };
        if prunable {
            if let Some(score) = self.cut_by_eval(board, At { ply, depth, beta }, alpha, &mut ev) {
                return score;
            }
        }
        if !N::PV {
            depth -= self.iir(depth, tt_move);
        }
        let at = At { ply, depth, beta };
        if prunable {
            if let Some(score) = self.probcut(board, at, hit, &ev) {
                return score;
            }
        }
        let pruning = self.move_pruning(board, at, alpha, prunable, &mut ev);
        // Internal iterative deepening: without a hash move, a shallower search finds one.
        if N::PV && !N::ROOT && tt_move.is_none() && depth >= 5 {
            self.node::<Pv>(board, depth - 2, alpha, beta, ply);
            if self.aborted {
                return 0;
            }
            tt_move = self
                .tt
                .probe(hash, ply, board.halfmoves())
                .and_then(|h| h.mv)
                .filter(|&m| board.is_legal(m));
        }
        let picker = if N::ROOT {
            let moves = self.root_moves.clone();
            let hint = tt_move.or(self.frames[0].pv[0]);
            MovePicker::root(&mut self.orderer(board, 0), &moves, hint)
        } else {
            MovePicker::new(tt_move, in_check)
        };
        let Some(best) = self.move_loop::<N>(board, at, alpha, picker, &pruning) else {
            return 0;
        };
        if best.searched == 0 {
            // No move searched: checkmated or stalemated, and both lose in Xiangqi.
            return -(MATE - ply as Score);
        }
        self.finish::<N>(board, at, alpha, &best, prunable, &ev)
    }

    /// What a node does before anything else: the rules' verdict (repetition, the
    /// no-capture limit), mate-distance pruning, the check extension, quiescence at the
    /// horizon, the node count and the ply limit. `Some` when the node is settled here.
    fn enter_node(
        &mut self,
        board: &mut Board,
        depth: &mut i32,
        alpha: &mut Score,
        beta: &mut Score,
        ply: usize,
    ) -> Option<Score> {
        if let Some(score) = self.rule_score(board, ply) {
            return Some(score);
        }
        // Mate-distance pruning: no line from here can beat a mate already found nearer the root.
        *alpha = (*alpha).max(-(MATE - ply as Score));
        *beta = (*beta).min(MATE - ply as Score - 1);
        if *alpha >= *beta {
            return Some(*alpha);
        }
        let in_check = self.frames[ply].in_check;
        // The check extension. (A null move's child is never in check, so a node in check
        // has depth 0 or more here.)
        if in_check {
            *depth += 1;
        }
        if *depth <= 0 {
            return Some(self.quiescence(board, *alpha, *beta, ply, in_check));
        }
        if self.tick() {
            return Some(0);
        }
        self.counts.bump(Count::MainNodes);
        if *depth == 1 {
            self.counts.bump(Count::DepthOne);
        }
        if in_check {
            self.counts.bump(Count::CheckExtensions);
        }
        if ply >= MAX_PLY - 1 {
            return Some(self.weights.evaluate_with(board, self.frames[ply].psq));
        }
        None
    }

    /// Searches the moves `picker` hands out, best first, until one cuts off; `None` when
    /// the search was stopped.
    fn move_loop<N: Kind>(
        &mut self,
        board: &mut Board,
        at: At,
        alpha: Score,
        mut picker: MovePicker,
        pruning: &MovePruning,
    ) -> Option<NodeBest> {
        let ply = at.ply;
        let mut best = NodeBest {
            score: -INFINITY,
            mv: None,
            alpha,
            searched: 0,
            depth: at.depth,
        };
        let mut quiets = 0;
        while let Some(pick) = picker.next(&mut self.orderer(board, ply)) {
            let mv = pick.mv;
            let victim = board.piece_at(mv.to());
            let quiet = victim.is_none();
            let (raised, searched) = (best.alpha, best.searched);
            let (pruned, count) = match victim {
                None => (
                    pick.prunable && pruning.prunes(board, mv, pick.score, raised, searched, quiets),
                    Count::MovesPruned,
                ),
                Some(v) => (
                    pruning.prunes_capture(board, mv, &self.weights, v.role, raised, searched),
                    Count::CapturesPruned,
                ),
            };
            if pruned {
                self.counts.bump(count);
                continue;
            }
            if let Some(next) = pick.upcoming.filter(|_| at.depth > 1) {
                self.tt.prefetch(board.hash_after(next));
            }
            let score = self.child::<N>(board, at, mv, best.alpha, best.searched);
            best.searched += 1;
            self.counts.bump(Count::MovesSearched);
            quiets += quiet as usize;
            if self.aborted {
                return None;
            }
            if N::ROOT && best.searched == 1 && score > alpha {
                self.root_first_ok = true;
            }
            let raised = best.consider(mv, score, at.beta);
            if raised != Raised::Not {
                if N::PV {
                    self.update_pv(ply, mv);
                }
                if N::ROOT {
                    self.root_partial = Some(score);
                }
            }
            if raised == Raised::Cut {
                self.counts.cut(best.searched);
                if quiet && !N::ROOT {
                    self.reward_quiet(board, mv, at.depth, ply, pick.tried, picker.earlier());
                }
                break;
            }
        }
        best.depth = at.depth;
        Some(best)
    }

    /// Makes `mv`, searches the child with PVS and (when late and quiet) late-move
    /// reductions, and unmakes it; `index` moves were searched before it.
    #[inline]
    fn child<N: Kind>(&mut self, board: &mut Board, at: At, mv: Move, alpha: Score, index: usize) -> Score {
        let (depth, beta, ply) = (at.depth, at.beta, at.ply);
        // Only a child with depth left probes the table (quiescence does not; a check
        // extends, so a child at depth 1 may probe too). Prefetching before the move is made
        // gives the load the longest head start.
        if depth > 1 {
            self.tt.prefetch(board.hash_after(mv));
        }
        let undo = self.enter(board, mv, ply);
        let quiet = self.frames[ply + 1].quiet_in.is_some();
        if depth == 1 && self.frames[ply + 1].in_check {
            self.tt.prefetch(board.hash());
        }
        let score = if index == 0 {
            -self.node::<N::First>(board, depth - 1, -beta, -alpha, ply + 1)
        } else {
            let reduction = self.reduction::<N>(board, mv, depth, ply, index, quiet);
            if reduction > 0 {
                self.counts.bump(Count::Reduced);
            }
            let mut s = -self.node::<NonPv>(board, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1);
            if s > alpha && reduction > 0 {
                self.counts.bump(Count::ReSearched);
                s = -self.node::<NonPv>(board, depth - 1, -alpha - 1, -alpha, ply + 1);
            }
            if s > alpha && s < beta && N::PV {
                self.counts.bump(Count::PvsReSearched);
                s = -self.node::<Pv>(board, depth - 1, -beta, -alpha, ply + 1);
            }
            s
        };
        self.leave(board, mv, undo);
        score
    }

    /// After the move loop: teaches the correction history, stores the result and returns
    /// the node's score.
    fn finish<N: Kind>(
        &mut self,
        board: &Board,
        at: At,
        alpha: Score,
        best: &NodeBest,
        prunable: bool,
        ev: &StaticEval,
    ) -> Score {
        let bound = bound_of(best.score, alpha, at.beta);
        // Only where pruning may use it is the evaluation corrected, and so taught.
        let corrected = ev.eval.filter(|_| prunable).map(|e| e + ev.correction);
        self.learn_correction(board, best, best.depth, bound, corrected);
        // Below alpha every score is only a bound: the best of them is noise, and the
        // table's earlier move (which the store keeps when given none) may be worth more.
        let mv = if !N::ROOT && bound == Bound::Upper && self.knobs.fail_low_keeps_move {
            None
        } else {
            best.mv
        };
        let entry = Entry {
            mv,
            score: best.score,
            depth: best.depth,
            bound,
            eval: ev.eval,
        };
        self.tt
            .store(board.hash(), at.ply, entry, self.knobs.tt_keep_deeper);
        best.score
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
            self.correction
                .update(board, depth, best.score, eval, self.knobs.correction_pieces);
        }
    }

    /// Makes `mv` at `ply` and sets up the next ply's frame (its evaluation terms, whether
    /// it is in check, the move that led to it).
    pub(super) fn enter(&mut self, board: &mut Board, mv: Move, ply: usize) -> Undo {
        self.frames[ply + 1].psq = self.weights.psq_after(board, mv, self.frames[ply].psq);
        let undo = board.make(mv);
        self.path.push(Ply { mv, undo });
        let next = &mut self.frames[ply + 1];
        next.in_check = board.in_check();
        next.after_null = false;
        next.last = moved(board, mv);
        next.quiet_in = undo.captured().is_none().then_some(mv);
        undo
    }

    /// Takes back `mv`, made by [`Searcher::enter`].
    pub(super) fn leave(&mut self, board: &mut Board, mv: Move, undo: Undo) {
        self.path.pop();
        board.unmake(mv, undo);
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
pub(super) fn moved(board: &Board, mv: Move) -> LastMove {
    board.piece_at(mv.to()).map(|p| (p, mv.to()))
}
