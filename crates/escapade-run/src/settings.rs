//! A suite's paper settings applied to a run, and the run's departures from them.
//!
//! Why: a score is comparable with a paper's table only when the run used the paper's
//! protocol — AgentEscapeBench samples at temperature 0.7 (App. B), VisEscape averages
//! three trials and shows the last 20 steps (§4.1). A suite declares those settings
//! ([`SuiteSettings`]); `escapade run` makes them the defaults ([`apply`]), flags still
//! win, `run.toml` records the suite's settings beside what the run used and what its
//! requests carried ([`sent`]), and [`departures`] names every difference so the report
//! can say when a run is not the paper's protocol: a suite setting overridden, replies
//! constrained to a JSON schema, pictures replaced by text, `--limit`, `--max-steps`, and
//! every `-W` and `-A` option that changes what the agent is sent (issue 25: a reader of
//! a report must tell from it alone whether its numbers follow the paper).

use std::collections::BTreeMap;

use escapade_agents::config::{NOT_SENT, STRUCTURED_FORMAT, TUNING_KEYS, keys_of, sent_of};
use escapade_core::env::SuiteSettings;

use crate::rundir::RunConfig;
use crate::runner::DEFAULT_MAX_STEPS;

/// Agent options that change how a run reaches its model or what it logs, not what the
/// model is sent: never a departure. (The model itself labels the run.)
const NEUTRAL_KEYS: [&str; 7] = [
    "model", "base_url", "log", "prices", "threads", "parallel", "python",
];
/// Agent options whose effect [`departures`] words from what was sent (the reply format,
/// the pictures), instead of naming the option.
const SENT_KEYS: [&str; 3] = ["structured", "images", "socratic"];

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

/// The players of a run: `(who, flag, agent kind, options)` — the agent, and the expert
/// when it has its own.
fn players(
    config: &RunConfig,
) -> Vec<(&'static str, &'static str, &str, &BTreeMap<String, String>)> {
    let mut out = vec![("", "-A", config.agent.as_str(), &config.agent_options)];
    if let Some(expert) = &config.expert {
        out.push(("expert ", "-E", expert.as_str(), &config.expert_options));
    }
    out
}

/// What each model player's requests carry, keyed `agent` and `expert`
/// ([`escapade_agents::config::sent_of`]): each decoding parameter as sent or "not
/// sent", the reply format, how pictures go. Baselines send nothing and have no entry.
pub fn sent(config: &RunConfig) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for (who, _, kind, options) in players(config) {
        let role = if who.is_empty() { "agent" } else { "expert" };
        match sent_of(kind, options) {
            Ok(Some(sent)) => {
                out.insert(role.to_string(), sent);
            }
            Ok(None) => {}
            // the runner refuses such options before it writes anything; a run.toml
            // edited by hand still gets a report
            Err(e) => {
                out.insert(
                    role.to_string(),
                    BTreeMap::from([("error".into(), e.to_string())]),
                );
            }
        }
    }
    out
}

