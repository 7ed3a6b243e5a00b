//! Move ordering (seed 001): the [`MovePicker`] that hands out a node's moves stage by stage,
//! and the ordering score of each move.
//!
//! A node tries the hash move first; then the captures that win or trade material; then the
//! killers; then the quiet moves by history, followed by the losing captures. A node cut off
//! early never generates its quiet moves. In check, all evasions come in one stage. (Over
//! the bench, four in five nodes that generate moves are cut off by a capture or a killer.)
//!
//! The moves are ordered by their keys ([`super::keys`]).

use super::frame::Frame;
use super::history::{ContinuationHistory, History};
use super::keys::{key_move, order_key, order_score, pick, PICKED};
use crate::xiangqi::bitboard::Bitboard;
use crate::xiangqi::board::Board;
use crate::xiangqi::eval::Weights;
use crate::xiangqi::moves::{Move, MoveList};
use crate::xiangqi::types::{Piece, Role};
use std::ops::Range;

/// Ordering scores: every capture that does not lose material is tried before the killers,
/// the killers before any quiet move, and the losing captures last.
pub const HASH_MOVE: i32 = 100_000_000;
pub const CAPTURE_BASE: i32 = 10_000_000;
/// Where the winning and even captures' scores start.
const GOOD_CAPTURE: i32 = CAPTURE_BASE;
const KILLER_1: i32 = 9_000_000;
const KILLER_2: i32 = 8_999_999;
const BAD_CAPTURE: i32 = -10_000_000;

/// A quiet move's ordering score: its history plus its continuation history.
#[inline]
pub fn quiet_score(history: &History, cont: Option<&[i16]>, piece: Piece, mv: Move) -> i32 {
    history.get(piece, mv) + cont.map_or(0, |row| row[ContinuationHistory::index(piece, mv.to())] as i32)
}

/// What ordering knows about the ply it orders: the hash move, the killers and the
/// continuation history of the last move.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hints<'a> {
    pub hash_move: Option<Move>,
    pub killers: [Option<Move>; 2],
    /// The continuation history's row for the opponent's last move, if any.
    pub cont: Option<&'a [i16]>,
}

/// Where a picker stands in a node's stages. A list stage is first generated (its moves
/// scored into the frame's keys), then handed out best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// The transposition table's move.
    HashMove,
    /// In check: every evasion, ordered like the other stages' moves.
    Evasions,
    EvasionList,
    /// Captures of unprotected pieces, and of protected pieces worth at least the capturer.
    Captures,
    CaptureList,
    /// The two quiet moves that last cut off at this ply.
    Killers,
    /// The quiet moves by history, then the captures that lose material.
    Quiets,
    QuietList,
    /// The root's moves, all in one list.
    RootList,
    Done,
}

/// What a picker needs of the searcher to generate and order a stage's moves: the position,
/// the weights and histories that score them, and the node's frame (killers, last move and
/// the keys the moves are ordered in).
pub(super) struct Orderer<'a> {
    pub board: &'a Board,
    pub weights: &'a Weights,
    pub history: &'a History,
    pub cont: &'a ContinuationHistory,
    pub frame: &'a mut Frame,
}

impl Orderer<'_> {
    /// Writes the ordering keys of `moves` into the frame's keys from `offset` on (see
    /// [`score_moves`]); returns their number.
    pub fn score(
        &mut self,
        moves: &MoveList,
        hash_move: Option<Move>,
        offset: usize,
        defended: Option<Bitboard>,
    ) -> usize {
        let hints = Hints {
            hash_move,
            killers: self.frame.killers,
            cont: self.cont.row(self.frame.last),
        };
        let out = &mut self.frame.keys[offset..];
        score_moves(
            self.board,
            self.weights,
            self.history,
            hints,
            moves,
            defended,
            out,
        )
    }
}

/// A move handed out by a [`MovePicker`].
#[derive(Clone, Debug)]
pub(super) struct Pick {
    pub mv: Move,
    /// Its ordering score.
    pub score: i32,
    /// The frame's keys of the moves its stage handed out (or passed over) before it.
    pub tried: Range<usize>,
    /// Whether it comes from a stage whose quiet moves the node may prune (evasions, and the
    /// quiet moves with the losing captures).
    pub prunable: bool,
    /// The move after it in its stage, when already known (for prefetching its child).
    pub upcoming: Option<Move>,
}

impl Pick {
    fn single(mv: Move) -> Pick {
        Pick {
            mv,
            score: HASH_MOVE,
            tried: 0..0,
            prunable: false,
            upcoming: None,
        }
    }
}

