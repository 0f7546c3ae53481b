//! The solver's pictures: one golden PNG per puzzle (regenerate with `ESCAPADE_BLESS=1`),
//! determinism, pictures that follow the state, and a printed render time.
//!
//! The goldens live in `tests/golden/<puzzle>.png`; each is a fixed instance, so a change
//! to drawing code shows up as a byte difference here and can be looked at before
//! blessing.

use std::time::Instant;

use escapade_comma::Puzzle;
use escapade_comma::puzzle::{PuzzleKind, import};
use serde_json::{Value, json};

/// The fixed instance drawn for each puzzle's golden picture.
fn instances() -> Vec<(PuzzleKind, Value)> {
    vec![
        (
            PuzzleKind::Wire,
            json!({"n_wires": 5, "colors": ["red", "white", "black", "yellow", "blue"]}),
        ),
        (
            PuzzleKind::Who,
            json!({"display_text": "READ", "button_texts": ["SURE", "PRESS", "LIKE", "RIGHT", "YOU'RE", "YOU ARE"]}),
        ),
        (
            PuzzleKind::Led,
            json!({"num_stages": 4, "led_colors": ["red", "purple", "orange", "blue"]}),
        ),
        (PuzzleKind::Memory, json!({"display_text": 3})),
        (
            PuzzleKind::Keypad,
            json!({"strip_num": 2, "image_nums": [0, 3, 1, 5]}),
        ),
        (
            PuzzleKind::Password,
            json!({
                "possible_words": escapade_comma::puzzles::password::WORDS.as_slice(),
                "answer_word": "about",
                "current_letters": ["a", "c", "p", "u", "s"],
            }),
        ),
        (
            PuzzleKind::Colour,
            json!({"colors": [
            "Red", "Blue", "Green", "Yellow", "Magenta", "Red", "Blue", "Green",
            "Yellow", "Magenta", "Red", "Blue", "Green", "Yellow", "Magenta", "Red"]}),
        ),
        (
            PuzzleKind::Maze,
            json!({"maze": escapade_comma::puzzles::maze::LAYOUT, "start_x": 5, "start_y": 3, "torus_color": "Red"}),
        ),
        (PuzzleKind::Atm, json!({"PIN": "1588", "Balance": 478})),
    ]
}

fn puzzle(kind: PuzzleKind, instance: &Value) -> Box<dyn Puzzle> {
    import(kind, instance, 7).unwrap()
}

/// Compares `png` with the golden `tests/golden/<name>.png`.
fn check_golden(name: &str, png: &[u8]) {
    escapade_testkit::golden::check(
        escapade_testkit::golden_dir!().join(format!("{name}.png")),
        png,
    );
}

#[test]
fn every_picture_matches_its_golden() {
    for (kind, instance) in instances() {
        check_golden(kind.name(), &puzzle(kind, &instance).render().unwrap());
    }
}

/// Telehealth's picture is the case's photograph when it has one; a synthetic case (the
/// only kind this crate can make) gets the labelled SYNTHETIC drawing, 360×360, which
/// does not follow the state: so it has its golden here, not in [`instances`].
#[test]
fn the_synthetic_telehealth_picture_matches_its_golden() {
    let instance = json!({
        "skin_lesion_idx": 11,
        "synthetic": true,
        "record": {
            "diagnostic": "MEL", "fitspatrick": "2", "diameter_1": "9.5", "diameter_2": "7.0",
            "changed": "True", "elevation": "False", "bleed": "False",
        },
    });
    let mut p = puzzle(PuzzleKind::Telehealth, &instance);
    let png = p.render().unwrap();
    assert_eq!(&png[16..24], &[0, 0, 1, 104, 0, 0, 1, 104], "360×360");
    check_golden("telehealth", &png);
    let action = p.correct_actions()[0].clone();
    assert!(!p.act(&action).mistake);
    assert_eq!(
        p.render().unwrap(),
        png,
        "the drawing shows the lesion, not the state"
    );
}

#[test]
fn the_same_state_gives_the_same_bytes() {
    for (kind, instance) in instances() {
        let (a, b) = (puzzle(kind, &instance), puzzle(kind, &instance));
        assert_eq!(a.render().unwrap(), b.render().unwrap(), "{}", kind.name());
    }
}

#[test]
fn a_correct_action_changes_the_picture() {
    for (kind, instance) in instances() {
        let mut p = puzzle(kind, &instance);
        let before = p.render().unwrap();
        let action = p.correct_actions()[0].clone();
        assert!(!p.act(&action).mistake, "{}", kind.name());
        assert_ne!(
            before,
            p.render().unwrap(),
            "{} after {action}",
            kind.name()
        );
    }
}

