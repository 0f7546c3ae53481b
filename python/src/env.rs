//! `Env`: one world environment on one scenario, the Rust [`escapade_core::Env`] behind a
//! Python class. `reset` and `step` run with the GIL released (they may draw pictures or
//! run the tools world's Python sandbox), so environments on several Python threads step
//! at once. The last observation and step are kept so that a baseline [`crate::agent`]
//! can act on them without copying them through Python.

use std::sync::{Mutex, MutexGuard};

use escapade_core::{Observation, Options, PictureForm, ScenarioHeader, Step, ToolSchema};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::catalog::world;
use crate::convert;
use crate::error::{EscapadeError, to_py};

/// Adds the `Env` class to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Env>()
}

/// The Rust environment and what it last showed.
pub struct State {
    /// The world's environment.
    pub env: Box<dyn escapade_core::Env + Send>,
    /// The last observation (`None` before the first reset).
    pub observation: Option<Observation>,
    /// The last step of this episode (`None` right after a reset).
    pub last: Option<Step>,
    /// The function schemas last handed to Python and the list they were handed as:
    /// the same list again while the world's schemas do not change (a Gymnasium env asks
    /// at every step, and most worlds' schemas never change).
    schemas: Option<(Vec<ToolSchema>, Py<PyList>)>,
}

/// A world's environment on one scenario, with the world options (`-W key=value`).
#[pyclass(module = "escapade._escapade", frozen)]
pub struct Env {
    /// The world's name.
    pub world: &'static str,
    /// The scenario as JSON.
    pub scenario: String,
    /// The scenario's id.
    pub id: String,
    /// The world options it was opened with.
    pub options: Options,
    /// Whether it asked for pictures as pixels.
    pixels: bool,
    state: Mutex<State>,
}

