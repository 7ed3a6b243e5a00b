//! The adaptive genetic algorithm (seed 003): a population of binary chromosomes, fitness
//! from round robins in groups, each group's champion surviving (elitism), children of two
//! champions by uniform crossover and bit-flip mutation at rates that adapt to fitness.
//!
//! Beside the paper's mode, each a configuration key: real-valued genes with blend or SBX
//! crossover and self-adapted steps ([`real`]); fitness from games against a reference (the
//! last generation's survivors' mean) instead of round robins in groups, with truncation
//! selection and optional racing (successive halving of the field); and that mean, rather than the best survivor, as the step's champion, so that
//! selection's noise averages out of what the run gives.

pub mod genome;
pub mod real;
pub mod twins;

use super::config::{Config, ConfigError, Init};
use super::folder::RunError;
use super::method::{stream, Batch, Chart, Done, Info, Method, Row, Setup, Step, Tell, OPENINGS, START};
use super::theta;
use crate::arena::stats::Wdl;
use crate::arena::{tally_players, Fixture};
use crate::game::{Game, GameRecord, Seat};
use crate::params::{Params, Spec};
use genome::{hamming, mutate, Encoding, Genome, Layout, Rates};
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use real::{Bounds, Genes, Individual, RealConfig};
use serde::{Deserialize, Serialize};

/// The GA's keys of a run configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GaSettings {
    /// m, the individuals per generation.
    #[serde(default)]
    pub population: usize,
    /// n, the groups each generation is split into (each group's champion survives).
    #[serde(default)]
    pub groups: usize,
    /// Chance per gene of a flip when the first population is made around given weights.
    #[serde(default = "default_spread")]
    pub init_spread: f64,
    #[serde(default)]
    pub rates: Rates,
    /// How genes spell a parameter: `binary` (the paper's) or `gray`.
    #[serde(default)]
    pub encoding: Encoding,
    /// Openings each pair of a group plays, each with both colours (the paper: 1). More
    /// games per pairing make fitness less noisy.
    #[serde(default = "one")]
    pub openings_per_pair: usize,
    /// A child identical to an individual already in the next generation is mutated until
    /// it differs, so that the population does not fill with clones.
    #[serde(default)]
    pub unique: bool,
    /// Survivors keep their results: champions are chosen on every game an individual has
    /// played while it survived, shrunk towards an even score ([`PRIOR_GAMES`]), so that a
    /// newcomer's lucky generation does not displace a measured incumbent.
    #[serde(default)]
    pub carry: bool,
    /// How individuals are spelled: `binary` (the paper's) or `real`.
    #[serde(default)]
    pub genes: Genes,
    /// The settings of real genes.
    #[serde(default)]
    pub real: RealConfig,
    /// Whom an individual's games are against.
    #[serde(default)]
    pub fitness: Fitness,
    /// What a generation gives as its champion.
    #[serde(default)]
    pub champion: Champion,
    /// Rounds of racing with `fitness: reference` (1: none): after each round the better
    /// half (by score a game, at least `groups`) plays `openings_per_pair` more openings, so
    /// that games go where the ranking is close to the cut.
    #[serde(default = "one")]
    pub race: usize,
}

/// Whom an individual plays for its fitness.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fitness {
    /// Everyone in its group, in a round robin; each group's best survives (the paper's).
    #[default]
    Groups,
    /// The reference (the last generation's survivors' mean, at first the start weights),
    /// every individual from the same openings; the `groups` best of the generation survive.
    Reference,
    /// Pairs of mirrored twins around a centre, each pair playing itself; each pair's winner
    /// survives and the next centre is the winners' mean ([`twins`]). Needs real genes,
    /// `groups` = half the population and `champion: centre`.
    Twins,
}

/// What a generation gives as its champion (validated, saved, exported).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Champion {
    /// The survivor with the best selection score (the paper's).
    #[default]
    Best,
    /// The mean of the survivors' values, rounded.
    Centre,
}

fn one() -> usize {
    1
}
fn default_spread() -> f64 {
    0.05
}

/// The GA's state: the population that enters the next generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GaState {
    /// One string of 0/1 genes an individual (binary genes; empty with real ones).
    pub population: Vec<String>,
    /// With real genes: the individuals.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub individuals: Vec<Individual>,
    /// With `fitness: reference`: the reference's tuned values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference: Vec<f64>,
    /// With `carry`: what each individual of `population` has scored while it survived
    /// (children start empty). Empty without `carry`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub records: Vec<Record>,
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

/// One generation's figures (a row of generations.csv).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationStats {
    pub generation: usize,
    pub fitness_max: i32,
    pub fitness_mean: f64,
    pub fitness_min: i32,
    pub pc_mean: f64,
    /// The children's mean mutation rate; with real genes, their mean step (share of range).
    pub pm_mean: f64,
    /// Mean Hamming distance between the generation's individuals; with real genes, their
    /// mean root mean square distance in percent of the ranges.
    pub diversity: f64,
    pub games: usize,
    pub red_wins: usize,
    pub draws: usize,
    pub black_wins: usize,
    pub plies_mean: f64,
    pub nodes: u64,
    pub seconds: f64,
    pub games_per_s: f64,
}

