//! The world registry: every world the binary knows, in `escapade list` order.
//!
//! Adding a world is one line in [`worlds`] (in `worlds/registry.rs`, a file of its own
//! so that integration tests include the very same list).

pub mod import; // converters of the original benchmarks' files
pub mod importers; // `escapade import <world>`: each world's converter, run
mod registry; // the list of worlds
pub use registry::worlds;
