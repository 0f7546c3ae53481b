//! The craft world's performance self-check (`escapade bench craft`,
//! [`World::bench`]).
//!
//! Seven figures (six from the MM-Escape issue); three have targets:
//!
//! - **frame, 1 thread** (target p50 ≤ 60 ms): one first-person frame of a furnished
//!   room at the environment's default size — the original client's 2048 × 1024 with
//!   its 120° vertical field of view — drawn by the ray caster on the calling thread,
//!   from the start pose of every fourth `mm-escape@3` scenario looking four ways;
//! - **frame, all cores** (target p50 ≤ 25 ms): the same frames with one thread per core;
//! - **PNG encode**: each of those frames encoded as an observation carries it;
//! - **env step, no frame**: one `CraftEnv::step` without frames along the oracle's
//!   path through those scenarios (walking, aiming, acting: the rules and their rays);
//! - **env step with frame**: the same steps with a default-size frame, its PNG and its
//!   alt text (what a model's observation costs);
//! - **steps_to_go, per step** (target ≤ 10 % of a step with its frame): the oracle's
//!   distance replanned from the state after each of those steps (issue 29); the
//!   environment's steps above are measured without it, and a note gives the share;
//! - **suite build + verify**: generating the 73 scenarios of `mm-escape@3` and
//!   escaping each with the oracle through the environment.
//!
//! It reads the clock; the processor time of the frames comes from the caller's
//! [`Probe`] (the world does no I/O). `escapade-run` prints the report.

use std::sync::Arc;
use std::time::Instant;

use escapade_core::bench::{BenchReport, BenchRow, Figure, Probe, Timing};
use escapade_core::{Action, CoreError, Env, World};
use escapade_render::{FrameOptions, Prepared};

use crate::baseline::OracleAgent;
use crate::motion::Body;
use crate::room::{DEFAULT_HEIGHT, DEFAULT_WIDTH, default_horizontal_fov};
use crate::{CraftEnv, CraftScenario, CraftWorld, EnvOptions, WorldState};

/// Target for the one-thread frame median, in milliseconds.
pub const TARGET_FRAME_MS: f64 = 60.0;
/// Target for the all-cores frame median, in milliseconds.
pub const TARGET_FRAME_ALL_MS: f64 = 25.0;
/// Target for the oracle's distance (replanned after every step, issue 29), in percent of
/// the median step with its frame.
pub const TARGET_TO_GO_SHARE: f64 = 10.0;
/// Frame size measured (the environment's default).
pub const FRAME: (u32, u32) = (DEFAULT_WIDTH, DEFAULT_HEIGHT);
/// Every how many suite scenarios one is measured.
const EVERY: usize = 4;

fn fail(e: impl std::fmt::Display) -> CoreError {
    CoreError::world(e.to_string())
}