impl Row for GenerationStats {
    fn generation(&self) -> usize {
        self.generation
    }
}

/// The stream purpose of breeding.
const BREEDING: u64 = 3;
/// The stream purpose of a racing round's openings (its round number mixed in).
const RACING: u64 = 4;

/// The adaptive GA of a run.
pub struct Ga {
    settings: GaSettings,
    layout: Layout,
}

/// A generation's individuals in either spelling.
#[derive(Clone, Debug)]
enum Members {
    Binary(Vec<Genome>),
    Real(Vec<Individual>),
}

/// A generation's players and games, between asking and being told.
pub struct Pending {
    members: Members,
    /// The individuals' parameters, then the reference's with `fitness: reference`.
    params: Vec<Params>,
    groups: Vec<Vec<usize>>,
    /// The games being played (with racing, this round's).
    fixtures: Vec<Fixture>,
    /// Racing rounds played before these games.
    round: usize,
    /// Each individual's results in the earlier rounds.
    results: Vec<Wdl>,
    /// Who plays these games (everyone without racing), in index order.
    racing: Vec<usize>,
    /// The games of the earlier rounds, for the row.
    tally: Tally,
}

/// What a generation's row says of its games.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    games: usize,
    first: usize,
    draws: usize,
    second: usize,
    plies: usize,
    nodes: u64,
}

impl Tally {
    fn add<M>(&mut self, records: &[GameRecord<M>]) {
        for r in records {
            self.games += 1;
            match r.winner {
                Some(Seat::First) => self.first += 1,
                None => self.draws += 1,
                Some(Seat::Second) => self.second += 1,
            }
            self.plies += r.plies();
            self.nodes += r.nodes[0] + r.nodes[1];
        }
    }
}

impl Method for Ga {
    type Settings = GaSettings;
    type State = GaState;
    type Row = GenerationStats;
    type Pending = Pending;

    const INFO: Info = Info {
        name: "ga",
        keys: &[
            "population",
            "groups",
            "init_spread",
            "rates",
            "encoding",
            "openings_per_pair",
            "unique",
            "carry",
            "genes",
            "real",
            "fitness",
            "champion",
            "race",
        ],
        unit: "generation",
        csv: "generations.csv",
        columns: &[
            "generation",
            "fitness_max",
            "fitness_mean",
            "fitness_min",
            "pc_mean",
            "pm_mean",
            "diversity",
            "games",
            "red_wins",
            "draws",
            "black_wins",
            "plies_mean",
            "nodes",
            "seconds",
            "games_per_s",
        ],
        charts: &[
            Chart {
                title: "Fitness (wins - losses)",
                lines: &[
                    ("max", "fitness_max", None),
                    ("mean", "fitness_mean", None),
                    ("min", "fitness_min", None),
                ],
            },
            Chart {
                title: "Crossover rate pc (mean of the children)",
                lines: &[("pc", "pc_mean", None)],
            },
            Chart {
                title: "Mutation: rate pm, or with real genes the step as a share of range (mean of the children)",
                lines: &[("pm", "pm_mean", None)],
            },
            Chart {
                title: "Diversity (mean Hamming distance in genes; with real genes, RMS distance in % of range)",
                lines: &[("diversity", "diversity", None)],
            },
            Chart {
                title: "Results (share of the generation's games)",
                lines: &[
                    ("first player wins", "red_wins", Some("games")),
                    ("draws", "draws", Some("games")),
                    ("second player wins", "black_wins", Some("games")),
                ],
            },
            Chart {
                title: "Speed (games/s) and game length (plies)",
                lines: &[
                    ("games/s", "games_per_s", None),
                    ("mean plies", "plies_mean", None),
                ],
            },
        ],
    };

