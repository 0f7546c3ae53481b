//! `Agent`: a world's baseline agents (`oracle`, `random`, and world-specific kinds such
//! as comma's `oracle-talk`) for an [`Env`]. They act on the state the `Env` holds, so
//! Python never sees more than the action: an oracle's action is what it would play,
//! never the answer behind it. Used as a partner in two-role worlds and to test adapters
//! end to end; no adapter hands an agent under test one of these.

use std::sync::Mutex;

use escapade_core::agent::{EpisodeStart, role_prompts};
use pyo3::prelude::*;

use crate::convert;
use crate::env::{Env, world_of};
use crate::error::{EscapadeError, to_py};

/// Adds the `Agent` class to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Agent>()
}

/// A baseline agent of `env`'s world, for `env`'s scenario and options.
#[pyclass(module = "escapade._escapade", frozen)]
pub struct Agent {
    kind: String,
    agent: Mutex<Box<dyn escapade_core::Agent + Send>>,
}

#[pymethods]
impl Agent {
    /// Makes agent `kind` of `env`'s world (see `worlds()` for the kinds) with `seed`.
    #[new]
    #[pyo3(signature = (env, kind, seed = 0))]
    fn new(env: &Env, kind: &str, seed: u64) -> PyResult<Self> {
        let world = world_of(env)?;
        let agent = world
            .agent(kind, &env.scenario, seed, &env.options)
            .map_err(to_py)?;
        Ok(Agent {
            kind: kind.to_string(),
            agent: Mutex::new(agent),
        })
    }

    /// The agent's name as runs record it.
    #[getter]
    fn name(&self) -> String {
        self.agent.lock().unwrap_or_else(|p| p.into_inner()).name()
    }

    /// The kind it was made as.
    #[getter]
    fn kind(&self) -> &str {
        &self.kind
    }

    /// Tells the agent an episode of `env` started with `seed` (call after `env.reset`).
    fn reset(&self, env: &Env, seed: u64) {
        let state = env.state();
        let (prompt, tools) = (state.env.system_prompt(), state.env.tool_schemas());
        let roles = role_prompts(state.env.as_ref());
        let mut agent = self.agent.lock().unwrap_or_else(|p| p.into_inner());
        agent.reset(EpisodeStart {
            roles: &roles,
            ..EpisodeStart::new(seed, &prompt, &tools)
        });
    }

    /// The agent's next action on `env`'s last observation (in the form `Env.step`
    /// takes).
    fn act<'py>(&self, py: Python<'py>, env: &Env) -> PyResult<Bound<'py, PyAny>> {
        let turn = env.with_state(py, |state| {
            let Some(observation) = state.observation.as_ref() else {
                return Err("act called before the env's reset".to_string());
            };
            let mut agent = self.agent.lock().unwrap_or_else(|p| p.into_inner());
            agent
                .act(observation, state.last.as_ref())
                .map_err(|e| e.to_string())
        });
        let turn = turn.map_err(EscapadeError::new_err)?;
        convert::action_to_py(py, &turn.action)
    }

    fn __repr__(&self) -> String {
        format!("Agent(kind={:?})", self.kind)
    }
}
