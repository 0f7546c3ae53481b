//! The comma world's performance self-check (`escapade bench comma`,
//! [`World::bench`]).
//!
//! Three figures from the COMMA issue, each against its target:
//!
//! - **puzzle step** (reported, no target): one solver action applied to a puzzle, over
//!   the random pair's actions on 100 instances of each puzzle;
//! - **picture** (target p50 ≤ 5 ms): the solver's view drawn to PNG, for every state
//!   the oracle pair passes through on those instances;
//! - **suite build** (target ≤ 1 s): making the 1000 scenarios of `comma@4` (the paper's
//!   evaluation set, with Telehealth's synthetic stand-ins).
//!
//! It reads the clock and nothing else; `escapade-run` prints the report.

use std::time::Instant;

use escapade_core::bench::{BenchReport, BenchRow, Figure, Timing};
use escapade_core::{CoreError, World};
use rand::Rng;

use crate::CommaWorld;
use crate::puzzle::{PuzzleKind, generate};
use crate::world::COMMA;

/// Target for the picture median, in milliseconds.
pub const TARGET_PICTURE_MS: f64 = 5.0;
/// Target for building `comma@4`, in seconds.
pub const TARGET_SUITE_S: f64 = 1.0;

fn fail(e: crate::CommaError) -> CoreError {
    CoreError::world(e)
}

/// Measures the comma world (see the module docs).
pub fn run(world: &CommaWorld) -> Result<BenchReport, CoreError> {
    let start = Instant::now();
    let suite = world.build_suite(COMMA)?;
    let suite_s = start.elapsed().as_secs_f64();
    std::hint::black_box(&suite);
    let mut steps = Vec::new();
    let mut pictures = Vec::new();
    // the bench's own action choices (not a scenario's): any seeded RNG will do
    let mut rng = escapade_core::seed::rng(7);
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
    let rows = vec![
        BenchRow::new(
            "puzzle step",
            "step_us",
            "µs",
            Figure::Timing(Timing::of(steps)),
            None,
        ),
        BenchRow::new(
            "picture",
            "picture_ms",
            "ms",
            Figure::Timing(Timing::of(pictures)),
            Some(TARGET_PICTURE_MS),
        ),
        BenchRow::new(
            &format!("{COMMA} build"),
            "suite_s",
            "s",
            Figure::Value(suite_s),
            Some(TARGET_SUITE_S),
        ),
    ];
    Ok(BenchReport::new(
        "comma",
        "100 instances of each puzzle".into(),
        !cfg!(debug_assertions),
        rows,
    ))
}