    fn validate(s: &GaSettings, config: &Config, specs: &[Spec]) -> Result<(), ConfigError> {
        let invalid = |m: String| Err(ConfigError::Invalid(m));
        if s.groups < 2 {
            return invalid(format!(
                "groups = {}: at least 2, so that children have two champion parents",
                s.groups
            ));
        }
        if s.population > 100_000 {
            return invalid(format!(
                "population = {} is more than the 100,000 a run can hold",
                s.population
            ));
        }
        // Compared by division: 2 * groups overflows for absurd group counts.
        if s.groups > s.population / 2 {
            return invalid(format!(
                "groups = {} is too many for population = {}: every group needs at least 2 individuals",
                s.groups, s.population
            ));
        }
        if !(0.0..=1.0).contains(&s.init_spread) {
            return invalid(format!("init_spread = {} must lie in [0, 1]", s.init_spread));
        }
        let r = s.rates;
        for (name, v) in [("pc1", r.pc1), ("pc2", r.pc2), ("pm1", r.pm1), ("pm2", r.pm2)] {
            if !(0.0..=1.0).contains(&v) {
                return invalid(format!("rates.{name} = {v} must lie in [0, 1]"));
            }
        }
        if !(1..=100).contains(&s.openings_per_pair) {
            return invalid(format!(
                "openings_per_pair = {} must be from 1 to 100",
                s.openings_per_pair
            ));
        }
        if s.genes == Genes::Binary && s.real != RealConfig::default() {
            return invalid("real: settings of real genes, but genes = binary".to_string());
        }
        if let Some(problem) = s.real.problem() {
            return invalid(problem);
        }
        if !(1..=10).contains(&s.race) {
            return invalid(format!("race = {} must be from 1 to 10", s.race));
        }
        if s.race > 1 && s.fitness != Fitness::Reference {
            return invalid("race: racing needs fitness = reference".to_string());
        }
        if s.fitness == Fitness::Twins {
            if s.genes != Genes::Real {
                return invalid("fitness = twins needs genes = real".to_string());
            }
            if s.population % 2 != 0 || s.groups * 2 != s.population {
                return invalid(format!(
                    "fitness = twins plays pairs: population = {} must be even and groups = {} half of it",
                    s.population, s.groups
                ));
            }
            if s.champion != Champion::Centre {
                return invalid(
                    "fitness = twins gives the centre as its champion: set champion = centre".to_string(),
                );
            }
            if s.carry || s.unique {
                return invalid(
                    "fitness = twins keeps no survivors to carry or to tell apart: drop carry and unique"
                        .to_string(),
                );
            }
        }
        if s.genes == Genes::Real && s.encoding != Encoding::Binary {
            return invalid("encoding: a spelling of binary genes, but genes = real".to_string());
        }
        let genes: usize = config
            .evolved(specs)?
            .iter()
            .map(|&i| specs[i].bits as usize)
            .sum();
        if s.unique && s.genes == Genes::Binary && genes < 20 && (1usize << genes) < s.population {
            return invalid(format!(
                "unique: {genes} genes make only {} different individuals, fewer than population = {}",
                1usize << genes,
                s.population
            ));
        }
        // Real genes are told apart by their rounded values: a child could never be made to
        // differ from the others where the values cannot make a population of distinct ones.
        if s.unique && s.genes == Genes::Real {
            let distinct = config.evolved(specs)?.iter().fold(1usize, |n, &i| {
                n.saturating_mul((i64::from(specs[i].max) - i64::from(specs[i].min) + 1) as usize)
            });
            if distinct < s.population {
                return invalid(format!(
                    "unique: the evolved parameters take only {distinct} different values together, fewer than population = {}",
                    s.population
                ));
            }
        }
        Ok(())
    }

    /// In a group of s, every pair plays two games per opening; against the reference, every
    /// individual two per opening.
    fn games_per_step(s: &GaSettings) -> u128 {
        let (m, n) = (s.population as u128, s.groups.max(1) as u128);
        if s.fitness == Fitness::Reference {
            let rounds = racers(s.population, s.groups, s.race);
            return 2 * rounds.iter().sum::<usize>() as u128 * s.openings_per_pair as u128;
        }
        (0..n)
            .map(|g| (g + 1) * m / n - g * m / n)
            .map(|size| size * size.saturating_sub(1) * s.openings_per_pair as u128)
            .sum()
    }

    fn new(settings: GaSettings, setup: &Setup) -> Result<Ga, RunError> {
        let layout = Layout::new(setup.specs, setup.tuned.to_vec())
            .map_err(|e| ConfigError::Invalid(e.to_string()))?
            .with_encoding(settings.encoding);
        Ok(Ga { settings, layout })
    }

    fn start(&self, setup: &Setup) -> GaState {
        let reference = if self.settings.fitness == Fitness::Groups {
            Vec::new()
        } else {
            theta::initial(setup)
        };
        if self.settings.fitness == Fitness::Twins {
            let step = twins::step_at(&self.settings.real, 1, setup.planned);
            let mut rng = stream(setup.seed, 0, START);
            let pairs = self.settings.population / 2;
            return GaState {
                population: Vec::new(),
                individuals: twins::mirrored(&reference, step, pairs, &bounds(setup), &mut rng),
                reference,
                records: Vec::new(),
            };
        }
        if self.settings.genes == Genes::Real {
            return GaState {
                population: Vec::new(),
                individuals: self.first_individuals(setup),
                reference,
                records: Vec::new(),
            };
        }
        let mut rng = stream(setup.seed, 0, START);
        let around = match setup.init {
            Init::Random => None,
            Init::Defaults => Some(self.layout.encode(&Params::defaults(setup.specs))),
            Init::Weights => Some(self.layout.encode(setup.base)),
        };
        let population: Vec<Genome> = (0..self.settings.population)
            .map(|i| match &around {
                None => (0..self.layout.len()).map(|_| rng.gen_range(0..=1)).collect(),
                // The first individual is the given weights exactly; the others are mutants.
                Some(g) if i == 0 => g.clone(),
                Some(g) => {
                    let mut m = g.clone();
                    mutate(&mut m, self.settings.init_spread, &mut rng);
                    m
                }
            })
            .collect();
        GaState {
            population: population.iter().map(|g| genome_to_string(g)).collect(),
            individuals: Vec::new(),
            reference,
            records: Vec::new(),
        }
    }

