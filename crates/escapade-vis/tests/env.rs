//! The vis environment through its public contract, on a small hand-built room.

use std::sync::Arc;

use escapade_core::check::check_env;
use escapade_core::{Action, Env, EnvError};
use escapade_vis::options::{Feedback, Options};
use escapade_vis::room::Room;
use escapade_vis::{Game, VisEnv, oracle, validate};

/// North: the exit door with a code keypad. South: a desk holding a brass key. East: a
/// locked wardrobe (the key opens it) with a clock poster inside: the door's code.
const ROOM: &str = r#"{
  "world": "vis", "id": "vis-test", "difficulty": 1, "seed": 0, "title": "Test room",
  "start": "north",
  "receptacles": [
    {"id": "door", "name": "door", "wall": "north", "furniture": "door",
     "states": ["locked", "closed", "open"], "initial": "locked"},
    {"id": "desk", "name": "desk", "wall": "south", "furniture": "desk",
     "states": ["closed", "open"], "initial": "closed"},
    {"id": "wardrobe", "name": "wardrobe", "wall": "east", "furniture": "wardrobe",
     "states": ["locked", "closed", "open"], "initial": "locked"}
  ],
  "items": [
    {"id": "keypad", "name": "door keypad", "type": "lock", "quiz": "q1",
     "receptacle": "door", "visible_in": ["locked"], "look": "grey metal"},
    {"id": "brass_key", "name": "brass key", "type": "applicable",
     "receptacle": "desk", "visible_in": ["open"], "look": "brass"},
    {"id": "poster", "name": "clock poster", "type": "clue", "quiz": "q1",
     "receptacle": "wardrobe", "visible_in": ["open"], "look": "paper"}
  ],
  "quizzes": [
    {"id": "q1", "code": "number", "spec": {"kind": "clock", "hour": 10, "minute": 35},
     "answer": "1035"}
  ],
  "interactions": [
    {"receptacle": "door", "by": "answer", "lock": "keypad", "from": "locked", "to": "closed"},
    {"receptacle": "door", "by": "verb", "verb": "open", "from": "closed", "to": "open"},
    {"receptacle": "desk", "by": "verb", "verb": "open", "from": "closed", "to": "open"},
    {"receptacle": "desk", "by": "verb", "verb": "close", "from": "open", "to": "closed"},
    {"receptacle": "wardrobe", "by": "verb", "verb": "open", "from": "locked", "to": "locked",
     "guard": {"not": "always"}, "refusal": "The wardrobe is locked."},
    {"receptacle": "wardrobe", "by": "item", "item": "brass_key", "from": "locked", "to": "closed"},
    {"receptacle": "wardrobe", "by": "verb", "verb": "open", "from": "closed", "to": "open"}
  ],
  "checkpoints": [
    {"trigger": "picked brass_key", "hint": "Open the desk by the south wall and take the key."},
    {"trigger": "used brass_key", "hint": "Use the brass key on the wardrobe by the east wall."},
    {"trigger": "solved keypad", "hint": "Enter the time on the clock as the door code."},
    {"trigger": "escaped", "hint": "Open the door."}
  ],
  "exit": {"receptacle": "door", "state": "open"}
}"#;

fn room(hints: bool) -> Room {
    let mut r = Room::from_json(ROOM).expect("the test room loads");
    r.hints = hints;
    r
}

/// The game-logic tests play under escapade's own protocol (`prompt=chat`, the @3
/// one): short observations, action names in words, lenient codes, a wasted step for a
/// reply that is no action, full descriptions. `tests/protocol.rs` holds the paper's.
fn ours() -> Options {
    Options {
        prompt: escapade_vis::options::Prompt::Chat,
        invalid: escapade_vis::options::Invalid::Wasted,
        answers: escapade_vis::game::AnswerRule::Lenient,
        descriptions: escapade_vis::options::Descriptions::Full,
        ..Options::default()
    }
}

fn env(hints: bool) -> VisEnv {
    VisEnv::new(Arc::new(Game::new(room(hints)).unwrap()))
        .unwrap()
        .without_images()
        .with_options(ours())
}

