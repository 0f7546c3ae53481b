//! The list of worlds this build plays, in `escapade list` order. Nothing else lives
//! here: `tests/conformance.rs` includes this file to check exactly these worlds.

use escapade_core::World;

/// Every world this build of escapade plays. Fails when a world cannot start (the tools
/// world needs a `python3` for its sandboxed Python tool).
pub fn worlds() -> anyhow::Result<Vec<Box<dyn World>>> {
    Ok(vec![
        Box::new(escapade_tools::ToolsWorld::new()?),
        Box::new(escapade_vis::VisWorld::new()),
        Box::new(escapade_comma::CommaWorld),
        Box::new(escapade_craft::CraftWorld::new()),
    ])
}