    fn check(&self, setup: &Setup, state: &GaState, done: usize) -> Result<(), String> {
        let m = self.settings.population;
        match self.settings.genes {
            Genes::Binary => {
                if state.population.len() != m || !state.individuals.is_empty() {
                    return Err("it does not hold one genome per individual".to_string());
                }
                for g in &state.population {
                    genome_from_string(g, self.layout.len())?;
                }
            }
            Genes::Real => {
                if state.individuals.len() != m || !state.population.is_empty() {
                    return Err("it does not hold one real individual per individual".to_string());
                }
                let (low, high) = (self.settings.real.sigma_min, self.settings.real.sigma_max);
                for i in &state.individuals {
                    theta::check(setup, &i.values)?;
                    if i.steps.len() != i.values.len() || !i.steps.iter().all(|s| (low..=high).contains(s)) {
                        return Err(format!(
                            "an individual's steps are not one per value within [{low}, {high}]"
                        ));
                    }
                }
            }
        }
        if self.settings.fitness != Fitness::Groups {
            theta::check(setup, &state.reference).map_err(|e| format!("its reference: {e}"))?;
        } else if !state.reference.is_empty() {
            return Err("it holds a reference, but fitness is not reference".to_string());
        }
        let records = if self.settings.carry && done > 0 {
            self.settings.population
        } else {
            0
        };
        if state.records.len() != records {
            return Err(format!(
                "it holds {} survivor records where {records} belong (carry is {})",
                state.records.len(),
                self.settings.carry
            ));
        }
        Ok(())
    }

    /// The paper's round robins in groups, or every individual against the reference.
    fn ask(&self, state: &GaState, step: &Step, setup: &Setup) -> Result<(Batch, Pending), RunError> {
        let members = match self.settings.genes {
            Genes::Binary => Members::Binary(
                state
                    .population
                    .iter()
                    .map(|s| genome_from_string(s, self.layout.len()))
                    .collect::<Result<_, _>>()
                    .map_err(|reason| RunError::State {
                        path: step.dir.join("state.json"),
                        reason,
                    })?,
            ),
            Genes::Real => Members::Real(state.individuals.clone()),
        };
        let mut params: Vec<Params> = match &members {
            Members::Binary(population) => population
                .iter()
                .map(|g| self.layout.decode(g, setup.base))
                .collect(),
            Members::Real(individuals) => individuals
                .iter()
                .map(|i| theta::params(setup, &i.values))
                .collect(),
        };
        let m = self.settings.population;
        let everyone: Vec<usize> = (0..m).collect();
        let (groups, fixtures) = if self.settings.fitness == Fitness::Reference {
            params.push(theta::params(setup, &state.reference));
            (Vec::new(), self.against_reference(setup, step, 0, &everyone))
        } else {
            self.round_robins(setup, step)
        };
        let batch = Batch::at(params.clone(), step.budget, fixtures.clone());
        Ok((
            batch,
            Pending {
                members,
                params,
                groups,
                fixtures,
                round: 0,
                results: vec![Wdl::default(); m],
                racing: everyone,
                tally: Tally::default(),
            },
        ))
    }

