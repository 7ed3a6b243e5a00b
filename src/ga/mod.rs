//! The adaptive genetic algorithm (seed 003): tournament fitness in groups, elitism, uniform
//! crossover and bit-flip mutation at adaptive rates.

pub mod config;
pub mod genome;
pub mod run;
pub mod stages;
