//! One Python exception for every Rust error: `escapade.EscapadeError`, whose message is
//! the Rust error's message (what the command line prints after `error:`).

use pyo3::prelude::*;

pyo3::create_exception!(
    _escapade,
    EscapadeError,
    pyo3::exceptions::PyException,
    "An error of escapade's Rust core: an unknown world, suite or option, a bad scenario, \
     stepping a finished episode. The message is the Rust error's."
);

/// Adds the exception class to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("EscapadeError", m.py().get_type::<EscapadeError>())
}

/// `EscapadeError` carrying `e`'s message (its whole chain of causes).
pub fn to_py(e: impl std::fmt::Display) -> PyErr {
    EscapadeError::new_err(e.to_string())
}
