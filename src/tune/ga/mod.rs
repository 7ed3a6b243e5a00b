//! The adaptive genetic algorithm (seed 003): a population of binary chromosomes, fitness
//! from round robins in groups, each group's champion surviving (elitism), children of two
//! champions by uniform crossover and bit-flip mutation at rates that adapt to fitness.
//!
//! Beside the paper's mode, each a configuration key ([`settings`]): real-valued genes with
//! blend or SBX crossover and self-adapted steps ([`real`]); fitness from games against a
//! reference (the last generation's survivors' mean) instead of round robins in groups, with
//! truncation selection and optional racing (successive halving of the field); mirrored
//! twins ([`twins`]); and the survivors' mean, rather than the best survivor, as the step's
//! champion, so that selection's noise averages out of what the run gives.
//!
//! A generation is asked for ([`fitness`]: who plays whom), told its games, selects
//! ([`select`]), breeds ([`breed`]) and leaves its row ([`row`]) and its state ([`state`]).

pub mod breed;
pub mod fitness;
pub mod genome;
pub mod real;
pub mod row;
pub mod select;
pub mod settings;
pub mod state;
pub mod twins;

pub use row::{GaView, GenerationStats};
pub use settings::{Champion, Fitness, GaSettings, GeneSettings, Selection, Survival};
pub use state::{GaState, Members, Record, PRIOR_GAMES};

use super::config::{Config, ConfigError, Init};
use super::folder::RunError;
use super::method::{stream, Batch, Done, Info, Method, Setup, Step, Tell, START};
use super::theta;
use crate::arena::stats::Wdl;
use crate::arena::tally_players;
use crate::arena::Fixture;
use crate::game::{Game, GameRecord};
use crate::params::{Params, Spec};
use breed::{breed, BinaryBreeder, Bred, Breeder, RealBreeder};
use genome::{mutate, Encoding, Genome, Layout};
use rand::Rng;
use real::{Bounds, Individual, RealConfig};
use row::{generation_stats, Tally};

/// The stream purpose of breeding.
const BREEDING: u64 = 3;

/// The adaptive GA of a run.
pub struct Ga {
    settings: GaSettings,
    layout: Layout,
}

/// A generation's players and games, between asking and being told.
pub struct Pending {
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

/// What a generation's games gave: each individual's fitness, the row's tally, the step.
struct Generation<'a> {
    fitness: &'a [i32],
    tally: &'a Tally,
    step: &'a Step<'a>,
}

/// A generation's selection: the survivors and what chose them.
struct Selected {
    /// Wins minus losses in this generation's games.
    fitness: Vec<i32>,
    /// What survivors were chosen by (fitness, a score a game, or the carried record's).
    selection: Vec<i32>,
    /// Each individual's record with this generation's games added.
    carried: Vec<Record>,
    survivors: Vec<usize>,
}

