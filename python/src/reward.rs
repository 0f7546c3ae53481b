//! `Reward`: the reward a trainer asks for (`reward=progress|sparse|distance`), computed
//! by [`escapade_core::reward::Reward`] — the one definition the OpenEnv server and the
//! Python environments share, so the Gymnasium and PettingZoo envs do not keep a copy
//! of its rules in Python.

use escapade_core::reward::{Reward as Kind, Standing};
use pyo3::prelude::*;

use crate::error::to_py;

/// Adds the `Reward` class to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("REWARDS", Kind::NAMES.to_vec())?;
    m.add_class::<Reward>()
}

/// Where an episode stands as Python hands it over: `(progress, steps_to_go, success)`.
type Stand = (f64, Option<u32>, bool);

fn standing((progress, steps_to_go, success): Stand) -> Standing {
    Standing {
        progress,
        steps_to_go,
        success,
    }
}

/// One of the rewards (see `escapade_core::reward`), read from its name.
#[pyclass(module = "escapade._escapade", frozen)]
pub struct Reward(Kind);

#[pymethods]
impl Reward {
    /// The reward named `kind` (`progress`, `sparse` or `distance`, any case); another
    /// name raises `EscapadeError` naming the choices.
    #[new]
    fn new(kind: &str) -> PyResult<Self> {
        Kind::parse(kind).map(Reward).map_err(to_py)
    }

    /// The reward's name.
    #[getter]
    fn name(&self) -> &'static str {
        self.0.name()
    }

    /// The reward of a step from `before` to `after`, each `(progress, steps_to_go,
    /// success)`.
    fn of(&self, before: Stand, after: Stand) -> f64 {
        self.0.of(standing(before), standing(after))
    }

    fn __repr__(&self) -> String {
        format!("Reward({:?})", self.0.name())
    }
}
