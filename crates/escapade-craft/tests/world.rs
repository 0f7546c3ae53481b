//! The craft world through its registry entry: the oracle escapes every `mm-escape@3`
//! scenario within the step caps, and `check_env` holds on suite scenarios.

use std::collections::BTreeMap;

use escapade_core::check::check_env;
use escapade_core::{Action, World};
use escapade_craft::{CraftScenario, CraftWorld, EnvOptions};

#[test]
fn the_oracle_escapes_every_suite_scenario_within_the_caps() {
    let world = CraftWorld::with_options(EnvOptions::small());
    let suite = world.build_suite("mm-escape@3").unwrap();
    assert_eq!(suite.len(), 73);
    let mut per: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for json in &suite {
        let s = CraftScenario::from_json(json).unwrap();
        let report = world.oracle(json).unwrap();
        assert!(
            report.solved,
            "{}: oracle failed after {} steps",
            s.id, report.steps
        );
        let group = s.id.rsplit_once('-').unwrap().0.to_string();
        per.entry(group).or_default().push(report.steps);
    }
    for (group, steps) in &per {
        let mean = steps.iter().sum::<u32>() as f64 / steps.len() as f64;
        eprintln!(
            "{group}: oracle steps mean {mean:.2}, max {}",
            steps.iter().max().unwrap()
        );
    }
}

/// Exploratory junk: turning, walking into things, grabbing nothing, unreadable replies.
fn junk() -> Vec<Action> {
    [
        r#"{"rotate_right": 45, "move_forward": 2}"#,
        r#"{"grab": true}"#,
        "no json here",
        r#"{"look_at": [0.3, 0.6], "grab": true}"#,
        r#"{"move_forward": 10}"#,
        r#"{"interactions": {"input": "12"}, "grab": true}"#,
        r#"{"read": "note_9"}"#,
        r#"{"rotate_down": 30, "jump": true}"#,
        r#"{"rotate_right": -120, "move_forward": -1.5}"#,
    ]
    .into_iter()
    .map(Action::text)
    .collect()
}

#[test]
fn check_env_holds_on_suite_scenarios() {
    let world = CraftWorld::with_options(EnvOptions::small());
    let suite = world.build_suite("mm-escape@3").unwrap();
    // one of each group: D1, D2, D3 note-first, D3 key-first, and the three two-room mixes
    for i in [0, 11, 22, 33, 43, 53, 63] {
        let mut env = world.env(&suite[i], &Default::default()).unwrap();
        check_env(env.as_mut(), 3, &junk()).unwrap_or_else(|e| panic!("scenario {i}: {e}"));
    }
}

#[test]
fn check_env_holds_on_a_bootstrapped_two_room_game() {
    let world = CraftWorld::with_options(EnvOptions::small());
    let suite = world.build_suite("mm-escape@3").unwrap();
    let options: std::collections::BTreeMap<String, String> =
        [("bootstrap".to_string(), "on".to_string())].into();
    for i in [53, 63] {
        let mut env = world.env(&suite[i], &options).unwrap();
        check_env(env.as_mut(), 3, &junk()).unwrap_or_else(|e| panic!("scenario {i}: {e}"));
    }
}

#[test]
fn files_with_impossible_rooms_are_refused_not_built() {
    let world = CraftWorld::with_options(EnvOptions::small());
    let suite = world.build_suite("mm-escape@3").unwrap();
    let mut bad: serde_json::Value = serde_json::from_str(&suite[0]).unwrap();
    for (field, value) in [
        ("width", serde_json::json!(0.0)),
        ("width", serde_json::json!(-3.0)),
        ("depth", serde_json::json!(1e6)),
        ("height", serde_json::json!(1e30)),
    ] {
        let mut v = bad.clone();
        v["rooms"][0][field] = value;
        let e = world
            .env(&v.to_string(), &Default::default())
            .err()
            .expect("refused");
        assert!(e.to_string().contains("outside"), "{field}: {e}");
    }
    bad["rooms"][0]["start"]["x"] = serde_json::json!(-50.0);
    assert!(world.env(&bad.to_string(), &Default::default()).is_err());
    // chains longer than a room's nine hops are refused up front
    assert!(world.generate(100_000, 1, &Default::default()).is_err());
}

#[test]
fn paper_stats_and_baselines() {
    let world = CraftWorld::with_options(EnvOptions::small());
    let suite = world.build_suite("mm-escape@3").unwrap();
    let stats = world.paper_stats("mm-escape@3", &suite).unwrap();
    assert!(
        stats
            .iter()
            .any(|s| s.name == "objects per room, difficulty 1" && s.paper == Some(20.18))
    );
    assert!(
        world
            .agent("random", &suite[0], 1, &Default::default())
            .is_ok()
    );
    assert!(
        world
            .agent("nobody", &suite[0], 1, &Default::default())
            .is_err()
    );
    assert_eq!(world.suites()[0].tiers.iter().map(|t| t.1).sum::<u32>(), 73);
}

/// The oracle escapes every suite scenario under each rule option a run may choose: both
/// rooms played (App. F), the original's grab rule, a narrower view, detailed feedback.
#[test]
fn the_oracle_escapes_every_suite_scenario_under_each_rule_option() {
    let suite = CraftWorld::new()
        .build_suite(escapade_craft::suite::NAME)
        .unwrap();
    for (key, value) in [
        ("bootstrap", "off"),
        ("grab", "original"),
        ("fov", "60"),
        ("feedback", "detailed"),
    ] {
        let options: BTreeMap<String, String> = [(key.to_string(), value.to_string())].into();
        let world =
            CraftWorld::with_options(EnvOptions::small().with(&options).expect("a known option"));
        let failed: Vec<String> = suite
            .iter()
            .filter(|json| !world.oracle(json).unwrap().solved)
            .map(|json| CraftScenario::from_json(json).unwrap().id)
            .collect();
        assert!(
            failed.is_empty(),
            "{key}={value}: the oracle failed {failed:?}"
        );
    }
}

/// MM-Escape §4: "we set the temperature to 0"; models keep the whole trajectory in
/// context. The suite declares both for model agents.
#[test]
fn the_suite_declares_the_papers_decoding_settings() {
    let spec = &CraftWorld::new().suites()[0];
    assert_eq!(
        spec.settings.agent.get("temperature").map(String::as_str),
        Some("0")
    );
    assert_eq!(
        spec.settings.agent.get("history").map(String::as_str),
        Some("full")
    );
    // issue 25: the original resends every frame, as JPEG with detail high, and sends no
    // max_tokens
    for (key, value) in [
        ("history_images", "all"),
        ("pictures", "jpeg"),
        ("detail", "high"),
        ("max_tokens", "none"),
    ] {
        assert_eq!(
            spec.settings.agent.get(key).map(String::as_str),
            Some(value),
            "{key}"
        );
    }
    assert_eq!(spec.settings.epochs, None);
    assert!(spec.settings.source.contains("MM-Escape §4"));
    assert!(
        spec.description.contains("bootstrapped"),
        "{}",
        spec.description
    );
}

#[test]
fn an_unknown_variant_is_a_bad_option_naming_the_known_ones() {
    let options = BTreeMap::from([("variant".to_string(), "spiral".to_string())]);
    let world = CraftWorld::with_options(EnvOptions::small());
    let e = world.generate(1, 0, &options).unwrap_err();
    let escapade_core::CoreError::BadOption { key, expected, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(key, "variant");
    assert!(expected.starts_with("one of standard, note-first"), "{e}");
}
