//! Golden first-person frames: the start view of suite rooms, drawn through the whole
//! pipeline (scenario → scene → ray caster → PNG), byte for byte, with one thread and
//! with several (regenerate with `ESCAPADE_BLESS=1 cargo test -p escapade-craft --test
//! frames`).

use std::sync::Arc;

use escapade_core::Env;
use escapade_craft::{CraftEnv, CraftScenario, EnvOptions};

/// The scenario `id` of `mm-escape@2`.
fn suite_scenario(id: &str) -> Arc<CraftScenario> {
    let all = escapade_craft::suite::build().expect("the suite builds");
    Arc::new(
        all.into_iter()
            .find(|s| s.id == id)
            .unwrap_or_else(|| panic!("no scenario {id}")),
    )
}

/// The start frame of `scenario` at 256 × 128, drawn on `threads` threads.
fn start_frame(scenario: &Arc<CraftScenario>, threads: usize) -> Vec<u8> {
    let options = EnvOptions {
        threads,
        ..EnvOptions::small()
    };
    let mut env = CraftEnv::new(scenario.clone(), options).expect("an environment");
    let o = env.reset(0);
    assert_eq!(o.images.len(), 1, "one frame per observation");
    o.images[0].png.clone()
}

/// Compares `png` with the golden `name`, or writes it with `ESCAPADE_BLESS` set.
fn golden(name: &str, png: &[u8]) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.png"));
    if std::env::var_os("ESCAPADE_BLESS").is_some() {
        std::fs::write(&path, png).unwrap();
        return;
    }
    let want = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with ESCAPADE_BLESS=1)", path.display()));
    assert!(want == png, "{} differs from its golden", path.display());
}

#[test]
fn start_frames_match_their_goldens_on_one_thread_and_several() {
    for id in ["craft-d1-01", "craft-d3-nf-02", "craft-m12-01"] {
        let scenario = suite_scenario(id);
        let one = start_frame(&scenario, 1);
        assert_eq!(
            one,
            start_frame(&scenario, 3),
            "{id}: threads change the bytes"
        );
        assert_eq!(
            one,
            start_frame(&scenario, 0),
            "{id}: threads change the bytes"
        );
        golden(id, &one);
    }
}
