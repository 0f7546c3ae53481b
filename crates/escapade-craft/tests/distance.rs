//! The oracle's distance (`steps_to_go`, issue 29) in MM-Escape: the replies the oracle
//! still sends to escape, replanned from the current state. It is 0 exactly at the
//! escape, the oracle's own play lowers it by one per reply, and a wasted reply (one
//! that cannot be read, or moves and opens nothing) leaves it where it was.

use std::sync::Arc;

use escapade_core::{Action, Agent, Env, EpisodeStart};
use escapade_craft::baseline::OracleAgent;
use escapade_craft::env::Unreadable;
use escapade_craft::{CraftEnv, CraftScenario, EnvOptions};

fn scenarios() -> Vec<Arc<CraftScenario>> {
    let all: Vec<Arc<CraftScenario>> = escapade_craft::suite::build()
        .unwrap()
        .into_iter()
        .map(Arc::new)
        .collect();
    // one-room games of every difficulty and a two-room game
    let mut picked: Vec<Arc<CraftScenario>> = Vec::new();
    for s in all {
        let rooms = s.rooms.len();
        let hops = s.rooms[0].chain.props.len();
        if !picked
            .iter()
            .any(|p| p.rooms.len() == rooms && p.rooms[0].chain.props.len() == hops)
        {
            picked.push(s);
        }
        if picked.len() >= 40 {
            break;
        }
    }
    picked
}

fn options() -> EnvOptions {
    EnvOptions {
        bootstrap: false,
        ..EnvOptions::small().without_frames()
    }
}

#[test]
fn the_oracle_plan_lowers_it_by_one_per_step_to_0() {
    for s in scenarios() {
        let mut env = CraftEnv::new(s.clone(), options()).unwrap();
        let mut oracle = OracleAgent::new(s.clone(), options()).unwrap();
        let mut o = env.reset(0);
        oracle.reset(EpisodeStart::new(0, "", &[]));
        let start = env.steps_to_go().expect("a suite scenario is solvable");
        assert!(start > 0);
        let mut before = start;
        loop {
            let turn = oracle.act(&o, None).unwrap();
            let step = env.step(&turn.action).unwrap();
            assert_eq!(step.steps_to_go, Some(before - 1), "{}", s.id);
            assert_eq!(step.steps_to_go, env.steps_to_go());
            before -= 1;
            o = step.observation;
            if step.terminated || step.truncated {
                break;
            }
        }
        assert!(env.outcome().success, "{}", s.id);
        assert_eq!(before, 0);
        assert_eq!(
            env.outcome().steps,
            start,
            "the oracle's plan from the start"
        );
    }
}

#[test]
fn a_wasted_step_leaves_it() {
    for s in scenarios() {
        let wasting = EnvOptions {
            unreadable: Unreadable::Step,
            ..options()
        };
        let mut env = CraftEnv::new(s.clone(), wasting).unwrap();
        env.reset(0);
        let start = env.steps_to_go().unwrap();
        // a reply that is not an action (counted as an invalid step), and a turn by nothing
        for wasted in ["look around", r#"{"rotate_right": 0, "rationale": "wait"}"#] {
            let step = env.step(&Action::text(wasted)).unwrap();
            assert_eq!(step.steps_to_go, Some(start), "{}: {wasted}", s.id);
        }
    }
}

#[test]
fn set_distance_off_skips_it_and_on_brings_it_back() {
    // a game the oracle needs more than the 4 steps played below to escape
    let (s, mut measured, mut o) = scenarios()
        .into_iter()
        .find_map(|s| {
            let mut env = CraftEnv::new(s.clone(), options()).unwrap();
            let o = env.reset(0);
            (env.steps_to_go() > Some(5)).then_some((s, env, o))
        })
        .expect("a suite game of more than 5 steps");
    let mut skipped = CraftEnv::new(s.clone(), options()).unwrap();
    skipped.set_distance(false);
    let mut oracle = OracleAgent::new(s.clone(), options()).unwrap();
    let first = skipped.reset(0);
    assert_eq!(first, o, "the distance changes no observation");
    assert_eq!(skipped.steps_to_go(), None);
    oracle.reset(EpisodeStart::new(0, "", &[]));
    for _ in 0..3 {
        let turn = oracle.act(&o, None).unwrap();
        let a = measured.step(&turn.action).unwrap();
        let b = skipped.step(&turn.action).unwrap();
        assert!(a.steps_to_go.is_some());
        assert_eq!((b.steps_to_go, skipped.steps_to_go()), (None, None));
        assert_eq!(a.observation, b.observation);
        assert_eq!(
            (a.progress, a.feedback.as_str()),
            (b.progress, b.feedback.as_str())
        );
        o = a.observation;
    }
    // on again: the next step measures from where the episode stands
    skipped.set_distance(true);
    let turn = oracle.act(&o, None).unwrap();
    let a = measured.step(&turn.action).unwrap();
    let b = skipped.step(&turn.action).unwrap();
    assert_eq!(b.steps_to_go, a.steps_to_go);
    assert!(b.steps_to_go.is_some());
}
