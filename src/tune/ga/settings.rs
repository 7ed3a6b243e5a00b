//! The GA's settings as types: who an individual plays (groups, a reference with racing, or
//! mirrored twins) and how it is spelled (binary or real genes), each with only the settings
//! that belong to it, so that a combination the GA cannot run cannot be held.
//!
//! A configuration file still writes them as flat keys (`population`, `groups`, `fitness`,
//! `genes`, ...), as every shipped configuration and saved run does; [`Keys`] is that form,
//! and reading it refuses an invalid combination by name before anything is written.

use super::genome::{Encoding, Rates};
use super::real::{Genes, RealConfig};
use crate::params::Spec;
use crate::tune::config::{Config, ConfigError};
use serde::{Deserialize, Serialize};

/// The GA's settings of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Keys", into = "Keys")]
pub struct GaSettings {
    /// m, the individuals per generation.
    pub population: usize,
    /// Openings each pairing plays, each with both colours (the paper: 1). More games per
    /// pairing make fitness less noisy.
    pub openings_per_pair: usize,
    /// The adaptive crossover rates (and binary genes' mutation rates).
    pub rates: Rates,
    pub genes: GeneSettings,
    pub selection: Selection,
}

/// How individuals are spelled.
#[derive(Clone, Debug, PartialEq)]
pub enum GeneSettings {
    /// Bit strings (the paper's): how genes spell a parameter, and the chance per gene of a
    /// flip when the first population is made around given weights.
    Binary { encoding: Encoding, init_spread: f64 },
    /// One real value and one self-adapted step per parameter.
    Real(RealConfig),
}

/// Whom an individual plays for its fitness, and who survives.
#[derive(Clone, Debug, PartialEq)]
pub enum Selection {
    /// A round robin in each of `groups` groups; each group's best survives (the paper's).
    Groups { groups: usize, survival: Survival },
    /// Every individual against the reference (the last generation's survivors' mean, at
    /// first the start weights) from the same openings; the `survivors` best survive. With
    /// `race` rounds above 1, after each round the better half plays more openings.
    Reference {
        survivors: usize,
        race: usize,
        survival: Survival,
    },
    /// Pairs of mirrored twins around a centre, each pair playing itself ([`super::twins`]);
    /// each pair's winner survives and their mean is the next centre and the champion. Only
    /// with real genes.
    Twins,
}

/// What survivors keep and what a generation gives, where individuals survive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Survival {
    /// Survivors keep their results: champions are chosen on every game an individual has
    /// played while it survived, shrunk towards an even score ([`super::PRIOR_GAMES`]), so
    /// that a newcomer's lucky generation does not displace a measured incumbent.
    pub carry: bool,
    /// A child identical to an individual already in the next generation is changed until
    /// it differs, so that the population does not fill with clones.
    pub unique: bool,
    pub champion: Champion,
}

/// The `fitness` key: whom an individual plays (the [`Selection`] it makes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fitness {
    /// [`Selection::Groups`].
    #[default]
    Groups,
    /// [`Selection::Reference`].
    Reference,
    /// [`Selection::Twins`].
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

impl GaSettings {
    /// The individuals that survive a generation: one a group, the reference's best, or
    /// one a pair of twins.
    pub fn groups(&self) -> usize {
        match self.selection {
            Selection::Groups { groups, .. } => groups,
            Selection::Reference { survivors, .. } => survivors,
            Selection::Twins => self.population / 2,
        }
    }

    /// What survivors keep; twins keep nothing and give their centre.
    pub fn survival(&self) -> Survival {
        match self.selection {
            Selection::Groups { survival, .. } | Selection::Reference { survival, .. } => survival,
            Selection::Twins => Survival {
                champion: Champion::Centre,
                ..Survival::default()
            },
        }
    }

    /// Racing rounds (1: none).
    pub fn race(&self) -> usize {
        match self.selection {
            Selection::Reference { race, .. } => race,
            _ => 1,
        }
    }

    /// The `fitness` key of the selection.
    pub fn fitness(&self) -> Fitness {
        match self.selection {
            Selection::Groups { .. } => Fitness::Groups,
            Selection::Reference { .. } => Fitness::Reference,
            Selection::Twins => Fitness::Twins,
        }
    }

    /// The `genes` key of the spelling.
    pub fn genes(&self) -> Genes {
        match self.genes {
            GeneSettings::Binary { .. } => Genes::Binary,
            GeneSettings::Real(_) => Genes::Real,
        }
    }