/// The environment with `feedback=sentences`: each step also says what it did.
fn talking_env() -> VisEnv {
    env(false).with_options(Options {
        feedback: Feedback::Sentences,
        ..ours()
    })
}

fn act(env: &mut VisEnv, text: &str) -> escapade_core::Step {
    env.step(&Action::text(text)).expect("step")
}

/// After the code, the keypad is gone (visible only while locked) and the view falls
/// back to the door itself. Turning to another wall works from a close-up too, as in the
/// original game.
const SOLUTION: [&str; 14] = [
    "turn to south",
    "inspect desk",
    "open desk",
    "pick up brass key",
    "turn to east",
    "inspect wardrobe",
    "use brass key",
    "open wardrobe",
    "inspect clock poster",
    "turn to north",
    "inspect door",
    "inspect door keypad",
    "<ANSWER>10 35</ANSWER>",
    "open door",
];

/// The moves before the code is entered.
const BEFORE_CODE: usize = 12;

#[test]
fn the_oracle_finds_the_shortest_way_out() {
    let game = Game::new(room(false)).unwrap();
    let solution = oracle::solve(&game).unwrap();
    assert_eq!(solution.moves.len(), SOLUTION.len());
    assert!(validate::lint(&room(false)).unwrap().is_clean());
}

#[test]
fn a_scripted_solution_escapes_with_full_metrics() {
    let mut e = env(false);
    let first = e.reset(3);
    assert!(
        first.text.starts_with("North side of the room."),
        "{}",
        first.text
    );
    assert!(
        first
            .actions
            .as_ref()
            .unwrap()
            .contains(&"inspect door".to_string())
    );
    let mut last = None;
    for (n, a) in SOLUTION.iter().enumerate() {
        let step = act(&mut e, a);
        assert!(step.valid(), "{a}: {}", step.feedback);
        assert_eq!(step.terminated, n + 1 == SOLUTION.len());
        last = Some(step);
    }
    let last = last.unwrap();
    assert_eq!(last.progress, 1.0);
    let o = e.outcome();
    assert!(o.success);
    assert_eq!(o.metrics["gc"], 1.0);
    assert_eq!(o.metrics["spl"], 1.0);
    assert_eq!(o.metrics["essential_views_seen"], 1.0);
    assert_eq!(o.metrics["repeated_action_ratio"], 0.0);
    assert_eq!(o.metrics["brute_force_ratio"], 0.0);
    assert_eq!(
        e.step(&Action::text("step back")),
        Err(EnvError::EpisodeOver)
    );
}

#[test]
fn guards_refuse_with_their_message_and_wrong_codes_count_as_brute_force() {
    let mut e = talking_env();
    e.reset(0);
    act(&mut e, "turn to east");
    act(&mut e, "inspect wardrobe");
    let s = act(&mut e, "open wardrobe");
    assert!(s.valid());
    assert_eq!(s.feedback, "The wardrobe is locked.");
    act(&mut e, "open wardrobe");
    for a in [
        "step back",
        "turn to north",
        "inspect door",
        "inspect door keypad",
    ] {
        act(&mut e, a);
    }
    let s = act(&mut e, "<ANSWER>0000</ANSWER>");
    assert!(
        s.valid() && s.feedback.contains("stays shut"),
        "{}",
        s.feedback
    );
    let o = e.outcome();
    assert_eq!(o.metrics["brute_force_ratio"], 1.0);
    assert_eq!(o.metrics["answer_attempts"], 1.0);
    // two tries of `open wardrobe` in the same situation: one repeat of three interactions
    assert!((o.metrics["repeated_action_ratio"] - 1.0 / 3.0).abs() < 1e-9);
    assert_eq!(o.metrics["gc"], 0.0);
}

