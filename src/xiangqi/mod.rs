//! Xiangqi (Chinese chess): the rules core.

pub mod attacks;
pub mod bench;
mod bitboard;
mod board;
pub mod eval;
mod fen;
pub mod game;
pub mod knobs;
mod movegen;
mod moves;
pub mod perft;
pub mod positions;
pub mod protocol;
mod rules;
pub mod score;
pub mod search;
pub mod smp;
pub mod time;
pub mod tt;
mod types;
mod zobrist;

pub use bitboard::{Bitboard, BOARD_MASK};
pub use board::{Board, Undo, START_FEN};
pub use fen::FenError;
pub use moves::{Move, MoveList, MoveParseError, MAX_MOVES};
pub use rules::{examine_cycle, CycleReport, Outcome, Ply, Termination, Xiangqi, NO_CAPTURE_LIMIT};
pub use types::{Color, File, Piece, Rank, Role, Square};
