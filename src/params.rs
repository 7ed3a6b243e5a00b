//! Tunable parameters: their specs (name, default, bounds, bit width), sets of values, the
//! gene mapping the GA uses, and weight files.
//!
//! A game declares its parameters once, as a [`Specs`] list; everything else (names in
//! weight files, bounds checks, chromosome layout) is derived from that list.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// A parameter list: a game's own (made once) or an outside engine's (made from its
/// options), shared by every set of its values.
pub type Specs = Arc<[Spec]>;

/// One tunable parameter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Spec {
    /// The name used in weight files and configs (`snake_case`): written in the source for
    /// most parameters, made at run time for piece-square points and outside engines' options.
    pub name: Cow<'static, str>,
    /// The built-in value: the baseline evolution must beat.
    pub default: i32,
    pub min: i32,
    pub max: i32,
    /// Genes (bits) that encode the value in a chromosome; 0 means never evolved (fixed).
    pub bits: u32,
    /// Held at its default unless a configuration names it: random players keep it and
    /// `"all"` leaves it out. Set for the search's and the clock's settings, and for
    /// evaluation terms still on trial (the tuned sets and their measured runs predate them).
    pub opt_in: bool,
    /// A search or clock setting, not part of the evaluation: `qitune export` leaves it out
    /// of a champion's file unless the run tuned it, so that the file plays the search of
    /// whichever engine loads it.
    pub knob: bool,
}

impl Spec {
    /// An evaluation weight.
    pub const fn weight(name: &'static str, default: i32, min: i32, max: i32, bits: u32) -> Spec {
        Spec {
            name: Cow::Borrowed(name),
            default,
            min,
            max,
            bits,
            opt_in: false,
            knob: false,
        }
    }

    /// An evaluation weight whose name is made at run time.
    pub fn named(name: String, default: i32, min: i32, max: i32, bits: u32) -> Spec {
        Spec {
            name: Cow::Owned(name),
            ..Spec::weight("", default, min, max, bits)
        }
    }

    /// A search or clock setting (see [`Spec::opt_in`]).
    pub const fn search_knob(name: &'static str, default: i32, min: i32, max: i32, bits: u32) -> Spec {
        Spec {
            name: Cow::Borrowed(name),
            default,
            min,
            max,
            bits,
            opt_in: true,
            knob: true,
        }
    }

    /// The value a gene code in `0..2^bits` stands for: `min + round(code * (max - min) / (2^bits - 1))`.
    pub fn decode(&self, code: u64) -> i32 {
        if self.bits == 0 {
            return self.default;
        }
        let top = (1u64 << self.bits) - 1;
        let span = (self.max - self.min) as i64;
        let code = code.min(top) as i64;
        // Round half up on non-negative integers: (2*a*b + c) / (2*c).
        let offset = (2 * code * span + top as i64) / (2 * top as i64);
        self.min + offset as i32
    }

    /// The gene code whose value is nearest to `value` (ties to the lower code).
    pub fn encode(&self, value: i32) -> u64 {
        if self.bits == 0 {
            return 0;
        }
        let top = (1u64 << self.bits) - 1;
        let span = (self.max - self.min) as i64;
        if span == 0 {
            return 0;
        }
        let v = (value.clamp(self.min, self.max) - self.min) as i64;
        // Nearest code: round(v * top / span); check neighbours to be exact under decode's rounding.
        let guess = ((2 * v * top as i64 + span) / (2 * span)) as u64;
        let candidates = [guess.saturating_sub(1), guess, (guess + 1).min(top)];
        *candidates
            .iter()
            .min_by_key(|&&c| ((self.decode(c) - value) as i64).abs())
            .expect("three candidates")
    }

    fn check(&self, value: i64) -> Result<i32, WeightFileError> {
        if value < self.min as i64 || value > self.max as i64 {
            return Err(WeightFileError::OutOfRange {
                name: self.name.to_string(),
                value,
                min: self.min,
                max: self.max,
            });
        }
        Ok(value as i32)
    }
}

/// A parameter a game no longer has: weight files written before it went still load when
/// they give it `value`, the value whose behaviour the game kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retired {
    pub name: &'static str,
    pub value: i32,
    /// A value also accepted, and played as `value`: the old default of a switch that fixed
    /// a defect, which files wrote without choosing it.
    pub superseded: Option<i32>,
}