    /// Checks the values against their ranges and the rest of the configuration.
    pub fn check(&self, config: &Config, specs: &[Spec]) -> Result<(), ConfigError> {
        // Settings built in code rather than read from keys must be a combination too.
        GaSettings::try_from(Keys::from(self.clone())).map_err(ConfigError::Invalid)?;
        let invalid = |m: String| Err(ConfigError::Invalid(m));
        let groups = self.groups();
        if groups < 2 {
            return invalid(format!(
                "groups = {groups}: at least 2, so that children have two champion parents"
            ));
        }
        if self.population > 100_000 {
            return invalid(format!(
                "population = {} is more than the 100,000 a run can hold",
                self.population
            ));
        }
        // Compared by division: 2 * groups overflows for absurd group counts.
        if groups > self.population / 2 {
            return invalid(format!(
                "groups = {groups} is too many for population = {}: every group needs at least 2 individuals",
                self.population
            ));
        }
        let r = self.rates;
        for (name, v) in [("pc1", r.pc1), ("pc2", r.pc2), ("pm1", r.pm1), ("pm2", r.pm2)] {
            if !(0.0..=1.0).contains(&v) {
                return invalid(format!("rates.{name} = {v} must lie in [0, 1]"));
            }
        }
        if !(1..=100).contains(&self.openings_per_pair) {
            return invalid(format!(
                "openings_per_pair = {} must be from 1 to 100",
                self.openings_per_pair
            ));
        }
        match &self.genes {
            GeneSettings::Binary { init_spread, .. } if !(0.0..=1.0).contains(init_spread) => {
                return invalid(format!("init_spread = {init_spread} must lie in [0, 1]"));
            }
            GeneSettings::Real(real) => {
                if let Some(problem) = real.problem() {
                    return invalid(problem);
                }
            }
            GeneSettings::Binary { .. } => {}
        }
        if self.survival().unique {
            self.check_unique(config, specs)?;
        }
        Ok(())
    }

    /// With `unique`, breeding changes a child until it differs from every other: the
    /// evolved parameters must be able to make a population of distinct individuals (real
    /// genes are told apart by their rounded values), or it would never end.
    fn check_unique(&self, config: &Config, specs: &[Spec]) -> Result<(), ConfigError> {
        let evolved = config.evolved(specs)?;
        let m = self.population;
        match self.genes {
            GeneSettings::Binary { .. } => {
                let genes: usize = evolved.iter().map(|&i| specs[i].bits as usize).sum();
                if genes < 20 && (1usize << genes) < m {
                    return Err(ConfigError::Invalid(format!(
                        "unique: {genes} genes make only {} different individuals, fewer than population = {m}",
                        1usize << genes
                    )));
                }
            }
            GeneSettings::Real(_) => {
                let distinct = evolved.iter().fold(1usize, |n, &i| {
                    n.saturating_mul((i64::from(specs[i].max) - i64::from(specs[i].min) + 1) as usize)
                });
                if distinct < m {
                    return Err(ConfigError::Invalid(format!(
                        "unique: the evolved parameters take only {distinct} different values together, fewer than population = {m}"
                    )));
                }
            }
        }
        Ok(())
    }
}

/// The GA's keys as a configuration file writes them, each with its default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Keys {
    #[serde(default)]
    pub population: usize,
    #[serde(default)]
    pub groups: usize,
    #[serde(default = "default_spread")]
    pub init_spread: f64,
    #[serde(default)]
    pub rates: Rates,
    #[serde(default)]
    pub encoding: Encoding,
    #[serde(default = "one")]
    pub openings_per_pair: usize,
    #[serde(default)]
    pub unique: bool,
    #[serde(default)]
    pub carry: bool,
    #[serde(default)]
    pub genes: Genes,
    #[serde(default)]
    pub real: RealConfig,
    #[serde(default)]
    pub fitness: Fitness,
    #[serde(default)]
    pub champion: Champion,
    #[serde(default = "one")]
    pub race: usize,
}

fn one() -> usize {
    1
}
fn default_spread() -> f64 {
    0.05
}

impl TryFrom<Keys> for GaSettings {
    type Error = String;

    fn try_from(k: Keys) -> Result<GaSettings, String> {
        let genes = match k.genes {
            Genes::Binary if k.real != RealConfig::default() => {
                return Err("real: settings of real genes, but genes = binary".to_string());
            }
            Genes::Binary => GeneSettings::Binary {
                encoding: k.encoding,
                init_spread: k.init_spread,
            },
            Genes::Real if k.encoding != Encoding::Binary => {
                return Err("encoding: a spelling of binary genes, but genes = real".to_string());
            }
            // Compared bit for bit: a NaN is not the default either.
            Genes::Real if k.init_spread.to_bits() != default_spread().to_bits() => {
                return Err(
                    "init_spread: the first spread of binary genes, but genes = real (real.sigma sets theirs)"
                        .to_string(),
                );
            }
            Genes::Real => GeneSettings::Real(k.real.clone()),
        };
        if !(1..=10).contains(&k.race) {
            return Err(format!("race = {} must be from 1 to 10", k.race));
        }
        if k.race > 1 && k.fitness != Fitness::Reference {
            return Err("race: racing needs fitness = reference".to_string());
        }
        let survival = Survival {
            carry: k.carry,
            unique: k.unique,
            champion: k.champion,
        };
        let selection = match k.fitness {
            Fitness::Groups => Selection::Groups {
                groups: k.groups,
                survival,
            },
            Fitness::Reference => Selection::Reference {
                survivors: k.groups,
                race: k.race,
                survival,
            },
            Fitness::Twins => {
                twins_fit(&k, &genes)?;
                Selection::Twins
            }
        };
        Ok(GaSettings {
            population: k.population,
            openings_per_pair: k.openings_per_pair,
            rates: k.rates,
            genes,
            selection,
        })
    }
}