/// Hands out a node's moves stage by stage, generating each stage only when the one before
/// is spent, and never the same move twice.
pub(super) struct MovePicker {
    stage: Stage,
    in_check: bool,
    hash_move: Option<Move>,
    /// The current list stage's keys, and the next of them to hand out.
    keys: Range<usize>,
    cursor: usize,
    /// A list stage ends at its first key scored below this (the winning captures' at the
    /// losing ones).
    floor: Option<i32>,
    /// The moves of the single-move stages handed out before the current move: the hash
    /// move, then the killers.
    skip: [Option<Move>; 3],
    /// The single move last handed out, and its place in `skip` once the next is asked for.
    pending: Option<(usize, Move)>,
    /// The next killer to try, and how many were handed out.
    killer: usize,
    killers_out: usize,
    /// The keys of the losing captures, left in place for the last stage.
    losing: Range<usize>,
}

impl MovePicker {
    /// The moves of an inner node, the hash move first (it must be legal here).
    pub fn new(hash_move: Option<Move>, in_check: bool) -> MovePicker {
        MovePicker {
            stage: Stage::HashMove,
            in_check,
            hash_move,
            keys: 0..0,
            cursor: 0,
            floor: None,
            skip: [None; 3],
            pending: None,
            killer: 0,
            killers_out: 0,
            losing: 0..0,
        }
    }

    /// The root's `moves`, ordered with `hint` as the hash move.
    pub fn root(o: &mut Orderer, moves: &MoveList, hint: Option<Move>) -> MovePicker {
        let n = o.score(moves, hint, 0, None);
        let mut picker = MovePicker::new(None, false);
        picker.list(Stage::RootList, 0..n, None);
        picker
    }

    /// The moves of the single-move stages handed out before the latest move.
    pub fn earlier(&self) -> [Option<Move>; 3] {
        self.skip
    }

