//! A suite's paper settings applied to a run, and the run's departures from them.
//!
//! Why: a score is comparable with a paper's table only when the run used the paper's
//! protocol — AgentEscapeBench samples at temperature 0.7 (App. B), VisEscape averages
//! three trials and shows the last 20 steps (§4.1). A suite declares those settings
//! ([`SuiteSettings`]); `escapade run` makes them the defaults ([`apply`]), flags still
//! win, `run.toml` records the suite's settings beside what the run used, and
//! [`departures`] names every difference so the report can say when a run is not the
//! paper's protocol.

use std::collections::BTreeMap;

use escapade_agents::config::keys_of;
use escapade_core::env::SuiteSettings;

use crate::rundir::RunConfig;
use crate::runner::DEFAULT_MAX_STEPS;

/// The epochs of a run: the user's, else the suite's, else one.
pub fn epochs(settings: &SuiteSettings, given: Option<u32>) -> u32 {
    given.or(settings.epochs).unwrap_or(1)
}

/// Adds each of the suite's agent settings that agent kind `kind` takes and `options`
/// does not set yet (what the user gave wins). Baselines take none.
pub fn apply(settings: &SuiteSettings, kind: &str, options: &mut BTreeMap<String, String>) {
    let Some(keys) = keys_of(kind) else { return };
    for (key, value) in &settings.agent {
        if keys.contains(&key.as_str()) && !options.contains_key(key) {
            options.insert(key.clone(), value.clone());
        }
    }
}

/// Where a run's config differs from its suite's settings, one phrase each
/// (`temperature 0 (suite: 0.7)`); empty when it follows them or the suite has none.
pub fn departures(config: &RunConfig) -> Vec<String> {
    let s = &config.suite_settings;
    let mut out = Vec::new();
    if let Some(epochs) = s.epochs
        && epochs != config.epochs
    {
        out.push(format!("epochs {} (suite: {epochs})", config.epochs));
    }
    let mut players = vec![("", config.agent.as_str(), &config.agent_options)];
    if let Some(expert) = &config.expert {
        players.push(("expert ", expert.as_str(), &config.expert_options));
    }
    for (who, kind, options) in players {
        let Some(keys) = keys_of(kind) else { continue };
        for (key, wanted) in &s.agent {
            if !keys.contains(&key.as_str()) {
                continue;
            }
            match options.get(key) {
                Some(used) if same(used, wanted) => {}
                Some(used) => out.push(format!("{who}{key} {used} (suite: {wanted})")),
                None => out.push(format!("{who}{key} unset (suite: {wanted})")),
            }
        }
    }
    if let Some(n) = config.sample {
        out.push(format!(
            "--sample {n} (of the suite's scenarios, drawn over its tiers)"
        ));
    }
    // the worlds end their episodes by their own limits (VisEscape's steps, COMMA's
    // turns, a room's budget) long before the default cap; a lower cap may end an
    // episode the paper's protocol would have played on
    if config.max_steps < DEFAULT_MAX_STEPS {
        out.push(format!(
            "--max-steps {} (default {DEFAULT_MAX_STEPS}: the world's own limit ends an episode)",
            config.max_steps
        ));
    }
    out
}

/// Option values compare as numbers when both are numbers (`0.70` is `0.7`).
fn same(a: &str, b: &str) -> bool {
    match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a.trim() == b.trim(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use escapade_agents::MODEL_AGENTS;

    fn settings() -> SuiteSettings {
        SuiteSettings {
            epochs: Some(3),
            agent: [("temperature", "0.7"), ("history", "last:20")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            source: "a paper".into(),
        }
    }

    fn config(agent: &str, options: &[(&str, &str)], epochs: u32) -> RunConfig {
        let toml = format!(
            "suite = \"s@1\"\nworld = \"w\"\nsource = \"s@1\"\nagent = \"{agent}\"\nepochs = {epochs}\nseed = 0\nmax_steps = 10000\nscenarios = []\n"
        );
        let mut c: RunConfig = toml::from_str(&toml).unwrap();
        c.agent_options = options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        c.suite_settings = settings();
        c
    }

    #[test]
    fn every_model_agent_kind_has_keys() {
        for kind in MODEL_AGENTS {
            assert!(
                keys_of(kind).is_some_and(|k| k.contains(&"temperature")),
                "{kind}"
            );
        }
        assert!(keys_of("oracle").is_none());
    }

    #[test]
    fn settings_fill_only_what_the_user_left_and_the_kind_takes() {
        let s = settings();
        let mut llm = BTreeMap::from([("temperature".to_string(), "0".to_string())]);
        apply(&s, "llm", &mut llm);
        assert_eq!(llm["temperature"], "0", "the user's value wins");
        assert_eq!(llm["history"], "last:20");
        // `base` shows its own window and takes no `history`
        let mut base = BTreeMap::new();
        apply(&s, "base", &mut base);
        assert_eq!(base.get("temperature").map(String::as_str), Some("0.7"));
        assert!(!base.contains_key("history"));
        let mut oracle = BTreeMap::new();
        apply(&s, "oracle", &mut oracle);
        assert!(oracle.is_empty());
        assert_eq!(epochs(&s, None), 3);
        assert_eq!(epochs(&s, Some(1)), 1);
        assert_eq!(epochs(&SuiteSettings::default(), None), 1);
    }

    #[test]
    fn departures_name_each_difference() {
        let ok = config("llm", &[("temperature", "0.70"), ("history", "last:20")], 3);
        assert!(departures(&ok).is_empty(), "{:?}", departures(&ok));
        let off = config("llm", &[("temperature", "0")], 1);
        assert_eq!(
            departures(&off),
            vec![
                "epochs 1 (suite: 3)",
                "history unset (suite: last:20)",
                "temperature 0 (suite: 0.7)"
            ]
        );
        // a baseline departs only in epochs
        assert_eq!(departures(&config("oracle", &[], 3)), Vec::<String>::new());
        let mut expert = config("oracle", &[], 3);
        expert.expert = Some("llm".into());
        expert.expert_options = BTreeMap::from([("temperature".into(), "1".into())]);
        assert_eq!(
            departures(&expert),
            vec![
                "expert history unset (suite: last:20)",
                "expert temperature 1 (suite: 0.7)"
            ]
        );
        // a step cap below the default is declared, whatever the suite
        let mut capped = config("oracle", &[], 3);
        capped.max_steps = 12;
        assert_eq!(
            departures(&capped),
            vec!["--max-steps 12 (default 10000: the world's own limit ends an episode)"]
        );
    }
}
