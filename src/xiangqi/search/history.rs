//! The history tables: which quiet moves cut off, alone (history) and as the answer to the
//! opponent's last move (continuation history), and how cut-offs (and the moves that made
//! a node fail low) teach them. Both learn with gravity, so that recent cut-offs weigh more
//! than old ones.

pub(super) use super::frame::LastMove;
use super::keys::key_move;
use super::Searcher;
use crate::xiangqi::board::Board;
use crate::xiangqi::moves::Move;
use crate::xiangqi::types::{Piece, Square};
use std::ops::Range;

/// History scores stay within ±HISTORY_MAX, far from the killers and the losing captures.
/// Close enough to the largest bonus ([`history_bonus`]) that gravity works: a move's
/// score follows its recent cut-offs rather than summing every one since the game began.
pub(super) const HISTORY_MAX: i32 = 1 << 14;

/// The largest history bonus: an eighth of the range.
const BONUS_MAX: i32 = HISTORY_MAX / 8;

/// The history bonus of a quiet move that cut off at `depth` (and the malus of the quiet
/// moves tried before it): deeper cut-offs count more, up to [`BONUS_MAX`].
#[inline]
pub fn history_bonus(depth: i32) -> i32 {
    (32 * depth * depth).min(BONUS_MAX)
}

/// `score` moved by `delta` with gravity: the larger the score already is in the
/// direction of `delta`, the less it moves, so it stays within ±HISTORY_MAX (for
/// |delta| up to HISTORY_MAX) and recent results weigh more than old ones.
#[inline]
fn with_gravity(score: i32, delta: i32) -> i32 {
    score + delta - score * delta.abs() / HISTORY_MAX
}

/// How often each quiet move (by piece and destination) cut off, ageing as it learns.
pub struct History(Box<[[i32; 90]; 14]>);

impl History {
    pub fn new() -> History {
        History(Box::new([[0; 90]; 14]))
    }

    pub fn clear(&mut self) {
        *self.0 = [[0; 90]; 14];
    }

    #[inline]
    pub fn get(&self, piece: Piece, mv: Move) -> i32 {
        self.0[piece.index()][mv.to().index()]
    }

    /// Adds `delta` (negative to penalise), with gravity.
    #[inline]
    pub fn update(&mut self, piece: Piece, mv: Move, delta: i32) {
        let h = &mut self.0[piece.index()][mv.to().index()];
        *h = with_gravity(*h, delta);
    }
}

impl Default for History {
    fn default() -> History {
        History::new()
    }
}

/// Continuation history: how often each quiet move (by piece and destination) cut off as
/// the answer to the opponent's last move (its piece and destination). Two bytes an entry
/// keep the table small enough to clear for every game.
pub struct ContinuationHistory(Box<[i16]>);

const ROW: usize = 14 * Square::COUNT;

impl ContinuationHistory {
    /// An empty table.
    pub fn new() -> ContinuationHistory {
        ContinuationHistory(vec![0; ROW * ROW].into_boxed_slice())
    }

    /// Forgets every score, as a new game does.
    pub fn clear(&mut self) {
        self.0.fill(0);
    }

    /// The scores of every answer to `last`, indexed by [`ContinuationHistory::index`].
    #[inline]
    pub fn row(&self, last: LastMove) -> Option<&[i16]> {
        let (piece, to) = last?;
        let start = Self::index(piece, to) * ROW;
        Some(&self.0[start..start + ROW])
    }

    /// The score of the answer `mv` of `piece` to `last` (0 without a last move).
    #[inline]
    pub fn get(&self, last: LastMove, piece: Piece, mv: Move) -> i32 {
        self.row(last)
            .map_or(0, |row| i32::from(row[Self::index(piece, mv.to())]))
    }

    /// A move's place by piece and destination: the answer's within a row, and the last
    /// move's row within the table.
    #[inline]
    pub(super) fn index(piece: Piece, to: Square) -> usize {
        piece.index() * Square::COUNT + to.index()
    }

    /// Adds `delta` to the answer `mv` of `piece` to `last`, with the history's gravity
    /// (so the scores stay within ±HISTORY_MAX, which two bytes hold, and ordering adds
    /// them to the history alike).
    #[inline]
    pub fn update(&mut self, last: LastMove, piece: Piece, mv: Move, delta: i32) {
        self.update_at(last, piece, mv.to(), delta);
    }

