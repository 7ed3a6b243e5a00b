//! qitune: tune a board-game engine's evaluation with an adaptive genetic algorithm whose
//! fitness comes from self-play tournaments. Xiangqi is the main game; the Game of the
//! Amazons is the second. Besides the GA, a run can tune by SPSA or by fitting the
//! evaluation on the positions of self-play games.

pub mod amazons;
pub mod arena;
pub mod clock;
pub mod fsutil;
pub mod game;
pub mod games;
pub mod params;
pub mod report;
pub mod tune;
pub mod xiangqi;
