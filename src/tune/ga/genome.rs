//! Chromosomes: binary genes for the evolved parameters, and the operators on them.

use crate::params::{Params, Specs};
use rand::Rng;

/// Which parameters evolve and where their genes sit in a chromosome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    specs: Specs,
    /// Indices (into the spec list) of the evolved parameters, in chromosome order.
    evolved: Vec<usize>,
    /// Bit offset of each evolved parameter's genes.
    offsets: Vec<usize>,
    len: usize,
    encoding: Encoding,
}

/// How a parameter's genes spell its code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// Plain binary, most significant bit first (the paper's).
    #[default]
    Binary,
    /// Reflected Gray code: neighbouring values differ in one gene, so a single flip can
    /// make a small step (in binary, one flip moves the value by a power of two).
    Gray,
}

/// Why a set of evolved parameters cannot make a chromosome.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("no parameter with index {0}")]
    NoIndex(usize),
    #[error("parameter '{0}' is fixed (0 bits) and cannot evolve")]
    Fixed(String),
    #[error("no parameter is chosen to evolve")]
    Empty,
}

/// A chromosome: one gene (0 or 1) per bit, most significant bit of each parameter first.
pub type Genome = Vec<u8>;

impl Layout {
    /// A layout evolving `evolved` (spec indices); parameters with 0 bits cannot evolve.
    pub fn new(specs: Specs, evolved: Vec<usize>) -> Result<Layout, LayoutError> {
        let mut offsets = Vec::with_capacity(evolved.len());
        let mut len = 0;
        for &i in &evolved {
            let spec = specs.get(i).ok_or(LayoutError::NoIndex(i))?;
            if spec.bits == 0 {
                return Err(LayoutError::Fixed(spec.name.to_string()));
            }
            offsets.push(len);
            len += spec.bits as usize;
        }
        if evolved.is_empty() {
            return Err(LayoutError::Empty);
        }
        Ok(Layout {
            specs,
            evolved,
            offsets,
            len,
            encoding: Encoding::Binary,
        })
    }

    /// The same layout with genes spelled in `encoding`.
    pub fn with_encoding(mut self, encoding: Encoding) -> Layout {
        self.encoding = encoding;
        self
    }

    /// Genes per chromosome.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The evolved parameters' spec indices.
    pub fn evolved(&self) -> &[usize] {
        &self.evolved
    }

    /// The parameter set a chromosome stands for: evolved values decoded from the genes
    /// (`min + round(code * (max - min) / (2^bits - 1))`), the rest taken from `base`.
    pub fn decode(&self, genome: &[u8], base: &Params) -> Params {
        let mut values = base.values().to_vec();
        for (k, &i) in self.evolved.iter().enumerate() {
            let spec = &self.specs[i];
            let bits = &genome[self.offsets[k]..self.offsets[k] + spec.bits as usize];
            let mut code = bits.iter().fold(0u64, |acc, &b| acc << 1 | b as u64);
            if self.encoding == Encoding::Gray {
                // Gray to binary: each bit is the parity of itself and the bits above it.
                let mut shift = 1;
                while shift < 64 {
                    code ^= code >> shift;
                    shift <<= 1;
                }
            }
            values[i] = spec.decode(code);
        }
        Params::from_values(&self.specs, &values).expect("decoded values lie within their bounds")
    }

    /// Uniform crossover as seed 003 has it: a random 0/1 mask as long as the number of
    /// parameters picks the parent of each parameter, whose genes the child takes whole; so a
    /// child's values are always values one of its parents had.
    pub fn crossover(&self, a: &[u8], b: &[u8], rng: &mut impl Rng) -> Genome {
        let mut child = a.to_vec();
        for (k, &i) in self.evolved.iter().enumerate() {
            let genes = self.offsets[k]..self.offsets[k] + self.specs[i].bits as usize;
            if !rng.gen::<bool>() {
                child[genes.clone()].copy_from_slice(&b[genes]);
            }
        }
        child
    }

