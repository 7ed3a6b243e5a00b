//! Tuning runs: one executor for every method ([`run::Run`]: the run folder, `state.json`,
//! resume, validation, the CSV rows) and the methods behind one trait ([`method::Method`]),
//! each in a file of its own and listed once in [`methods`]; what a step shows is its
//! method's view, handed to a session's observers ([`observe`]); [`stages`] runs a plan's
//! stages one after another.

pub mod config;
pub mod error;
pub mod es;
pub mod folder;
pub mod ga;
pub mod method;
pub mod methods;
pub mod observe;
pub mod run;
pub mod runs;
pub mod spsa;
pub mod stages;
pub mod subject;
pub mod texel;
pub mod theta;
