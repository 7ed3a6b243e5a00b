//! The registry of tuning methods: the one place that lists them. A new method is a file of
//! `src/tune/` and a line here.

use super::config::{check_memory, from_value, Config, ConfigError};
use super::method::{Info, Method};
use super::observe::{Chart, View};
use crate::params::Spec;

/// A job to run with the method a configuration names (see [`with_method`]).
pub trait WithMethod {
    type Output;
    fn call<M: Method>(self) -> Self::Output;
}

macro_rules! registry {
    ($($method:ty),* $(,)?) => {
        /// Every method's description, in the registry's order.
        pub const METHODS: &[&Info] = &[$(&<$method as Method>::INFO),*];

        /// The report's charts of the rows of the method named `name`.
        pub fn charts(name: &str) -> Result<&'static [Chart], ConfigError> {
            $(if name == <$method as Method>::INFO.name {
                return Ok(<<$method as Method>::View as View>::CHARTS);
            })*
            Err(ConfigError::UnknownMethod(name.to_string(), names()))
        }

        /// Runs `job` with the method named `name`.
        pub fn with_method<J: WithMethod>(name: &str, job: J) -> Result<J::Output, ConfigError> {
            $(if name == <$method as Method>::INFO.name {
                return Ok(job.call::<$method>());
            })*
            Err(ConfigError::UnknownMethod(name.to_string(), names()))
        }
    };
}

registry!(
    super::ga::Ga,
    super::spsa::Spsa,
    super::texel::Texel,
    super::es::OnePlusOne,
);

/// The methods' names, for messages.
fn names() -> String {
    METHODS.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
}

/// The description of the method named `name`.
pub fn info(name: &str) -> Result<&'static Info, ConfigError> {
    METHODS
        .iter()
        .copied()
        .find(|m| m.name == name)
        .ok_or_else(|| ConfigError::UnknownMethod(name.to_string(), names()))
}

/// A configuration's settings as method `M` reads them. A configuration file (`strict`) may
/// hold no key of another method; a run's saved configuration may (runs saved before the
/// methods had keys of their own kept every method's), and those keys are passed over.
pub fn settings<M: Method>(config: &Config, strict: bool) -> Result<M::Settings, ConfigError> {
    let mut own = serde_json::Map::new();
    for (key, value) in &config.settings {
        if M::INFO.keys.contains(&key.as_str()) {
            own.insert(key.clone(), value.clone());
        } else if let Some(other) = METHODS.iter().find(|m| m.keys.contains(&key.as_str())) {
            if strict {
                return Err(ConfigError::at(
                    key.clone(),
                    format!("a key of method {}, not of {}", other.name, M::INFO.name),
                ));
            }
        } else {
            return Err(ConfigError::at(key.clone(), "unknown key"));
        }
    }
    from_value(own.into())
}

/// `config` with its settings as method `M` reads them, defaults filled in: what a run saves
/// and what a resume compares.
pub fn normalised<M: Method>(config: &Config, strict: bool) -> Result<Config, ConfigError> {
    Ok(with_settings::<M>(config, &self::settings::<M>(config, strict)?))
}

/// `config` with `settings` as its method's keys.
fn with_settings<M: Method>(config: &Config, settings: &M::Settings) -> Config {
    let serde_json::Value::Object(settings) = serde_json::to_value(settings).expect("serialisable") else {
        unreachable!("a method's settings are a struct of keys")
    };
    Config {
        settings,
        ..config.clone()
    }
}

/// Checks a configuration file's run for method `M`, its keys included, before anything is
/// written; returns it normalised, and the method's settings.
pub fn checked<M: Method>(
    config: &Config,
    base_dir: &std::path::Path,
    specs: &[Spec],
) -> Result<(Config, M::Settings), ConfigError> {
    config.validate(base_dir, specs)?;
    let mut settings = self::settings::<M>(config, true)?;
    M::validate(&settings, config, specs)?;
    check_memory(
        M::games_per_step(&settings),
        &format!("{}'s settings make", M::INFO.name),
    )?;
    M::resolve(&mut settings, base_dir)?;
    Ok((with_settings::<M>(config, &settings), settings))
}

