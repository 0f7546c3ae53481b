//! Benchmarks of the tools world: environment step cost (without the tool's own work)
//! and building + verifying the whole `agentescape@2` suite.

use std::sync::Arc;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use escapade_core::{Action, Env, World};
use escapade_tools::{ToolsEnv, ToolsWorld};

fn env_step(c: &mut Criterion) {
    let world = ToolsWorld::new().expect("python3");
    let s = world.scenario(15, 3).unwrap();
    let visible: Vec<String> = s
        .nodes
        .iter()
        .filter(|n| !n.hidden)
        .map(|n| n.id.clone())
        .collect();
    let callable = s
        .nodes
        .iter()
        .find(|n| !n.hidden && n.kind.is_callable() && n.parameters().count() > 0)
        .unwrap();
    let wrong: serde_json::Map<String, serde_json::Value> = callable
        .parameters()
        .map(|(k, _)| (k.clone(), serde_json::json!("1")))
        .collect();
    let wrong_call = Action::text(format!(
        "call {} {}",
        callable.id,
        serde_json::Value::Object(wrong)
    ));
    let mut env = ToolsEnv::new(Arc::new(s.clone()), world.runner());
    env.reset(0);
    let mut i = 0;
    c.bench_function("tools/env_step_investigate", |b| {
        b.iter(|| {
            i += 1;
            let a = Action::text(format!("investigate {}", visible[i % visible.len()]));
            if env.step(&a).is_err() {
                env.reset(0);
            }
        })
    });
    c.bench_function("tools/env_step_failed_call", |b| {
        b.iter(|| {
            if env.step(&wrong_call).is_err() {
                env.reset(0);
            }
        })
    });
}

fn suite_build(c: &mut Criterion) {
    let mut group = c.benchmark_group("tools/suite");
    group.sample_size(10);
    group.bench_function("agentescape@2_build_and_verify", |b| {
        b.iter_custom(|iters| {
            let mut total = std::time::Duration::ZERO;
            for _ in 0..iters {
                // a fresh world each time, so the Python memo starts empty
                let world = ToolsWorld::new().expect("python3");
                let t = Instant::now();
                let suite = world.build_suite("agentescape@2").unwrap();
                for s in &suite {
                    assert!(world.oracle(s).unwrap().solved);
                }
                total += t.elapsed();
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, env_step, suite_build);
criterion_main!(benches);