    /// The next move, if any.
    pub fn next(&mut self, o: &mut Orderer) -> Option<Pick> {
        if let Some((slot, mv)) = self.pending.take() {
            self.skip[slot] = Some(mv);
        }
        loop {
            match self.stage {
                Stage::HashMove => {
                    self.stage = if self.in_check {
                        Stage::Evasions
                    } else {
                        Stage::Captures
                    };
                    if let Some(mv) = self.hash_move {
                        self.pending = Some((0, mv));
                        return Some(Pick::single(mv));
                    }
                }
                Stage::Evasions => {
                    let evasions = o.board.legal_moves_to_in(Bitboard::FULL, true);
                    let n = o.score(&evasions, self.hash_move, 0, None);
                    self.list(Stage::EvasionList, 0..n, None);
                }
                Stage::Captures => {
                    // Every enemy piece is a possible victim here, too many to look up one by
                    // one as quiescence does: generating each piece's targets, masked, is cheaper.
                    let board = o.board;
                    let captures = board.legal_moves_to_in(board.by_color(board.turn().flip()), false);
                    let n = o.score(&captures, None, 0, None);
                    self.losing = n..n;
                    self.list(Stage::CaptureList, 0..n, Some(CAPTURE_BASE));
                }
                Stage::Killers => {
                    if let Some(killer) = self.next_killer(o) {
                        return Some(Pick::single(killer));
                    }
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => {
                    // The quiet moves' keys follow the captures', so that the losing captures,
                    // left in place by their stage, sort after them.
                    let quiets = o.board.legal_moves_to_in(!o.board.occupied(), false);
                    let end = self.losing.end;
                    let n = o.score(&quiets, None, end, None);
                    self.list(Stage::QuietList, self.losing.start..end + n, None);
                }
                Stage::EvasionList | Stage::CaptureList | Stage::QuietList | Stage::RootList => {
                    if let Some(pick) = self.next_listed(&mut o.frame.keys) {
                        return Some(pick);
                    }
                    self.stage = if self.stage == Stage::CaptureList {
                        Stage::Killers
                    } else {
                        Stage::Done
                    };
                }
                Stage::Done => return None,
            }
        }
    }

    fn list(&mut self, stage: Stage, keys: Range<usize>, floor: Option<i32>) {
        self.stage = stage;
        self.cursor = keys.start;
        self.keys = keys;
        self.floor = floor;
    }

    /// The next killer that is legal here, quiet and not the hash move.
    fn next_killer(&mut self, o: &Orderer) -> Option<Move> {
        while self.killer < 2 {
            let candidate = o.frame.killers[self.killer];
            self.killer += 1;
            let Some(killer) = candidate else { continue };
            if Some(killer) == self.skip[0]
                || o.board.piece_at(killer.to()).is_some()
                || !o.board.is_legal(killer)
            {
                continue;
            }
            self.pending = Some((1 + self.killers_out, killer));
            self.killers_out += 1;
            return Some(killer);
        }
        None
    }

    /// The best move left in the current list stage that no earlier stage handed out; at the
    /// floor, the stage ends and the keys from there on are the losing captures.
    fn next_listed(&mut self, keys: &mut [i64]) -> Option<Pick> {
        let Range { start, end } = self.keys;
        while self.cursor < end {
            let i = self.cursor;
            let mv = pick(&mut keys[start..end], i - start);
            let score = order_score(keys[i]);
            if self.floor.is_some_and(|f| score < f) {
                self.losing = i..end;
                return None;
            }
            self.cursor += 1;
            if self.skip.contains(&Some(mv)) {
                continue;
            }
            // Past the first picks the keys are sorted, so the next move is known.
            let root = self.stage == Stage::RootList;
            let upcoming = (!root && i - start >= PICKED && i + 1 < end).then(|| key_move(keys[i + 1]));
            return Some(Pick {
                mv,
                score,
                tried: start..i,
                prunable: self.floor.is_none() && !root,
                upcoming,
            });
        }
        None
    }
}

/// Writes the ordering key of each of `moves` into `out`: the hash move; captures, by victim
/// value alone when the victim is unprotected and by victim then attacker when it is
/// protected, with losing captures last; killers; then history. A victim is protected if the
/// opponent attacks its point now (x-rays aside): from `defended` when the caller has the
/// opponent's attack map, else looked up for that point alone. Returns the number of keys.
pub(super) fn score_moves(
    board: &Board,
    weights: &Weights,
    history: &History,
    hints: Hints,
    moves: &MoveList,
    defended: Option<Bitboard>,
    out: &mut [i64],
) -> usize {
    for (i, &mv) in moves.iter().enumerate() {
        let mover = board.piece_at(mv.from()).expect("a move starts on a piece");
        let score = if Some(mv) == hints.hash_move {
            HASH_MOVE
        } else if let Some(victim) = board.piece_at(mv.to()) {
            let (v, a, protected) = capture_terms(board, weights, mv, mover, victim, defended);
            if protected && v < a {
                BAD_CAPTURE + v - a
            } else {
                // The attacker counts only where the victim is protected and may be retaken.
                GOOD_CAPTURE + 16 * v - if protected { a / 16 } else { 0 }
            }
        } else if hints.killers[0] == Some(mv) {
            KILLER_1
        } else if hints.killers[1] == Some(mv) {
            KILLER_2
        } else {
            quiet_score(history, hints.cont, mover, mv)
        };
        out[i] = order_key(score, i, mv);
    }
    moves.len()
}

/// What a capture of `victim` by `mover` stakes: the victim's value, the capturer's (0 for
/// the king, which no protector can take back) and whether the victim is protected (from
/// `defended`, the opponent's attack map, when the caller has it).
#[inline]
pub fn capture_terms(
    board: &Board,
    weights: &Weights,
    mv: Move,
    mover: Piece,
    victim: Piece,
    defended: Option<Bitboard>,
) -> (i32, i32, bool) {
    let a = if mover.role == Role::King {
        0
    } else {
        weights.value(mover.role)
    };
    let protected = match defended {
        Some(map) => map.contains(mv.to()),
        None => board.attackers_of(board.turn().flip(), mv.to()).any(),
    };
    (weights.value(victim.role), a, protected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_by_score_then_generation_order() {
        let m = |s: &str| Board::startpos().parse_move(s).unwrap();
        let mut keys = [
            order_key(5, 0, m("h2e2")),
            order_key(CAPTURE_BASE, 1, m("b2b9")),
            order_key(5, 2, m("b0c2")),
            order_key(-3, 3, m("a3a4")),
            order_key(HASH_MOVE, 4, m("h0g2")),
        ];
        let order: Vec<String> = (0..keys.len()).map(|i| pick(&mut keys, i).to_string()).collect();
        assert_eq!(order, ["h0g2", "b2b9", "h2e2", "b0c2", "a3a4"]);
        assert_eq!(order_score(keys[1]), CAPTURE_BASE);
        assert_eq!(order_score(keys[4]), -3);
    }
}
