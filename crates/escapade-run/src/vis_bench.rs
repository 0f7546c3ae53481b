//! The vis world's performance self-check (`escapade bench vis`).
//!
//! Three figures the VisEscape issue asks for, each against its target:
//!
//! - **env step** (target p50 ≤ 20 µs, without drawing): every room of `visescape@2` is
//!   played by its oracle and by a random player, each step timed on its own;
//! - **view render** (target p50 ≤ 5 ms): every view along the oracle's path drawn to PNG
//!   and described in text (what an observation with an image costs);
//! - **suite build + verify** (target ≤ 2 s): generating, linting and solving all 20
//!   rooms, then replaying each oracle through the environment.
//!
//! Timing lives here, not in the world crate, which does no I/O and reads no clock.

use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use escapade_core::{Action, Agent, Env};
use escapade_vis::baseline::{OracleAgent, RandomAgent};
use escapade_vis::{Game, Room, VisEnv, VisWorld, describe, oracle, render};
use serde::Serialize;

use crate::error::{Result, RunError};

fn fail(e: impl fmt::Display) -> RunError {
    RunError::Core(escapade_core::CoreError::World(e.to_string()))
}

/// Target for the env-step median, in microseconds.
pub const TARGET_STEP_US: f64 = 20.0;
/// Target for the view-render median, in milliseconds.
pub const TARGET_RENDER_MS: f64 = 5.0;
/// Target for building and verifying `visescape@2`, in seconds.
pub const TARGET_SUITE_S: f64 = 2.0;

/// A timing distribution.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timing {
    /// Samples.
    pub n: usize,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// Largest.
    pub max: f64,
}

/// The distribution of `xs`.
pub(crate) fn timing(mut xs: Vec<f64>) -> Timing {
    xs.sort_by(f64::total_cmp);
    let at = |q: f64| {
        if xs.is_empty() {
            0.0
        } else {
            xs[((xs.len() - 1) as f64 * q).round() as usize]
        }
    };
    Timing {
        n: xs.len(),
        p50: at(0.5),
        p90: at(0.9),
        max: at(1.0),
    }
}

/// The results of [`vis_benchmarks`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VisBenchReport {
    /// Whether this was an optimized build.
    pub release: bool,
    /// Env step times without drawing, in microseconds.
    pub step_us: Timing,
    /// View draw + describe times, in milliseconds.
    pub render_ms: Timing,
    /// Build + verify of `visescape@2`, in seconds.
    pub suite_s: f64,
    /// Rooms built.
    pub rooms: usize,
    /// Every target met.
    pub pass: bool,
}

/// Measures the vis world (see the module docs).
pub fn vis_benchmarks() -> Result<VisBenchReport> {
    let world = VisWorld::new();
    let start = Instant::now();
    let build = crate::suite::build_suite(&world, "visescape@2", crate::Progress::quiet())?;
    let suite_s = start.elapsed().as_secs_f64();
    if !build.all_solved() {
        return Err(fail("the oracle failed on a visescape@2 room"));
    }
    let mut steps = Vec::new();
    let mut renders = Vec::new();
    for json in &build.json {
        let room = Room::from_json(json).map_err(fail)?;
        let game = Arc::new(Game::new(room).map_err(fail)?);
        let solution = oracle::solve(&game).map_err(fail)?;
        for state in &solution.states {
            let t = Instant::now();
            let png = render::render(&game, state).map_err(fail)?;
            let text = describe::describe(&game, state);
            renders.push(t.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box((png, text));
        }
        let agents: [Box<dyn Agent>; 2] = [
            Box::new(OracleAgent::new(&game).map_err(fail)?),
            Box::new(RandomAgent::new(7)),
        ];
        for mut agent in agents {
            let mut env = VisEnv::new(game.clone()).map_err(fail)?.without_images();
            let mut observation = env.reset(1);
            agent.reset(1, "", &[]);
            for _ in 0..300 {
                let action = agent
                    .act(&observation, None)
                    .map(|t| t.action)
                    .unwrap_or_else(|_| Action::text("step back"));
                let t = Instant::now();
                let step = env.step(&action).map_err(fail)?;
                steps.push(t.elapsed().as_secs_f64() * 1e6);
                if step.terminated || step.truncated {
                    break;
                }
                observation = step.observation;
            }
        }
    }
    let step_us = timing(steps);
    let render_ms = timing(renders);
    let pass = step_us.p50 <= TARGET_STEP_US
        && render_ms.p50 <= TARGET_RENDER_MS
        && suite_s <= TARGET_SUITE_S;
    Ok(VisBenchReport {
        release: !cfg!(debug_assertions),
        step_us,
        render_ms,
        suite_s,
        rooms: build.json.len(),
        pass,
    })
}

impl fmt::Display for VisBenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ok = |pass: bool| if pass { "ok" } else { "MISSED" };
        writeln!(
            f,
            "vis world: {} rooms of visescape@2, {} build",
            self.rooms,
            if self.release { "release" } else { "DEBUG" }
        )?;
        writeln!(
            f,
            "env step, no drawing   p50 {:>8.2} µs  p90 {:>8.2} µs  max {:>8.2} µs  (target p50 <= {TARGET_STEP_US} µs) {}",
            self.step_us.p50,
            self.step_us.p90,
            self.step_us.max,
            ok(self.step_us.p50 <= TARGET_STEP_US)
        )?;
        writeln!(
            f,
            "view draw + describe   p50 {:>8.2} ms  p90 {:>8.2} ms  max {:>8.2} ms  (target p50 <= {TARGET_RENDER_MS} ms) {}",
            self.render_ms.p50,
            self.render_ms.p90,
            self.render_ms.max,
            ok(self.render_ms.p50 <= TARGET_RENDER_MS)
        )?;
        writeln!(
            f,
            "suite build + verify   {:>8.2} s  (target <= {TARGET_SUITE_S} s) {}",
            self.suite_s,
            ok(self.suite_s <= TARGET_SUITE_S)
        )
    }
}
