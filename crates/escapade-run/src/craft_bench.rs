//! The craft world's performance self-check (`escapade bench craft`).
//!
//! Six figures from the MM-Escape issue; two have targets:
//!
//! - **frame, 1 thread** (target p50 ≤ 60 ms): one first-person frame of a furnished
//!   room at the environment's default size — the original client's 2048 × 1024 with
//!   its 120° vertical field of view — drawn by the ray caster on the calling thread,
//!   from the start pose of every fourth `mm-escape@2` scenario looking four ways;
//! - **frame, all cores** (target p50 ≤ 25 ms): the same frames with one thread per core;
//! - **PNG encode**: each of those frames encoded as an observation carries it;
//! - **env step, no frame**: one `CraftEnv::step` without frames along the oracle's
//!   path through those scenarios (walking, aiming, acting: the rules and their rays);
//! - **env step with frame**: the same steps with a default-size frame, its PNG and its
//!   alt text (what a model's observation costs);
//! - **suite build + verify**: generating the 73 scenarios of `mm-escape@2` and
//!   escaping each with the oracle through the environment.
//!
//! Timing lives here, not in the world crate, which does no I/O and reads no clock.

use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use escapade_core::{Action, Env};
use escapade_craft::motion::Body;
use escapade_craft::oracle::OracleAgent;
use escapade_craft::room::{DEFAULT_HEIGHT, DEFAULT_WIDTH, default_horizontal_fov};
use escapade_craft::{CraftEnv, CraftScenario, CraftWorld, EnvOptions, WorldState};
use escapade_render::{FrameOptions, Prepared};
use serde::Serialize;

use crate::error::{Result, RunError};
use crate::vis_bench::{Timing, timing};

/// Target for the one-thread frame median, in milliseconds.
pub const TARGET_FRAME_MS: f64 = 60.0;
/// Target for the all-cores frame median, in milliseconds.
pub const TARGET_FRAME_ALL_MS: f64 = 25.0;
/// Frame size measured (the environment's default).
pub const FRAME: (u32, u32) = (DEFAULT_WIDTH, DEFAULT_HEIGHT);
/// Every how many suite scenarios one is measured.
const EVERY: usize = 4;

/// The results of [`craft_benchmarks`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CraftBenchReport {
    /// Whether this was an optimized build.
    pub release: bool,
    /// Scenarios measured (every fourth of the suite).
    pub scenarios: usize,
    /// Threads of "all cores".
    pub cores: usize,
    /// One default-size frame on one thread, in milliseconds.
    pub frame_1t_ms: Timing,
    /// One default-size frame on all cores, in milliseconds.
    pub frame_all_ms: Timing,
    /// Encoding one frame as PNG, in milliseconds.
    pub png_ms: Timing,
    /// One env step without a frame, in microseconds.
    pub step_us: Timing,
    /// One env step with a default-size frame (PNG and alt text), in milliseconds.
    pub step_frame_ms: Timing,
    /// Processor time a one-thread frame took, on average, in milliseconds (what its
    /// wall time would be on an idle machine); `None` where the system does not say.
    pub frame_1t_cpu_ms: Option<f64>,
    /// Processor time an all-cores frame took, summed over its threads, on average, in
    /// milliseconds (over `cores`, a bound on its wall time on an idle machine).
    pub frame_all_cpu_ms: Option<f64>,
    /// Building `mm-escape@2` and escaping every scenario with the oracle, in seconds.
    pub suite_s: f64,
    /// Every target met.
    pub pass: bool,
}

fn fail(e: impl fmt::Display) -> RunError {
    RunError::Core(escapade_core::CoreError::World(e.to_string()))
}

/// Milliseconds since `t`.
fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// The processor time this process has used so far (user and system, every thread,
/// those that have ended too), in milliseconds, from `/proc/self/stat` (Linux; its
/// clock ticks are 1/100 s). `None` elsewhere. Summed over many frames the tick
/// rounding evens out; it tells a busy machine (wall time well above it) from a slow
/// frame.
fn cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // the fields after the command name, which is in parentheses and may hold spaces
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks * 10.0)
}