impl Retired {
    pub const fn new(name: &'static str, value: i32) -> Retired {
        Retired {
            name,
            value,
            superseded: None,
        }
    }

    /// A switch whose `value` fixed a defect that `old`, its default until then, kept.
    pub const fn fixed(name: &'static str, old: i32, value: i32) -> Retired {
        Retired {
            name,
            value,
            superseded: Some(old),
        }
    }

    fn accepts(&self, v: i64) -> bool {
        v == i64::from(self.value) || self.superseded.is_some_and(|old| v == i64::from(old))
    }
}

/// How a knob's integer value (already checked against its range) becomes its field.
pub trait KnobValue {
    fn from_value(v: i32) -> Self;
}

impl KnobValue for i32 {
    fn from_value(v: i32) -> i32 {
        v
    }
}

impl KnobValue for bool {
    fn from_value(v: i32) -> bool {
        v != 0
    }
}

impl KnobValue for u32 {
    /// A count: ranges of `u32` knobs start at 0 or above.
    fn from_value(v: i32) -> u32 {
        v.max(0) as u32
    }
}

/// Declares a game's search knobs once, each as `field: type = default, min..=max, bits,
/// "name", "meaning";`, and makes from that list the knobs' spec list (`SPECS`, in
/// declaration order), their descriptions (`describe`) and the `Knobs` struct the search
/// reads (`Knobs::from_values`). A field's type is one of [`KnobValue`]'s.
macro_rules! knobs {
    ($($field:ident: $ty:ty = $default:literal, $min:literal..=$max:literal, $bits:literal, $name:literal, $meaning:literal;)*) => {
        /// The knobs' positions in [`SPECS`] (and so in a parameter set's knob values).
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy)]
        enum At { $($field,)* }

        /// The knobs, in the order a parameter set holds them.
        pub(super) const SPECS: [$crate::params::Spec; [$($name),*].len()] = [
            $($crate::params::Spec::search_knob($name, $default, $min, $max, $bits),)*
        ];

        /// A knob's meaning in one line, if `name` is a knob.
        pub fn describe(name: &str) -> Option<&'static str> {
            match name {
                $($name => Some($meaning),)*
                _ => None,
            }
        }

        /// The knobs' values, compiled for the search.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Knobs {
            $(#[doc = $meaning] pub $field: $ty,)*
        }

        impl Knobs {
            /// Reads the knobs from their values in [`SPECS`] order, each already checked
            /// against its range (a parameter set's); a missing value takes its default.
            pub(super) fn from_values(values: &[i32]) -> Knobs {
                let value = |at: At| values.get(at as usize).copied().unwrap_or(SPECS[at as usize].default);
                Knobs { $($field: $crate::params::KnobValue::from_value(value(At::$field)),)* }
            }
        }
    };
}
pub(crate) use knobs;

/// Checks that a spec list is coherent: unique names, defaults within bounds, bit widths of
/// at most 32. Every game's list is tested with this.
pub fn check_specs(specs: &[Spec]) -> Result<(), SpecError> {
    for (i, s) in specs.iter().enumerate() {
        if specs[..i].iter().any(|o| o.name == s.name) {
            return Err(SpecError::Duplicate(s.name.to_string()));
        }
        if !(s.min <= s.default && s.default <= s.max) {
            return Err(SpecError::DefaultOutOfRange(s.clone()));
        }
        if s.bits > 32 {
            return Err(SpecError::TooManyBits(s.clone()));
        }
    }
    Ok(())
}

/// Why a spec list is incoherent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("parameter '{0}' is declared twice")]
    Duplicate(String),
    #[error("parameter '{}': default {} outside [{}, {}]", .0.name, .0.default, .0.min, .0.max)]
    DefaultOutOfRange(Spec),
    #[error("parameter '{}': {} bits is more than 32", .0.name, .0.bits)]
    TooManyBits(Spec),
}

/// A value for every parameter of a game, in the order of its spec list.
#[derive(Clone, Debug)]
pub struct Params {
    specs: Specs,
    values: Vec<i32>,
}

