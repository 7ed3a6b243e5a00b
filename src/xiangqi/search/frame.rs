//! The per-ply frame: what the search keeps for one ply of its current path (Stockfish's
//! search stack).

use crate::xiangqi::eval::Psq;
use crate::xiangqi::moves::{Move, MAX_MOVES};
use crate::xiangqi::score::MAX_PLY;
use crate::xiangqi::types::{Piece, Square};

/// The opponent's last move as the continuation history indexes it: its piece and its
/// destination, one of 14 x 90.
pub type LastMove = Option<(Piece, Square)>;

/// What the search keeps for one ply of the current path.
#[derive(Clone)]
pub(super) struct Frame {
    /// Material and piece-square sums of the position.
    pub psq: Psq,
    /// The two quiet moves that last cut off at this ply.
    pub killers: [Option<Move>; 2],
    /// The principal variation from here: its first `pv_len` moves.
    pub pv: [Option<Move>; MAX_PLY + 1],
    pub pv_len: usize,
    /// Whether the side to move is in check, and whether a null move led here.
    pub in_check: bool,
    pub after_null: bool,
    /// The move that led here, for the continuation history (none at the root or after a
    /// null move).
    pub last: LastMove,
    /// The move that led here when it captured nothing (none at the root, after a null
    /// move or a capture), read by the move loop's reductions.
    pub quiet_in: Option<Move>,
    /// Move-ordering keys (see [`super::keys::order_key`]), kept here so that no node
    /// clears a fresh array.
    pub keys: [i64; MAX_MOVES],
}

impl Default for Frame {
    fn default() -> Frame {
        Frame {
            psq: Psq::default(),
            killers: [None; 2],
            pv: [None; MAX_PLY + 1],
            pv_len: 0,
            in_check: false,
            after_null: false,
            last: None,
            quiet_in: None,
            keys: [0; MAX_MOVES],
        }
    }
}
