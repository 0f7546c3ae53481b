//! What several test files share: the world with the real Python sandbox and the whole
//! `agentescape@2` suite, each built once per test binary.

// each test binary uses only some of these
#![allow(dead_code)]

use std::sync::OnceLock;

use escapade_tools::scenario::ToolsScenario;
use escapade_tools::{AGENTESCAPE_V2, ToolsWorld};

/// The world with the real sandbox.
pub fn world() -> &'static ToolsWorld {
    static W: OnceLock<ToolsWorld> = OnceLock::new();
    W.get_or_init(|| ToolsWorld::new().expect("python3"))
}

/// Every scenario of `agentescape@2`, in suite order.
pub fn suite() -> &'static [ToolsScenario] {
    static S: OnceLock<Vec<ToolsScenario>> = OnceLock::new();
    S.get_or_init(|| {
        let spec = escapade_core::World::suites(world())
            .into_iter()
            .find(|s| s.name == AGENTESCAPE_V2)
            .expect("the suite is listed");
        world().build_tiers(&spec.tiers).expect("the suite builds")
    })
}