#[test]
fn bad_replies_are_feedback_and_can_be_checked_first() {
    let mut e = env(false);
    e.reset(0);
    for junk in [
        Action::text(""),
        Action::text("fly away"),
        Action::text("<ANSWER>1035</ANSWER>"),
        Action::text("x".repeat(2_000_000)),
        Action::call("act", "{not json"),
        Action::call("teleport", "{}"),
        Action::Bytes {
            bytes: vec![0xc3, 0x28],
        },
    ] {
        let message = e.check_action(&junk).unwrap_err();
        assert!(
            message.contains("inspect door") || message.contains("act"),
            "{message}"
        );
        let s = e.step(&junk).unwrap();
        assert!(!s.valid());
        assert_eq!(s.error.as_deref(), Some("invalid_action"));
        assert!(s.observation.text.len() < 5_000);
    }
    assert_eq!(e.outcome().metrics["invalid_actions"], 7.0);
    assert!(
        e.check_action(&Action::text("[THINK] hm [ACTION] turn_to_east"))
            .is_ok()
    );
    assert_eq!(e.reask_limit(), 3);
}

#[test]
fn hints_appear_after_thirty_stuck_steps_only_in_hint_mode() {
    for hints in [false, true] {
        let mut e = env(hints);
        e.reset(0);
        let mut shown_at = None;
        for n in 1..=40 {
            let s = act(
                &mut e,
                if n % 2 == 1 {
                    "turn to east"
                } else {
                    "turn to north"
                },
            );
            if shown_at.is_none() && s.observation.text.contains("Hint: Open the desk") {
                shown_at = Some(n);
            }
        }
        assert_eq!(shown_at, hints.then_some(30));
    }
    // a checkpoint reached while the hint shows counts as hint-assisted
    let mut e = env(true);
    e.reset(0);
    for n in 0..30 {
        act(
            &mut e,
            if n % 2 == 0 {
                "turn to east"
            } else {
                "turn to north"
            },
        );
    }
    for a in [
        "turn to south",
        "inspect desk",
        "open desk",
        "pick up brass key",
    ] {
        act(&mut e, a);
    }
    assert_eq!(e.outcome().metrics["hint_assisted_rate"], 1.0);
}

#[test]
fn a_hundred_steps_without_progress_end_the_episode() {
    let mut e = env(false);
    e.reset(0);
    for n in 1..=100 {
        let s = act(&mut e, "turn to east");
        let s = if s.truncated {
            s
        } else {
            act(&mut e, "turn to north")
        };
        if s.truncated {
            assert!(!s.terminated);
            assert_eq!(e.outcome().steps, 100);
            return;
        }
        assert!(n < 60);
    }
    panic!("never truncated");
}

#[test]
fn actions_are_shuffled_by_the_seed_and_reproducible() {
    let listing = |seed| {
        let mut e = env(false);
        let mut all = vec![e.reset(seed).actions.unwrap()];
        for a in ["turn to south", "inspect desk", "open desk"] {
            all.push(act(&mut e, a).observation.actions.unwrap());
        }
        all
    };
    assert_eq!(listing(1), listing(1));
    let differs = (2..12).any(|s| listing(s) != listing(1));
    assert!(differs);
}

#[test]
fn the_conformance_checker_passes_and_no_answer_leaks() {
    let mut e = env(false);
    let junk: Vec<Action> = [
        "turn to east",
        "inspect wardrobe",
        "open wardrobe",
        "step back",
        "turn to north",
        "inspect door",
        "inspect door keypad",
        "<ANSWER>1234</ANSWER>",
        "dance",
    ]
    .iter()
    .map(|a| Action::text(*a))
    .collect();
    check_env(&mut e, 5, &junk).unwrap();
}

#[test]
fn lint_reports_what_an_author_should_fix() {
    let mut r = room(false);
    r.receptacles[1].states.push("broken".into());
    r.items.push(serde_json::from_str(
        r#"{"id": "spoon", "name": "spoon", "type": "applicable", "receptacle": "desk", "visible_in": ["open"]}"#,
    ).unwrap());
    let lint = validate::lint(&r).unwrap();
    assert!(lint.solvable);
    assert_eq!(lint.unreachable_states, vec!["desk.broken".to_string()]);
    assert_eq!(lint.unused_items, vec!["spoon".to_string()]);
    // without the key interaction the room cannot be escaped
    r.interactions
        .retain(|x| !matches!(x.cause, escapade_vis::room::Cause::Item { .. }));
    let lint = validate::lint(&r).unwrap();
    assert!(!lint.solvable);
    assert!(lint.dead_checkpoints.contains(&"escaped".to_string()));
    assert!(lint.unsolvable_locks.contains(&"keypad".to_string()));
    assert!(oracle::solve(&Game::new(r).unwrap()).is_err());
}

