//! What the GA carries from one generation to the next (`state.json`): the individuals in
//! their spelling, the reference, and with `carry` the survivors' records.

use super::genome::Genome;
use super::real::Individual;
use serde::{Deserialize, Serialize};

/// The population that enters the next generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "StateFile", into = "StateFile")]
pub struct GaState {
    pub members: Members,
    /// With a reference or twins: the reference's (the centre's) tuned values.
    pub reference: Vec<f64>,
    /// With `carry`: what each individual has scored while it survived (children start
    /// empty). Empty without `carry`.
    pub records: Vec<Record>,
}

/// A generation's individuals in either spelling.
#[derive(Clone, Debug, PartialEq)]
pub enum Members {
    Binary(Vec<Genome>),
    Real(Vec<Individual>),
}

/// Games an individual has played and its wins minus losses in them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub points: i64,
    pub games: u64,
}

/// With `carry`, a selection score counts this many even games besides an individual's own:
/// one good generation of a newcomer (a few games) weighs less than a long record.
pub const PRIOR_GAMES: u64 = 20;

impl Record {
    /// The selection score: wins minus losses per game, shrunk towards 0 by
    /// [`PRIOR_GAMES`], in thousandths.
    pub fn score(self) -> i32 {
        (1000 * self.points / (self.games + PRIOR_GAMES) as i64) as i32
    }
}

/// The state as `state.json` spells it: binary genomes as strings of 0 and 1 in
/// `population` (empty with real genes), real individuals in `individuals`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateFile {
    population: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    individuals: Vec<Individual>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    reference: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    records: Vec<Record>,
}

impl TryFrom<StateFile> for GaState {
    type Error = String;

    fn try_from(f: StateFile) -> Result<GaState, String> {
        let members = match (f.population.is_empty(), f.individuals.is_empty()) {
            (_, true) => Members::Binary(
                f.population
                    .iter()
                    .map(|s| genome_from_string(s))
                    .collect::<Result<_, _>>()?,
            ),
            (true, false) => Members::Real(f.individuals),
            (false, false) => return Err("it holds both binary genomes and real individuals".to_string()),
        };
        Ok(GaState {
            members,
            reference: f.reference,
            records: f.records,
        })
    }
}

impl From<GaState> for StateFile {
    fn from(s: GaState) -> StateFile {
        let (population, individuals) = match s.members {
            Members::Binary(genomes) => (genomes.iter().map(|g| genome_to_string(g)).collect(), Vec::new()),
            Members::Real(individuals) => (Vec::new(), individuals),
        };
        StateFile {
            population,
            individuals,
            reference: s.reference,
            records: s.records,
        }
    }
}

fn genome_to_string(g: &[u8]) -> String {
    g.iter().map(|&b| if b == 1 { '1' } else { '0' }).collect()
}

fn genome_from_string(s: &str) -> Result<Genome, String> {
    if !s.bytes().all(|b| b == b'0' || b == b'1') {
        return Err("a genome is not a string of 0 and 1".to_string());
    }
    Ok(s.bytes().map(|b| b - b'0').collect())
}
