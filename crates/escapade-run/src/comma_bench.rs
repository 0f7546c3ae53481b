//! The comma world's performance self-check (`escapade bench comma`).
//!
//! Three figures from the COMMA issue, each against its target:
//!
//! - **puzzle step** (reported, no target): one solver action applied to a puzzle, over
//!   the random pair's actions on 100 instances of each puzzle;
//! - **picture** (target p50 ≤ 5 ms): the solver's view drawn to PNG, for every state
//!   the oracle pair passes through on those instances;
//! - **suite build** (target ≤ 1 s): making the 1000 scenarios of `comma@2` (the paper's
//!   evaluation set, with Telehealth's synthetic stand-ins).
//!
//! Timing lives here, not in the world crate, which does no I/O and reads no clock.

use std::fmt;
use std::time::Instant;

use escapade_comma::puzzle::{PuzzleKind, generate};
use escapade_core::World;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::error::{Result, RunError};
use crate::vis_bench::{Timing, timing};

/// Target for the picture median, in milliseconds.
pub const TARGET_PICTURE_MS: f64 = 5.0;
/// Target for building `comma@2`, in seconds.
pub const TARGET_SUITE_S: f64 = 1.0;

/// The results of [`comma_benchmarks`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommaBenchReport {
    /// Whether this was an optimized build.
    pub release: bool,
    /// One solver action applied to a puzzle, in microseconds.
    pub step_us: Timing,
    /// One picture drawn, in milliseconds.
    pub picture_ms: Timing,
    /// Building the 1000 scenarios of `comma@2`, in seconds.
    pub suite_s: f64,
    /// Every target met.
    pub pass: bool,
}

fn fail(e: impl fmt::Display) -> RunError {
    RunError::Core(escapade_core::CoreError::World(e.to_string()))
}

/// Measures the comma world (see the module docs).
pub fn comma_benchmarks() -> Result<CommaBenchReport> {
    let start = Instant::now();
    let suite = escapade_comma::CommaWorld.build_suite(escapade_comma::world::COMMA_V2)?;
    let suite_s = start.elapsed().as_secs_f64();
    std::hint::black_box(&suite);
    let mut steps = Vec::new();
    let mut pictures = Vec::new();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for kind in PuzzleKind::ALL {
        for seed in 1..=100 {
            // the oracle's path: a picture of every state
            let mut p = generate(kind, seed).map_err(fail)?;
            for _ in 0..200 {
                let t = Instant::now();
                let png = p.render().map_err(fail)?;
                pictures.push(t.elapsed().as_secs_f64() * 1e3);
                std::hint::black_box(png);
                let Some(next) = p.correct_actions().into_iter().next() else {
                    break;
                };
                p.act(&next);
            }
            // random actions: the cost of one step
            let mut p = generate(kind, seed).map_err(fail)?;
            let actions = p.actions();
            for _ in 0..10 {
                let a = &actions[rng.random_range(0..actions.len())];
                let t = Instant::now();
                let r = p.act(a);
                steps.push(t.elapsed().as_secs_f64() * 1e6);
                std::hint::black_box(r);
            }
        }
    }
    let step_us = timing(steps);
    let picture_ms = timing(pictures);
    let pass = picture_ms.p50 <= TARGET_PICTURE_MS && suite_s <= TARGET_SUITE_S;
    Ok(CommaBenchReport {
        release: !cfg!(debug_assertions),
        step_us,
        picture_ms,
        suite_s,
        pass,
    })
}

impl fmt::Display for CommaBenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ok = |pass: bool| if pass { "ok" } else { "MISSED" };
        writeln!(
            f,
            "comma world: 100 instances of each puzzle, {} build",
            if self.release { "release" } else { "DEBUG" }
        )?;
        writeln!(
            f,
            "puzzle step            p50 {:>8.2} µs  p90 {:>8.2} µs  max {:>8.2} µs",
            self.step_us.p50, self.step_us.p90, self.step_us.max
        )?;
        writeln!(
            f,
            "picture                p50 {:>8.2} ms  p90 {:>8.2} ms  max {:>8.2} ms  (target p50 <= {TARGET_PICTURE_MS} ms) {}",
            self.picture_ms.p50,
            self.picture_ms.p90,
            self.picture_ms.max,
            ok(self.picture_ms.p50 <= TARGET_PICTURE_MS)
        )?;
        writeln!(
            f,
            "comma@2 build          {:>8.2} s  (target <= {TARGET_SUITE_S} s) {}",
            self.suite_s,
            ok(self.suite_s <= TARGET_SUITE_S)
        )
    }
}
