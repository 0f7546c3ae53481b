//! The worlds escapade plays, in `escapade list` order — and nothing else.
//!
//! Why a crate of its own: the `escapade` binary and the Python package (`python/`,
//! `escapade-py`) must play exactly the same worlds, so that a Gymnasium env, an Inspect
//! task or a Ray run scores what `escapade run` scores. With the list in one place a
//! world added here reaches both; nothing can drift. The binary's `tests/conformance.rs`
//! checks this very list. Not here: importers of the original benchmarks' files (they
//! read files, which only the binary does).
//!
//! Start reading at [`worlds`].
//!
//! ```no_run
//! let names: Vec<&str> = escapade_worlds::worlds()?.iter().map(|w| w.name()).collect();
//! assert_eq!(names, ["tools", "vis", "comma", "craft"]);
//! # Ok::<(), escapade_worlds::WorldsError>(())
//! ```
#![deny(missing_docs)]

use escapade_core::World;

/// Why the worlds could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorldsError {
    /// Occurs when the tools world cannot start its sandboxed Python (no `python3`).
    #[error("the tools world cannot start: {0}")]
    Tools(#[from] escapade_tools::ToolsError),
}

/// Every world this build of escapade plays, in `escapade list` order. Fails when a world
/// cannot start (the tools world opens its sandboxed `python3` only when it first runs a
/// program, and reports a missing one then).
pub fn worlds() -> Result<Vec<Box<dyn World>>, WorldsError> {
    Ok(vec![
        Box::new(escapade_tools::ToolsWorld::new()?),
        Box::new(escapade_vis::VisWorld::new()),
        Box::new(escapade_comma::CommaWorld),
        Box::new(escapade_craft::CraftWorld::new()),
    ])
}
