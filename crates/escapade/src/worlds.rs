//! The world registry: every world the binary knows, in `escapade list` order.
//!
//! The list itself lives in the `escapade-worlds` crate, which the Python package shares
//! (adding a world is one line there); the importers stay here because they read files.

pub mod import; // converters of the original benchmarks' files
pub mod importers; // `escapade import <world>`: each world's converter, run

/// Every world this build of escapade plays (`escapade_worlds::worlds`).
pub fn worlds() -> anyhow::Result<Vec<Box<dyn escapade_core::World>>> {
    Ok(escapade_worlds::worlds()?)
}
