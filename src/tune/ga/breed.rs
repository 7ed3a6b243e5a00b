//! The next generation: the survivors unchanged, the rest children of two survivors at the
//! paper's adaptive rates. One loop for both spellings; what a child is made of is the
//! spelling's, through [`Breeder`].

use super::genome::{hamming, mutate, Genome, Layout, Rates};
use super::real::{self, Bounds, Individual, RealConfig};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// What breeding needs of a spelling of individuals.
pub trait Breeder {
    type Member: Clone;

    /// A child of `better` and `worse`: crossed when `crossed`, then mutated (binary genes
    /// at rate `pm`).
    fn child(
        &self,
        better: &Self::Member,
        worse: &Self::Member,
        crossed: bool,
        pm: f64,
        rng: &mut ChaCha8Rng,
    ) -> Self::Member;

    /// Whether two individuals play as the same one.
    fn same(&self, a: &Self::Member, b: &Self::Member) -> bool;

    /// Changes a child a little, to make it differ from a clone.
    fn differ(&self, child: &mut Self::Member, rng: &mut ChaCha8Rng);

    /// A generation's diversity: the mean distance between its individuals.
    fn diversity(&self, population: &[Self::Member]) -> f64;

    /// What the row shows of the children's mutation, given their mean rate `pm_mean`.
    fn mutation_shown(&self, children: &[Self::Member], pm_mean: f64) -> f64;
}

/// Bit strings: uniform crossover of whole genes, bit-flip mutation.
pub struct BinaryBreeder<'a>(pub &'a Layout);

impl Breeder for BinaryBreeder<'_> {
    type Member = Genome;

    fn child(&self, better: &Genome, worse: &Genome, crossed: bool, pm: f64, rng: &mut ChaCha8Rng) -> Genome {
        let mut child = if crossed {
            self.0.crossover(better, worse, rng)
        } else {
            better.clone()
        };
        mutate(&mut child, pm, rng);
        child
    }

    fn same(&self, a: &Genome, b: &Genome) -> bool {
        a == b
    }

    /// One more gene at a time until the child is no clone.
    fn differ(&self, child: &mut Genome, rng: &mut ChaCha8Rng) {
        let g = rng.gen_range(0..child.len());
        child[g] ^= 1;
    }

    /// In genes (Hamming distance).
    fn diversity(&self, population: &[Genome]) -> f64 {
        mean_pairwise(population, |a, b| hamming(a, b) as f64)
    }

    fn mutation_shown(&self, _: &[Genome], pm_mean: f64) -> f64 {
        pm_mean
    }
}

/// Real genes: crossover per parameter and self-adapted steps ([`real`]).
pub struct RealBreeder<'a> {
    pub config: &'a RealConfig,
    pub bounds: &'a Bounds,
}

impl Breeder for RealBreeder<'_> {
    type Member = Individual;

    fn child(
        &self,
        better: &Individual,
        worse: &Individual,
        crossed: bool,
        _: f64,
        rng: &mut ChaCha8Rng,
    ) -> Individual {
        let (mut values, steps) = if crossed {
            (
                real::cross(self.config, &better.values, &worse.values, self.bounds, rng),
                real::adapt(self.config, &better.steps, Some(&worse.steps), rng),
            )
        } else {
            (
                better.values.clone(),
                real::adapt(self.config, &better.steps, None, rng),
            )
        };
        real::mutate(&mut values, &steps, self.bounds, rng);
        Individual { values, steps }
    }

    /// Told apart by their rounded values: those are what plays.
    fn same(&self, a: &Individual, b: &Individual) -> bool {
        a.values
            .iter()
            .zip(&b.values)
            .all(|(x, y)| x.round() == y.round())
    }

    fn differ(&self, child: &mut Individual, rng: &mut ChaCha8Rng) {
        real::mutate(&mut child.values, &child.steps, self.bounds, rng);
    }

    /// In percent of the ranges (root mean square distance).
    fn diversity(&self, population: &[Individual]) -> f64 {
        100.0
            * mean_pairwise(population, |a, b| {
                real::distance(&a.values, &b.values, self.bounds)
            })
    }

    /// The children's mean step (a share of range): their mutation is not a rate.
    fn mutation_shown(&self, children: &[Individual], _: f64) -> f64 {
        children.iter().flat_map(|c| &c.steps).sum::<f64>()
            / children.iter().map(|c| c.steps.len()).sum::<usize>().max(1) as f64
    }
}

/// A bred generation and what its row shows.
pub struct Bred<T> {
    pub next: T,
    pub pc_mean: f64,
    pub pm_mean: f64,
    /// The parents' generation's mean pairwise distance.
    pub diversity: f64,
}

impl<T> Bred<T> {
    /// The same generation with its members in another form.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Bred<U> {
        Bred {
            next: f(self.next),
            pc_mean: self.pc_mean,
            pm_mean: self.pm_mean,
            diversity: self.diversity,
        }
    }
}

/// The next population: `champions` survive unchanged; the rest are children of two
/// champions at the rates `fitness` gives them; with `unique`, a child the same as one
/// already in is changed until it is not.
pub fn breed<B: Breeder>(
    breeder: &B,
    rates: Rates,
    unique: bool,
    population: &[B::Member],
    champions: &[usize],
    fitness: &[i32],
    rng: &mut ChaCha8Rng,
) -> Bred<Vec<B::Member>> {
    let m = population.len();
    let n = champions.len();
    let fmax = *fitness.iter().max().expect("a population") as f64;
    let favg = fitness.iter().sum::<i32>() as f64 / m as f64;
    let mut next: Vec<B::Member> = champions.iter().map(|&c| population[c].clone()).collect();
    let (mut pc_sum, mut pm_sum) = (0.0, 0.0);
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
        let mut child = breeder.child(&population[better], &population[worse], crossed, pm, rng);
        if unique {
            while next.iter().any(|x| breeder.same(x, &child)) {
                breeder.differ(&mut child, rng);
            }
        }
        pc_sum += pc;
        pm_sum += pm;
        next.push(child);
    }
    let children = (m - n) as f64;
    Bred {
        pm_mean: breeder.mutation_shown(&next[n..], pm_sum / children),
        pc_mean: pc_sum / children,
        diversity: breeder.diversity(population),
        next,
    }
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