    /// The chromosome nearest to a parameter set.
    pub fn encode(&self, params: &Params) -> Genome {
        let mut genome = vec![0; self.len];
        for (k, &i) in self.evolved.iter().enumerate() {
            let spec = &self.specs[i];
            let mut code = spec.encode(params.values()[i]);
            if self.encoding == Encoding::Gray {
                code ^= code >> 1;
            }
            let bits = spec.bits as usize;
            for b in 0..bits {
                genome[self.offsets[k] + b] = (code >> (bits - 1 - b) & 1) as u8;
            }
        }
        genome
    }
}

/// Flips each gene with probability `pm`.
pub fn mutate(genome: &mut [u8], pm: f64, rng: &mut impl Rng) {
    for g in genome.iter_mut() {
        if rng.gen::<f64>() < pm {
            *g ^= 1;
        }
    }
}

/// Hamming distance between two chromosomes.
pub fn hamming(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x != y).count()
}

/// The paper's adaptive-rate constants (Srinivas and Patnaik's form).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rates {
    pub pc1: f64,
    pub pc2: f64,
    pub pm1: f64,
    pub pm2: f64,
}

impl Default for Rates {
    fn default() -> Self {
        Rates {
            pc1: 0.9,
            pc2: 0.6,
            pm1: 0.1,
            pm2: 0.001,
        }
    }
}

impl Rates {
    /// Crossover probability for parents whose better fitness is `f_better`:
    /// pc1 - (pc1 - pc2)(f' - favg)/(fmax - favg) when f' >= favg, else pc1.
    pub fn crossover(&self, f_better: f64, fmax: f64, favg: f64) -> f64 {
        scaled(self.pc1, self.pc2, f_better, fmax, favg)
    }

    /// Mutation probability per gene for a child inheriting fitness `f`:
    /// pm1 - (pm1 - pm2)(f - favg)/(fmax - favg) when f >= favg, else pm1.
    pub fn mutation(&self, f: f64, fmax: f64, favg: f64) -> f64 {
        scaled(self.pm1, self.pm2, f, fmax, favg)
    }
}

