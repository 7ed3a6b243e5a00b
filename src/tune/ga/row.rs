//! A generation's row of `generations.csv`, its columns, and how it reads: its line, its
//! progress and the report's charts of it.

use super::settings::{GaSettings, GeneSettings};
use crate::game::{GameRecord, Seat};
use crate::tune::method::{Row, Step};
use crate::tune::observe::{Chart, View};
use serde::{Deserialize, Serialize};

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
    fn step(&self) -> usize {
        self.generation
    }
}

/// How a generation reads: its figures, and whether its best is within what chance gives
/// equal players (which the settings decide).
pub struct GaView(pub GaSettings);

impl View for GaView {
    type Row = GenerationStats;
    const CHARTS: &'static [Chart] = CHARTS;

    fn line(&self, stats: &GenerationStats) -> String {
        let chance = self
            .0
            .chance_fitness(stats.draws as f64 / stats.games.max(1) as f64);
        let mutation = match self.0.genes {
            GeneSettings::Binary { .. } => format!("pm {:.4}", stats.pm_mean),
            GeneSettings::Real(_) => format!("step {:.2}%", 100.0 * stats.pm_mean),
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

/// The columns of `generations.csv` after the generation's.
pub const COLUMNS: &[&str] = &[
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
];

/// The report's charts of those columns.
pub const CHARTS: &[Chart] = &[
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
];

/// What a generation's row says of its games.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    pub games: usize,
    first: usize,
    draws: usize,
    second: usize,
    plies: usize,
    nodes: u64,
}

impl Tally {
    pub fn add<M>(&mut self, records: &[GameRecord<M>]) {
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

/// A generation's row of generations.csv.
pub fn generation_stats(
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