impl Method for Ga {
    type Settings = GaSettings;
    type State = GaState;
    type Row = GenerationStats;
    type Pending = Pending;
    type View = GaView;

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
        columns: row::COLUMNS,
    };

    fn validate(s: &GaSettings, config: &Config, specs: &[Spec]) -> Result<(), ConfigError> {
        s.check(config, specs)
    }

    fn games_per_step(s: &GaSettings) -> u128 {
        s.games_per_generation()
    }

    fn new(settings: GaSettings, setup: &Setup) -> Result<Ga, RunError> {
        let encoding = match settings.genes {
            GeneSettings::Binary { encoding, .. } => encoding,
            GeneSettings::Real(_) => Encoding::Binary,
        };
        let layout = Layout::new(setup.specs.clone(), setup.tuned.to_vec())
            .map_err(|e| ConfigError::Invalid(e.to_string()))?
            .with_encoding(encoding);
        Ok(Ga { settings, layout })
    }

    fn start(&self, setup: &Setup) -> GaState {
        let reference = match self.settings.selection {
            Selection::Groups { .. } => Vec::new(),
            _ => theta::initial(setup),
        };
        let members = match &self.settings.genes {
            GeneSettings::Real(real) if self.settings.selection == Selection::Twins => {
                let step = twins::step_at(real, 1, setup.planned);
                let mut rng = stream(setup.seed, 0, START);
                let pairs = self.settings.population / 2;
                Members::Real(twins::mirrored(&reference, step, pairs, &bounds(setup), &mut rng))
            }
            GeneSettings::Real(real) => Members::Real(self.first_individuals(real, setup)),
            GeneSettings::Binary { init_spread, .. } => {
                Members::Binary(self.first_genomes(*init_spread, setup))
            }
        };
        GaState {
            members,
            reference,
            records: Vec::new(),
        }
    }

    fn check(&self, setup: &Setup, state: &GaState, done: usize) -> Result<(), String> {
        let m = self.settings.population;
        match (&state.members, &self.settings.genes) {
            (Members::Binary(genomes), GeneSettings::Binary { .. }) => {
                if genomes.len() != m {
                    return Err("it does not hold one genome per individual".to_string());
                }
                if genomes.iter().any(|g| g.len() != self.layout.len()) {
                    return Err(format!("a genome is not {} genes of 0 and 1", self.layout.len()));
                }
            }
            (Members::Real(individuals), GeneSettings::Real(real)) => {
                if individuals.len() != m {
                    return Err("it does not hold one real individual per individual".to_string());
                }
                let (low, high) = (real.sigma_min, real.sigma_max);
                for i in individuals {
                    theta::check(setup, &i.values)?;
                    if i.steps.len() != i.values.len() || !i.steps.iter().all(|s| (low..=high).contains(s)) {
                        return Err(format!(
                            "an individual's steps are not one per value within [{low}, {high}]"
                        ));
                    }
                }
            }
            (Members::Binary(_), _) => return Err("it holds binary genomes, but genes = real".to_string()),
            (Members::Real(_), _) => return Err("it holds real individuals, but genes = binary".to_string()),
        }
        if let Selection::Groups { .. } = self.settings.selection {
            if !state.reference.is_empty() {
                return Err("it holds a reference, but fitness is groups".to_string());
            }
        } else {
            theta::check(setup, &state.reference).map_err(|e| format!("its reference: {e}"))?;
        }
        let carry = self.settings.survival().carry;
        let records = if carry && done > 0 { m } else { 0 };
        if state.records.len() != records {
            return Err(format!(
                "it holds {} survivor records where {records} belong (carry is {carry})",
                state.records.len(),
            ));
        }
        Ok(())
    }

    /// The paper's round robins in groups, or every individual against the reference.
    fn ask(&self, state: &GaState, step: &Step, setup: &Setup) -> Result<(Batch, Pending), RunError> {
        let mut params: Vec<Params> = match &state.members {
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
        let (groups, fixtures) = if let Selection::Reference { .. } = self.settings.selection {
            params.push(theta::params(setup, &state.reference));
            (Vec::new(), self.against_reference(setup, step, 0, &everyone))
        } else {
            self.round_robins(setup, step)
        };
        let batch = Batch::at(params.clone(), step.budget, fixtures.clone());
        Ok((
            batch,
            Pending {
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
        mut pending: Pending,
        records: Vec<GameRecord<G::Move>>,
        step: &Step,
        setup: &Setup,
    ) -> Result<Tell<Ga>, RunError> {
        let now = tally_players(&pending.fixtures, &records, pending.params.len());
        for (total, new) in pending.results.iter_mut().zip(&now) {
            total.add(*new);
        }
        pending.tally.add(&records);
        pending.round += 1;
        if pending.round < self.settings.race() {
            let next = select::halve(&pending.racing, &pending.results, self.settings.groups());
            if next.len() < pending.racing.len() {
                pending.fixtures = self.against_reference(setup, step, pending.round, &next);
                pending.racing = next;
                let batch = Batch::at(pending.params.clone(), step.budget, pending.fixtures.clone());
                return Ok(Tell::Ask(batch, pending));
            }
        }
        let m = self.settings.population;
        // Fitness: +1 a win, -1 a loss, 0 a draw (the reference's own is not one).
        let fitness: Vec<i32> = pending.results[..m]
            .iter()
            .map(|w| w.wins as i32 - w.losses as i32)
            .collect();
        if let (Selection::Twins, Members::Real(individuals), GeneSettings::Real(real)) =
            (&self.settings.selection, &state.members, &self.settings.genes)
        {
            let twins = Generation {
                fitness: &fitness,
                tally: &pending.tally,
                step,
            };
            return Ok(Tell::Done(self.tell_twins(
                state,
                individuals,
                real,
                twins,
                setup,
            )));
        }
        let selected = self.select(state, &pending, fitness);
        let mut rng = stream(setup.seed, step.number, BREEDING);
        let (rates, unique) = (self.settings.rates, self.settings.survival().unique);
        let (selection, survivors) = (&selected.selection, &selected.survivors);
        let bred = match (&state.members, &self.settings.genes) {
            (Members::Real(individuals), GeneSettings::Real(config)) => {
                let bounds = bounds(setup);
                let breeder = RealBreeder {
                    config,
                    bounds: &bounds,
                };
                breed(
                    &breeder,
                    rates,
                    unique,
                    individuals,
                    survivors,
                    selection,
                    &mut rng,
                )
                .map(Members::Real)
            }
            (Members::Binary(genomes), _) => {
                let breeder = BinaryBreeder(&self.layout);
                breed(&breeder, rates, unique, genomes, survivors, selection, &mut rng).map(Members::Binary)
            }
            // check() refused a state of the other spelling.
            (Members::Real(_), GeneSettings::Binary { .. }) => unreachable!("a checked state"),
        };
        Ok(Tell::Done(self.done(state, pending, selected, bred, step, setup)))
    }

    fn view(&self) -> GaView {
        GaView(self.settings.clone())
    }
}

impl Ga {
    /// The survivors of a generation by their fitness: with carry, by each one's whole
    /// record; with racing, by a score a game (raced individuals played different numbers).
    fn select(&self, state: &GaState, pending: &Pending, fitness: Vec<i32>) -> Selected {
        let m = self.settings.population;
        let results = &pending.results;
        let carried: Vec<Record> = (0..m)
            .map(|i| {
                let earlier = state.records.get(i).copied().unwrap_or_default();
                Record {
                    points: earlier.points + fitness[i] as i64,
                    games: earlier.games + results[i].games() as u64,
                }
            })
            .collect();
        let selection: Vec<i32> = if self.settings.survival().carry {
            carried.iter().map(|r| r.score()).collect()
        } else if self.settings.race() > 1 {
            results[..m].iter().map(|&w| fitness::per_game(w)).collect()
        } else {
            fitness.clone()
        };
        let survivors = self.survivors(&pending.groups, &pending.racing, &selection);
        Selected {
            fitness,
            selection,
            carried,
            survivors,
        }
    }

    /// A generation's end: its row, its champion (the best survivor or the survivors'
    /// mean), and the next state (the bred members, the mean as the next reference, the
    /// survivors' records).
    fn done(
        &self,
        state: &GaState,
        pending: Pending,
        selected: Selected,
        bred: Bred<Members>,
        step: &Step,
        setup: &Setup,
    ) -> Done<Ga> {
        let Selected {
            fitness,
            selection,
            carried,
            survivors,
        } = selected;
        let survival = self.settings.survival();
        let records: Vec<Record> = if survival.carry {
            let kept = survivors.iter().map(|&c| carried[c]);
            kept.chain(std::iter::repeat(Record::default()))
                .take(self.settings.population)
                .collect()
        } else {
            Vec::new()
        };
        let row = generation_stats(
            step,
            &fitness,
            bred.diversity,
            &pending.tally,
            bred.pc_mean,
            bred.pm_mean,
        );
        let best = *survivors
            .iter()
            .reduce(|b, c| if selection[*c] > selection[*b] { c } else { b })
            .expect("survivors");
        // The survivors' mean: the next reference, and the champion when asked.
        let tuned_values = |i: usize| -> Vec<f64> {
            match &state.members {
                Members::Binary(_) => setup
                    .tuned
                    .iter()
                    .map(|&t| f64::from(pending.params[i].values()[t]))
                    .collect(),
                Members::Real(individuals) => individuals[i].values.clone(),
            }
        };
        let centre: Vec<f64> = {
            let all: Vec<Vec<f64>> = survivors.iter().map(|&c| tuned_values(c)).collect();
            (0..setup.tuned.len())
                .map(|k| all.iter().map(|v| v[k]).sum::<f64>() / all.len() as f64)
                .collect()
        };
        let mut provenance = self.provenance(setup, pending.tally.games);
        provenance["fitness"] = fitness[best].into();
        provenance["record"] = serde_json::json!(survival.carry.then_some(carried[best]));
        provenance["group"] = serde_json::json!(survivors.iter().position(|&c| c == best));
        let champion = match survival.champion {
            Champion::Best => pending.params[best].clone(),
            Champion::Centre => theta::params(setup, &centre),
        };
        let reference = match self.settings.selection {
            Selection::Groups { .. } => Vec::new(),
            _ => centre,
        };
        Done {
            row,
            champion,
            provenance,
            state: GaState {
                members: bred.next,
                reference,
                records,
            },
        }
    }

    /// What every champion's provenance says (the run adds the generation's number): the
    /// run, its games and what was evolved from what. The newer options are named only when used, so that the
    /// paper's files stay as they were.
    fn provenance(&self, setup: &Setup, games: usize) -> serde_json::Value {
        let mut provenance = serde_json::json!({
            "run": setup.run, "games": games, "base": setup.base_name,
            "evolved": self.layout.evolved().iter().map(|&i| &setup.specs[i].name).collect::<Vec<_>>(),
        });
        let s = &self.settings;
        let (genes, fitness, champion) = (s.genes(), s.fitness(), s.survival().champion);
        for (key, value, used) in [
            ("genes", serde_json::json!(genes), genes != real::Genes::default()),
            (
                "fitness_against",
                serde_json::json!(fitness),
                fitness != Fitness::default(),
            ),
            (
                "champion",
                serde_json::json!(champion),
                champion != Champion::default(),
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
        real: &RealConfig,
        played: Generation,
        setup: &Setup,
    ) -> Done<Ga> {
        let Generation { fitness, tally, step } = played;
        let generation = step.number;
        let bounds = bounds(setup);
        let winners = twins::winners(fitness);
        let centre = twins::recombine(&state.reference, individuals, &winners);
        let next_step = twins::step_at(real, generation + 1, setup.planned);
        let mut rng = stream(setup.seed, generation, BREEDING);
        let next = twins::mirrored(&centre, next_step, individuals.len() / 2, &bounds, &mut rng);
        let step_now = individuals
            .first()
            .and_then(|i| i.steps.first().copied())
            .unwrap_or(0.0);
        let diversity = RealBreeder {
            config: real,
            bounds: &bounds,
        }
        .diversity(individuals);
        let mut provenance = self.provenance(setup, tally.games);
        provenance["step"] = step_now.into();
        Done {
            // No child is a crossover of two parents: its pc is 0.
            row: generation_stats(step, fitness, diversity, tally, 0.0, step_now),
            champion: theta::params(setup, &centre),
            provenance,
            state: GaState {
                members: Members::Real(next),
                reference: centre,
                records: Vec::new(),
            },
        }
    }

    /// The first population of binary genes: at random, or the start weights exactly and
    /// then mutants of them, each gene flipped with chance `spread`.
    fn first_genomes(&self, spread: f64, setup: &Setup) -> Vec<Genome> {
        let mut rng = stream(setup.seed, 0, START);
        let around = match setup.init {
            Init::Random => None,
            Init::Defaults => Some(self.layout.encode(&Params::defaults(&setup.specs))),
            Init::Weights => Some(self.layout.encode(setup.base)),
        };
        (0..self.settings.population)
            .map(|i| match &around {
                None => (0..self.layout.len()).map(|_| rng.gen_range(0..=1)).collect(),
                Some(g) if i == 0 => g.clone(),
                Some(g) => {
                    let mut m = g.clone();
                    mutate(&mut m, spread, &mut rng);
                    m
                }
            })
            .collect()
    }

    /// The first population of real genes: the start values exactly, then individuals
    /// around them (or at random with `init: random`), every step at `real.sigma`.
    fn first_individuals(&self, real: &RealConfig, setup: &Setup) -> Vec<Individual> {
        let mut rng = stream(setup.seed, 0, START);
        let bounds = bounds(setup);
        let start = theta::initial(setup);
        let steps = vec![real.sigma; start.len()];
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
}

/// The tuned parameters' bounds.
fn bounds(setup: &Setup) -> Bounds {
    Bounds::of(setup.tuned.iter().map(|&i| &setup.specs[i]))
}
