//! Every scenario of every vis suite through the conformance checker, the oracle and the
//! baselines, via the world's registry entry (what the runner uses).

use std::sync::{Arc, OnceLock};

use escapade_core::agent::play;
use escapade_core::check::check_env;
use escapade_core::{Action, World};
use escapade_vis::world::{QUIZ, QUIZ_REASON, VISESCAPE, VISESCAPE_HINTS};
use escapade_vis::{Game, Room, VisEnv, VisWorld, oracle};

fn world() -> &'static VisWorld {
    static W: OnceLock<VisWorld> = OnceLock::new();
    W.get_or_init(VisWorld::new)
}

#[test]
fn every_room_passes_the_conformance_checker() {
    for json in world().build_suite(VISESCAPE).unwrap() {
        let room = Room::from_json(&json).unwrap();
        let mut env = world().env(&json, &Default::default()).unwrap();
        check_env(env.as_mut(), 1, &oracle::junk(&room).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", room.id));
    }
}

#[test]
fn the_oracle_escapes_every_room_with_spl_one_and_random_does_not() {
    let mut random_gc = Vec::new();
    for json in world().build_suite(VISESCAPE).unwrap() {
        let report = world().oracle(&json).unwrap();
        assert!(report.solved);
        let mut env = world().env(&json, &Default::default()).unwrap();
        let mut agent = world()
            .agent("oracle", &json, 0, &Default::default())
            .unwrap();
        let (outcome, steps) = play(env.as_mut(), agent.as_mut(), 0, 400).unwrap();
        assert!(outcome.success);
        assert_eq!(steps, report.steps);
        assert_eq!(outcome.metrics["spl"], 1.0);
        assert_eq!(outcome.metrics["gc"], 1.0);
        // the random player without drawing: hundreds of steps per room
        let room = Room::from_json(&json).unwrap();
        let mut env = VisEnv::new(Arc::new(Game::new(room).unwrap()))
            .unwrap()
            .without_images();
        let mut agent = world()
            .agent("random", &json, 3, &Default::default())
            .unwrap();
        let (outcome, _) = play(&mut env, agent.as_mut(), 3, 400).unwrap();
        random_gc.push(outcome.metrics["gc"]);
    }
    let mean = random_gc.iter().sum::<f64>() / random_gc.len() as f64;
    assert!(mean < 0.5, "random goal completion {mean}");
}

#[test]
fn the_hint_suite_is_the_same_rooms_in_hint_mode() {
    let plain = world().build_suite(VISESCAPE).unwrap();
    let hints = world().build_suite(VISESCAPE_HINTS).unwrap();
    assert_eq!(plain.len(), 20);
    for (a, b) in plain.iter().zip(&hints) {
        let (mut a, b) = (Room::from_json(a).unwrap(), Room::from_json(b).unwrap());
        assert!(!a.hints && b.hints);
        a.hints = true;
        assert_eq!(a, b);
    }
}

#[test]
fn quiz_tasks_show_two_pictures_and_count_tries() {
    for suite in [QUIZ, QUIZ_REASON] {
        let tasks = world().build_suite(suite).unwrap();
        assert_eq!(tasks.len(), 20);
        for json in &tasks {
            let mut env = world().env(json, &Default::default()).unwrap();
            let first = env.reset(0);
            assert_eq!(first.images.len(), 2);
            assert!(first.images.iter().all(|i| i.alt.is_some()));
            let wrong: Vec<Action> = ["nope", "[ANSWER] 0", "<ANSWER>zz</ANSWER>", ""]
                .iter()
                .map(|t| Action::text(*t))
                .collect();
            check_env(env.as_mut(), 0, &wrong).unwrap();
            assert!(world().oracle(json).unwrap().solved);
            let mut oracle = world()
                .agent("oracle", json, 0, &Default::default())
                .unwrap();
            let (outcome, steps) = play(env.as_mut(), oracle.as_mut(), 0, 20).unwrap();
            assert!(outcome.success && steps == 1);
            assert_eq!(outcome.metrics["pass_at_1"], 1.0);
            let mut random = world()
                .agent("random", json, 0, &Default::default())
                .unwrap();
            let (outcome, steps) = play(env.as_mut(), random.as_mut(), 0, 20).unwrap();
            assert!(steps <= 10);
            assert_eq!(outcome.metrics["attempts"], f64::from(steps));
        }
    }
}

#[test]
fn paper_statistics_sit_beside_ours() {
    let rooms = world().build_suite(VISESCAPE).unwrap();
    let stats = world().paper_stats(VISESCAPE, &rooms).unwrap();
    let names: Vec<&str> = stats.iter().map(|s| s.name.as_str()).collect();
    assert!(names.iter().any(|n| n.contains("receptacles")), "{names:?}");
    assert!(stats.iter().all(|s| s.paper.is_some() && s.ours > 0.0));
}

#[test]
fn a_hand_written_toml_room_checks_clean_and_converts_to_json() {
    let toml = include_str!("../rooms/study.toml");
    let v = world().check(toml).unwrap();
    assert!(v.problems.is_empty(), "{:?}", v.problems);
    assert!(Room::from_json(&v.scenario).is_ok());
    let broken = toml.replacen("world = \"vis\"", "world = \"vis\"\nbogus = 1", 1);
    let _ = world().check(&broken);
    assert!(world().check("not a room").is_err());
}

/// §4.1: "For each room, we conducted three different trials and averaged the resulting
/// metrics" and "history of the last 20 observations and actions": the room suites say
/// so, for the runner to apply.
#[test]
fn the_room_suites_declare_three_trials_and_no_chat_history() {
    let specs = world().suites();
    for name in [VISESCAPE, VISESCAPE_HINTS] {
        let spec = specs.iter().find(|s| s.name == name).unwrap();
        assert_eq!(spec.settings.epochs, Some(3), "{name}");
        // each observation carries the history the original sends: a chat sends no
        // past exchanges
        assert_eq!(spec.settings.agent["history"], "last:0", "{name}");
        assert_eq!(spec.settings.source, "VisEscape §4.1");
        // the key reads as the agents read it
        assert!(spec.settings.agent["history"].starts_with("last:"));
    }
    // the old names answer with their replacement
    let retired = world().retired_suites();
    for (old, new) in [
        ("visescape@1", VISESCAPE),
        ("visescape-hints@1", VISESCAPE_HINTS),
        ("visescape-quiz@1", QUIZ),
        ("visescape-quiz-reason@1", QUIZ_REASON),
        ("visescape@2", VISESCAPE),
        ("visescape-hints@2", VISESCAPE_HINTS),
        ("visescape-quiz@2", QUIZ),
        ("visescape-quiz-reason@2", QUIZ_REASON),
        ("visescape@3", VISESCAPE),
        ("visescape-hints@3", VISESCAPE_HINTS),
        ("visescape-quiz@3", QUIZ),
        ("visescape-quiz-reason@3", QUIZ_REASON),
    ] {
        assert!(
            retired
                .iter()
                .any(|r| r.name == old && r.replaced_by == new)
        );
        assert!(world().build_suite(old).is_err());
    }
}

/// Options reach the environment through the registry, and bad ones are refused with
/// the keys the world knows.
#[test]
fn world_options_are_applied_and_checked() {
    use std::collections::BTreeMap;
    let json = &world().build_suite(VISESCAPE).unwrap()[0];
    let opts = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let plain = world().env(json, &Default::default()).unwrap();
    let helpful = world().env(json, &opts(&[("prompt", "helpful")])).unwrap();
    assert_ne!(plain.system_prompt(), helpful.system_prompt());
    let mut labelled = world().env(json, &opts(&[("labels", "on")])).unwrap();
    let mut bare = world().env(json, &Default::default()).unwrap();
    assert_ne!(
        labelled.reset(0).images[0].sha256,
        bare.reset(0).images[0].sha256
    );
    let err = world()
        .env(json, &opts(&[("feedback", "loud")]))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("view | sentences"), "{err}");
    let err = world()
        .env(json, &opts(&[("colour", "red")]))
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("known: prompt, feedback, labels, invalid, answers"),
        "{err}"
    );
    // a quiz task takes labels for its two pictures
    let quiz = &world().build_suite(QUIZ).unwrap()[0];
    let mut with = world().env(quiz, &opts(&[("labels", "on")])).unwrap();
    let mut without = world().env(quiz, &Default::default()).unwrap();
    assert_ne!(
        with.reset(0).images[1].sha256,
        without.reset(0).images[1].sha256
    );
}

