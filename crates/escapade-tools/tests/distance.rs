//! The oracle's distance (`steps_to_go`, issue 29): the oracle's remaining tool calls and
//! submission. It starts at the paper's minimum plus the submission, the oracle's own
//! plan lowers it by one per step to 0 at the escape, a wasted step leaves it, and in
//! random play it never grows and is 0 exactly when the episode is won.

mod common;
use common::{suite, world};

use std::sync::Arc;

use escapade_core::{Action, Agent, Env, EpisodeStart};
use escapade_tools::ToolsEnv;
use escapade_tools::baseline::{RandomAgent, oracle_plan};
use escapade_tools::interface::ToolsAction;
use proptest::prelude::*;

/// One scenario of each difficulty of the suite.
fn one_per_tier() -> Vec<&'static escapade_tools::ToolsScenario> {
    let mut seen = std::collections::BTreeSet::new();
    suite()
        .iter()
        .filter(|s| seen.insert(s.difficulty))
        .collect()
}

fn env(s: &escapade_tools::ToolsScenario) -> ToolsEnv {
    ToolsEnv::new(Arc::new(s.clone()), world().runner())
}

#[test]
fn the_oracle_plan_lowers_it_by_one_per_step_and_a_wasted_step_does_not() {
    for s in one_per_tier() {
        let mut e = env(s);
        let _ = e.reset(0);
        let start = e.steps_to_go().expect("the tools world knows its distance");
        assert_eq!(
            start,
            s.min_tool_calls + 1,
            "{}: minimum plus the submission",
            s.id
        );
        let plan = oracle_plan(s);
        assert_eq!(plan.len() as u32, start, "{}", s.id);
        let mut before = start;
        for (k, a) in plan.iter().enumerate() {
            if k == 1 {
                // investigating the node read at step 0 again wastes a step
                let ToolsAction::Investigate { node } = &plan[0] else {
                    panic!("the plan starts by reading a node")
                };
                let again = ToolsAction::Investigate { node: node.clone() };
                let step = e.step(&Action::text(again.to_text())).unwrap();
                assert_eq!(step.steps_to_go, Some(before), "{}: a wasted step", s.id);
            }
            let step = e.step(&Action::text(a.to_text())).unwrap();
            assert_eq!(
                step.steps_to_go,
                Some(before - 1),
                "{}: step {k} {a:?}",
                s.id
            );
            assert_eq!(step.steps_to_go, e.steps_to_go());
            before -= 1;
        }
        assert!(e.outcome().success, "{}", s.id);
        assert_eq!(before, 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn random_play_never_raises_it_and_it_is_0_exactly_when_won(pick in 0usize..1000, seed in 0u64..1000) {
        let tiers = one_per_tier();
        let s = tiers[pick % tiers.len()];
        let mut e = env(s);
        let mut o = e.reset(seed);
        let mut agent = RandomAgent::default();
        agent.reset(EpisodeStart::new(seed, "", &[]));
        let mut before = e.steps_to_go().unwrap();
        let mut last = None;
        loop {
            let turn = agent.act(&o, last.as_ref()).unwrap();
            let step = e.step(&turn.action).unwrap();
            let d = step.steps_to_go.unwrap();
            prop_assert!(d <= before, "{}: {before} -> {d}", s.id);
            prop_assert_eq!(d == 0, e.outcome().success);
            before = d;
            o = step.observation.clone();
            let over = step.terminated || step.truncated;
            last = Some(step);
            if over {
                break;
            }
        }
    }
}

#[test]
fn the_schemas_kept_between_steps_are_those_built_afresh() {
    // an env asked after every step answers from what it kept while no node changed;
    // a fresh env replaying the same replies builds them: the two agree at every step
    for s in one_per_tier().into_iter().take(2) {
        let mut kept = env(s);
        let _ = kept.reset(0);
        let mut played: Vec<Action> = Vec::new();
        let mut random = RandomAgent::default();
        random.reset(EpisodeStart::new(3, "", &[]));
        let mut o = kept.reset(0);
        for a in oracle_plan(s).iter().take(4) {
            // a random reply and a step of the oracle's plan, in turn
            let noise = random.act(&o, None).unwrap().action;
            for action in [noise, Action::text(a.to_text())] {
                let Ok(step) = kept.step(&action) else { break };
                o = step.observation;
                played.push(action);
                let mut fresh = env(s);
                let _ = fresh.reset(0);
                for p in &played {
                    let _ = fresh.step(p);
                }
                assert_eq!(
                    kept.tool_schemas(),
                    fresh.tool_schemas(),
                    "{} after {}",
                    s.id,
                    played.len()
                );
            }
        }
    }
}