    fn tell<G: Game>(
        &self,
        state: &GaState,
        pending: Pending,
        records: Vec<GameRecord<G::Move>>,
        step: &Step,
        setup: &Setup,
    ) -> Result<Tell<Ga>, RunError> {
        let Pending {
            members,
            params,
            groups,
            fixtures,
            round,
            mut results,
            racing,
            mut tally,
        } = pending;
        let m = self.settings.population;
        let generation = step.number;
        let now = tally_players(&fixtures, &records, params.len());
        for (total, new) in results.iter_mut().zip(&now) {
            total.add(*new);
        }
        tally.add(&records);
        let round = round + 1;
        if round < self.settings.race {
            let next = halve(&racing, &results, self.settings.groups);
            if next.len() < racing.len() {
                let fixtures = self.against_reference(setup, step, round, &next);
                let batch = Batch::at(params.clone(), step.budget, fixtures.clone());
                let pending = Pending {
                    members,
                    params,
                    groups,
                    fixtures,
                    round,
                    results,
                    racing: next,
                    tally,
                };
                return Ok(Tell::Ask(batch, pending));
            }
        }
        // Fitness: +1 a win, -1 a loss, 0 a draw (the reference's own is not one).
        let fitness: Vec<i32> = results[..m]
            .iter()
            .map(|w| w.wins as i32 - w.losses as i32)
            .collect();
        if let (Fitness::Twins, Members::Real(individuals)) = (self.settings.fitness, &members) {
            return Ok(Tell::Done(self.tell_twins(
                state,
                individuals,
                &fitness,
                &tally,
                step,
                setup,
            )));
        }
        // With carry, selection looks at each survivor's whole record.
        let carried: Vec<Record> = (0..m)
            .map(|i| {
                let earlier = state.records.get(i).copied().unwrap_or_default();
                Record {
                    points: earlier.points + fitness[i] as i64,
                    games: earlier.games + results[i].games() as u64,
                }
            })
            .collect();
        let selection: Vec<i32> = if self.settings.carry {
            carried.iter().map(|r| r.score()).collect()
        } else if self.settings.race > 1 {
            // Raced individuals played different numbers of games: a score a game.
            results[..m].iter().map(|&w| per_game(w)).collect()
        } else {
            fitness.clone()
        };
        let champions = self.survivors(&groups, &racing, &selection);
        let bounds = bounds(setup);
        let (next, pc_mean, pm_mean, diversity) = match &members {
            Members::Binary(population) => {
                let (next, pc, pm) = self.breed(
                    setup.seed,
                    generation,
                    population,
                    &champions,
                    &selection,
                    |better, worse, crossed, pm, rng| {
                        let mut child = if crossed {
                            self.layout.crossover(better, worse, rng)
                        } else {
                            better.clone()
                        };
                        mutate(&mut child, pm, rng);
                        child
                    },
                    |a, b| a == b,
                    |child, rng| {
                        // One more gene at a time until the child is no clone.
                        let g = rng.gen_range(0..child.len());
                        child[g] ^= 1;
                    },
                );
                let distance = mean_pairwise(population, |a, b| hamming(a, b) as f64);
                (Members::Binary(next), pc, pm, distance)
            }
            Members::Real(individuals) => {
                let rounded = |i: &Individual| i.values.iter().map(|v| v.round()).collect::<Vec<_>>();
                let (next, pc, _) = self.breed(
                    setup.seed,
                    generation,
                    individuals,
                    &champions,
                    &selection,
                    |better, worse, crossed, _, rng| {
                        let (mut values, steps) = if crossed {
                            (
                                real::cross(&self.settings.real, &better.values, &worse.values, &bounds, rng),
                                real::adapt(&self.settings.real, &better.steps, Some(&worse.steps), rng),
                            )
                        } else {
                            (
                                better.values.clone(),
                                real::adapt(&self.settings.real, &better.steps, None, rng),
                            )
                        };
                        real::mutate(&mut values, &steps, &bounds, rng);
                        Individual { values, steps }
                    },
                    |a, b| rounded(a) == rounded(b),
                    |child, rng| real::mutate(&mut child.values, &child.steps, &bounds, rng),
                );
                let children = &next[champions.len()..];
                let steps = children.iter().flat_map(|c| &c.steps).sum::<f64>()
                    / children.iter().map(|c| c.steps.len()).sum::<usize>().max(1) as f64;
                let distance =
                    100.0 * mean_pairwise(individuals, |a, b| real::distance(&a.values, &b.values, &bounds));
                (Members::Real(next), pc, steps, distance)
            }
        };
        let next_records: Vec<Record> = if self.settings.carry {
            let survivors = champions.iter().map(|&c| carried[c]);
            survivors
                .chain(std::iter::repeat(Record::default()))
                .take(m)
                .collect()
        } else {
            Vec::new()
        };
        let row = generation_stats(step, &fitness, diversity, &tally, pc_mean, pm_mean);
        let best = *champions
            .iter()
            .reduce(|b, c| if selection[*c] > selection[*b] { c } else { b })
            .expect("champions");
        // The survivors' mean: the next reference, and the champion when asked.
        let tuned_values = |i: usize| -> Vec<f64> {
            match &members {
                Members::Binary(_) => setup
                    .tuned
                    .iter()
                    .map(|&t| f64::from(params[i].values()[t]))
                    .collect(),
                Members::Real(individuals) => individuals[i].values.clone(),
            }
        };
        let centre: Vec<f64> = {
            let all: Vec<Vec<f64>> = champions.iter().map(|&c| tuned_values(c)).collect();
            (0..setup.tuned.len())
                .map(|k| all.iter().map(|v| v[k]).sum::<f64>() / all.len() as f64)
                .collect()
        };
        let mut provenance = self.provenance(setup, generation, tally.games);
        provenance["fitness"] = fitness[best].into();
        provenance["record"] = serde_json::json!(self.settings.carry.then_some(carried[best]));
        provenance["group"] = serde_json::json!(champions.iter().position(|&c| c == best));
        let champion = match self.settings.champion {
            Champion::Best => params[best].clone(),
            Champion::Centre => theta::params(setup, &centre),
        };
        let reference = match self.settings.fitness {
            Fitness::Groups => Vec::new(),
            Fitness::Reference | Fitness::Twins => centre,
        };
        let (population, individuals) = match next {
            Members::Binary(next) => (next.iter().map(|g| genome_to_string(g)).collect(), Vec::new()),
            Members::Real(next) => (Vec::new(), next),
        };
        Ok(Tell::Done(Done {
            row,
            champion,
            provenance,
            state: GaState {
                population,
                individuals,
                reference,
                records: next_records,
            },
        }))
    }

    fn line(&self, stats: &GenerationStats) -> String {
        let chance = self.chance_fitness(stats.draws as f64 / stats.games.max(1) as f64);
        let mutation = match self.settings.genes {
            Genes::Binary => format!("pm {:.4}", stats.pm_mean),
            Genes::Real => format!("step {:.2}%", 100.0 * stats.pm_mean),
        };
        format!(
            "generation {:>4}: fitness max {:>3} mean {:>6.2} min {:>4}  pc {:.3} {mutation}  diversity {:>6.1}  {:.1} games/s{}",
            stats.generation,
            stats.fitness_max,
            stats.fitness_mean,
            stats.fitness_min,
            stats.pc_mean,
            stats.diversity,
            stats.games_per_s,
            if (stats.fitness_max as f64) <= chance {
                format!("  (best within chance: equal players reach about {chance:.0})")
            } else {
                String::new()
            }
        )
    }