#[test]
fn pictures_are_512_by_384_pngs() {
    for (kind, instance) in instances() {
        let png = puzzle(kind, &instance).render().unwrap();
        assert_eq!(&png[1..4], b"PNG");
        // IHDR: width and height, big-endian, at bytes 16..24
        assert_eq!(&png[16..24], &[0, 0, 2, 0, 0, 0, 1, 128], "{}", kind.name());
    }
}

#[test]
#[ignore = "a timing figure, not a check: cargo test --release -- --ignored --nocapture"]
fn render_time() {
    for (kind, instance) in instances() {
        let p = puzzle(kind, &instance);
        let n = 50;
        let start = Instant::now();
        for _ in 0..n {
            std::hint::black_box(p.render().unwrap());
        }
        let ms = start.elapsed().as_secs_f64() * 1000.0 / n as f64;
        println!("{:>9}: {ms:.2} ms per picture", kind.name());
    }
}

/// The original draws the wires unnumbered, each with a CUT button on it: the golden
/// wire picture has nothing but the panel left of the wires, and a button face on the
/// middle of each wire.
#[test]
fn wires_are_unnumbered_with_a_cut_button_each() {
    let (kind, instance) = instances().remove(0);
    assert_eq!(kind, PuzzleKind::Wire);
    let png = puzzle(kind, &instance).render().unwrap();
    let px = pixels(&png);
    let at = |x: usize, y: usize| {
        let i = (y * 512 + x) * 4;
        [px[i], px[i + 1], px[i + 2]]
    };
    const PANEL: [u8; 3] = [196, 198, 192];
    const FACE: [u8; 3] = [232, 228, 214];
    for y in 60..306 {
        for x in 20..60 {
            assert_eq!(at(x, y), PANEL, "a mark at ({x}, {y}) left of the wires");
        }
    }
    let n = 5;
    let step = (300.0 - 66.0) / n as f64;
    for i in 0..n {
        let mid = (66.0 + step * (i as f64 + 0.5) + 9.0) as usize;
        let face = (mid - 10..mid + 10)
            .flat_map(|y| (236..296).map(move |x| (x, y)))
            .filter(|&(x, y)| at(x, y) == FACE)
            .count();
        assert!(face > 200, "wire {}: {face} button pixels", i + 1);
    }
}

/// The picture's pixels as RGBA bytes, whatever colour type its PNG was written in.
fn pixels(png: &[u8]) -> Vec<u8> {
    escapade_render::decode_rgba(png).unwrap().2
}

/// Every golden picture, and every state the oracle and a seeded random walk pass
/// through on 10 generated instances of each puzzle, keeps its pixels:
/// `tests/golden/pixels.txt` holds one SHA-256 per golden and per instance over the SHA-256s
/// of its pictures' RGBA pixels in order — not the PNG bytes, so an encoder change that keeps
/// every pixel passes, and a drawing change (or a picture reused for a state it does not
/// show) fails.
#[test]
fn the_pixels_of_every_state_are_pinned() {
    use rand::Rng;
    let mut lines = Vec::new();
    for (kind, instance) in instances() {
        let png = puzzle(kind, &instance).render().unwrap();
        let sha = escapade_core::hash::sha256_hex(&pixels(&png));
        lines.push(format!("golden {} {sha}", kind.name()));
    }
    for kind in PuzzleKind::ALL {
        for seed in 1..=10u64 {
            let mut all = String::new();
            let mut count = 0;
            let mut p = escapade_comma::puzzle::generate(kind, seed).unwrap();
            let mut rng = escapade_core::seed::rng(seed);
            let actions = p.actions();
            for step in 0..20 {
                all.push_str(&escapade_core::hash::sha256_hex(&pixels(
                    &p.render().unwrap(),
                )));
                count += 1;
                // the oracle's path first, then random actions (mistakes, resets)
                let next = match p.correct_actions().into_iter().next() {
                    Some(a) if step < 6 && !p.solved() => a,
                    _ => actions[rng.random_range(0..actions.len())].clone(),
                };
                p.act(&next);
            }
            let sha = escapade_core::hash::sha256_hex(all.as_bytes());
            lines.push(format!("{} {seed} {count} {sha}", kind.name()));
        }
    }
    let got = lines.join("\n") + "\n";
    escapade_testkit::golden::check_text(escapade_testkit::golden_dir!().join("pixels.txt"), &got);
}