/// Milliseconds since `t`.
fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Measures the craft world (see the module docs).
pub fn run(world: &CraftWorld, probe: &Probe) -> Result<BenchReport, CoreError> {
    let cpu_ms = probe.cpu_ms;
    let start = Instant::now();
    let built = world.build_suite(crate::suite::NAME)?;
    for json in &built {
        if !world.oracle(json)?.solved {
            return Err(fail(format!(
                "the oracle failed on an {} scenario",
                crate::suite::NAME
            )));
        }
    }
    let suite_s = start.elapsed().as_secs_f64();
    let scenarios: Vec<Arc<CraftScenario>> = built
        .iter()
        .step_by(EVERY)
        .map(|json| serde_json::from_str(json).map(Arc::new).map_err(fail))
        .collect::<Result<_, _>>()?;

    let (width, height) = FRAME;
    let one = FrameOptions {
        width,
        height,
        threads: 1,
        centre_dot: true,
    };
    let all = FrameOptions { threads: 0, ..one };
    let (mut frames_1t, mut frames_all, mut pngs) = (Vec::new(), Vec::new(), Vec::new());
    let (mut cpu_1t, mut cpu_all) = (Some(0.0), Some(0.0));
    let add = |sum: &mut Option<f64>, from: Option<f64>| {
        *sum = match (*sum, from, cpu_ms()) {
            (Some(s), Some(a), Some(b)) => Some(s + (b - a)),
            _ => None,
        };
    };
    for s in &scenarios {
        let room = &s.rooms[0];
        let scene = s.scene(0, &WorldState::start(s)).map_err(fail)?;
        let prepared = Prepared::new(&scene).map_err(fail)?;
        for turn in [0.0, 90.0, 180.0, 270.0] {
            let camera = Body::start(room)
                .turned(turn, 10.0)
                .camera(default_horizontal_fov());
            let (t, c) = (Instant::now(), cpu_ms());
            let frame = prepared.render(&camera, &one).map_err(fail)?;
            frames_1t.push(ms(t));
            add(&mut cpu_1t, c);
            let (t, c) = (Instant::now(), cpu_ms());
            let again = prepared.render(&camera, &all).map_err(fail)?;
            frames_all.push(ms(t));
            add(&mut cpu_all, c);
            debug_assert_eq!(frame.rgb, again.rgb, "frames do not depend on threads");
            let t = Instant::now();
            let png = frame.png().map_err(fail)?;
            pngs.push(ms(t));
            std::hint::black_box((png, again));
        }
    }

    let (mut steps, mut steps_frame, mut to_go) = (Vec::new(), Vec::new(), Vec::new());
    for s in &scenarios {
        for frames in [false, true] {
            let options = EnvOptions {
                width,
                height,
                frames,
                threads: 1,
                ..EnvOptions::default()
            };
            let mut env = CraftEnv::new(s.clone(), options)
                .map_err(fail)?
                .without_distance();
            let mut distance =
                crate::baseline::oracle::Probe::new(s.clone(), options).map_err(fail)?;
            let mut oracle = OracleAgent::new(s.clone(), options).map_err(fail)?;
            env.reset(0);
            for _ in 0..env.cap() {
                let action = Action::text(oracle.next_action().to_json());
                let t = Instant::now();
                let step = env.step(&action).map_err(fail)?;
                if frames {
                    steps_frame.push(ms(t));
                } else {
                    steps.push(ms(t) * 1e3);
                    let t = Instant::now();
                    std::hint::black_box(distance.steps_to_go(&env));
                    to_go.push(ms(t) * 1e3);
                }
                if step.terminated || step.truncated {
                    break;
                }
                std::hint::black_box(step);
            }
        }
    }

    let median = |xs: &[f64]| {
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    let share = 100.0 * median(&to_go) / 1e3 / median(&steps_frame).max(1e-9);
    let frames = frames_1t.len().max(1) as f64;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (w, h) = FRAME;
    let timing = |name: &str, key: &str, unit: &str, xs: Vec<f64>, target: Option<f64>| {
        BenchRow::new(name, key, unit, Figure::Timing(Timing::of(xs)), target)
    };
    let rows = vec![
        timing(
            "frame, 1 thread",
            "frame_1t_ms",
            "ms",
            frames_1t,
            Some(TARGET_FRAME_MS),
        ),
        timing(
            "frame, all cores",
            "frame_all_ms",
            "ms",
            frames_all,
            Some(TARGET_FRAME_ALL_MS),
        ),
        timing("PNG encode", "png_ms", "ms", pngs, None),
        timing("env step, no frame", "step_us", "µs", steps, None),
        timing(
            "env step with frame",
            "step_frame_ms",
            "ms",
            steps_frame,
            None,
        ),
        timing("steps_to_go, per step", "to_go_us", "µs", to_go, None),
        BenchRow::new(
            &format!("{} build + verify", crate::suite::NAME),
            "suite_s",
            "s",
            Figure::Value(suite_s),
            None,
        ),
    ];
    let mut report = BenchReport::new(
        "craft",
        format!(
            "{} scenarios of {}, {w}×{h} frames (120° vertical), {cores} core(s)",
            scenarios.len(),
            crate::suite::NAME
        ),
        !cfg!(debug_assertions),
        rows,
    );
    report.notes.push(format!(
        "{:<22} {share:>8.1} % of a step with its frame (medians; target ≤ {TARGET_TO_GO_SHARE} %)",
        "steps_to_go"
    ));
    if let (Some(one), Some(all)) = (cpu_1t, cpu_all) {
        let (one, all) = (one / frames, all / frames);
        report.notes.push(format!(
            "{:<22} {one:>8.2} ms a frame on 1 thread, {all:.2} ms over {cores} threads \
             (≈ {:.2} ms wall when the cores are free)",
            "processor time",
            all / cores as f64
        ));
    }
    Ok(report)
}