/// Every way a run departs from its suite's paper protocol, one phrase each, in this
/// order: epochs; per player, each suite setting overridden (`temperature 0 (suite:
/// 0.7)`), replies constrained to a JSON schema, pictures replaced by text (when the
/// suite's protocol has pictures: it declares their format), every other `-A`/`-E`
/// option that changes what the model is sent; then `--limit`, `--max-steps` and every
/// `-W` option. Empty when the run follows the protocol.
pub fn departures(config: &RunConfig) -> Vec<String> {
    let s = &config.suite_settings;
    let mut out = Vec::new();
    if let Some(epochs) = s.epochs
        && epochs != config.epochs
    {
        out.push(format!("epochs {} (suite: {epochs})", config.epochs));
    }
    let sent = sent(config);
    for (who, flag, kind, options) in players(config) {
        let Some(keys) = keys_of(kind) else { continue };
        let role = if who.is_empty() { "agent" } else { "expert" };
        let sent = sent.get(role);
        for (key, wanted) in &s.agent {
            if !keys.contains(&key.as_str()) {
                continue;
            }
            let paper = shown(wanted);
            match options.get(key) {
                Some(used) if same(used, wanted) => {
                    // a parameter the paper does not send that the backend must send, or
                    // one it sends that the backend cannot (no temperature with
                    // Anthropic's extended thinking)
                    let on_wire = sent.and_then(|m| m.get(key));
                    if let Some(v) =
                        on_wire.filter(|v| (paper == NOT_SENT) != v.starts_with(NOT_SENT))
                    {
                        out.push(format!("{who}{key} {v} (suite: {paper})"));
                    }
                }
                Some(used) => out.push(format!("{who}{key} {} (suite: {paper})", shown(used))),
                None => out.push(format!("{who}{key} unset (suite: {paper})")),
            }
        }
        if let Some(sent) = sent {
            if sent.get("reply_format").map(String::as_str) == Some(STRUCTURED_FORMAT) {
                out.push(format!(
                    "{who}replies in {STRUCTURED_FORMAT}, not the world's text format"
                ));
            }
            if s.agent.contains_key("pictures")
                && let Some(p) = sent.get("pictures").filter(|p| p.starts_with("replaced"))
            {
                out.push(format!("{who}pictures {p}"));
            }
        }
        for (key, value) in options {
            let k = key.as_str();
            if s.agent.contains_key(key)
                || NEUTRAL_KEYS.contains(&k)
                || TUNING_KEYS.contains(&k)
                || SENT_KEYS.contains(&k)
            {
                continue;
            }
            out.push(format!("{flag} {key}={value}"));
        }
    }
    if let Some(limit) = config.limit {
        out.push(format!(
            "--limit {limit} (the suite's first {limit} scenarios)"
        ));
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
    for (key, value) in &config.world_options {
        out.push(format!("-W {key}={value}"));
    }
    out
}

/// An option's value as a reader should see it: `none` is "not sent".
fn shown(value: &str) -> &str {
    match value.trim() {
        "none" | "not sent" => NOT_SENT,
        v => v,
    }
}

/// Option values compare as numbers when both are numbers (`0.70` is `0.7`), and
/// `none` is `not sent`.
fn same(a: &str, b: &str) -> bool {
    match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => shown(a) == shown(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use escapade_agents::MODEL_AGENTS;

    fn opts(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn settings() -> SuiteSettings {
        SuiteSettings {
            epochs: Some(3),
            agent: opts(&[("temperature", "0.7"), ("history", "last:20")]),
            source: "a paper".into(),
        }
    }

    fn config(agent: &str, options: &[(&str, &str)], epochs: u32) -> RunConfig {
        let toml = format!(
            "suite = \"s@1\"\nworld = \"w\"\nsource = \"s@1\"\nagent = \"{agent}\"\nepochs = {epochs}\nseed = 0\nmax_steps = {DEFAULT_MAX_STEPS}\nscenarios = []\n"
        );
        let mut c: RunConfig = toml::from_str(&toml).unwrap();
        c.agent_options = opts(options);
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

    /// Issue 25: a reader of run.toml or the report must tell from it alone whether the
    /// run followed the paper — every parameter as sent, the reply format a constraint
    /// imposes, pictures replaced by text, `--limit`, `--max-steps`, every `-W` and every
    /// `-A` that changes what the model is sent.
    #[test]
    fn departures_name_every_setting_that_left_the_protocol() {
        let paper = SuiteSettings {
            epochs: None,
            agent: opts(&[
                ("temperature", "none"),
                ("pictures", "jpeg"),
                ("detail", "low"),
            ]),
            source: "a paper".into(),
        };
        let mut c = config("llm", &[], 1);
        c.suite_settings = paper.clone();
        let mut options = opts(&[
            ("model", "local/smollm2"),
            ("history", "last:3"),
            ("timeout", "5"),
            ("log", "full"),
        ]);
        apply(&paper, "llm", &mut options);
        c.agent_options = options;
        c.limit = Some(2);
        c.max_steps = 50;
        c.world_options = opts(&[("frames", "off")]);
        assert_eq!(
            departures(&c),
            vec![
                format!("replies in {STRUCTURED_FORMAT}, not the world's text format"),
                "pictures replaced by their text descriptions (images=off)".to_string(),
                "-A history=last:3".to_string(),
                "--limit 2 (the suite's first 2 scenarios)".to_string(),
                "--max-steps 50 (default 10000: the world's own limit ends an episode)".to_string(),
                "-W frames=off".to_string(),
            ]
        );
        let carried = &sent(&c)["agent"];
        assert_eq!(carried["temperature"], NOT_SENT);
        assert_eq!(carried["max_tokens"], "256");
        assert_eq!(carried["top_p"], NOT_SENT);
        assert_eq!(carried["stop"], NOT_SENT);
        assert_eq!(carried["history"], "last:3");
        // a hosted model on the paper's settings departs in nothing
        let mut hosted = config("llm", &[], 1);
        hosted.suite_settings = paper.clone();
        let mut options = opts(&[("model", "openai/gpt-4o")]);
        apply(&paper, "llm", &mut options);
        hosted.agent_options = options;
        assert!(departures(&hosted).is_empty(), "{:?}", departures(&hosted));
        assert_eq!(
            sent(&hosted)["agent"]["pictures"],
            "JPEG quality 75, detail low"
        );
        // a value the paper does not send is named when the user sends one, and when the
        // backend must (Anthropic requires max_tokens)
        hosted
            .agent_options
            .insert("temperature".into(), "0".into());
        assert_eq!(departures(&hosted), vec!["temperature 0 (suite: not sent)"]);
        let mut claude = config("llm", &[], 1);
        claude.suite_settings = SuiteSettings {
            agent: opts(&[("max_tokens", "none")]),
            ..paper
        };
        claude.agent_options = opts(&[("model", "anthropic/claude"), ("max_tokens", "none")]);
        assert_eq!(
            departures(&claude),
            vec!["max_tokens 1024 (the Anthropic API requires one) (suite: not sent)"]
        );
        // the paper's temperature, which extended thinking keeps off the wire
        let mut thinking = config("llm", &[], 1);
        thinking.suite_settings = SuiteSettings {
            agent: opts(&[("temperature", "0.7")]),
            ..SuiteSettings::default()
        };
        thinking.agent_options = opts(&[
            ("model", "anthropic/claude"),
            ("temperature", "0.7"),
            ("thinking_budget", "1024"),
        ]);
        assert_eq!(
            departures(&thinking),
            vec![
                "temperature not sent (extended thinking takes none; temperature=0.7 not \
                 applied) (suite: 0.7)",
                "-A thinking_budget=1024"
            ]
        );
        // baselines send nothing
        assert!(sent(&config("oracle", &[], 1)).is_empty());
    }
}
