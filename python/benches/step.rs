//! The Rust side of the Python binding's step benchmark (`bench/step.py` is the Python
//! side): one scenario's oracle episode, recorded once, replayed — `reset` and every
//! step — straight on the world's `Env`. Per-step time = episode time / steps; the
//! Python script prints the same for `escapade.Env` and the Gymnasium env, so the
//! difference is what crossing into Python costs.
//!
//! `cargo bench -p escapade-py --bench step`

use criterion::{Criterion, criterion_group, criterion_main};
use escapade_core::agent::{EpisodeStart, role_prompts};
use escapade_core::{Action, Env, Options, World};

/// The suites measured, and the scenario of each.
const CASES: [(&str, usize); 3] = [("comma", 0), ("agentescape", 0), ("visescape", 0)];

/// The oracle's actions on scenario `json`, seed 0.
fn oracle_actions(world: &dyn World, json: &str) -> Vec<Action> {
    let options = Options::new();
    let mut env = world.env(json, &options).unwrap();
    let mut agent = world.agent("oracle", json, 0, &options).unwrap();
    let mut observation = env.reset(0);
    let (prompt, tools, roles) = (
        env.system_prompt(),
        env.tool_schemas(),
        role_prompts(env.as_ref()),
    );
    agent.reset(EpisodeStart {
        roles: &roles,
        ..EpisodeStart::new(0, &prompt, &tools)
    });
    let mut last = None;
    let mut actions = Vec::new();
    loop {
        let action = agent.act(&observation, last.as_ref()).unwrap().action;
        let step = env.step(&action).unwrap();
        actions.push(action);
        observation = step.observation.clone();
        let over = step.terminated || step.truncated;
        last = Some(step);
        if over {
            return actions;
        }
    }
}

/// Resets and replays `actions`.
fn replay(env: &mut dyn Env, actions: &[Action]) {
    std::hint::black_box(env.reset(0));
    for action in actions {
        std::hint::black_box(env.step(action).unwrap());
    }
}

fn bench(c: &mut Criterion) {
    let worlds = escapade_worlds::worlds().unwrap();
    for (suite, index) in CASES {
        let source = escapade_run::resolve(&worlds, suite).unwrap();
        let json = &source.scenarios[index].1;
        let actions = oracle_actions(source.world, json);
        let mut env = source.world.env(json, &Options::new()).unwrap();
        let name = format!(
            "{suite}[{index}] oracle episode ({} steps, reset included)",
            actions.len()
        );
        c.bench_function(&name, |b| b.iter(|| replay(env.as_mut(), &actions)));
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
