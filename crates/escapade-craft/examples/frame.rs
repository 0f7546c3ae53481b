//! Draws start frames of suite rooms, for profiling the ray caster on real rooms:
//!
//! ```text
//! cargo build --release -p escapade-craft --example frame
//! valgrind --tool=callgrind target/release/examples/frame craft-d3-nf-02 2048 1024 120 1
//! ```
//!
//! Arguments: scenario id (or `all` for every fourth scenario of the suite), width,
//! height, vertical field of view in degrees, threads, and optionally a directory to
//! write the frames to as PNG; the start pose looks four ways (the first is the start
//! frame itself). Prints the frames drawn and a checksum of their bytes (the same on any
//! thread count).

use escapade_craft::WorldState;
use escapade_craft::motion::Body;
use escapade_render::{FrameOptions, Prepared, horizontal_fov};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.into());
    let id = arg(0, "craft-d3-nf-02");
    let width: u32 = arg(1, "2048").parse().expect("a width");
    let height: u32 = arg(2, "1024").parse().expect("a height");
    let vfov: f32 = arg(3, "120").parse().expect("a vertical field of view");
    let threads: usize = arg(4, "1").parse().expect("a thread count");
    let out = args.get(5).map(std::path::PathBuf::from);
    let suite = escapade_craft::suite::build().expect("the suite builds");
    let chosen: Vec<_> = if id == "all" {
        suite.iter().step_by(4).collect()
    } else {
        suite.iter().filter(|s| s.id == id).collect()
    };
    assert!(!chosen.is_empty(), "no scenario {id}");
    let opts = FrameOptions {
        width,
        height,
        threads,
        centre_dot: true,
    };
    let fov = horizontal_fov(vfov, width, height);
    let (mut frames, mut sum) = (0u32, 0u64);
    for s in chosen {
        let scene = s.scene(0, &WorldState::start(s)).expect("a scene");
        let prepared = Prepared::new(&scene).expect("a valid scene");
        for turn in [0.0, 90.0, 180.0, 270.0] {
            let down = if turn == 0.0 { 0.0 } else { 10.0 };
            let camera = Body::start(&s.rooms[0]).turned(turn, down).camera(fov);
            let frame = prepared.render(&camera, &opts).expect("a frame");
            sum = frame
                .rgb
                .iter()
                .fold(sum, |h, &b| h.wrapping_mul(31).wrapping_add(b as u64));
            frames += 1;
            if let Some(dir) = &out {
                let path = dir.join(format!("{}-{}.png", s.id, turn as u32));
                std::fs::write(&path, frame.png().expect("a png")).expect("written");
            }
        }
    }
    println!("{frames} frames, checksum {sum:016x}");
}
