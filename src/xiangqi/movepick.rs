//! Move ordering (seed 001): the stages a node's moves come in, the ordering score of each
//! move, and the history table that learns which quiet moves cut off.
//!
//! A node tries the hash move first; then the captures that win or trade material; then the
//! killers; then the quiet moves by history, followed by the losing captures. A node cut off
//! early never generates its quiet moves. In check, all evasions come in one stage.
//!
//! A move's ordering score, its place in the generated list and the move itself are packed
//! into one integer ([`order_key`]) that sorts like the score, so that ordering moves is
//! sorting plain integers, and the keys of a ply double as the list of moves tried.

use super::bitboard::Bitboard;
use super::board::Board;
use super::eval::Weights;
use super::moves::{Move, MoveList, MAX_MOVES};
use super::types::{Piece, Role, Square};

/// The stages of a node's moves, in the order they are tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The transposition table's move.
    HashMove,
    /// In check: every evasion, ordered like the other stages' moves.
    Evasions,
    /// Captures of unprotected pieces, and of protected pieces worth at least the capturer.
    GoodCaptures,
    /// The two quiet moves that last cut off at this ply.
    Killers,
    /// The quiet moves by history, then the captures that lose material.
    QuietsAndBadCaptures,
}

impl Stage {
    /// The stage after this one, if any.
    pub fn next(self, in_check: bool) -> Option<Stage> {
        match self {
            Stage::HashMove if in_check => Some(Stage::Evasions),
            Stage::HashMove => Some(Stage::GoodCaptures),
            Stage::GoodCaptures => Some(Stage::Killers),
            Stage::Killers => Some(Stage::QuietsAndBadCaptures),
            Stage::Evasions | Stage::QuietsAndBadCaptures => None,
        }
    }
}

/// Ordering scores: every capture that does not lose material is tried before the killers,
/// the killers before any quiet move, and the losing captures last.
pub const HASH_MOVE: i32 = 100_000_000;
pub const CAPTURE_BASE: i32 = 10_000_000;
/// Where the winning and even captures' scores start: far enough above `CAPTURE_BASE` that
/// the capture history's largest malus (64 sixteenths of HISTORY_MAX) leaves them above it.
const GOOD_CAPTURE: i32 = CAPTURE_BASE + 4 * HISTORY_MAX;
const KILLER_1: i32 = 9_000_000;
const KILLER_2: i32 = 8_999_999;
const BAD_CAPTURE: i32 = -10_000_000;
/// History scores stay within ±HISTORY_MAX, far from the killers and the losing captures.
/// Close enough to the largest bonus ([`history_bonus`]) that gravity works: a move's
/// score follows its recent cut-offs rather than summing every one since the game began.
const HISTORY_MAX: i32 = 1 << 14;

/// The history bonus of a quiet move that cut off at `depth` (and the malus of the quiet
/// moves tried before it): deeper cut-offs count more, up to an eighth of the range.
#[inline]
pub fn history_bonus(depth: i32) -> i32 {
    (32 * depth * depth).min(HISTORY_MAX / 8)
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

/// The opponent's last move as the continuation history indexes it: its piece and its
/// destination, one of 14 x 90.
pub type LastMove = Option<(Piece, Square)>;

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
    fn index(piece: Piece, to: Square) -> usize {
        piece.index() * Square::COUNT + to.index()
    }

    /// Adds `delta` to the answer `mv` of `piece` to `last`, with the history's gravity
    /// (so the scores stay within ±HISTORY_MAX, which two bytes hold, and ordering adds
    /// them to the history alike).
    #[inline]
    pub fn update(&mut self, last: LastMove, piece: Piece, mv: Move, delta: i32) {
        let Some((p, to)) = last else { return };
        let h = &mut self.0[Self::index(p, to) * ROW + Self::index(piece, mv.to())];
        *h = with_gravity(i32::from(*h), delta) as i16;
    }
}

impl Default for ContinuationHistory {
    fn default() -> ContinuationHistory {
        ContinuationHistory::new()
    }
}

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

/// Writes the ordering key of each of `moves` into `out`: the hash move; captures, by victim
/// value alone when the victim is unprotected and by victim then attacker when it is
/// protected, with losing captures last; killers; then history. A victim is protected if the
/// opponent attacks its point now (x-rays aside): from `defended` when the caller has the
/// opponent's attack map, else looked up for that point alone. Returns the number of keys.
pub fn score_moves(
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

/// A move, its ordering score and its place in the generated list in one integer that
/// sorts like the score, ties going to the move generated first.
#[inline]
pub fn order_key(score: i32, index: usize, mv: Move) -> i64 {
    (score as i64) << 24 | ((MAX_MOVES - 1 - index) as i64) << 16 | mv.raw() as i64
}

/// The ordering score in a key.
#[inline]
pub fn order_score(key: i64) -> i32 {
    (key >> 24) as i32
}

/// The move in a key.
#[inline]
pub fn key_move(key: i64) -> Move {
    Move::from_raw(key as u16).expect("an ordering key holds a move")
}

/// How many moves [`pick`] selects one by one before it sorts the rest.
pub const PICKED: usize = 3;

/// Puts the best of `keys[i..]` at `i` and returns its move, so that `keys[..=i]` lists
/// the moves in the order tried. The first few are picked one by one (most cut-offs come
/// early); past them, the rest is sorted once.
#[inline]
pub fn pick(keys: &mut [i64], i: usize) -> Move {
    let n = keys.len();
    if i < PICKED {
        let mut best = i;
        for j in i + 1..n {
            if keys[j] > keys[best] {
                best = j;
            }
        }
        keys.swap(i, best);
    } else if i == PICKED {
        keys[PICKED..n].sort_unstable_by(|a, b| b.cmp(a));
    }
    key_move(keys[i])
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
