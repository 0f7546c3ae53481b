//! `escapade._escapade`: the native module of the `escapade` Python package.
//!
//! The package plays the very worlds the `escapade` binary plays (the list comes from
//! `escapade-worlds`) through their Rust [`escapade_core::Env`]s — there is no second
//! implementation in Python. This module is deliberately thin: it converts between
//! Python values and the core types, releases the GIL while Rust steps, draws and
//! builds, and turns every Rust error into `escapade.EscapadeError` with the Rust
//! message. Gymnasium, PettingZoo and Inspect AI adapters are Python code in
//! `python/escapade/`; the native API is documented in `escapade/_escapade.pyi`.
//!
//! Start reading at [`env::Env`]. Not here: run directories and agents that call
//! models (the runner's job; a Ray scale-out adds its functions in a module of its own).
//!
//! Adding native functions: put them in a module file of this directory with a
//! `register(module)` function and call it from [`_escapade`] below.

mod agent; // Agent: a world's baseline agents (oracle, random) acting on an Env's state
mod catalog; // worlds, suites and the scenarios of a suite, file or directory
mod convert; // Python values <-> observations, steps, actions, JSON
mod env; // Env: one world environment on one scenario
mod error; // EscapadeError and the conversion of Rust errors to it
mod image; // decoding a picture's PNG into RGB bytes for numpy
mod ray; // escapade.ray: a run's episodes played by Ray workers, committed once by the driver
mod reward; // Reward: the reward a trainer asks for, escapade_core's definition

use pyo3::prelude::*;

/// The native module (`escapade._escapade`).
#[pymodule]
fn _escapade(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    error::register(m)?;
    catalog::register(m)?;
    env::register(m)?;
    agent::register(m)?;
    image::register(m)?;
    ray::register(m)?;
    reward::register(m)?;
    Ok(())
}