/// Pictures are kept process-wide under [`Game::picture_key`] (`VisEnv`'s store): two
/// states with one key must show the same picture and description, or what an episode
/// sees would depend on which state drew the key first — in another episode, another
/// test, another thread. Every state reachable from each room's start (the first 1,500
/// in depth-first order) is drawn and compared with the first of its key. It caught a
/// latch's light (a fired trigger) missing from the key.
#[test]
fn states_with_one_picture_key_show_one_picture() {
    use escapade_vis::{describe, render};
    use std::collections::{BTreeMap, BTreeSet};
    for json in world().build_suite(VISESCAPE).unwrap() {
        let room = Room::from_json(&json).unwrap();
        let game = Game::new(room.clone()).unwrap();
        let mut first: BTreeMap<_, (String, String)> = BTreeMap::new();
        let mut visited = BTreeSet::new();
        let mut stack = vec![game.start()];
        while let Some(state) = stack.pop() {
            if visited.len() >= 1500 || !visited.insert(format!("{state:?}")) {
                continue;
            }
            let drawn = (
                describe::describe(&game, &state),
                escapade_core::hash::sha256_hex(
                    &render::render_with(&game, &state, render::Style { labels: false }).unwrap(),
                ),
            );
            let key = game.picture_key(&state);
            match first.get(&key) {
                Some(kept) => assert_eq!(
                    kept, &drawn,
                    "{}: two states with picture key {key:?} look different",
                    room.id
                ),
                None => {
                    first.insert(key, drawn);
                }
            }
            for m in game.available(&state) {
                let mut next = state.clone();
                game.apply(&mut next, &m);
                stack.push(next);
            }
        }
    }
}