/// Good individuals (above average) get rates closer to the low constant, protecting them;
/// when the whole generation is level (fmax ~ favg) the high constant applies.
fn scaled(high: f64, low: f64, f: f64, fmax: f64, favg: f64) -> f64 {
    if fmax - favg < 1e-9 || f < favg {
        return high;
    }
    high - (high - low) * ((f - favg) / (fmax - favg)).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    use crate::params::Spec;

    fn specs() -> Specs {
        Specs::from([
            Spec::weight("king", 100, 100, 100, 0),
            Spec::weight("a", 5, 0, 7, 3),
            Spec::weight("b", 600, 500, 1500, 4),
        ])
    }

    #[test]
    fn genes_map_onto_the_range() {
        let layout = Layout::new(specs(), vec![1, 2]).unwrap();
        assert_eq!(layout.len(), 7);
        let base = Params::defaults(&specs());
        // a = 101b = 5; b = code 1111b = 15 -> 500 + 15 * 1000 / 15 = 1500.
        let p = layout.decode(&[1, 0, 1, 1, 1, 1, 1], &base);
        assert_eq!(p.values(), &[100, 5, 1500]);
        // b = code 0110b = 6 -> 500 + round(6 * 1000 / 15) = 500 + 400 = 900.
        let p = layout.decode(&[0, 0, 0, 0, 1, 1, 0], &base);
        assert_eq!(p.values(), &[100, 0, 900]);
        assert_eq!(layout.encode(&p), vec![0, 0, 0, 0, 1, 1, 0]);
        assert_eq!(
            Layout::new(specs(), vec![0]),
            Err(LayoutError::Fixed("king".into()))
        );
        assert_eq!(Layout::new(specs(), vec![]), Err(LayoutError::Empty));
    }

    #[test]
    fn adaptive_rates_match_hand_computed_cases() {
        let r = Rates::default();
        // fmax 10, favg 4: a parent at 7 sits halfway: pc = 0.9 - 0.3 * 0.5 = 0.75.
        assert!((r.crossover(7.0, 10.0, 4.0) - 0.75).abs() < 1e-12);
        // The best gets the low constants; the below-average the high ones.
        assert!((r.crossover(10.0, 10.0, 4.0) - 0.6).abs() < 1e-12);
        assert!((r.crossover(2.0, 10.0, 4.0) - 0.9).abs() < 1e-12);
        // pm at 7: 0.1 - 0.099 * 0.5 = 0.0505; at the max: 0.001.
        assert!((r.mutation(7.0, 10.0, 4.0) - 0.0505).abs() < 1e-12);
        assert!((r.mutation(10.0, 10.0, 4.0) - 0.001).abs() < 1e-12);
        // A level generation (fmax = favg) uses pc1 and pm1.
        assert_eq!(r.crossover(3.0, 3.0, 3.0), 0.9);
        assert_eq!(r.mutation(3.0, 3.0, 3.0), 0.1);
    }

    #[test]
    fn gray_genes_round_trip_and_make_small_steps() {
        let layout = Layout::new(specs(), vec![1, 2])
            .unwrap()
            .with_encoding(Encoding::Gray);
        let base = Params::defaults(&specs());
        // Every value of `a` (3 bits, 0..7): encoded and decoded back; neighbours one flip apart.
        let mut previous: Option<Genome> = None;
        for v in 0..8 {
            let mut p = base.clone();
            p.set("a", v).unwrap();
            let g = layout.encode(&p);
            assert_eq!(layout.decode(&g, &base).get("a"), Some(v as i32));
            if let Some(prev) = previous {
                assert_eq!(hamming(&prev[..3], &g[..3]), 1, "{v}");
            }
            previous = Some(g);
        }
    }

    #[test]
    fn crossover_never_makes_a_value_outside_its_parents() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let layout = Layout::new(specs(), vec![1, 2]).unwrap();
        let base = Params::defaults(&specs());
        for _ in 0..2000 {
            let a: Genome = (0..layout.len()).map(|_| rng.gen_range(0..=1)).collect();
            let b: Genome = (0..layout.len()).map(|_| rng.gen_range(0..=1)).collect();
            let child = layout.crossover(&a, &b, &mut rng);
            let (pa, pb, pc) = (
                layout.decode(&a, &base),
                layout.decode(&b, &base),
                layout.decode(&child, &base),
            );
            for i in [1, 2] {
                let v = pc.values()[i];
                assert!(
                    v == pa.values()[i] || v == pb.values()[i],
                    "{v} from {a:?} x {b:?}"
                );
            }
        }
    }

    #[test]
    fn operators_behave() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        // Six parameters of 3 and 4 bits: a fair mask takes about half the parameters from each.
        let (a, b) = (&specs()[1], &specs()[2]);
        let many = Specs::from([a, b, a, b, a, b].map(Spec::clone));
        let layout = Layout::new(many, (0..6).collect()).unwrap();
        let (a, b) = (vec![0u8; layout.len()], vec![1u8; layout.len()]);
        let from_b: usize = (0..200)
            .map(|_| {
                let child = layout.crossover(&a, &b, &mut rng);
                child.iter().filter(|&&g| g == 1).count()
            })
            .sum();
        let share = from_b as f64 / (200 * layout.len()) as f64;
        assert!((0.4..0.6).contains(&share), "{share}");
        let mut g = vec![0u8; 10_000];
        mutate(&mut g, 0.1, &mut rng);
        let flipped = g.iter().filter(|&&x| x == 1).count();
        assert!((800..1200).contains(&flipped), "{flipped}");
        let mut g2 = vec![0u8; 100];
        mutate(&mut g2, 0.0, &mut rng);
        assert!(g2.iter().all(|&x| x == 0));
        assert_eq!(hamming(&[0, 1, 1, 0], &[1, 1, 0, 0]), 2);
    }
}