impl Env {
    /// The environment's state, locked.
    ///
    /// Never hold it while asking for the GIL back (a thread holding the GIL may be
    /// waiting for it): work that releases the GIL locks it inside [`Env::with_state`].
    pub fn state(&self) -> MutexGuard<'_, State> {
        // a panic inside a world while stepping poisons the lock; the state is still
        // the world's own, so it is handed on (the panic itself was raised in Python)
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` on the state with the GIL released, the lock taken and given back
    /// inside.
    pub fn with_state<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut State) -> R + Send) -> R {
        py.detach(|| f(&mut self.state()))
    }
}

#[pymethods]
impl Env {
    /// Opens world `world`'s environment on `scenario` (JSON text) with `options`.
    /// `pixels=True` asks for pictures as pixels where the world draws them itself
    /// (craft): an image's `pixels` is then `(height, width, rgb)` and its `png` None.
    /// `steps_to_go=False` tells the world its distance is not wanted
    /// ([`escapade_core::Env::set_distance`]): craft then skips the oracle's replan each
    /// step and answers None; other worlds may still answer.
    #[new]
    #[pyo3(signature = (world, scenario, options = None, *, pixels = false, steps_to_go = true))]
    fn new(
        py: Python<'_>,
        world: &str,
        scenario: String,
        options: Option<Options>,
        pixels: bool,
        steps_to_go: bool,
    ) -> PyResult<Self> {
        let w = crate::catalog::world(world)?;
        let options = options.unwrap_or_default();
        let id = ScenarioHeader::parse(&scenario).map_err(to_py)?.id;
        let mut env = py.detach(|| w.env(&scenario, &options)).map_err(to_py)?;
        if pixels {
            env.set_picture_form(PictureForm::Pixels);
        }
        env.set_distance(steps_to_go);
        Ok(Env {
            world: w.name(),
            scenario,
            id,
            options,
            pixels,
            state: Mutex::new(State {
                env,
                observation: None,
                last: None,
                schemas: None,
            }),
        })
    }

    /// The world's name (`tools`, `vis`, `comma`, `craft`).
    #[getter]
    fn world(&self) -> &'static str {
        self.world
    }

    /// The scenario's id.
    #[getter]
    fn id(&self) -> &str {
        &self.id
    }

    /// The scenario as JSON text.
    #[getter]
    fn scenario(&self) -> &str {
        &self.scenario
    }

    /// The world options the environment was opened with.
    #[getter]
    fn options(&self) -> Options {
        self.options.clone()
    }

    /// Starts an episode; returns the first observation.
    fn reset<'py>(&self, py: Python<'py>, seed: u64) -> PyResult<Bound<'py, PyDict>> {
        self.with_state(py, |s| {
            s.observation = Some(s.env.reset(seed));
            s.last = None;
        });
        let state = self.state();
        let first = state
            .observation
            .as_ref()
            .expect("reset stored an observation");
        convert::observation(py, first)
    }

    /// Applies one action; returns the step. A bad action is feedback, not an error;
    /// stepping before `reset` or after the episode ended raises `EscapadeError`.
    fn step<'py>(
        &self,
        py: Python<'py>,
        action: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let action = convert::action(action)?;
        self.with_state(py, |s| {
            let step = s.env.step(&action)?;
            s.observation = Some(step.observation.clone());
            s.last = Some(step);
            Ok::<_, escapade_core::EnvError>(())
        })
        .map_err(to_py)?;
        let state = self.state();
        convert::step(py, state.last.as_ref().expect("step stored the step"))
    }

    /// Starts an episode where a recorded one stood before step `step`: episode
    /// `scenario` epoch `epoch` of the run in directory `run` (what `escapade run --from`
    /// forks), replayed into this environment with the checks `resume` makes. Returns the
    /// observation at `step` and the progress before it. The recording must be of this
    /// environment's scenario and world options; a recording that does not replay raises
    /// `EscapadeError` naming the step.
    fn restore<'py>(
        &self,
        py: Python<'py>,
        run: std::path::PathBuf,
        scenario: &str,
        epoch: u32,
        step: u32,
    ) -> PyResult<(Bound<'py, PyDict>, f64)> {
        let fork =
            escapade_run::replay::Fork::open(&run, scenario, epoch, step, true).map_err(to_py)?;
        fork.fits(self.world, &self.id, &self.options)
            .map_err(to_py)?;
        let progress = self
            .with_state(py, |s| {
                // the recording's pictures are checked by their PNG's address
                if self.pixels {
                    s.env.set_picture_form(PictureForm::Png);
                }
                let restored = fork.restore(s.env.as_mut());
                if self.pixels {
                    s.env.set_picture_form(PictureForm::Pixels);
                }
                let (observation, progress) = restored?;
                s.observation = Some(observation);
                s.last = None;
                Ok::<_, escapade_run::RunError>(progress)
            })
            .map_err(to_py)?;
        let state = self.state();
        let at = state
            .observation
            .as_ref()
            .expect("restore stored an observation");
        Ok((convert::observation(py, at)?, progress))
    }

    /// The oracle's distance from the current state: the fewest steps still needed to
    /// escape (0 once won), or None where the world cannot say (see docs/world-contract.md).
    fn steps_to_go(&self) -> Option<u32> {
        self.state().env.steps_to_go()
    }

    /// The world's system prompt.
    fn system_prompt(&self) -> String {
        self.state().env.system_prompt()
    }

    /// The roles that take turns (empty: the single role `agent`).
    fn roles(&self) -> Vec<String> {
        self.state().env.roles()
    }

    /// The system prompt of one role.
    fn role_prompt(&self, role: &str) -> PyResult<String> {
        let state = self.state();
        let roles = state.env.roles();
        if !roles.is_empty() && !roles.iter().any(|r| r == role) {
            return Err(EscapadeError::new_err(format!(
                "unknown role `{role}`; known: {}",
                roles.join(", ")
            )));
        }
        Ok(state.env.role_prompt(role))
    }

    /// The function schemas of the current state. While they do not change this is the
    /// same list object each time: read it, do not change it.
    fn tool_schemas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut state = self.state();
        let tools = state.env.tool_schemas();
        if let Some((kept, list)) = &state.schemas
            && *kept == tools
        {
            return Ok(list.bind(py).clone());
        }
        let list = convert::tool_schemas(py, &tools)?;
        state.schemas = Some((tools, list.clone().unbind()));
        Ok(list)
    }

    /// The episode's outcome so far: `success`, `steps`, `metrics`.
    fn outcome<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let outcome = self.state().env.outcome();
        convert::outcome(py, &outcome)
    }

    /// Checks an action without applying it: None when the world reads it, else the
    /// message a model can act on.
    fn check_action(&self, action: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        let action = convert::action(action)?;
        Ok(self.state().env.check_action(&action).err())
    }

    /// How many times an agent loop may re-ask after `check_action` rejects a reply.
    fn reask_limit(&self) -> u32 {
        self.state().env.reask_limit()
    }

    fn __repr__(&self) -> String {
        format!("Env(world={:?}, id={:?})", self.world, self.id)
    }
}

/// The world of an environment (for agents opened on it).
pub fn world_of(env: &Env) -> PyResult<&'static dyn escapade_core::World> {
    world(env.world)
}