    /// [`ContinuationHistory::update`] for the answer of `piece` to the point `to`.
    #[inline]
    pub fn update_at(&mut self, last: LastMove, piece: Piece, to: Square, delta: i32) {
        let Some((p, from)) = last else { return };
        let h = &mut self.0[Self::index(p, from) * ROW + Self::index(piece, to)];
        *h = with_gravity(i32::from(*h), delta) as i16;
    }
}

impl Default for ContinuationHistory {
    fn default() -> ContinuationHistory {
        ContinuationHistory::new()
    }
}

impl Searcher {
    /// Rewards the quiet move `mv` that cut off at `ply` (killer, history) and penalises the
    /// quiet moves tried before it: `tried` indexes this ply's ordering keys, and `earlier`
    /// holds the moves of earlier stages (hash move, killers).
    pub(super) fn reward_quiet(
        &mut self,
        board: &Board,
        mv: Move,
        depth: i32,
        ply: usize,
        tried: Range<usize>,
        earlier: [Option<Move>; 3],
    ) {
        let frame = &mut self.frames[ply];
        if frame.killers[0] != Some(mv) {
            frame.killers[1] = frame.killers[0];
            frame.killers[0] = Some(mv);
        }
        let bonus = history_bonus(depth);
        let (history, cont, last) = (&mut self.history, &mut self.cont, frame.last);
        let mut update = |m: Move, delta: i32| {
            if let Some(p) = board.piece_at(m.from()) {
                history.update(p, m, delta);
                cont.update(last, p, m, delta);
            }
        };
        update(mv, bonus);
        let tried_keys = frame.keys[tried].iter().map(|&k| key_move(k));
        for m in tried_keys.chain(earlier.into_iter().flatten()) {
            if board.piece_at(m.to()).is_none() {
                update(m, -bonus);
            }
        }
    }

    /// A quiet hash move `tt_move` whose stored score settled the node at `ply` from the
    /// table (knob `search_tt_feedback`): a cut earns it what a searched cut would (no other
    /// move was tried, so no maluses), a fail low costs it as much.
    pub(super) fn learn_from_table(
        &mut self,
        board: &Board,
        tt_move: Option<Move>,
        cut: bool,
        depth: i32,
        ply: usize,
    ) {
        let Some(mv) = tt_move.filter(|m| board.piece_at(m.to()).is_none()) else {
            return;
        };
        if cut {
            self.reward_quiet(board, mv, depth, ply, 0..0, [None; 3]);
        } else if let Some(piece) = board.piece_at(mv.from()) {
            let malus = -history_bonus(depth);
            self.history.update(piece, mv, malus);
            self.cont.update(self.frames[ply].last, piece, mv, malus);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuation_history_is_kept_per_last_move_and_bounded() {
        let board = Board::startpos();
        let mv = board.parse_move("h2e2").unwrap();
        let piece = board.piece_at(mv.from()).unwrap();
        let reply = board.parse_move("h0g2").unwrap();
        let last = Some((Piece::new(piece.color.flip(), piece.role), mv.to()));
        let other = Some((piece, reply.to()));
        let mut c = ContinuationHistory::new();
        for _ in 0..10_000 {
            c.update(last, piece, reply, 400);
        }
        let score = |c: &ContinuationHistory, last| {
            c.row(last)
                .map_or(0, |r| r[ContinuationHistory::index(piece, reply.to())] as i32)
        };
        assert!(score(&c, last) <= HISTORY_MAX && score(&c, last) > HISTORY_MAX / 2);
        assert_eq!(score(&c, other), 0, "another last move has its own row");
        assert!(c.row(None).is_none(), "no last move, no row");
        for _ in 0..10_000 {
            c.update(last, piece, reply, -400);
        }
        assert!(score(&c, last) >= -HISTORY_MAX && score(&c, last) < 0);
        c.clear();
        assert_eq!(score(&c, last), 0);
    }

    #[test]
    fn history_stays_within_its_bound() {
        let board = Board::startpos();
        let mv = board.parse_move("h2e2").unwrap();
        let piece = board.piece_at(mv.from()).unwrap();
        let mut h = History::new();
        for _ in 0..10_000 {
            h.update(piece, mv, 400);
        }
        assert!(h.get(piece, mv) <= HISTORY_MAX);
        assert!(h.get(piece, mv) > HISTORY_MAX / 2);
        for _ in 0..10_000 {
            h.update(piece, mv, -400);
        }
        assert!(h.get(piece, mv) >= -HISTORY_MAX);
        assert!(h.get(piece, mv) < 0);
    }
}
