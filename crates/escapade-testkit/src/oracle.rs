//! The winning moves of a scenario, for tests that play it through another door (a server,
//! a Python client) and must escape: the world's own `oracle` agent plays a private copy
//! of the episode, and the test hands its actions to the client. The server under test
//! never shows them.

use escapade_core::agent::role_prompts;
use escapade_core::{Action, EpisodeStart, World};

/// The oracle's actions on `json` with `seed`, every role's in turn order (the role is
/// `None` in one-role worlds). Panics unless the oracle escapes within 1,000 steps.
pub fn oracle_actions(world: &dyn World, json: &str, seed: u64) -> Vec<(Option<String>, Action)> {
    let none = Default::default();
    let mut env = world.env(json, &none).expect("the scenario opens");
    let mut oracle = world.agent("oracle", json, seed, &none).expect("an oracle");
    let mut observation = env.reset(seed);
    let (prompt, tools) = (env.system_prompt(), env.tool_schemas());
    let roles = role_prompts(env.as_ref());
    oracle.reset(EpisodeStart {
        roles: &roles,
        ..EpisodeStart::new(seed, &prompt, &tools)
    });
    let mut last = None;
    let mut out = Vec::new();
    for _ in 0..1000 {
        let turn = oracle
            .act(&observation, last.as_ref())
            .expect("the oracle acts");
        out.push((observation.role.clone(), turn.action.clone()));
        let step = env.step(&turn.action).expect("the step applies");
        observation = step.observation.clone();
        let over = step.terminated || step.truncated;
        last = Some(step);
        if over {
            break;
        }
    }
    assert!(env.outcome().success, "the oracle escapes on its own");
    out
}
