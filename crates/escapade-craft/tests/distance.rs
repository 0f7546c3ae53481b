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
