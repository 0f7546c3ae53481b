//! World options (`escapade run -W key=value`): the pairs a run passes to
//! [`crate::World::env`] and [`crate::World::agent`], and the typed errors a world's
//! parser returns for them.
//!
//! Why one map for both calls: an oracle must play by the same rules and pictures as
//! the environment it faces, so the runner hands the same options to both. An empty map
//! ([`Options::new`]) is the paper's protocol and costs no allocation.

use std::collections::BTreeMap;

use crate::CoreError;

/// The `-W key=value` pairs of a run, sorted by key. Empty: the world's defaults.
pub type Options = BTreeMap<String, String>;

/// The documented keys of a world: `(key, what it sets and the values it takes)`, as
/// [`crate::World::env_options`] lists them.
pub type OptionKeys = [(&'static str, &'static str)];

/// The error for a key the world does not take.
pub fn unknown(key: &str, known: &OptionKeys) -> CoreError {
    CoreError::UnknownOption {
        key: key.to_string(),
        known: known.iter().map(|(k, _)| (*k).to_string()).collect(),
    }
}

/// The error for a value a known key does not take; `expected` says what it takes.
pub fn bad(key: &str, value: &str, expected: impl Into<String>) -> CoreError {
    CoreError::BadOption {
        key: key.to_string(),
        value: value.to_string(),
        expected: expected.into(),
    }
}

/// Refuses any key not in `known` (a world without options passes `&[]`).
pub fn check_keys(options: &Options, known: &OptionKeys) -> Result<(), CoreError> {
    match options.keys().find(|k| !known.iter().any(|(n, _)| n == k)) {
        Some(key) => Err(unknown(key, known)),
        None => Ok(()),
    }
}

/// The choice `value` names among `choices` (trimmed, case-insensitive), or a
/// [`CoreError::BadOption`] listing them.
pub fn choose<T: Copy>(key: &str, value: &str, choices: &[(&str, T)]) -> Result<T, CoreError> {
    let v = value.trim().to_ascii_lowercase();
    choices
        .iter()
        .find(|(name, _)| *name == v)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
            bad(key, value, format!("one of {}", names.join(", ")))
        })
}

/// `on`/`off` (or `true`/`false`).
pub fn on_off(key: &str, value: &str) -> Result<bool, CoreError> {
    choose(
        key,
        value,
        &[
            ("on", true),
            ("off", false),
            ("true", true),
            ("false", false),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: &OptionKeys = &[("size", "a number"), ("mode", "fast or slow")];

    #[test]
    fn unknown_keys_and_bad_values_are_typed() {
        let o = Options::from([("colour".to_string(), "red".to_string())]);
        match check_keys(&o, KEYS) {
            Err(CoreError::UnknownOption { key, known }) => {
                assert_eq!(key, "colour");
                assert_eq!(known, ["size", "mode"]);
            }
            other => panic!("{other:?}"),
        }
        assert!(check_keys(&Options::new(), &[]).is_ok());
        assert!(check_keys(&Options::from([("mode".into(), "x".into())]), KEYS).is_ok());
        match choose("mode", " FAST ", &[("fast", 1), ("slow", 2)]) {
            Ok(1) => {}
            other => panic!("{other:?}"),
        }
        match choose("mode", "medium", &[("fast", 1), ("slow", 2)]) {
            Err(CoreError::BadOption {
                key,
                value,
                expected,
            }) => {
                assert_eq!((key.as_str(), value.as_str()), ("mode", "medium"));
                assert_eq!(expected, "one of fast, slow");
            }
            other => panic!("{other:?}"),
        }
        assert!(on_off("labels", "maybe").is_err());
        assert!(!on_off("labels", "off").unwrap());
    }

    #[test]
    fn option_errors_read_as_sentences() {
        let e = unknown("colour", KEYS).to_string();
        assert_eq!(e, "unknown world option `colour`; known: size, mode");
        assert_eq!(
            unknown("x", &[]).to_string(),
            "unknown world option `x`; this world takes none"
        );
        let e = bad("size", "big", "a number").to_string();
        assert_eq!(e, "world option size=big: expected a number");
    }
}
