//! Golden first-person frames: the start view of suite rooms, drawn through the whole
//! pipeline (scenario → scene → ray caster → PNG), byte for byte, with one thread and
//! with several (regenerate with `ESCAPADE_BLESS=1 cargo test -p escapade-craft --test
//! frames`).

use std::sync::Arc;

use escapade_core::Env;
use escapade_craft::{CraftEnv, CraftScenario, EnvOptions};

/// The scenario `id` of `mm-escape@3`.
fn suite_scenario(id: &str) -> Arc<CraftScenario> {
    let all = escapade_craft::suite::build().expect("the suite builds");
    Arc::new(
        all.into_iter()
            .find(|s| s.id == id)
            .unwrap_or_else(|| panic!("no scenario {id}")),
    )
}

/// The start frame of `scenario` at 256 × 128, drawn on `threads` threads (a two-room
/// game from room 1: not bootstrapped).
fn start_frame(scenario: &Arc<CraftScenario>, threads: usize) -> Vec<u8> {
    let options = EnvOptions {
        threads,
        bootstrap: false,
        ..EnvOptions::small()
    };
    let mut env = CraftEnv::new(scenario.clone(), options).expect("an environment");
    let o = env.reset(0);
    assert_eq!(o.images.len(), 1, "one frame per observation");
    o.images[0].png.clone()
}

/// Compares `png` with the golden `tests/golden/<name>.png`.
fn golden(name: &str, png: &[u8]) {
    escapade_testkit::golden::check(
        escapade_testkit::golden_dir!().join(format!("{name}.png")),
        png,
    );
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

/// The camera of the original client (`src/Game.py` of THUNLP-MT/EscapeCraft): LEGENT's
/// Unity camera at 2048 × 1024 with `camera_field_of_view=120`, Unity's vertical angle —
/// so the picture spans 60° above and below the centre and about 74° to each side.
#[test]
fn the_default_camera_is_the_originals() {
    let options = EnvOptions::default();
    assert_eq!((options.width, options.height), (2048, 1024));
    assert_eq!(options.fov, 120.0);
    assert!((options.horizontal_fov() - 147.795).abs() < 0.01);
    let scenario = suite_scenario("craft-d1-01");
    let body = escapade_craft::motion::Body::start(&scenario.rooms[0]);
    let camera = body.camera(options.horizontal_fov());
    let angle = |x: f32, y: f32, vertical: bool| {
        let (_, d) = escapade_render::ray_through_pixel(&camera, x, y, 2048, 1024);
        let (h, v) = body.heading();
        let ahead = d.x * h + d.z * v;
        let side = d.x * v - d.z * h;
        let deg = if vertical {
            d.y.atan2(ahead)
        } else {
            side.atan2(ahead)
        };
        deg.to_degrees()
    };
    assert!((angle(1024.0, 0.0, true) - 60.0).abs() < 0.01, "top edge");
    assert!(
        (angle(2048.0, 512.0, false) - 73.9).abs() < 0.05,
        "right edge"
    );
    // and the start observation carries a picture of that size
    let mut env = CraftEnv::new(scenario, options).expect("an environment");
    let png = env.reset(0).images[0].png.clone();
    let size = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    assert_eq!((size(16), size(20)), (2048, 1024));
}
