//! Xiangqi (Chinese chess): the rules core.

pub mod attacks;
mod bitboard;
mod board;
pub mod eval;
mod fen;
mod movegen;
mod moves;
pub mod perft;
mod rules;
mod types;
mod zobrist;

pub use bitboard::Bitboard;
pub use board::{Board, Undo};
pub use fen::{FenError, START_FEN};
pub use moves::{Move, MoveList, MoveParseError, MAX_MOVES};
pub use rules::{CycleReport, Outcome, Termination, Xiangqi, NO_CAPTURE_LIMIT};
pub use types::{Color, File, Piece, Rank, Role, Square};