/// Two sets are equal when they give the same values to the same parameters.
impl PartialEq for Params {
    fn eq(&self, other: &Params) -> bool {
        self.values == other.values && same_list(&self.specs, &other.specs)
    }
}

impl Eq for Params {}

/// Sets that are equal hold the same values, so the values alone hash them (a set is hashed
/// as a cache key, where hashing its hundreds of names would cost more than the lookup).
impl std::hash::Hash for Params {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.values.hash(state);
    }
}

/// Whether two lists are the same parameters: one list shared, or equal ones made apart
/// (an outside engine's, read again on resume).
fn same_list(a: &[Spec], b: &[Spec]) -> bool {
    std::ptr::eq(a, b) || a == b
}

impl Params {
    /// Every parameter at its built-in default.
    pub fn defaults(specs: &Specs) -> Params {
        Params {
            specs: specs.clone(),
            values: specs.iter().map(|s| s.default).collect(),
        }
    }

    /// Values in spec order; out-of-range values are an error naming the parameter.
    pub fn from_values(specs: &Specs, values: &[i32]) -> Result<Params, WeightFileError> {
        if specs.len() != values.len() {
            return Err(WeightFileError::Count {
                expected: specs.len(),
                found: values.len(),
            });
        }
        let values = specs
            .iter()
            .zip(values)
            .map(|(s, &v)| s.check(v as i64))
            .collect::<Result<_, _>>()?;
        Ok(Params {
            specs: specs.clone(),
            values,
        })
    }

    /// Every evolvable evaluation parameter drawn uniformly from its range (fixed and opt-in
    /// ones at their defaults): the "random player" of the paper's experiments.
    pub fn random(specs: &Specs, rng: &mut impl rand::Rng) -> Params {
        let values = specs
            .iter()
            .map(|s| {
                if s.bits == 0 || s.opt_in {
                    s.default
                } else {
                    rng.gen_range(s.min..=s.max)
                }
            })
            .collect();
        Params {
            specs: specs.clone(),
            values,
        }
    }

    /// The parameter list these values are for.
    pub fn specs(&self) -> &Specs {
        &self.specs
    }

    /// The values in spec order.
    pub fn values(&self) -> &[i32] {
        &self.values
    }

    /// The values in spec order, provided they are values of the spec list `specs` (a game's
    /// compiled weights read them by position, so another game's set must be refused).
    pub fn values_of(&self, specs: &[Spec]) -> Result<&[i32], WeightFileError> {
        if same_list(&self.specs, specs) {
            Ok(&self.values)
        } else {
            Err(WeightFileError::OtherGame {
                first: self.specs.first().map_or(String::new(), |s| s.name.to_string()),
            })
        }
    }

    /// The index of a parameter by name.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.specs.iter().position(|s| s.name == name)
    }

    /// A parameter's value by name.
    pub fn get(&self, name: &str) -> Option<i32> {
        self.index_of(name).map(|i| self.values[i])
    }

    /// Sets a parameter by name, checking that it exists and the value is in range.
    pub fn set(&mut self, name: &str, value: i64) -> Result<(), WeightFileError> {
        let i = self
            .index_of(name)
            .ok_or_else(|| WeightFileError::UnknownParam(name.to_string()))?;
        self.values[i] = self.specs[i].check(value)?;
        Ok(())
    }

    /// The weight file for these values.
    pub fn to_weight_file(&self, game: &str, provenance: serde_json::Value) -> WeightFile {
        WeightFile {
            game: game.to_string(),
            format: WeightFile::FORMAT,
            params: self
                .specs
                .iter()
                .zip(&self.values)
                .map(|(s, &v)| (s.name.to_string(), serde_json::Value::from(v)))
                .collect(),
            provenance,
        }
    }

    /// Reads values from a weight file of `game`; parameters the file leaves out keep their
    /// defaults, unknown names and out-of-range or non-integer values are errors. A
    /// `retired` parameter is accepted at the value its game kept, and ignored.
    pub fn from_weight_file(
        file: &WeightFile,
        game: &str,
        specs: &Specs,
        retired: &[Retired],
    ) -> Result<Params, WeightFileError> {
        if file.game != game {
            return Err(WeightFileError::WrongGame {
                expected: game.to_string(),
                found: file.game.clone(),
            });
        }
        if file.format != WeightFile::FORMAT {
            return Err(WeightFileError::Format(file.format));
        }
        let mut params = Params::defaults(specs);
        for (name, value) in &file.params {
            let v = value.as_i64().ok_or_else(|| WeightFileError::NotInteger {
                name: name.clone(),
                found: value.to_string(),
            })?;
            if let Some(r) = retired.iter().find(|r| r.name == name) {
                if !r.accepts(v) {
                    return Err(WeightFileError::Retired {
                        name: name.clone(),
                        value: v,
                        kept: r.value,
                    });
                }
                continue;
            }
            params.set(name, v)?;
        }
        Ok(params)
    }

    /// Reads and checks a weight file of `game` from disk; the message names the file and,
    /// for a bad entry, the key.
    pub fn load(path: &Path, game: &str, specs: &Specs, retired: &[Retired]) -> Result<Params, LoadError> {
        let located = |source| LoadError {
            path: path.to_path_buf(),
            source,
        };
        let file = WeightFile::read(path).map_err(located)?;
        Params::from_weight_file(&file, game, specs, retired).map_err(located)
    }
}