/// Checks a configuration file's run, its method's keys included, before anything is written;
/// returns it normalised.
pub fn validate(config: &Config, base_dir: &std::path::Path, specs: &[Spec]) -> Result<Config, ConfigError> {
    struct Check<'a>(&'a Config, &'a std::path::Path, &'a [Spec]);
    impl WithMethod for Check<'_> {
        type Output = Result<Config, ConfigError>;
        fn call<M: Method>(self) -> Self::Output {
            Ok(checked::<M>(self.0, self.1, self.2)?.0)
        }
    }
    with_method(&config.method, Check(config, base_dir, specs))?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(json: &str) -> Result<Config, String> {
        let c: Config = serde_json::from_str(json).map_err(|e| e.to_string())?;
        let specs = crate::games::specs_for("xiangqi").unwrap();
        validate(&c, std::path::Path::new("."), &specs).map_err(|e| e.to_string())
    }

    const GA: &str = r#"{"name":"t","seed":1,"population":8,"groups":2,"generations":3,
        "evolve":["rook"],
        "environments":[{"from_generation":1,"positions":"positions/xiangqi-middlegames.epd","nodes":300}]}"#;

    #[test]
    fn a_methods_keys_are_checked_by_the_method() {
        let bad = |from: &str, to: &str| checked(&GA.replace(from, to)).unwrap_err();
        assert!(bad(r#""groups":2"#, r#""groups":5"#).contains("too many for population = 8"));
        assert!(bad(r#""groups":2"#, r#""groups":1"#).contains("at least 2"));
        assert!(
            bad(r#""groups":2"#, r#""groups":9223372036854775808"#).contains("too many for population = 8")
        );
        assert!(bad(r#""seed":1"#, r#""seed":1,"colour":2"#).contains("colour: unknown key"));
        assert!(bad(r#""seed":1"#, r#""seed":1,"spsa":{"iterations":2}"#)
            .contains("spsa: a key of method spsa, not of ga"));
        assert!(bad(r#""seed":1"#, r#""seed":1,"method":"cma""#)
            .contains("method 'cma' is unknown (ga, spsa, texel, es)"));
        assert!(bad(r#""seed":1"#, r#""seed":1,"method":"spsa""#)
            .contains("groups: a key of method ga, not of spsa"));
        assert!(bad(r#""groups":2"#, r#""groups":"2""#).contains("groups: invalid type: string"));
        // Real genes told apart by rounded values: a 0..1 switch cannot make 8 distinct players,
        // and breeding would look for a ninth value forever.
        assert!(bad(
            r#""evolve":["rook"]"#,
            r#""evolve":["search_exact_check_prune"],"genes":"real","unique":true"#
        )
        .contains(
            "unique: the evolved parameters take only 2 different values together, fewer than population = 8"
        ));
        assert!(checked(&GA.replace(
            r#""evolve":["rook"]"#,
            r#""evolve":["rook"],"genes":"real","unique":true"#
        ))
        .is_ok());
        // Defaults are filled in: what a run saves and a resume compares.
        let ga = checked(GA).unwrap();
        assert_eq!(ga.settings["openings_per_pair"], 1);
        assert_eq!(ga.settings["rates"]["pc1"], 0.9);
        let changed = checked(&GA.replace(r#""groups":2"#, r#""groups":2,"carry":true"#)).unwrap();
        assert_eq!(
            changed.check_same_run(&ga).unwrap_err().to_string(),
            "'carry' differs from the run's saved configuration"
        );
        // A saved configuration of an older qitune held every method's keys: passed over.
        let mut saved: Config = serde_json::from_str(GA).unwrap();
        saved.settings.insert("spsa".into(), serde_json::Value::Null);
        assert!(normalised::<crate::tune::ga::Ga>(&saved, false).is_ok());
        assert!(normalised::<crate::tune::ga::Ga>(&saved, true).is_err());
    }

    #[test]
    fn names_and_keys_are_unique_and_a_methods_keys_are_its_settings() {
        for (i, a) in METHODS.iter().enumerate() {
            for b in &METHODS[i + 1..] {
                assert_ne!(a.name, b.name);
                assert!(
                    !a.keys.iter().any(|k| b.keys.contains(k)),
                    "{} {}",
                    a.name,
                    b.name
                );
            }
            assert!(
                !a.columns.iter().any(|c| ["step", "generation"].contains(c)),
                "{}",
                a.name
            );
            for chart in charts(a.name).unwrap() {
                for (_, column, per) in chart.lines {
                    assert!(a.columns.contains(column), "{}: {column}", a.name);
                    assert!(per.map_or(true, |p| a.columns.contains(&p)), "{}", a.name);
                }
            }
        }
        // Each method's settings, defaults filled in, are exactly its keys (each has a
        // default, so that a missing key gets its own message).
        struct Keys;
        impl WithMethod for Keys {
            type Output = ();
            fn call<M: Method>(self) {
                let config: Config = serde_json::from_str(
                    r#"{"name":"k","seed":1,"generations":1,"evolve":["all"],"environments":[]}"#,
                )
                .unwrap();
                let n = normalised::<M>(&config, true).unwrap();
                let keys: Vec<&str> = n.settings.keys().map(String::as_str).collect();
                let mut want = M::INFO.keys.to_vec();
                want.sort();
                assert_eq!(keys, want, "{}", M::INFO.name);
            }
        }
        for m in METHODS {
            with_method(m.name, Keys).unwrap();
        }
    }
}
