//! The craft environment through its public contract, on `mm-escape@3` scenarios:
//! collisions, aiming with `look_at`, reach, locks, notes, malformed replies, step caps,
//! metrics and determinism; the order in which one reply's keys act; the original
//! client's level of feedback and escapade's detailed feedback.

use std::sync::Arc;

use escapade_core::{Action, Env, EnvError, Step, World};
use escapade_craft::baseline::OracleAgent;
use escapade_craft::env::{Feedback, Unreadable};
use escapade_craft::motion::Obstacles;
use escapade_craft::scene::Thing;
use escapade_craft::{CraftEnv, CraftScenario, EnvOptions, GrabRule, WorldState};
use escapade_render::Prepared;
use escapade_render::scene::Vec3;
use proptest::prelude::*;

fn suite() -> Vec<Arc<CraftScenario>> {
    escapade_craft::suite::build()
        .unwrap()
        .into_iter()
        .map(Arc::new)
        .collect()
}

fn open(s: &Arc<CraftScenario>, options: EnvOptions) -> CraftEnv {
    let mut env = CraftEnv::new(s.clone(), options).unwrap();
    env.reset(0);
    env
}

fn act(env: &mut CraftEnv, json: &str) -> Step {
    env.step(&Action::text(json)).unwrap()
}

/// Small frames with escapade's detailed feedback.
fn detailed() -> EnvOptions {
    EnvOptions {
        feedback: Feedback::Detailed,
        ..EnvOptions::small()
    }
}

/// Small frames, both rooms of a two-room game played (App. F).
fn autonomous() -> EnvOptions {
    EnvOptions {
        bootstrap: false,
        ..EnvOptions::small()
    }
}

/// The oracle's whole solution as JSON replies (two-room games played in full).
fn solution(s: &Arc<CraftScenario>) -> Vec<String> {
    let mut oracle = OracleAgent::new(s.clone(), autonomous()).unwrap();
    let mut env = open(s, autonomous().without_frames());
    let mut out = Vec::new();
    for _ in 0..env.cap() {
        let a = oracle.next_action().to_json();
        let step = act(&mut env, &a);
        out.push(a);
        if step.terminated {
            return out;
        }
    }
    panic!("{}: the oracle did not escape", s.id);
}

/// The pixel of a world point in a `w` × `h` frame seen from the env's current pose.
fn project(env: &CraftEnv, p: Vec3, w: f32, h: f32) -> (f32, f32) {
    let camera = env.pose().1.camera(env.options().horizontal_fov());
    let (yaw, pitch) = (camera.yaw.to_radians(), camera.pitch.to_radians());
    let (sy, cy, sp, cp) = (yaw.sin(), yaw.cos(), pitch.sin(), pitch.cos());
    let fwd = Vec3::new(sy * cp, sp, cy * cp);
    let right = Vec3::new(cy, 0.0, -sy);
    let up = Vec3::new(-sy * sp, cp, -cy * sp);
    let d = p - camera.position;
    let step = (camera.fov.to_radians() / 2.0).tan() / (w / 2.0);
    let z = d.dot(fwd);
    (
        w / 2.0 + d.dot(right) / z / step,
        h / 2.0 - d.dot(up) / z / step,
    )
}

/// What the centre ray hits now, picked with the ray caster directly.
fn under_dot(env: &CraftEnv, s: &CraftScenario, state: &WorldState) -> Option<Thing> {
    let (room, body) = env.pose();
    let prepared = Prepared::new(&s.scene(room, state).unwrap()).unwrap();
    let hit = prepared.pick(
        &body.camera(env.options().horizontal_fov()),
        128.0,
        64.0,
        256,
        128,
    )?;
    s.what(room, hit.id?)
}

/// Turns the env so that its view centre points at `p` from where it stands.
fn face(env: &mut CraftEnv, p: Vec3) -> Step {
    let body = env.pose().1;
    let d = p - body.camera(90.0).position;
    let yaw = d.x.atan2(d.z).to_degrees();
    let pitch = (d.y / d.length()).asin().to_degrees();
    let mut right = (yaw - body.yaw) % 360.0;
    if right > 180.0 {
        right -= 360.0;
    }
    if right < -180.0 {
        right += 360.0;
    }
    act(
        env,
        &format!(
            r#"{{"rotate_right": {right}, "rotate_down": {}}}"#,
            body.pitch - pitch
        ),
    )
}