/// A weight file on disk: `{"game", "format", "params": {name: int}, "provenance": {...}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightFile {
    pub game: String,
    pub format: u32,
    pub params: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub provenance: serde_json::Value,
}

impl WeightFile {
    /// The current file format version.
    pub const FORMAT: u32 = 1;

    /// Reads and parses a weight file (its parameters are checked by [`Params::from_weight_file`]).
    pub fn read(path: &Path) -> Result<WeightFile, WeightFileError> {
        let text = crate::fsutil::read_text(path, crate::fsutil::MAX_JSON_BYTES)
            .map_err(|e| WeightFileError::Io(e.to_string()))?;
        serde_json::from_str(&text).map_err(|e| WeightFileError::Json(e.to_string()))
    }

    /// Writes the file atomically (temporary file, fsync, rename), so a crash never leaves
    /// half a file behind.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).expect("a weight file serialises");
        crate::fsutil::write_atomic(path, format!("{text}\n").as_bytes())
    }
}

/// A weight file that could not be loaded, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct LoadError {
    pub path: std::path::PathBuf,
    pub source: WeightFileError,
}

/// Why a weight file or a parameter value was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WeightFileError {
    #[error("cannot read the weight file: {0}")]
    Io(String),
    #[error("the weight file is not valid: {0}")]
    Json(String),
    #[error("the weight file is for {found}, not {expected}")]
    WrongGame { expected: String, found: String },
    #[error("weight file format {0} is not supported (this qitune reads format 1)")]
    Format(u32),
    #[error("unknown parameter '{0}'")]
    UnknownParam(String),
    #[error("{found} values were given for the {expected} parameters of the game")]
    Count { expected: usize, found: usize },
    #[error("the parameter set is another game's (its first parameter is '{first}')")]
    OtherGame { first: String },
    #[error("parameter '{name}' was removed from the engine; only {kept}, the behaviour it kept, is accepted (found {value})")]
    Retired { name: String, value: i64, kept: i32 },
    #[error("parameter '{name}' must be an integer, found {found}")]
    NotInteger { name: String, found: String },
    #[error("parameter '{name}' = {value} is out of range [{min}, {max}]")]
    OutOfRange {
        name: String,
        value: i64,
        min: i32,
        max: i32,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs() -> Specs {
        Arc::from([
            Spec::weight("king", 10_000, 10_000, 10_000, 0),
            Spec::weight("rook", 1000, 600, 1400, 8),
            Spec::weight("pawn", 6, 0, 7, 3),
        ])
    }

    #[test]
    fn spec_lists_are_checked() {
        assert_eq!(check_specs(&specs()), Ok(()));
        let mut bad = specs().to_vec();
        bad[2].default = 60;
        assert!(check_specs(&bad)
            .unwrap_err()
            .to_string()
            .contains("'pawn': default 60"));
        bad[2] = bad[1].clone();
        assert!(check_specs(&bad)
            .unwrap_err()
            .to_string()
            .contains("declared twice"));
    }

    #[test]
    fn gene_mapping_matches_the_formula() {
        let specs = specs();
        let rook = &specs[1];
        // min + round(code * 800 / 255)
        assert_eq!(rook.decode(0), 600);
        assert_eq!(rook.decode(255), 1400);
        assert_eq!(rook.decode(1), 603); // 3.137 -> 3
        assert_eq!(rook.decode(2), 606); // 6.27 -> 6
        assert_eq!(rook.decode(128), 1002); // 401.57 -> 402
        let pawn = &specs[2];
        for code in 0..8 {
            assert_eq!(pawn.decode(code), code as i32, "span equals top: identity");
            assert_eq!(pawn.encode(code as i32), code);
        }
        for v in [600, 777, 1000, 1400] {
            assert!((rook.decode(rook.encode(v)) - v).abs() <= 2, "{v}");
        }
        assert_eq!(specs[0].decode(5), 10_000, "a fixed parameter never moves");
    }

    #[test]
    fn weight_files_check_every_key() {
        let p = Params::defaults(&specs());
        let file = p.to_weight_file("xiangqi", serde_json::json!({"note": "test"}));
        assert_eq!(
            Params::from_weight_file(&file, "xiangqi", &specs(), &[]).unwrap(),
            p
        );

        let parse = |json: &str| -> Result<Params, WeightFileError> {
            let f: WeightFile =
                serde_json::from_str(json).map_err(|e| WeightFileError::Json(e.to_string()))?;
            let retired = [Retired::new("queen", 0), Retired::fixed("old_switch", 0, 1)];
            Params::from_weight_file(&f, "xiangqi", &specs(), &retired)
        };
        let ok = parse(r#"{"game":"xiangqi","format":1,"params":{"rook":900}}"#).unwrap();
        assert_eq!(ok.get("rook"), Some(900));
        assert_eq!(ok.get("king"), Some(10_000));
        assert_eq!(
            parse(r#"{"game":"xiangqi","format":1,"params":{"rokk":900}}"#),
            Err(WeightFileError::UnknownParam("rokk".into()))
        );
        // A retired parameter loads at the value kept, and only there.
        assert_eq!(
            parse(r#"{"game":"xiangqi","format":1,"params":{"queen":0,"rook":900}}"#).unwrap(),
            ok
        );
        // A fixed defect's switch loads at its old default too, and plays the fix.
        for v in [0, 1] {
            let file = format!(r#"{{"game":"xiangqi","format":1,"params":{{"old_switch":{v},"rook":900}}}}"#);
            assert_eq!(parse(&file).unwrap(), ok);
        }
        assert!(matches!(
            parse(r#"{"game":"xiangqi","format":1,"params":{"old_switch":2}}"#),
            Err(WeightFileError::Retired { kept: 1, .. })
        ));
        assert_eq!(
            parse(r#"{"game":"xiangqi","format":1,"params":{"queen":9}}"#),
            Err(WeightFileError::Retired {
                name: "queen".into(),
                value: 9,
                kept: 0
            })
        );
        assert_eq!(
            parse(r#"{"game":"xiangqi","format":1,"params":{"rook":1500}}"#),
            Err(WeightFileError::OutOfRange {
                name: "rook".into(),
                value: 1500,
                min: 600,
                max: 1400
            })
        );
        assert!(matches!(
            parse(r#"{"game":"xiangqi","format":1,"params":{"rook":9.5}}"#),
            Err(WeightFileError::NotInteger { .. })
        ));
        assert!(matches!(
            parse(r#"{"game":"amazons","format":1,"params":{}}"#),
            Err(WeightFileError::WrongGame { .. })
        ));
        assert_eq!(
            parse(r#"{"game":"xiangqi","format":2,"params":{}}"#),
            Err(WeightFileError::Format(2))
        );
        assert!(matches!(
            parse(r#"{"game":"xiangqi","format":1}"#),
            Err(WeightFileError::Json(_))
        ));
        assert!(matches!(
            parse(r#"{"game":"xiangqi","format":1,"params":{},"extra":1}"#),
            Err(WeightFileError::Json(_))
        ));
    }
}