    fn progress(&self, stats: &GenerationStats) -> String {
        format!("best {} mean {:.1}", stats.fitness_max, stats.fitness_mean)
    }
}

impl Ga {
    /// What every champion's provenance says: the run, the generation, its games and what
    /// was evolved from what. The newer options are named only when used, so that the
    /// paper's files stay as they were.
    fn provenance(&self, setup: &Setup, generation: usize, games: usize) -> serde_json::Value {
        let mut provenance = serde_json::json!({
            "run": setup.run, "generation": generation, "games": games, "base": setup.base_name,
            "evolved": self.layout.evolved().iter().map(|&i| setup.specs[i].name).collect::<Vec<_>>(),
        });
        let s = &self.settings;
        for (key, value, used) in [
            ("genes", serde_json::json!(s.genes), s.genes != Genes::default()),
            (
                "fitness_against",
                serde_json::json!(s.fitness),
                s.fitness != Fitness::default(),
            ),
            (
                "champion",
                serde_json::json!(s.champion),
                s.champion != Champion::default(),
            ),
        ] {
            if used {
                provenance[key] = value;
            }
        }
        provenance
    }

    /// The end of a generation of twins: each pair's winner survives, the winners' mean is
    /// the next centre and the champion, and the next twins are mirrored around it with the
    /// next generation's step.
    fn tell_twins(
        &self,
        state: &GaState,
        individuals: &[Individual],
        fitness: &[i32],
        tally: &Tally,
        step: &Step,
        setup: &Setup,
    ) -> Done<Ga> {
        let generation = step.number;
        let bounds = bounds(setup);
        let winners = twins::winners(fitness);
        let centre = twins::recombine(&state.reference, individuals, &winners);
        let next_step = twins::step_at(&self.settings.real, generation + 1, setup.planned);
        let mut rng = stream(setup.seed, generation, BREEDING);
        let next = twins::mirrored(&centre, next_step, individuals.len() / 2, &bounds, &mut rng);
        let step_now = individuals
            .first()
            .and_then(|i| i.steps.first().copied())
            .unwrap_or(0.0);
        let distance =
            100.0 * mean_pairwise(individuals, |a, b| real::distance(&a.values, &b.values, &bounds));
        let mut provenance = self.provenance(setup, generation, tally.games);
        provenance["step"] = step_now.into();
        Done {
            // No child is a crossover of two parents: its pc is 0.
            row: generation_stats(step, fitness, distance, tally, 0.0, step_now),
            champion: theta::params(setup, &centre),
            provenance,
            state: GaState {
                population: Vec::new(),
                individuals: next,
                reference: centre,
                records: Vec::new(),
            },
        }
    }

    /// The next population: champions survive unchanged; the rest are children of two
    /// champions at adaptive rates, made by `make(better, worse, crossed, pm, rng)`; with
    /// `unique`, a child the same as one already in (`same`) is changed by `differ` until it
    /// is not. Returns it with the children's mean pc and pm.
    #[allow(clippy::too_many_arguments)]
    fn breed<T: Clone>(
        &self,
        seed: u64,
        generation: usize,
        population: &[T],
        champions: &[usize],
        fitness: &[i32],
        make: impl Fn(&T, &T, bool, f64, &mut ChaCha8Rng) -> T,
        same: impl Fn(&T, &T) -> bool,
        differ: impl Fn(&mut T, &mut ChaCha8Rng),
    ) -> (Vec<T>, f64, f64) {
        let m = population.len();
        let n = champions.len();
        let fmax = *fitness.iter().max().expect("a population") as f64;
        let favg = fitness.iter().sum::<i32>() as f64 / m as f64;
        let mut rng = stream(seed, generation, BREEDING);
        let mut next: Vec<T> = champions.iter().map(|&c| population[c].clone()).collect();
        let (mut pc_sum, mut pm_sum) = (0.0, 0.0);
        let rates = self.settings.rates;
        while next.len() < m {
            let a = champions[rng.gen_range(0..n)];
            let b = loop {
                let b = champions[rng.gen_range(0..n)];
                if b != a {
                    break b;
                }
            };
            let (better, worse) = if fitness[b] > fitness[a] { (b, a) } else { (a, b) };
            let f = fitness[better] as f64;
            let pc = rates.crossover(f, fmax, favg);
            let pm = rates.mutation(f, fmax, favg);
            let crossed = rng.gen::<f64>() < pc;
            let mut child = make(&population[better], &population[worse], crossed, pm, &mut rng);
            if self.settings.unique {
                while next.iter().any(|x| same(x, &child)) {
                    differ(&mut child, &mut rng);
                }
            }
            pc_sum += pc;
            pm_sum += pm;
            next.push(child);
        }
        let children = (m - n) as f64;
        (next, pc_sum / children, pm_sum / children)
    }

    /// Who survives: each group's best, or the `groups` best against the reference, those
    /// who raced to the last round first (they have the most games).
    fn survivors(&self, groups: &[Vec<usize>], racing: &[usize], selection: &[i32]) -> Vec<usize> {
        let keep = self.settings.groups;
        match self.settings.fitness {
            // Twins end in tell_twins, but a pair's better twin is its group's best.
            Fitness::Groups | Fitness::Twins => champions(groups, selection),
            Fitness::Reference => {
                let finalists = leaders(racing, selection, keep);
                let mut finalist = vec![false; selection.len()];
                for &i in racing {
                    finalist[i] = true;
                }
                let rest: Vec<usize> = (0..selection.len()).filter(|&i| !finalist[i]).collect();
                let need = keep.saturating_sub(finalists.len());
                let mut survivors = finalists;
                survivors.extend(leaders(&rest, selection, need));
                survivors
            }
        }
    }