#[test]
fn broken_rooms_are_refused_with_the_reason() {
    for (from, to, why) in [
        (
            r#""initial": "closed""#,
            r#""initial": "ajar""#,
            "initial state",
        ),
        (
            r#""receptacle": "desk""#,
            r#""receptacle": "nowhere""#,
            "unknown receptacle",
        ),
        (r#""quiz": "q1","#, r#""quiz": "q9","#, "unknown quiz"),
    ] {
        let text = ROOM.replacen(from, to, 1);
        let err = Room::from_json(&text).unwrap_err().to_string();
        assert!(err.contains(why), "{err}");
    }
    assert!(Room::from_json("{").is_err());
}

#[test]
fn codes_are_read_the_way_people_write_them() {
    use escapade_vis::game::canonical_answer;
    use escapade_vis::room::CodeKind;
    // a time is typed with its colon or without
    let mut e = talking_env();
    e.reset(0);
    for a in SOLUTION.iter().take(BEFORE_CODE) {
        act(&mut e, a);
    }
    let s = act(
        &mut e,
        "[THINK] the clock said 10:35 [ACTION] <ANSWER>10:35</ANSWER>",
    );
    assert!(s.feedback.starts_with("Correct"), "{}", s.feedback);
    // direction locks take letters, words or arrows
    for typed in [
        "URRD",
        "up, right, right, down",
        "↑→→↓",
        "u r r d",
        "Up-Right-Right-Down",
    ] {
        assert_eq!(
            canonical_answer(CodeKind::Direction, typed),
            "URRD",
            "{typed}"
        );
    }
    assert_eq!(canonical_answer(CodeKind::Letter, "up"), "UP");
}

#[test]
fn a_thought_that_mentions_the_answer_format_does_not_submit_it() {
    let mut e = env(false);
    e.reset(0);
    let reply = "[THINK] I could use <ANSWER>1234</ANSWER> later. [ACTION] turn to east";
    let s = act(&mut e, reply);
    assert!(s.valid() && s.feedback.contains("east"), "{}", s.feedback);
    for a in [
        "step back",
        "turn to north",
        "inspect door",
        "inspect door keypad",
    ] {
        let _ = act(&mut e, a);
    }
    let echoed = e
        .check_action(&Action::text("<ANSWER>your answer</ANSWER>"))
        .unwrap_err();
    assert!(echoed.contains("code itself"), "{echoed}");
    assert!(
        e.check_action(&Action::text("answer>your answer</answer"))
            .is_err()
    );
}

#[test]
fn essential_views_count_scenes_not_places() {
    // looking at the locked wardrobe is not seeing the open wardrobe with the poster
    let mut e = env(false);
    e.reset(0);
    for a in [
        "turn to east",
        "inspect wardrobe",
        "step back",
        "turn to south",
        "inspect desk",
    ] {
        act(&mut e, a);
    }
    let partial = e.outcome().metrics["essential_views_seen"];
    assert!(partial < 0.5, "{partial}");
    // a glimpse of the clue in its receptacle's close-up is enough to not be brute force
    let mut e = env(false);
    e.reset(0);
    for a in SOLUTION.iter().take(9) {
        act(&mut e, a);
    }
    for a in [
        "step back",
        "turn to north",
        "inspect door",
        "inspect door keypad",
        "<ANSWER>9999</ANSWER>",
    ] {
        act(&mut e, a);
    }
    let o = e.outcome();
    assert_eq!(o.metrics["brute_force_ratio"], 0.0);
    assert_eq!(o.metrics["brute_force_answers"], 0.0);
}

#[test]
fn rooms_whose_names_read_alike_or_checkpoints_repeat_are_refused() {
    let text = ROOM.replacen(r#""name": "desk""#, r#""name": "wardrobe.""#, 1);
    assert!(
        Room::from_json(&text)
            .unwrap_err()
            .to_string()
            .contains("duplicate name")
    );
    let text = ROOM.replacen(
        r#""trigger": "escaped""#,
        r#""trigger": "picked brass_key""#,
        1,
    );
    assert!(
        Room::from_json(&text)
            .unwrap_err()
            .to_string()
            .contains("listed twice")
    );
    let text = ROOM.replacen(r#""type": "clue", "quiz": "q1""#, r#""type": "decor""#, 1);
    assert!(
        Room::from_json(&text)
            .unwrap_err()
            .to_string()
            .contains("no clue")
    );
}

/// The test room with `n` more cabinets that open and shut, spread over the walls, each
/// holding a vase (§5 of issue 13: a solvable room plus 16 such cabinets was reported
/// unescapable after the search gave up).
fn with_cabinets(n: usize) -> Room {
    let mut r = room(false);
    let walls = ["north", "east", "south", "west"];
    for k in 0..n {
        let id = format!("cabinet_{k}");
        r.receptacles.push(
            serde_json::from_value(serde_json::json!({
                "id": id, "name": format!("cabinet number {k}"), "wall": walls[k % 4],
                "furniture": "cabinet", "states": ["closed", "open"], "initial": "closed"
            }))
            .unwrap(),
        );
        r.items.push(
            serde_json::from_value(serde_json::json!({
                "id": format!("vase_{k}"), "name": format!("vase number {k}"), "type": "decor",
                "receptacle": id, "visible_in": ["open"]
            }))
            .unwrap(),
        );
        for (verb, from, to) in [("open", "closed", "open"), ("close", "open", "closed")] {
            r.interactions.push(
                serde_json::from_value(serde_json::json!({
                    "receptacle": id, "by": "verb", "verb": verb, "from": from, "to": to
                }))
                .unwrap(),
            );
        }
    }
    r
}

#[test]
fn sixteen_idle_cabinets_do_not_hide_the_way_out() {
    let r = with_cabinets(16);
    let game = Game::new(r.clone()).unwrap();
    let solution = oracle::solve(&game).unwrap();
    assert_eq!(solution.moves.len(), SOLUTION.len());
    let relevance = oracle::Relevance::of(&game);
    assert_eq!(relevance.irrelevant().len(), 16);
    // the cabinets' open states are still reachable, as the author meant
    let lint = validate::lint(&r).unwrap();
    assert!(lint.is_clean(), "{lint:?}");
    // an opened cabinet shows its vase: the idle cabinets still play
    let mut e = VisEnv::new(Arc::new(game)).unwrap().without_images();
    e.reset(0);
    act(&mut e, "inspect cabinet number 0");
    let s = act(&mut e, "open cabinet number 0");
    assert!(
        s.observation
            .actions
            .unwrap()
            .contains(&"inspect vase number 0".to_string())
    );
}

#[test]
fn a_search_that_runs_out_says_so() {
    let game = Game::new(with_cabinets(2)).unwrap();
    let err = oracle::solve_within(&game, 20).unwrap_err().to_string();
    assert!(err.contains("limit of 20 states"), "{err}");
    assert!(!err.contains("cannot be escaped"), "{err}");
}

#[test]
fn items_and_receptacles_need_a_name() {
    for (from, to) in [
        (r#""name": "brass key""#, r#""name": """#),
        (r#""name": "brass key""#, r#""name": "  ""#),
        (r#""name": "brass key""#, r#""name": "..""#),
        (r#""name": "desk""#, r#""name": """#),
        (r#""name": "brass key""#, r#""name": "brass\nkey""#),
        (r#""id": "brass_key""#, r#""id": """#),
    ] {
        let text = ROOM.replacen(from, to, 1);
        let err = Room::from_json(&text).unwrap_err().to_string();
        assert!(
            err.contains("empty name") || err.contains("line break") || err.contains("empty id"),
            "{to}: {err}"
        );
    }
}

#[test]
fn a_two_drawer_chest_says_which_drawer_moved() {
    use escapade_vis::game::change_sentence;
    let r: escapade_vis::room::Receptacle = serde_json::from_value(serde_json::json!({
        "id": "dresser", "name": "dresser", "wall": "north", "furniture": "drawers",
        "states": ["closed_closed", "open_closed", "closed_open", "open_open", "locked_closed"],
        "initial": "closed_closed"
    }))
    .unwrap();
    assert_eq!(
        change_sentence(&r, "closed_closed", "closed_open"),
        "The bottom drawer of the dresser is now open."
    );
    assert_eq!(
        change_sentence(&r, "open_open", "closed_open"),
        "The top drawer of the dresser is now closed."
    );
    assert_eq!(
        change_sentence(&r, "locked_closed", "closed_closed"),
        "The top drawer of the dresser is now unlocked."
    );
    assert_eq!(
        change_sentence(&r, "closed_closed", "open_open"),
        "The top drawer of the dresser is now open, and its bottom drawer open."
    );
}

/// §4.1: "automatically concluded after 300 steps" — progress now and then keeps the
/// 100-step cut away, and the episode still stops at step 300.
#[test]
fn an_episode_stops_at_three_hundred_steps() {
    let mut e = env(false);
    e.reset(0);
    let mut steps = 0u32;
    let wander = |e: &mut VisEnv, n: u32, steps: &mut u32| {
        for k in 0..n {
            let s = act(
                e,
                if k % 2 == 0 {
                    "turn to east"
                } else {
                    "turn to north"
                },
            );
            *steps += 1;
            assert!(!s.truncated, "cut at step {steps}");
        }
        // back facing north
        if n % 2 == 1 {
            act(e, "turn to north");
            *steps += 1;
        }
    };
    wander(&mut e, 80, &mut steps);
    for a in [
        "turn to south",
        "inspect desk",
        "open desk",
        "pick up brass key",
        "step back",
    ] {
        act(&mut e, a);
        steps += 1;
    }
    act(&mut e, "turn to north");
    steps += 1;
    wander(&mut e, 80, &mut steps);
    for a in [
        "turn to east",
        "inspect wardrobe",
        "use brass key",
        "open wardrobe",
    ] {
        act(&mut e, a);
        steps += 1;
    }
    for a in [
        "inspect clock poster",
        "step back",
        "step back",
        "turn to north",
    ] {
        act(&mut e, a);
        steps += 1;
    }
    wander(&mut e, 80, &mut steps);
    for a in [
        "inspect door",
        "inspect door keypad",
        "<ANSWER>1035</ANSWER>",
    ] {
        act(&mut e, a);
        steps += 1;
    }
    assert_eq!(e.outcome().metrics["checkpoints"], 3.0);
    assert_eq!(e.outcome().metrics["gc"], 0.75);
    let last = loop {
        let s = act(&mut e, "step back");
        steps += 1;
        if s.truncated || s.terminated {
            break s;
        }
    };
    assert!(last.truncated && !last.terminated);
    assert_eq!(steps, 300);
    assert_eq!(e.outcome().steps, 300);
}

/// §3.1: "it can *turn to [direction]* to view walls that are not currently visible" —
/// in the original from every view (its `get_available_actions` lists `turn_to_*`
/// first, whatever is in view), leaving the close-up for that wall; and the bag's items
/// can be used in an item's close-up too.
#[test]
fn walls_can_be_turned_to_from_a_close_up() {
    let mut e = env(false);
    let first = e.reset(0);
    let turns = |o: &escapade_core::Observation| -> Vec<String> {
        let mut t: Vec<String> = o
            .actions
            .clone()
            .unwrap()
            .into_iter()
            .filter(|a| a.starts_with("turn to"))
            .collect();
        t.sort();
        t
    };
    assert_eq!(
        turns(&first),
        ["turn to east", "turn to south", "turn to west"]
    );
    act(&mut e, "turn to east");
    let close = act(&mut e, "inspect wardrobe").observation;
    assert_eq!(
        turns(&close),
        ["turn to north", "turn to south", "turn to west"]
    );
    let s = act(&mut e, "turn to south");
    assert!(s.observation.text.starts_with("South side of the room."));
    assert!(describe_of(&e).starts_with("You face the south wall."));
    // an item's close-up offers the bag's items
    for a in [
        "inspect desk",
        "open desk",
        "pick up brass key",
        "turn to north",
    ] {
        act(&mut e, a);
    }
    act(&mut e, "inspect door");
    let keypad = act(&mut e, "inspect door keypad").observation;
    assert!(
        keypad
            .actions
            .unwrap()
            .contains(&"use brass key".to_string())
    );
}

fn describe_of(e: &VisEnv) -> String {
    escapade_vis::describe::describe(e.game(), e.state())
}

/// Pictures come from a store shared by every environment of the process, keyed by room,
/// style and state: whatever order episodes are played in, and however often, each
/// observation's picture is its state drawn afresh, with its true address and exact
/// description.
#[test]
fn every_picture_is_the_state_drawn_afresh_in_any_order() {
    use escapade_vis::{describe, render};
    let plain = ours();
    let labelled = Options {
        labels: true,
        ..ours()
    };
    let play = |hints: bool, options: Options| -> Vec<String> {
        let game = Arc::new(Game::new(room(hints)).unwrap());
        let mut env = VisEnv::new(game.clone()).unwrap().with_options(options);
        let style = render::Style {
            labels: options.labels,
        };
        let mut shas = Vec::new();
        let mut observation = env.reset(3);
        for text in SOLUTION.iter().chain(&["turn to west"]) {
            let image = &observation.images[0];
            let fresh = render::render_with(&game, env.state(), style).unwrap();
            assert!(image.png == fresh, "the picture is the state drawn afresh");
            assert_eq!(image.sha256, escapade_core::hash::sha256_hex(&fresh));
            assert_eq!(image.alt, Some(describe::describe(&game, env.state())));
            shas.push(image.sha256.clone());
            let step = act(&mut env, text);
            if step.terminated {
                break;
            }
            observation = step.observation;
        }
        shas
    };
    let first = [play(false, plain), play(true, plain), play(false, labelled)];
    let again = [play(false, labelled), play(true, plain), play(false, plain)];
    assert_eq!(first[0], again[2]);
    assert_eq!(first[1], again[1]);
    assert_eq!(first[2], again[0]);
    // hints change no picture; labels change them all
    assert_eq!(first[0], first[1]);
    assert!(first[0].iter().zip(&first[2]).all(|(a, b)| a != b));
}

/// The picture store keys a view by its scene ([`Game::scene`]), not by the whole state:
/// states that differ only in what is out of view (a receptacle on another wall, the bag,
/// triggers, clues seen) show the same picture and description. Checked on random walks
/// through rooms of `visescape@4`, in both drawing styles.
#[test]
fn states_with_the_same_scene_show_the_same_picture() {
    use escapade_core::World;
    use escapade_vis::{VisWorld, describe, render};
    use rand::Rng;
    use std::collections::BTreeMap;
    let rooms = VisWorld::new().build_suite("visescape@4").unwrap();
    let mut shared = 0;
    for (k, json) in rooms.iter().enumerate().step_by(5) {
        let game = Game::new(Room::from_json(json).unwrap()).unwrap();
        let mut rng = escapade_core::seed::rng(k as u64);
        let mut seen: BTreeMap<_, (Vec<u8>, Vec<u8>, String)> = BTreeMap::new();
        let mut state = game.start();
        for _ in 0..120 {
            let scene = game.scene(&state);
            let draw = |labels| render::render_with(&game, &state, render::Style { labels });
            let (plain, labelled) = (draw(false).unwrap(), draw(true).unwrap());
            let text = describe::describe(&game, &state);
            match seen.get(&scene) {
                Some((p, l, t)) => {
                    shared += 1;
                    assert!(*p == plain && *l == labelled, "{scene:?}");
                    assert_eq!(*t, text, "{scene:?}");
                }
                None => {
                    seen.insert(scene, (plain, labelled, text));
                }
            }
            let moves = game.available(&state);
            let m = moves[rng.random_range(0..moves.len())].clone();
            game.apply(&mut state, &m);
        }
    }
    assert!(shared > 50, "the walks revisit scenes ({shared})");
}

/// The test room with the keypad showing in every state of the door and a keyhole on the
/// wardrobe that the brass key opens (a key lock, visible in every state too).
fn room_with_lasting_locks() -> Game {
    let mut r = room(false);
    r.items[0].visible_in = r.receptacles[0].states.clone();
    r.items.push(escapade_vis::room::Item {
        id: "keyhole".into(),
        name: "keyhole".into(),
        kind: escapade_vis::room::ItemKind::KeyLock {
            key: "brass_key".into(),
        },
        receptacle: "wardrobe".into(),
        visible_in: r.receptacles[2].states.clone(),
        look: "brass".into(),
        inspectable: true,
        single_use: false,
    });
    Game::new(r).unwrap()
}

/// Plays moves by their kind, whatever the action list calls them.
fn play_moves(game: &Game, moves: &[escapade_vis::Move]) -> escapade_vis::State {
    let mut s = game.start();
    for m in moves {
        let listed = game.available(&s).into_iter().any(|x| match (&x, m) {
            (escapade_vis::Move::Answer(_), escapade_vis::Move::Answer(_)) => true,
            _ => x == *m,
        });
        assert!(listed, "{m:?} is not available in {:?}", s.view());
        game.apply(&mut s, m);
    }
    s
}

#[test]
fn a_right_code_or_key_returns_to_the_receptacle_close_up() {
    use escapade_vis::Move::*;
    use escapade_vis::game::View;
    use escapade_vis::room::Wall;
    let game = room_with_lasting_locks();
    let (door, desk, wardrobe) = (0, 1, 2);
    let (keypad, key, keyhole) = (0, 1, 3);
    let to_the_keyhole = [
        Turn(Wall::South),
        InspectReceptacle(desk),
        Verb {
            receptacle: desk,
            verb: "open".into(),
        },
        PickUp(key),
        Turn(Wall::East),
        InspectReceptacle(wardrobe),
        InspectItem(keyhole),
    ];
    // a wrong code stays on the keypad; the right one goes back to the door
    let at_keypad = [InspectReceptacle(door), InspectItem(keypad)];
    let s = play_moves(&game, &[&at_keypad[..], &[Answer("9999".into())]].concat());
    assert_eq!(s.view(), View::Item(keypad));
    let s = play_moves(&game, &[&at_keypad[..], &[Answer("1035".into())]].concat());
    assert_eq!(game.state_name(&s, door), "closed");
    assert_eq!(s.view(), View::Receptacle(door));
    // the key used from the keyhole's close-up: back to the wardrobe, as the original's
    // engine does after a lock is solved (game_state.py, the item view's `use`)
    let s = play_moves(&game, &[&to_the_keyhole[..], &[Use(key)]].concat());
    assert_eq!(game.state_name(&s, wardrobe), "closed");
    assert_eq!(s.view(), View::Receptacle(wardrobe));
}

/// The test room with the code read from a close-up rather than a picture: an hourglass
/// on the west wall that holds nothing and whose `flip` fires nothing shows the code
/// once flipped (the original's room 6 reads its code so, room 13 from a lit screen).
#[test]
fn a_clue_close_up_is_searched_though_nothing_else_needs_it() {
    let mut r = room(false);
    r.items.retain(|i| i.id != "poster");
    r.receptacles.push(escapade_vis::room::Receptacle {
        id: "hourglass".into(),
        name: "hourglass".into(),
        wall: escapade_vis::room::Wall::West,
        furniture: escapade_vis::room::Furniture::Table,
        states: vec!["upright".into(), "flipped".into()],
        initial: "upright".into(),
    });
    r.interactions.push(escapade_vis::room::Interaction {
        receptacle: "hourglass".into(),
        cause: escapade_vis::room::Cause::Verb {
            verb: "flip".into(),
        },
        from: "upright".into(),
        to: "flipped".into(),
        guard: escapade_vis::room::Rule::Always,
        trigger: None,
        refusal: None,
        message: None,
    });
    // a code read from the room's pictures, as an imported room's
    r.quizzes[0].spec = escapade_vis::room::QuizSpec::Pictured { slots: 4 };
    r.quizzes[0].clue_views = vec![escapade_vis::room::ClueView {
        receptacle: "hourglass".into(),
        state: "flipped".into(),
    }];
    let game = Game::new(r).unwrap();
    let solution = oracle::solve(&game).expect("the oracle flips the hourglass");
    let flip = solution
        .moves
        .iter()
        .position(|m| matches!(m, escapade_vis::Move::Verb { verb, .. } if verb == "flip"))
        .expect("flipped");
    let answer = solution
        .moves
        .iter()
        .position(|m| matches!(m, escapade_vis::Move::Answer(_)))
        .unwrap();
    assert!(flip < answer);
}
