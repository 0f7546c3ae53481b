//! The original EscapeCraft's files, read by the importer (fixtures: MIT, see
//! `fixtures/levels/LICENSE`).

use escapade_craft::chain::{NoteLine, PropKind, Subgoal, Unlock, password_digits};
use escapade_craft::importer::{parse_level, parse_scene};
use escapade_craft::scenario::{Variant, from_level};

const LEVEL1: &str = include_str!("fixtures/levels/level1.json");
const LEVEL2: &str = include_str!("fixtures/levels/level2.json");
const LEVEL3_NOTE: &str = include_str!("fixtures/levels/level3_note_first.json");
const LEVEL3_KEY: &str = include_str!("fixtures/levels/level3_key_first.json");
const LEVEL3_5: &str = include_str!("fixtures/levels/level3.5.json");
const SCENE: &str = include_str!("fixtures/scene_data/level1/1.json");

fn goals(json: &str) -> Vec<String> {
    parse_level(json, 1)
        .unwrap()
        .chain
        .plan()
        .unwrap()
        .iter()
        .map(|g| match g {
            Subgoal::Grab { prop } => format!("grab {prop}"),
            Subgoal::Read { note } => format!("read {note}"),
            Subgoal::Inspect { pattern } => format!("inspect {pattern}"),
            Subgoal::Interact { target } => format!("interact {target}"),
            Subgoal::UseKey { key, target } => format!("use {key} on {target}"),
            Subgoal::EnterPassword { password, target } => format!("enter {password} at {target}"),
        })
        .collect()
}

#[test]
fn level1_is_the_door_alone() {
    let l = parse_level(LEVEL1, 0).unwrap();
    assert_eq!(l.chain.exit, Unlock::Interact);
    assert!(l.chain.props.is_empty());
    assert!(l.story.contains("research institute"));
    assert_eq!(goals(LEVEL1), ["interact exit"]);
}

#[test]
fn level2_takes_a_visible_key() {
    assert_eq!(goals(LEVEL2), ["grab key_1", "use key_1 on exit"]);
    let l = parse_level(LEVEL2, 0).unwrap();
    assert!(l.warnings.is_empty());
}

#[test]
fn level3_note_first_matches_table_7() {
    assert_eq!(
        goals(LEVEL3_NOTE),
        [
            "grab note_1",
            "read note_1",
            "enter password_1 at box_1",
            "use key_1 on exit"
        ]
    );
    let l = parse_level(LEVEL3_NOTE, 42).unwrap();
    let shown: Vec<_> = l.chain.placed().map(|p| p.id.as_str()).collect();
    assert_eq!(shown, ["box_1", "note_1"]);
    assert_eq!(
        l.chain.digits("password_1").unwrap(),
        password_digits(42, "password_1")
    );
    // key_1's `use` says box_1, but the exit is what it opens
    assert_eq!(l.warnings.len(), 1, "{:?}", l.warnings);
    assert!(
        matches!(&l.chain.prop("key_1").unwrap().kind, PropKind::Key { opens: Some(o) } if o == "exit")
    );
    let story = l.chain.prop("note_2").unwrap();
    assert!(
        matches!(&story.kind, PropKind::Note { lines } if matches!(&lines[0], NoteLine::Story { text } if text.starts_with("Journal")))
    );
}

#[test]
fn level3_key_first_opens_the_box_with_the_key() {
    assert_eq!(
        goals(LEVEL3_KEY),
        [
            "grab key_1",
            "use key_1 on box_1",
            "read note_1",
            "enter password_1 at exit"
        ]
    );
    assert!(parse_level(LEVEL3_KEY, 0).unwrap().warnings.is_empty());
}

#[test]
fn level3_5_has_two_keys() {
    assert_eq!(
        goals(LEVEL3_5),
        ["grab key_1", "use key_1 on box_1", "use key_2 on exit"]
    );
    let l = parse_level(LEVEL3_5, 0).unwrap();
    assert_eq!(l.warnings.len(), 1, "key_2 says box_1 but opens the exit");
}

#[test]
fn every_level_becomes_a_furnished_scenario() {
    let expect = [
        (LEVEL1, 1, Variant::Standard),
        (LEVEL2, 2, Variant::Standard),
        (LEVEL3_NOTE, 3, Variant::NoteFirst),
        (LEVEL3_KEY, 3, Variant::KeyFirst),
        (LEVEL3_5, 3, Variant::TwoKey),
    ];
    for (json, difficulty, variant) in expect {
        let s = from_level(json, 7).unwrap();
        assert_eq!((s.difficulty, s.variant), (difficulty, variant), "{}", s.id);
        assert_eq!(s.story, parse_level(json, 7).unwrap().story);
        s.validate().unwrap();
        assert_eq!(from_level(json, 7).unwrap().to_json(), s.to_json());
        escapade_craft::layout::check_floor(&s.rooms[0]).unwrap();
    }
}

#[test]
fn the_scene_file_gives_pose_room_and_prefabs() {
    let s = parse_scene(SCENE).unwrap();
    assert_eq!(s.rooms.len(), 1);
    assert_eq!(s.rooms[0].room_type, "Kitchen");
    let (w, d) = s.rooms[0].floor_extent();
    assert!((w - 7.3).abs() < 1e-4 && (d - 7.3).abs() < 1e-4);
    assert!((s.agent.rotation[1] - 148.815).abs() < 1e-2);
    let exit: Vec<_> = s.items().collect();
    assert_eq!(exit.len(), 1);
    assert_eq!(exit[0].item_id.as_deref(), Some("exit"));
    let objects: Vec<_> = s.objects().map(|i| i.prefab.as_str()).collect();
    assert_eq!(
        objects.len(),
        20,
        "furniture and clutter, as the paper counts objects"
    );
    assert!(objects.contains(&"LowPolyInterior2_Refrigerator3_C1"));
}
