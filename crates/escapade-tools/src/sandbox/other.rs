//! Elsewhere than Linux there is no sandbox: [`super::PythonSandbox::new`] says so.

use super::{Isolation, SandboxConfig, SandboxError};
use std::path::{Path, PathBuf};

/// Nothing to keep.
#[derive(Debug)]
pub(super) struct State;

pub(super) fn open(_config: &SandboxConfig) -> Result<(PathBuf, Isolation, State), SandboxError> {
    Err(SandboxError::Unsupported)
}

pub(super) fn run(
    _state: &State,
    _python: &Path,
    _config: &SandboxConfig,
    _code: &str,
    _stdin: &str,
) -> Result<String, SandboxError> {
    Err(SandboxError::Unsupported)
}
