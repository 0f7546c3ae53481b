//! Real baseline runs for the pages to read, and a server over them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use escapade_core::World;
use escapade_run::{Baseline, Progress, RunSpec};
use escapade_web::auth::Access;
use escapade_web::server::{Site, Worlds, router};

/// The worlds the tests play: vis (pictures, one role) and comma (two roles).
pub fn worlds() -> Worlds {
    Arc::new(vec![
        Box::new(escapade_vis::VisWorld::new()) as Box<dyn World>,
        Box::new(escapade_comma::CommaWorld),
    ])
}

/// The first `limit` scenarios of `world`'s first suite.
pub fn scenarios(world: &dyn World, limit: usize) -> Vec<(String, String)> {
    let suite = world.suites()[0].name.clone();
    world
        .build_suite(&suite)
        .expect("the suite builds")
        .into_iter()
        .take(limit)
        .map(|json| (suite.clone(), json))
        .collect()
}

/// Plays `agent` (a baseline kind) over the first `limit` scenarios of the world named
/// `world` into a new run directory under `out`; returns the directory.
pub fn baseline_run(world: &str, agent: &str, limit: usize, out: &Path) -> PathBuf {
    let worlds = worlds();
    let world = worlds
        .iter()
        .find(|w| w.name() == world)
        .expect("a test world")
        .as_ref();
    let spec = RunSpec {
        agent: agent.into(),
        seed: 7,
        ..Default::default()
    };
    let summary = escapade_run::run(
        world,
        &scenarios(world, limit),
        &spec,
        &Baseline::new(world, agent).expect("a baseline"),
        out,
        Progress::quiet(),
    )
    .expect("the run finishes");
    summary.dir
}

/// A site over `dirs` with `access`.
pub fn site(dirs: &[PathBuf], access: Access) -> Site {
    let mut site = Site::new(
        &escapade_web::ViewOptions {
            dirs: dirs.to_vec(),
            ..Default::default()
        },
        worlds(),
    )
    .expect("the folders exist");
    site.access = access;
    site
}

/// The router of a site over `dirs` (loopback access).
pub fn app(dirs: &[PathBuf]) -> axum::Router {
    router(Arc::new(site(dirs, Access::Loopback)))
}