/// What `fitness: twins` asks of the other keys.
fn twins_fit(k: &Keys, genes: &GeneSettings) -> Result<(), String> {
    if !matches!(genes, GeneSettings::Real(_)) {
        return Err("fitness = twins needs genes = real".to_string());
    }
    if k.population % 2 != 0 || k.groups.checked_mul(2) != Some(k.population) {
        return Err(format!(
            "fitness = twins plays pairs: population = {} must be even and groups = {} half of it",
            k.population, k.groups
        ));
    }
    if k.champion != Champion::Centre {
        return Err("fitness = twins gives the centre as its champion: set champion = centre".to_string());
    }
    if k.carry || k.unique {
        return Err(
            "fitness = twins keeps no survivors to carry or to tell apart: drop carry and unique".to_string(),
        );
    }
    Ok(())
}

impl From<GaSettings> for Keys {
    fn from(s: GaSettings) -> Keys {
        let (groups, survival, race) = (s.groups(), s.survival(), s.race());
        let (fitness, genes) = (s.fitness(), s.genes());
        let (encoding, init_spread, real) = match s.genes {
            GeneSettings::Binary {
                encoding,
                init_spread,
            } => (encoding, init_spread, RealConfig::default()),
            GeneSettings::Real(real) => (Encoding::Binary, default_spread(), real),
        };
        Keys {
            population: s.population,
            groups,
            init_spread,
            rates: s.rates,
            encoding,
            openings_per_pair: s.openings_per_pair,
            unique: survival.unique,
            carry: survival.carry,
            genes,
            real,
            fitness,
            champion: survival.champion,
            race,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Result<GaSettings, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn combinations_the_ga_cannot_run_are_refused_by_name() {
        let twins = r#""population":8,"groups":4,"genes":"real","fitness":"twins","champion":"centre""#;
        assert!(read(&format!("{{{twins}}}")).is_ok());
        let refused = |json: String, why: &str| {
            let e = read(&json).unwrap_err();
            assert!(e.contains(why), "{json}: {e}");
        };
        refused(
            format!(
                "{{{}}}",
                twins.replace(r#""genes":"real""#, r#""genes":"binary""#)
            ),
            "fitness = twins needs genes = real",
        );
        refused(
            format!("{{{}}}", twins.replace(r#""groups":4"#, r#""groups":3"#)),
            "groups = 3 half of it",
        );
        refused(
            format!(
                "{{{}}}",
                twins.replace(r#""champion":"centre""#, r#""champion":"best""#)
            ),
            "set champion = centre",
        );
        refused(format!("{{{twins},\"carry\":true}}"), "drop carry and unique");
        refused(format!("{{{twins},\"unique\":true}}"), "drop carry and unique");
        refused(
            r#"{"race":2}"#.to_string(),
            "race: racing needs fitness = reference",
        );
        refused(
            r#"{"race":0,"fitness":"reference"}"#.to_string(),
            "race = 0 must be from 1 to 10",
        );
        refused(
            r#"{"real":{"sigma":0.1}}"#.to_string(),
            "real: settings of real genes, but genes = binary",
        );
        refused(
            r#"{"genes":"real","encoding":"gray"}"#.to_string(),
            "encoding: a spelling of binary genes",
        );
        refused(
            r#"{"genes":"real","init_spread":0.2}"#.to_string(),
            "init_spread:",
        );
        assert!(read(r#"{"fitness":"reference","race":3,"groups":2}"#).is_ok());
    }

    #[test]
    fn settings_are_written_back_as_the_keys_they_were_read_from() {
        for json in [
            r#"{"population":8,"groups":2}"#,
            r#"{"population":8,"groups":2,"encoding":"gray","init_spread":0.2,"carry":true}"#,
            r#"{"population":16,"groups":4,"fitness":"reference","race":3,"champion":"centre","unique":true}"#,
            r#"{"population":8,"groups":4,"genes":"real","fitness":"twins","champion":"centre","real":{"sigma":0.1}}"#,
        ] {
            let keys: Keys = serde_json::from_str(json).unwrap();
            let settings = GaSettings::try_from(keys.clone()).unwrap();
            assert_eq!(Keys::from(settings.clone()), keys, "{json}");
            let again: GaSettings = serde_json::from_value(serde_json::to_value(&settings).unwrap()).unwrap();
            assert_eq!(again, settings);
        }
    }
}