#[test]
fn walking_into_a_wall_stops_at_the_wall() {
    let s = &suite()[0];
    let mut env = open(s, detailed().without_frames());
    let room = &s.rooms[0];
    let obstacles = Obstacles::of(room);
    let start = env.pose().1;
    // a heading whose first obstacle is a wall
    let turn = (0..24)
        .map(|k| k as f32 * 15.0)
        .find(|t| {
            let b = start.turned(*t, 0.0);
            let (dx, dz) = b.heading();
            obstacles.walk(b.x, b.z, dx, dz, 20.0).1.as_deref() == Some("the wall")
        })
        .expect("some heading reaches a wall");
    let step = act(
        &mut env,
        &format!(r#"{{"rotate_right": {turn}, "move_forward": 10}}"#),
    );
    assert!(
        step.feedback.contains("stopped against the wall"),
        "{}",
        step.feedback
    );
    let b = env.pose().1;
    let r = escapade_craft::room::AGENT_RADIUS;
    let gap = [b.x - r, room.width - r - b.x, b.z - r, room.depth - r - b.z]
        .into_iter()
        .fold(f32::INFINITY, f32::min);
    assert!((0.0..0.02).contains(&gap), "{gap} from the wall");
    // pushing on moves no further
    let again = act(&mut env, r#"{"move_forward": 3}"#);
    assert!(
        again.feedback.contains("walked 0.00 m of 3.00 m"),
        "{}",
        again.feedback
    );
    assert_eq!(env.pose().1, b);
    let m = env.outcome().metrics;
    assert!(m["distance_moved"] > 0.0 && m["distance_moved"] < 10.0);
    // the original's level of information: a move is a move, however far it got
    let mut plain = open(s, EnvOptions::small().without_frames());
    let step = act(
        &mut plain,
        &format!(r#"{{"rotate_right": {turn}, "move_forward": 10}}"#),
    );
    assert_eq!(
        step.feedback,
        format!(
            "{} {}",
            escapade_craft::env::MOVED,
            escapade_craft::env::NO_INTERACTION
        )
    );
    assert_eq!(plain.pose().1, b);
}

#[test]
fn look_at_a_props_pixel_puts_the_red_dot_on_it_and_reach_is_enforced() {
    let mut checked = 0;
    for s in suite().iter().skip(11).take(32) {
        let room = &s.rooms[0];
        let Some(p) = room.props.first() else {
            continue;
        };
        let target = Vec3::new(
            p.position[0],
            p.position[1] + p.size[1] * 0.75,
            p.position[2],
        );
        let mut env = open(s, detailed());
        let start = WorldState::start(s);
        // look past it (15 degrees to the left, a little high), then re-aim by its pixel
        face(&mut env, target);
        if under_dot(&env, s, &start) != Some(Thing::Prop { id: p.id.clone() }) {
            continue; // hidden from the start: try another scenario
        }
        act(&mut env, r#"{"rotate_right": -15, "rotate_down": -5}"#);
        assert_ne!(
            under_dot(&env, s, &start),
            Some(Thing::Prop { id: p.id.clone() })
        );
        let (x, y) = project(&env, target, 256.0, 128.0);
        if !(0.0..256.0).contains(&x) || !(0.0..128.0).contains(&y) {
            continue;
        }
        act(
            &mut env,
            &format!(r#"{{"look_at": [{}, {}]}}"#, x / 256.0, y / 128.0),
        );
        assert_eq!(
            under_dot(&env, s, &start),
            Some(Thing::Prop { id: p.id.clone() }),
            "{}",
            s.id
        );
        let alt = env_alt(&mut env);
        assert!(alt.contains("Under the red dot: a "), "{alt}");
        // from the start it is out of reach
        let b = env.pose().1;
        let far = ((p.position[0] - b.x).powi(2) + (p.position[2] - b.z).powi(2)).sqrt();
        if far > escapade_craft::room::REACH {
            let step = act(&mut env, r#"{"grab": true}"#);
            assert!(
                step.feedback.contains("too far to reach"),
                "{}",
                step.feedback
            );
            assert!(env.bag().is_empty());
            assert_eq!(env.outcome().metrics["grab_success_rate"], 0.0);
            // by default the grab gets the original's answer, which names nothing
            let mut plain = open(s, EnvOptions::small());
            face(&mut plain, target);
            let step = act(&mut plain, r#"{"grab": true}"#);
            assert_eq!(step.feedback, escapade_craft::env::GRAB_NO_RESPONSE);
            assert!(plain.bag().is_empty());
        }
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} scenarios had a prop in view");
}

fn env_alt(env: &mut CraftEnv) -> String {
    let step = act(env, r#"{"rationale": "just looking"}"#);
    step.observation.images[0].alt.clone().unwrap()
}

/// The first D3 note-first scenario: grab note, read it, enter the code at the box, use
/// the key on the door.
fn note_first() -> Arc<CraftScenario> {
    suite()
        .into_iter()
        .find(|s| s.id == "craft-d3-nf-01")
        .unwrap()
}

/// `a` without its motions: the acts it does on the view the reply starts from.
fn acts_only(a: &serde_json::Value) -> serde_json::Value {
    let mut v = a.clone();
    let o = v.as_object_mut().unwrap();
    for k in [
        "look_at",
        "rotate_right",
        "rotate_down",
        "move_forward",
        "jump",
    ] {
        o.remove(k);
    }
    v
}

/// C.1.2 "Locked Props": a locked box says what kind of thing opens it; wrong codes and
/// items are refused without a hint; a held note shows its numbers. Checked with the
/// original's level of feedback (no code length, no advice) and with the detailed one.
#[test]
fn locks_say_what_they_need_and_refuse_wrong_codes_and_notes_read() {
    let s = note_first();
    let plan = solution(&s);
    let digits = s.rooms[0]
        .chain
        .props
        .iter()
        .find_map(|p| match &p.kind {
            escapade_craft::PropKind::Password { digits } => Some(digits.clone()),
            _ => None,
        })
        .unwrap();
    for options in [EnvOptions::small(), detailed()] {
        let is_detailed = options.feedback == Feedback::Detailed;
        let mut env = open(&s, options.without_frames());
        let read_before = act(&mut env, r#"{"read": "note_1"}"#);
        assert!(
            read_before.feedback.contains("no item `note_1`"),
            "{}",
            read_before.feedback
        );
        env.reset(0);
        for a in &plan {
            let v: serde_json::Value = serde_json::from_str(a).unwrap();
            if let Some(code) = v["interactions"]["input"].as_str() {
                assert_eq!(code, digits);
                let here = acts_only(&v);
                // the same grab without the code: the box says what it needs
                let mut bare = here.clone();
                bare.as_object_mut().unwrap().remove("interactions");
                let locked = act(&mut env, &bare.to_string());
                if is_detailed {
                    assert!(
                        locked.feedback.contains("4-digit code"),
                        "{}",
                        locked.feedback
                    );
                } else {
                    assert!(
                        locked
                            .feedback
                            .starts_with("A locked box: it opens with a code."),
                        "{}",
                        locked.feedback
                    );
                    assert!(!locked.feedback.contains('4'), "{}", locked.feedback);
                }
                let wrong: String = digits
                    .chars()
                    .map(|c| char::from(b'0' + (c as u8 - b'0' + 1) % 10))
                    .collect();
                let refused = act(
                    &mut env,
                    &format!(r#"{{"grab": true, "interactions": {{"input": "{wrong}"}}}}"#),
                );
                assert!(
                    refused.feedback.contains("rejects that code"),
                    "{}",
                    refused.feedback
                );
                assert!(!refused.feedback.contains(&wrong));
                let key = act(
                    &mut env,
                    r#"{"grab": true, "interactions": {"use_item_id": "note_1"}}"#,
                );
                let needs = if is_detailed {
                    "keypad, not a keyhole"
                } else {
                    "opens with a code"
                };
                assert!(key.feedback.contains(needs), "{}", key.feedback);
                let ok = act(&mut env, a);
                assert!(ok.feedback.contains("The box opens"), "{}", ok.feedback);
                assert!(ok.feedback.contains("key_1"), "{}", ok.feedback);
                continue;
            }
            let step = act(&mut env, a);
            if v.get("read").is_some() {
                assert!(
                    step.feedback
                        .contains(&format!("A code is written on it: {digits}")),
                    "{}",
                    step.feedback
                );
            }
            if env.bag().iter().any(|b| b == "note_1") {
                // the bag lists the note's numbers, as the original's does
                assert!(
                    step.observation
                        .text
                        .contains(&format!("- note_1: a note with the numbers {digits}")),
                    "{}",
                    step.observation.text
                );
            }
            if v["interactions"]["use_item_id"].is_string() {
                assert!(
                    step.terminated && step.feedback.contains("escaped"),
                    "{}",
                    step.feedback
                );
            }
        }
        let out = env.outcome();
        assert!(out.success);
        assert_eq!(out.metrics["prop_gain"], 1.0);
        assert!(out.metrics["grab_success_rate"] < 1.0);
        assert!(out.metrics.contains_key("steps_to_password"));
        assert!(out.metrics.contains_key("steps_to_key"));
    }
}

#[test]
fn the_oracle_run_has_perfect_metrics() {
    let s = note_first();
    let plan = solution(&s);
    let mut env = open(&s, EnvOptions::small().without_frames());
    let mut last = None;
    for a in &plan {
        last = Some(act(&mut env, a));
    }
    let last = last.unwrap();
    assert!(last.terminated && !last.truncated);
    assert_eq!(last.progress, 1.0);
    assert_eq!(env.step(&Action::text("{}")), Err(EnvError::EpisodeOver));
    let m = env.outcome().metrics;
    assert_eq!(m["grab_success_rate"], 1.0);
    assert_eq!(m["prop_gain"], 1.0);
    assert_eq!(m["invalid_actions"], 0.0);
    assert_eq!(m["distance_moved"], m["optimal_distance"]);
    assert_eq!(
        m["steps_to_password"] + m["steps_to_key"] + m["steps_to_exit"],
        plan.len() as f64
    );
    assert_eq!(m["grab_count"], 3.0);
}

#[test]
fn two_rooms_are_escaped_one_after_the_other() {
    let s = suite()
        .into_iter()
        .find(|s| s.id == "craft-m12-01")
        .unwrap();
    let plan = solution(&s);
    let mut env = open(&s, autonomous().without_frames());
    let mut moved = false;
    for a in &plan {
        let step = act(&mut env, a);
        if step.feedback.contains("enter the next one") {
            moved = true;
            assert_eq!(env.pose().0, 1);
            assert!(!step.terminated);
        }
    }
    assert!(moved);
    let out = env.outcome();
    assert!(out.success);
    assert_eq!(out.metrics["rooms_escaped"], 2.0);
    assert_eq!(env.cap(), 80);
}

#[test]
fn malformed_replies_are_feedback_and_count_as_invalid() {
    let s = &suite()[0];
    let mut env = open(
        s,
        EnvOptions {
            unreadable: Unreadable::Step,
            ..EnvOptions::small()
        },
    );
    for (reply, says) in [
        ("I would like to open the door", "no JSON object"),
        (r#"{"move_forward": "far away"}"#, "must be a number"),
        (r#"{"look_at": [2]}"#, "look_at"),
        (r#"{"grab": true"#, "does not parse"),
    ] {
        assert!(env.check_action(&Action::text(reply)).is_err());
        let step = act(&mut env, reply);
        assert!(!step.valid() && step.error.as_deref() == Some("parse"));
        assert!(step.feedback.contains(says), "{reply}: {}", step.feedback);
        assert!(step.observation.text.contains(says));
    }
    let huge = "{".repeat(1 << 20);
    let step = act(&mut env, &huge);
    assert!(step.feedback.contains("bytes long"), "{}", step.feedback);
    // bytes are read as lossy UTF-8; an object without a key is refused, as the
    // original's schema refuses it
    let empty = env
        .step(&Action::Bytes {
            bytes: vec![0xff, b'{', b'}'],
        })
        .unwrap();
    assert!(!empty.valid() && empty.feedback.contains("names no key"));
    let bytes = env
        .step(&Action::Bytes {
            bytes: b"\xff{\"rationale\": \"wait\"}".to_vec(),
        })
        .unwrap();
    assert!(bytes.valid(), "{}", bytes.feedback);
    let call = env.step(&Action::call("walk", "{}")).unwrap();
    assert!(!call.valid() && call.feedback.contains("`act`"));
    assert_eq!(env.outcome().metrics["invalid_actions"], 7.0);
    assert_eq!(env.reask_limit(), 5);
}

#[test]
fn the_step_cap_truncates() {
    let s = &suite()[0];
    let mut env = open(s, EnvOptions::small().without_frames());
    assert_eq!(env.cap(), 50);
    for n in 1..=50 {
        let step = act(&mut env, r#"{"rotate_right": 10}"#);
        assert_eq!(step.truncated, n == 50);
        assert!(!step.terminated);
    }
    assert_eq!(env.step(&Action::text("{}")), Err(EnvError::EpisodeOver));
    let out = env.outcome();
    assert!(!out.success && out.steps == 50);
    let mut fresh = CraftEnv::new(s.clone(), EnvOptions::small()).unwrap();
    assert_eq!(fresh.step(&Action::text("{}")), Err(EnvError::NotReset));
}

#[test]
fn same_actions_give_byte_identical_observations_with_frames() {
    let s = note_first();
    let mut actions = solution(&s);
    actions.insert(1, r#"{"look_at": [0.2, 0.7], "move_forward": -0.5}"#.into());
    actions.insert(0, "junk".into());
    let run = || {
        let options = EnvOptions {
            unreadable: Unreadable::Step,
            ..EnvOptions::small()
        };
        let mut env = CraftEnv::new(s.clone(), options).unwrap();
        let first = env.reset(0);
        let mut out = vec![(
            serde_json::to_string(&first).unwrap(),
            first.images[0].png.clone(),
        )];
        for a in &actions {
            let step = env.step(&Action::text(a.as_str())).unwrap();
            out.push((
                serde_json::to_string(&step).unwrap(),
                step.observation.images[0].png.clone(),
            ));
        }
        out
    };
    let (a, b) = (run(), run());
    assert_eq!(a, b);
    assert!(a.iter().all(|(_, png)| png.starts_with(b"\x89PNG")));
    assert_eq!(
        escapade_craft::env::EnvOptions::small().width,
        256,
        "tests draw small frames"
    );
}

#[test]
fn passwords_stay_out_of_sight_until_picked_up_and_the_original_grab_rule_takes_all_in_view() {
    let s = note_first();
    let mut env = open(&s, EnvOptions::small());
    let secrets = env.secrets();
    assert_eq!(secrets.len(), 1);
    let obs = env.reset(0);
    let alt = obs.images[0].alt.clone().unwrap();
    assert!(!obs.text.contains(&secrets[0]) && !alt.contains(&secrets[0]));
    // the original rule: grab with the note somewhere in view within 4 m
    let mut original = open(
        &s,
        EnvOptions {
            grab: GrabRule::Original,
            ..EnvOptions::small().without_frames()
        },
    );
    let p = s.rooms[0].placed("note_1").unwrap();
    let target = Vec3::new(p.position[0], p.position[1], p.position[2]);
    face(&mut original, target);
    act(&mut original, r#"{"rotate_right": 20}"#);
    let b = original.pose().1;
    let dist = ((p.position[0] - b.x).powi(2) + (p.position[2] - b.z).powi(2)).sqrt();
    let step = act(&mut original, r#"{"grab": true}"#);
    if dist <= escapade_craft::env::ORIGINAL_GRAB_RANGE {
        assert!(
            original.bag().contains(&"note_1".to_string()),
            "{}",
            step.feedback
        );
    } else {
        assert!(original.bag().is_empty());
    }
}

/// One environment shared by the property cases (opening one plays the oracle).
static SMALL: std::sync::LazyLock<std::sync::Mutex<CraftEnv>> = std::sync::LazyLock::new(|| {
    let s = Arc::new(
        escapade_craft::scenario::generate(2, 1, escapade_craft::Variant::Standard).unwrap(),
    );
    std::sync::Mutex::new(CraftEnv::new(s, EnvOptions::small().without_frames()).unwrap())
});

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_reply_is_read_or_refused_without_panicking(text in ".{0,300}") {
        let _ = escapade_craft::action::parse(&text);
    }

    #[test]
    fn any_json_like_reply_is_safe_to_step(
        keys in proptest::collection::vec(
            prop_oneof![
                Just("move_forward"), Just("rotate_right"), Just("rotate_down"), Just("jump"),
                Just("look_at"), Just("grab"), Just("interactions"), Just("read"), Just("x")
            ],
            0..5,
        ),
        values in proptest::collection::vec(
            prop_oneof![
                Just("1e39".to_string()), Just("-7.5".to_string()), Just("\"12\"".to_string()),
                Just("[0.5, 2]".to_string()), Just("[900, 40]".to_string()), Just("true".to_string()),
                Just("null".to_string()), Just("{\"input\": \"1\"}".to_string()),
                Just("{\"use_item_id\": 3}".to_string()), "\"[a-z_0-9]{0,8}\"",
            ],
            5,
        ),
    ) {
        let mut env = SMALL.lock().unwrap();
        env.reset(0);
        let body: Vec<String> = keys.iter().zip(&values).map(|(k, v)| format!("\"{k}\": {v}")).collect();
        let step = env.step(&Action::text(format!("{{{}}}", body.join(", ")))).unwrap();
        prop_assert!(!step.feedback.is_empty());
        let (_, b) = env.pose();
        prop_assert!(b.x.is_finite() && b.z.is_finite() && b.yaw.is_finite() && b.pitch.is_finite());
    }
}

/// Table 3's bootstrapped setting: a two-room game starts in room 2, the first room shown
/// as a successful escape; the counters cover room 2 only, and the oracle still escapes.
#[test]
fn bootstrapped_two_room_games_start_in_the_second_room() {
    use std::collections::BTreeMap;
    let world = escapade_craft::CraftWorld::new();
    let json =
        escapade_craft::scenario::generate(12, 5, escapade_craft::scenario::Variant::MultiRoom)
            .unwrap()
            .to_json();
    let options: BTreeMap<String, String> = [("bootstrap", "on"), ("frames", "off")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut env = world.env(&json, &options).unwrap();
    let first = env.reset(0);
    assert!(
        first.text.contains(escapade_craft::env::BOOTSTRAP_NOTE),
        "{}",
        first.text
    );
    assert!(first.text.contains("1. {"), "{}", first.text);
    assert!(
        first.text.contains("Now you are in the next room"),
        "{}",
        first.text
    );
    let mut oracle = world
        .agent("oracle", &json, 0, &Default::default())
        .unwrap();
    oracle.reset(escapade_core::EpisodeStart::new(0, "", &[]));
    let mut o = first;
    let mut last = None;
    for _ in 0..80 {
        let turn = oracle.act(&o, last.as_ref()).unwrap();
        let step = env.step(&turn.action).unwrap();
        o = step.observation.clone();
        let over = step.terminated || step.truncated;
        last = Some(step);
        if over {
            break;
        }
    }
    let out = env.outcome();
    assert!(out.success, "{:?}", out.metrics);
    assert_eq!(out.metrics["rooms_escaped"], 1.0);
    assert_eq!(out.metrics["prop_gain"], 1.0);
    // room 2 of a D1+D2 game takes a few steps, not the whole game's
    assert!(out.steps <= 8, "{}", out.steps);
    // with frames, room 1's pictures come along, one per shown step, after the view now
    let mut framed = world
        .env(
            &json,
            &[("width", "64"), ("height", "32")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
        .unwrap();
    let shown = framed.reset(0);
    let steps = shown
        .text
        .lines()
        .filter(|l| {
            l.split_once(". {")
                .is_some_and(|(n, _)| n.parse::<u32>().is_ok())
        })
        .count();
    assert!(steps >= 2, "{}", shown.text);
    assert_eq!(shown.images.len(), steps + 1);
    // unknown keys and bad values are refused
    let bad: BTreeMap<String, String> = [("bootstrap".to_string(), "maybe".to_string())].into();
    assert!(world.env(&json, &bad).is_err());
    let bad: BTreeMap<String, String> = [("colour".to_string(), "red".to_string())].into();
    assert!(world.env(&json, &bad).is_err());
}

/// The replies of an oracle solution up to (not including) the first that grabs, and
/// that reply's index.
fn before_first_grab(plan: &[String]) -> usize {
    plan.iter()
        .position(|a| a.contains("\"grab\":true"))
        .expect("a solution grabs")
}

/// MM-Escape's client reads a reply's keys in the order written: the motions are
/// carried out in that order after the reply is read (so `move_forward: -1.5` then
/// `rotate_right: 180` backs off first and turns after), the same as sending them one
/// reply at a time.
#[test]
fn one_reply_moves_in_the_order_its_keys_were_written() {
    let mut checked = 0;
    for s in suite().iter().take(22) {
        let options = EnvOptions::small().without_frames();
        let back_then_turn = r#"{"move_forward": -1.5, "rotate_right": 180}"#;
        let turn_then_back = r#"{"rotate_right": 180, "move_forward": -1.5}"#;
        let pose_after = |replies: &[&str]| {
            let mut env = open(s, options);
            for r in replies {
                act(&mut env, r);
            }
            env.pose()
        };
        let one = pose_after(&[back_then_turn]);
        assert_eq!(
            one,
            pose_after(&[r#"{"move_forward": -1.5}"#, r#"{"rotate_right": 180}"#]),
            "{}",
            s.id
        );
        let other = pose_after(&[turn_then_back]);
        assert_eq!(
            other,
            pose_after(&[r#"{"rotate_right": 180}"#, r#"{"move_forward": -1.5}"#]),
            "{}",
            s.id
        );
        if one != other {
            checked += 1;
        }
    }
    assert!(
        checked >= 10,
        "the two orders differed in only {checked} rooms"
    );
}

/// `grab` acts at once on the view the reply started from, before the reply's motions,
/// wherever it is written: aiming and grabbing in one reply grabs before the aim, and a
/// grab written after a turn still acts on what was under the dot.
#[test]
fn a_grab_acts_on_the_view_the_reply_started_from() {
    let mut checked = 0;
    for s in suite().iter().take(22) {
        let plan = solution(s);
        let k = before_first_grab(&plan);
        let options = EnvOptions::small().without_frames();
        let state = WorldState::start(s);
        // aimed first: a grab written after a half turn still acts on the target
        let mut aimed = open(s, options);
        for a in &plan[..k] {
            act(&mut aimed, a);
        }
        let target = under_dot(&aimed, s, &state);
        let step = act(&mut aimed, r#"{"rotate_right": 180, "grab": true}"#);
        assert!(
            step.terminated || step.feedback.contains("You picked up"),
            "{}: {}",
            s.id,
            step.feedback
        );
        // aim and grab in one reply: the grab comes before the aim and misses
        let mut early = open(s, options);
        for a in &plan[..k - 1] {
            act(&mut early, a);
        }
        if under_dot(&early, s, &state) == target {
            continue; // the target is under the dot before the aim too
        }
        let mut aim: serde_json::Value = serde_json::from_str(&plan[k - 1]).unwrap();
        aim["grab"] = true.into();
        let step = act(&mut early, &aim.to_string());
        assert!(
            !step.terminated && early.bag().is_empty(),
            "{}: {}",
            s.id,
            step.feedback
        );
        assert!(
            [
                escapade_craft::env::GRAB_NO_RESPONSE,
                escapade_craft::env::GRAB_NOTHING
            ]
            .iter()
            .any(|m| step.feedback.contains(m)),
            "{}: {}",
            s.id,
            step.feedback
        );
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} rooms checked");
}

/// A grab that opens the way into the next room drops the reply's gathered motion: the
/// agent stands at room 2's start pose (the original loads the next room afresh).
#[test]
fn a_grab_that_leaves_the_room_drops_the_reply_s_motion() {
    let s = suite()
        .into_iter()
        .find(|s| s.id == "craft-m11-01")
        .unwrap();
    let plan = solution(&s);
    let k = before_first_grab(&plan);
    let mut env = open(&s, autonomous().without_frames());
    for a in &plan[..k] {
        act(&mut env, a);
    }
    let step = act(
        &mut env,
        r#"{"grab": true, "move_forward": 2, "rotate_right": 45}"#,
    );
    assert!(
        step.feedback.contains("enter the next one"),
        "{}",
        step.feedback
    );
    assert_eq!(
        env.pose(),
        (1, escapade_craft::motion::Body::start(&s.rooms[1]))
    );
}

/// `look_at` names a point of the picture the reply was shown; after a walk written
/// before it, the view turns onto what that point showed, seen from where the agent now
/// stands.
#[test]
fn look_at_after_a_walk_turns_onto_what_the_picture_showed_there() {
    let mut checked = 0;
    for s in suite().iter().take(20) {
        let mut env = open(s, EnvOptions::small().without_frames());
        let state = WorldState::start(s);
        let prepared = Prepared::new(&s.scene(0, &state).unwrap()).unwrap();
        let (x, y) = (0.3f32, 0.6f32);
        let camera = env.pose().1.camera(env.options().horizontal_fov());
        let Some(hit) = prepared.pick(&camera, x * 256.0, y * 128.0, 256, 128) else {
            continue;
        };
        let before = env.pose().1;
        act(
            &mut env,
            &format!(r#"{{"move_forward": 0.5, "look_at": [{x}, {y}]}}"#),
        );
        let after = env.pose().1;
        if (after.x, after.z) == (before.x, before.z) {
            continue; // the walk was blocked
        }
        let eye = after.camera(90.0).position;
        let want = (hit.point - eye) * (1.0 / (hit.point - eye).length());
        let (yaw, pitch) = (after.yaw.to_radians(), after.pitch.to_radians());
        let forward = Vec3::new(
            yaw.sin() * pitch.cos(),
            pitch.sin(),
            yaw.cos() * pitch.cos(),
        );
        assert!(
            forward.dot(want) > 0.999_99,
            "{}: {forward:?} vs {want:?}",
            s.id
        );
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} rooms checked");
}

/// App. C.1.2: interactions with what is not part of the escape "provide no
/// information"; the original client answers a grab that reaches nothing with one of two
/// messages and a move or turn with a plain "moved". Nothing names the thing under the
/// dot, its distance, or how far a walk got.
#[test]
fn the_default_feedback_gives_no_free_information() {
    use escapade_craft::env::{
        GRAB_NO_RESPONSE, GRAB_NOTHING, MOVED, NO_INTERACTION, UNRESPONSIVE, VIEW_MOVED,
    };
    let s = &suite()[11];
    let mut env = open(s, EnvOptions::small().without_frames());
    let generic = [GRAB_NO_RESPONSE, GRAB_NOTHING];
    let mut seen = std::collections::BTreeSet::new();
    for turn in 0..6 {
        for tilt in [0, 30] {
            let step = act(
                &mut env,
                &format!(r#"{{"rotate_right": 60, "rotate_down": {tilt}}}"#),
            );
            assert_eq!(step.feedback, format!("{MOVED} {NO_INTERACTION}"), "{turn}");
            let step = act(&mut env, r#"{"grab": true}"#);
            if env.bag().is_empty() && !step.feedback.contains("opens") {
                let line = generic
                    .iter()
                    .find(|m| step.feedback.contains(*m))
                    .unwrap_or_else(|| panic!("{}", step.feedback));
                seen.insert(*line);
                for free in ["Under the red dot", " m away", "the wall", "sofa", "table"] {
                    assert!(!step.feedback.contains(free), "{}", step.feedback);
                }
            }
            if tilt != 0 {
                act(&mut env, &format!(r#"{{"rotate_down": {}}}"#, -tilt));
            }
        }
    }
    // looking at the ceiling, nothing that can be used is in view
    act(&mut env, r#"{"rotate_down": -89}"#);
    assert_eq!(act(&mut env, r#"{"grab": true}"#).feedback, GRAB_NOTHING);
    assert!(seen.contains(GRAB_NO_RESPONSE), "{seen:?}");
    assert_eq!(
        act(&mut env, r#"{"look_at": [0.3, 0.7]}"#).feedback,
        format!("{VIEW_MOVED} {NO_INTERACTION}")
    );
    assert_eq!(
        act(
            &mut env,
            r#"{"rotate_right": 5, "move_forward": 0.2, "look_at": [0.6, 0.5]}"#
        )
        .feedback,
        format!("{MOVED} {VIEW_MOVED} {NO_INTERACTION}")
    );
    assert_eq!(
        act(&mut env, r#"{"rationale": "hm"}"#).feedback,
        UNRESPONSIVE
    );
    let start = escapade_core::Env::reset(&mut env, 0);
    assert!(
        !start.text.contains(s.rooms[0].kind.label()),
        "{}",
        start.text
    );
}

/// The original client re-asks five times and then ends the game; escapade's agent loop
/// re-asks (five times by default), and a reply that still cannot be read ends the game
/// unless `-W unreadable=step`.
#[test]
fn an_unreadable_reply_after_the_reasks_ends_the_game() {
    let s = &suite()[0];
    let mut env = open(s, EnvOptions::small().without_frames());
    assert_eq!(env.reask_limit(), 5);
    let step = act(&mut env, "I think I should look around");
    assert!(step.truncated && !step.terminated && !step.valid());
    assert!(
        step.feedback.contains(escapade_craft::env::UNREADABLE_END),
        "{}",
        step.feedback
    );
    assert_eq!(env.step(&Action::text("{}")), Err(EnvError::EpisodeOver));
    let out = env.outcome();
    assert!(!out.success);
    assert_eq!(out.metrics["invalid_actions"], 1.0);
    let mut going = open(
        s,
        EnvOptions {
            unreadable: Unreadable::Step,
            ..EnvOptions::small().without_frames()
        },
    );
    let step = act(&mut going, "I think I should look around");
    assert!(!step.truncated && !step.valid());
    assert!(!act(&mut going, r#"{"rotate_right": 10}"#).truncated);
}

/// The oracle writes numbers as a person would: turns in whole degrees (tenths where a
/// small target needs it), walks in whole centimetres.
#[test]
fn the_oracle_writes_rounded_numbers() {
    for s in suite().iter().step_by(7) {
        for a in solution(s) {
            let v: serde_json::Value = serde_json::from_str(&a).unwrap();
            for (key, scale) in [
                ("rotate_right", 10.0),
                ("rotate_down", 10.0),
                ("move_forward", 100.0),
            ] {
                if let Some(x) = v.get(key).and_then(|x| x.as_f64()) {
                    let scaled = x * scale;
                    assert!((scaled - scaled.round()).abs() < 1e-3, "{}: {a}", s.id);
                    assert!(v[key].to_string().len() <= 7, "{}: {a}", s.id);
                }
            }
        }
    }
}
