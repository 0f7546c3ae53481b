//! The vis world's performance self-check (`escapade bench vis`, [`World::bench`]).
//!
//! The figures the VisEscape issues ask for, each against its target:
//!
//! - **env step** (target p50 ≤ 20 µs, without drawing): every room of `visescape@4` is
//!   played by its oracle and by a random player, each step timed on its own;
//! - **picture** (target p50 ≤ 0.25 ms, issue 30): every view along the oracle's path
//!   drawn and encoded to PNG;
//! - **view render** (target p50 ≤ 5 ms): the same picture and its text description
//!   (what an observation with an image costs);
//! - **suite build + verify** (target ≤ 2 s): generating, linting and solving all 20
//!   rooms, then replaying each oracle through the environment.
//!
//! It reads the clock and nothing else; `escapade-run` prints the report.

use std::sync::Arc;
use std::time::Instant;

use escapade_core::bench::{BenchReport, BenchRow, Figure, Timing};
use escapade_core::{Action, Agent, CoreError, Env, EpisodeStart, World};

use crate::baseline::{OracleAgent, RandomAgent};
use crate::world::VISESCAPE;
use crate::{Game, Room, VisEnv, VisWorld, describe, oracle, render};

/// Target for the env-step median, in microseconds.
pub const TARGET_STEP_US: f64 = 20.0;
/// Target for the picture median (drawn and encoded), in milliseconds (issue 30).
pub const TARGET_PICTURE_MS: f64 = 0.25;
/// Target for the view-render median, in milliseconds.
pub const TARGET_RENDER_MS: f64 = 5.0;
/// Target for building and verifying `visescape@4`, in seconds.
pub const TARGET_SUITE_S: f64 = 2.0;

/// Measures the vis world (see the module docs).
pub fn run(world: &VisWorld) -> Result<BenchReport, CoreError> {
    let start = Instant::now();
    let rooms = world.build_suite(VISESCAPE)?;
    for json in &rooms {
        if !world.oracle(json)?.solved {
            return Err(CoreError::world(format!(
                "the oracle failed on a {VISESCAPE} room"
            )));
        }
    }
    let suite_s = start.elapsed().as_secs_f64();
    let mut steps = Vec::new();
    let mut pictures = Vec::new();
    let mut renders = Vec::new();
    for json in &rooms {
        let room = Room::from_json(json)?;
        let game = Arc::new(Game::new(room)?);
        let solution = oracle::solve(&game)?;
        for state in &solution.states {
            let t = Instant::now();
            // drawn and encoded every time: not through the pictures kept by drawing
            let png = render::draw(&game, state, render::Style::default())?
                .png()
                .map_err(crate::VisError::Render)?;
            pictures.push(t.elapsed().as_secs_f64() * 1e3);
            let text = describe::describe(&game, state);
            renders.push(t.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box((png, text));
        }
        let agents: [Box<dyn Agent>; 2] = [
            Box::new(OracleAgent::new(&game)?),
            Box::new(RandomAgent::new(7)),
        ];
        for mut agent in agents {
            let mut env = VisEnv::new(game.clone())?.without_images();
            let mut observation = env.reset(1);
            agent.reset(EpisodeStart::new(1, "", &[]));
            for _ in 0..300 {
                let action = agent
                    .act(&observation, None)
                    .map(|t| t.action)
                    .unwrap_or_else(|_| Action::text("step back"));
                let t = Instant::now();
                let step = env.step(&action)?;
                steps.push(t.elapsed().as_secs_f64() * 1e6);
                if step.terminated || step.truncated {
                    break;
                }
                observation = step.observation;
            }
        }
    }
    let rows = vec![
        BenchRow::new(
            "env step, no drawing",
            "step_us",
            "µs",
            Figure::Timing(Timing::of(steps)),
            Some(TARGET_STEP_US),
        ),
        BenchRow::new(
            "picture draw + encode",
            "picture_ms",
            "ms",
            Figure::Timing(Timing::of(pictures)),
            Some(TARGET_PICTURE_MS),
        ),
        BenchRow::new(
            "view draw + describe",
            "render_ms",
            "ms",
            Figure::Timing(Timing::of(renders)),
            Some(TARGET_RENDER_MS),
        ),
        BenchRow::new(
            "suite build + verify",
            "suite_s",
            "s",
            Figure::Value(suite_s),
            Some(TARGET_SUITE_S),
        ),
    ];
    Ok(BenchReport::new(
        "vis",
        format!("{} rooms of {VISESCAPE}", rooms.len()),
        !cfg!(debug_assertions),
        rows,
    ))
}
