//! Benchmarks of the model harness with a zero-latency scripted model on the counting world:
//! the cost of one step through the runner (beside the environment alone), and the model
//! agent's own cost of one turn — assembling, logging and sending the request — early in
//! an episode and at step 35 with the full history. `escapade bench` runs the larger
//! checks (1000 episodes, 256 in flight); see `escapade_run::bench`.

use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use escapade_agents::{AsyncAgent, EpisodeStart, LlmAgent, TurnInput};
use escapade_core::{Observation, Step, ToolSchema};
use escapade_run::bench::{BenchReply, HarnessBench};

/// Episodes per sample of the per-step group (each is truncated at 35 steps).
const EPISODES: usize = 20;

fn fixture() -> HarnessBench {
    HarnessBench::new(5, 4, BenchReply::Count).expect("the counting world")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

fn per_step(c: &mut Criterion) {
    let bench = fixture();
    let rt = runtime();
    let steps = EPISODES as u64 * u64::from(bench.step_budget());
    let mut group = c.benchmark_group("harness/per_step");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::Elements(steps));
    group.bench_function(format!("run_{EPISODES}x{}", bench.step_budget()), |b| {
        b.iter_custom(|iters| {
            let dir = tempfile::tempdir().expect("temp dir");
            let start = Instant::now();
            for _ in 0..iters {
                let figures = rt
                    .block_on(bench.run(EPISODES, 1, 0, dir.path()))
                    .expect("the run");
                assert_eq!(figures.steps, steps);
                assert_eq!(figures.errors, 0);
            }
            start.elapsed()
        })
    });
    group.bench_function(
        format!("env_only_{EPISODES}x{}", bench.step_budget()),
        |b| {
            b.iter(|| {
                let figures = bench.env_only(EPISODES).expect("the environments");
                assert_eq!(figures.steps, steps);
            })
        },
    );
    group.finish();
}

/// An agent that has taken `step - 1` turns of a real episode, and its input for turn
/// `step`.
struct Prepared {
    agent: LlmAgent,
    observation: Observation,
    last: Option<Step>,
    tools: Vec<ToolSchema>,
}

fn prepare(bench: &HarnessBench, rt: &tokio::runtime::Runtime, step: u32) -> Prepared {
    let mut env = bench
        .world()
        .env(&bench.scenarios()[0].1, &Default::default())
        .expect("a scenario");
    let mut observation = env.reset(0);
    let tools = env.tool_schemas();
    let mut agent = bench.agent().expect("an agent");
    let system = env.system_prompt();
    rt.block_on(agent.reset(EpisodeStart {
        seed: 0,
        system_prompt: &system,
        tools: &tools,
        roles: &[],
        steps_to_go: None,
    }))
    .expect("reset");
    let mut last: Option<Step> = None;
    for n in 1..step {
        let input = TurnInput {
            step: n,
            observation: &observation,
            last: last.as_ref(),
            tools: &tools,
        };
        let turn = rt.block_on(agent.act(input)).expect("a reply");
        let s = env.step(&turn.action).expect("a step");
        observation = s.observation.clone();
        last = Some(s);
    }
    Prepared {
        agent,
        observation,
        last,
        tools,
    }
}

fn llm_act(c: &mut Criterion) {
    let bench = fixture();
    // the agent's work only: no multi-thread scheduling around it
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let mut group = c.benchmark_group("harness/llm_act");
    group.sample_size(10);
    // each timed turn needs `step - 1` untimed ones first: keep the timed budget small
    group.warm_up_time(Duration::from_millis(100));
    group.measurement_time(Duration::from_millis(400));
    for step in [1, bench.step_budget()] {
        group.bench_function(format!("step_{step}_full_history"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let mut p = prepare(&bench, &rt, step);
                    let input = TurnInput {
                        step,
                        observation: &p.observation,
                        last: p.last.as_ref(),
                        tools: &p.tools,
                    };
                    let start = Instant::now();
                    let turn = rt.block_on(p.agent.act(input)).expect("a reply");
                    total += start.elapsed();
                    std::hint::black_box(turn);
                }
                total
            })
        });
    }
    group.finish();
}

criterion_group!(benches, per_step, llm_act);
criterion_main!(benches);