    /// The paper's groups: a seeded shuffle of the population split as evenly as possible,
    /// and in each group every pair plays two games (colours swapped) from each of its
    /// openings.
    fn round_robins(&self, setup: &Setup, step: &Step) -> (Vec<Vec<usize>>, Vec<Fixture>) {
        let m = self.settings.population;
        let seed = setup.seed;
        let mut order: Vec<usize> = (0..m).collect();
        // Twins are grouped with each other; otherwise the groups are drawn anew each time.
        if self.settings.fitness != Fitness::Twins {
            order.shuffle(&mut stream(seed, step.number, START));
        }
        let n = self.settings.groups;
        let groups: Vec<Vec<usize>> = (0..n)
            .map(|k| order[k * m / n..(k + 1) * m / n].to_vec())
            .collect();
        let mut rng = stream(seed, step.number, OPENINGS);
        let mut fixtures = Vec::new();
        for group in &groups {
            for (x, &i) in group.iter().enumerate() {
                for &j in &group[x + 1..] {
                    for _ in 0..self.settings.openings_per_pair {
                        fixtures.extend(Fixture::pair(i, j, rng.gen_range(0..step.openings)));
                    }
                }
            }
        }
        (groups, fixtures)
    }

    /// Games of `racing` against the reference (the last player) in racing round `round`:
    /// every one from the same openings, so that their scores differ by the individuals
    /// rather than by the openings they drew.
    fn against_reference(&self, setup: &Setup, step: &Step, round: usize, racing: &[usize]) -> Vec<Fixture> {
        let mut rng = if round == 0 {
            stream(setup.seed, step.number, OPENINGS)
        } else {
            stream(setup.seed, step.number, RACING + ((round as u64) << 8))
        };
        let openings: Vec<usize> = (0..self.settings.openings_per_pair)
            .map(|_| rng.gen_range(0..step.openings))
            .collect();
        let reference = self.settings.population;
        racing
            .iter()
            .flat_map(|&i| openings.iter().flat_map(move |&o| Fixture::pair(i, reference, o)))
            .collect()
    }

    /// The first population of real genes: the start values exactly, then individuals
    /// around them (or at random with `init: random`), every step at `real.sigma`.
    fn first_individuals(&self, setup: &Setup) -> Vec<Individual> {
        let mut rng = stream(setup.seed, 0, START);
        let bounds = bounds(setup);
        let start = theta::initial(setup);
        let steps = vec![self.settings.real.sigma; start.len()];
        (0..self.settings.population)
            .map(|i| {
                let mut values = start.clone();
                match setup.init {
                    Init::Random if i > 0 => {
                        for (k, v) in values.iter_mut().enumerate() {
                            *v = rng.gen_range(bounds.min[k]..=bounds.max[k]);
                        }
                    }
                    _ if i > 0 => real::mutate(&mut values, &steps, &bounds, &mut rng),
                    _ => {}
                }
                Individual {
                    values,
                    steps: steps.clone(),
                }
            })
            .collect()
    }

    /// The best fitness that equally strong players reach by chance: in a group of s, each
    /// plays 2k(s-1) games worth +1, 0 or -1 (k openings a pair), so a fitness has standard
    /// deviation sqrt(2k(s-1)(1-d)) at draw rate d, and the best of s is about
    /// sqrt(2 ln s) deviations above zero. Against the reference, each of m plays 2k games.
    fn chance_fitness(&self, draw_rate: f64) -> f64 {
        let (m, n) = (self.settings.population, self.settings.groups);
        let k = self.settings.openings_per_pair as f64;
        if self.settings.fitness == Fitness::Reference {
            return (2.0 * k * (1.0 - draw_rate)).sqrt() * (2.0 * (m as f64).ln()).sqrt();
        }
        (0..n)
            .map(|g| (g + 1) * m / n - g * m / n)
            .filter(|&s| s >= 2)
            .map(|s| {
                let sd = (2.0 * k * (s as f64 - 1.0) * (1.0 - draw_rate)).sqrt();
                sd * (2.0 * (s as f64).ln()).sqrt()
            })
            .fold(0.0, f64::max)
    }
}

/// The tuned parameters' bounds.
fn bounds(setup: &Setup) -> Bounds {
    let specs = setup.tuned.iter().map(|&i| &setup.specs[i]);
    Bounds {
        min: specs.clone().map(|s| f64::from(s.min)).collect(),
        max: specs.map(|s| f64::from(s.max)).collect(),
    }
}

/// The `n` best of `among` by `fitness`, best first; ties go to the earlier individual.
fn leaders(among: &[usize], fitness: &[i32], n: usize) -> Vec<usize> {
    let mut order = among.to_vec();
    order.sort_by_key(|&i| (std::cmp::Reverse(fitness[i]), i));
    order.truncate(n);
    order
}

