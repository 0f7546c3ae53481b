//! The project's Python virtual environment, for tests that drive a real Python client
//! (openenv-core, mcp, gymnasium, …) against escapade: `$ESCAPADE_VENV`, else `.venv` at
//! the workspace root, as `scripts/venv.sh` makes it. Where it is missing a test is
//! skipped with a note — except under `CI=true`, where the environment must exist and
//! its absence fails the test rather than hide it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment's interpreter when it imports `modules` (a Python import list, e.g.
/// `"openenv.core, pytest"`); otherwise `None` after a note on standard error naming
/// `what` did not run. Panics under `CI=true` instead of returning `None`.
pub fn python(modules: &str, what: &str) -> Option<PathBuf> {
    let venv = std::env::var_os("ESCAPADE_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv"));
    let python = venv.join("bin/python");
    let works = Command::new(&python)
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if works {
        return Some(python);
    }
    let why = format!(
        "{} cannot import {modules} (scripts/venv.sh makes the environment; $ESCAPADE_VENV \
         points elsewhere): {what} did not run",
        python.display()
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("CI must have the project's Python environment: {why}");
    }
    eprintln!("note: {why}");
    None
}
