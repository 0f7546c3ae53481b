//! What there is to play: the worlds (from `escapade-worlds`, the binary's own list), their
//! suites, and the scenarios of a suite name, scenario file or directory — resolved by
//! `escapade_run::resolve`, exactly as `escapade run <suite|file|dir>` resolves them.

use std::sync::OnceLock;

use escapade_core::World;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::error::{EscapadeError, to_py};

/// Adds the catalogue functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(worlds, m)?)?;
    m.add_function(wrap_pyfunction!(suites, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    Ok(())
}

/// The worlds, started once per process (the tools world's Python sandbox memoizes its
/// runs, so every environment of a process shares one).
pub fn registry() -> PyResult<&'static [Box<dyn World>]> {
    static WORLDS: OnceLock<Result<Vec<Box<dyn World>>, String>> = OnceLock::new();
    WORLDS
        .get_or_init(|| escapade_worlds::worlds().map_err(|e| e.to_string()))
        .as_deref()
        .map_err(|e| EscapadeError::new_err(e.clone()))
}

/// The world called `name`.
pub fn world(name: &str) -> PyResult<&'static dyn World> {
    escapade_run::source::find_world(registry()?, name).map_err(to_py)
}

/// Every world: `name`, `description`, `env_options` (key → what it sets), `agent_kinds`.
#[pyfunction]
fn worlds(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for w in registry()? {
        let d = PyDict::new(py);
        d.set_item("name", w.name())?;
        d.set_item("description", w.description())?;
        let options = PyDict::new(py);
        for (k, v) in w.env_options() {
            options.set_item(k, v)?;
        }
        d.set_item("env_options", options)?;
        d.set_item("agent_kinds", w.agent_kinds())?;
        list.append(d)?;
    }
    Ok(list)
}

/// Every suite of every world: `name`, `world`, `description`, `tiers` (`(difficulty,
/// count)` pairs) and the paper's run `settings` (`epochs`, `agent`, `source`).
#[pyfunction]
fn suites(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for spec in escapade_run::source::all_suites(registry()?) {
        let d = PyDict::new(py);
        d.set_item("name", &spec.name)?;
        d.set_item("world", &spec.world)?;
        d.set_item("description", &spec.description)?;
        d.set_item("tiers", &spec.tiers)?;
        d.set_item("settings", settings(py, &spec.settings)?)?;
        list.append(d)?;
    }
    Ok(list)
}

fn settings<'py>(
    py: Python<'py>,
    s: &escapade_core::env::SuiteSettings,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("epochs", s.epochs)?;
    d.set_item("agent", &s.agent)?;
    d.set_item("source", &s.source)?;
    Ok(d)
}

/// The scenarios of a suite name (`agentescape@2`, or `agentescape` for its latest
/// version), a scenario file or a directory: `world`, `label` (the run label: suite name,
/// `file:<stem>`, `dir:<name>`), `settings`, `ids` and `scenarios` (JSON texts), in
/// suite order. Building a suite runs with the GIL released.
#[pyfunction]
fn resolve<'py>(py: Python<'py>, source: &str) -> PyResult<Bound<'py, PyDict>> {
    let worlds = registry()?;
    let resolved = py
        .detach(|| {
            escapade_run::resolve(worlds, source).map(|s| {
                let ids = s.ids();
                let scenarios: Vec<String> = s.scenarios.into_iter().map(|(_, j)| j).collect();
                (s.world.name(), s.label, s.settings, ids, scenarios)
            })
        })
        .map_err(to_py)?;
    let (world, label, settings_, ids, scenarios) = resolved;
    let d = PyDict::new(py);
    d.set_item("world", world)?;
    d.set_item("label", label)?;
    d.set_item("settings", settings(py, &settings_)?)?;
    d.set_item("ids", ids)?;
    d.set_item("scenarios", scenarios)?;
    Ok(d)
}
