//! The Game of the Amazons (seed 004): rules and move generation.

mod board;
pub mod eval;
pub mod game;
pub mod knobs;
pub mod search;

pub use board::{perft, queen_reach, AmazonsError, Board, Move, Side, START_FEN};