/// Measures the craft world (see the module docs).
pub fn craft_benchmarks() -> Result<CraftBenchReport> {
    let world = CraftWorld::new();
    let start = Instant::now();
    let build = crate::suite::build_suite(&world, "mm-escape@2", crate::Progress::quiet())?;
    let suite_s = start.elapsed().as_secs_f64();
    if !build.all_solved() {
        return Err(fail("the oracle failed on an mm-escape@2 scenario"));
    }
    let scenarios: Vec<Arc<CraftScenario>> = build
        .json
        .iter()
        .step_by(EVERY)
        .map(|json| serde_json::from_str(json).map(Arc::new).map_err(fail))
        .collect::<Result<_>>()?;

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

    let (mut steps, mut steps_frame) = (Vec::new(), Vec::new());
    for s in &scenarios {
        for frames in [false, true] {
            let options = EnvOptions {
                width,
                height,
                frames,
                threads: 1,
                ..EnvOptions::default()
            };
            let mut env = CraftEnv::new(s.clone(), options).map_err(fail)?;
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
                }
                if step.terminated || step.truncated {
                    break;
                }
                std::hint::black_box(step);
            }
        }
    }

    let frames_1t_count = frames_1t.len().max(1);
    let frame_1t_ms = timing(frames_1t);
    let frame_all_ms = timing(frames_all);
    let pass = frame_1t_ms.p50 <= TARGET_FRAME_MS && frame_all_ms.p50 <= TARGET_FRAME_ALL_MS;
    Ok(CraftBenchReport {
        release: !cfg!(debug_assertions),
        scenarios: scenarios.len(),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        frame_1t_ms,
        frame_all_ms,
        frame_1t_cpu_ms: cpu_1t.map(|c| c / frames_1t_count as f64),
        frame_all_cpu_ms: cpu_all.map(|c| c / frames_1t_count as f64),
        png_ms: timing(pngs),
        step_us: timing(steps),
        step_frame_ms: timing(steps_frame),
        suite_s,
        pass,
    })
}

impl fmt::Display for CraftBenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ok = |pass: bool| if pass { "ok" } else { "MISSED" };
        let (w, h) = FRAME;
        writeln!(
            f,
            "craft world: {} scenarios of mm-escape@2, {w}×{h} frames (120° vertical), {} core(s), {} build",
            self.scenarios,
            self.cores,
            if self.release { "release" } else { "DEBUG" }
        )?;
        let row = |f: &mut fmt::Formatter<'_>, name: &str, t: &Timing, unit: &str| {
            write!(
                f,
                "{name:<22} p50 {:>8.2} {unit}  p90 {:>8.2} {unit}  max {:>8.2} {unit}",
                t.p50, t.p90, t.max
            )
        };
        row(f, "frame, 1 thread", &self.frame_1t_ms, "ms")?;
        writeln!(
            f,
            "  (target p50 <= {TARGET_FRAME_MS} ms) {}",
            ok(self.frame_1t_ms.p50 <= TARGET_FRAME_MS)
        )?;
        row(f, "frame, all cores", &self.frame_all_ms, "ms")?;
        writeln!(
            f,
            "  (target p50 <= {TARGET_FRAME_ALL_MS} ms) {}",
            ok(self.frame_all_ms.p50 <= TARGET_FRAME_ALL_MS)
        )?;
        if let (Some(one), Some(all)) = (self.frame_1t_cpu_ms, self.frame_all_cpu_ms) {
            writeln!(
                f,
                "{:<22} {one:>8.2} ms a frame on 1 thread, {all:.2} ms over {} threads \
                 (≈ {:.2} ms wall when the cores are free)",
                "processor time",
                self.cores,
                all / self.cores as f64
            )?;
        }
        row(f, "PNG encode", &self.png_ms, "ms")?;
        writeln!(f)?;
        row(f, "env step, no frame", &self.step_us, "µs")?;
        writeln!(f)?;
        row(f, "env step with frame", &self.step_frame_ms, "ms")?;
        writeln!(f)?;
        writeln!(f, "mm-escape@2 build + verify {:>8.2} s", self.suite_s)
    }
}