/// Who races on after a round: the better half of `racing` by score a game (at least
/// `keep`, never fewer than race), in index order. The leader always stays.
fn halve(racing: &[usize], results: &[Wdl], keep: usize) -> Vec<usize> {
    let mut scores = vec![i32::MIN; results.len()];
    for &i in racing {
        scores[i] = per_game(results[i]);
    }
    let mut kept = leaders(racing, &scores, racing.len().div_ceil(2).max(keep));
    kept.sort_unstable();
    kept
}

/// Wins minus losses a game, in thousandths.
fn per_game(w: Wdl) -> i32 {
    (1000 * (w.wins as i64 - w.losses as i64) / w.games().max(1) as i64) as i32
}

/// How many individuals play each racing round: all, then halves, never fewer than
/// `keep`; a round that would not shrink the field is not played.
fn racers(population: usize, keep: usize, race: usize) -> Vec<usize> {
    let mut rounds = vec![population];
    while rounds.len() < race {
        let last = rounds[rounds.len() - 1];
        let next = last.div_ceil(2).max(keep);
        if next >= last {
            break;
        }
        rounds.push(next);
    }
    rounds
}

/// The mean distance over all pairs of a population.
fn mean_pairwise<T>(population: &[T], distance: impl Fn(&T, &T) -> f64) -> f64 {
    let m = population.len();
    let pairs = (m * m.saturating_sub(1) / 2).max(1) as f64;
    let sum: f64 = (0..m)
        .flat_map(|i| (i + 1..m).map(move |j| (i, j)))
        .map(|(i, j)| distance(&population[i], &population[j]))
        .sum();
    sum / pairs
}

/// Each group's champion: the best fitness; ties go to the earlier in the group.
fn champions(groups: &[Vec<usize>], fitness: &[i32]) -> Vec<usize> {
    groups
        .iter()
        .map(|g| {
            *g.iter()
                .reduce(|best, i| if fitness[*i] > fitness[*best] { i } else { best })
                .expect("groups are not empty")
        })
        .collect()
}

/// A generation's row of generations.csv.
fn generation_stats(
    step: &Step,
    fitness: &[i32],
    diversity: f64,
    tally: &Tally,
    pc_mean: f64,
    pm_mean: f64,
) -> GenerationStats {
    let m = fitness.len();
    let seconds = step.started.elapsed().as_secs_f64();
    GenerationStats {
        generation: step.number,
        fitness_max: *fitness.iter().max().expect("a population"),
        fitness_mean: fitness.iter().sum::<i32>() as f64 / m as f64,
        fitness_min: *fitness.iter().min().expect("a population"),
        pc_mean,
        pm_mean,
        diversity,
        games: tally.games,
        red_wins: tally.first,
        draws: tally.draws,
        black_wins: tally.second,
        plies_mean: tally.plies as f64 / tally.games.max(1) as f64,
        nodes: tally.nodes,
        seconds,
        games_per_s: tally.games as f64 / seconds.max(1e-9),
    }
}

fn genome_to_string(g: &[u8]) -> String {
    g.iter().map(|&b| if b == 1 { '1' } else { '0' }).collect()
}

fn genome_from_string(s: &str, len: usize) -> Result<Genome, String> {
    if s.len() != len || !s.bytes().all(|b| b == b'0' || b == b'1') {
        return Err(format!("a genome is not {len} genes of 0 and 1"));
    }
    Ok(s.bytes().map(|b| b - b'0').collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// After any round the leader (best score a game, earliest on ties) races on, the
        /// field halves but never below `keep`, and nobody rejoins.
        #[test]
        fn racing_never_drops_the_leader(results in prop::collection::vec((0u32..9, 0u32..9, 0u32..9), 2..40),
                                         keep in 1usize..8, picks in prop::collection::vec(any::<bool>(), 40)) {
            let results: Vec<Wdl> = results.iter().map(|&(wins, draws, losses)| Wdl { wins, draws, losses }).collect();
            let racing: Vec<usize> = (0..results.len()).filter(|&i| picks[i] || i == 0).collect();
            let kept = halve(&racing, &results, keep);
            let score = |i: usize| per_game(results[i]);
            let leader = *racing.iter().reduce(|b, i| if score(*i) > score(*b) { i } else { b }).unwrap();
            prop_assert!(kept.contains(&leader));
            prop_assert!(kept.iter().all(|i| racing.contains(i)));
            prop_assert_eq!(kept.len(), racing.len().div_ceil(2).max(keep).min(racing.len()));
            // Everyone kept scores at least as well as everyone dropped.
            let worst_kept = kept.iter().map(|&i| score(i)).min().unwrap();
            prop_assert!(racing.iter().filter(|i| !kept.contains(i)).all(|&i| score(i) <= worst_kept));
        }
    }

    #[test]
    fn racing_rounds_halve_the_field_down_to_the_survivors() {
        assert_eq!(racers(16, 4, 1), vec![16]);
        assert_eq!(racers(16, 4, 3), vec![16, 8, 4]);
        assert_eq!(racers(16, 4, 9), vec![16, 8, 4]);
        assert_eq!(racers(15, 3, 4), vec![15, 8, 4, 3]);
    }
}
