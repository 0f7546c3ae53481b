//! The conversion, rule by rule, on a small room written here in the dumper's format
//! (what the original's objects would hold), with made-up pictures.

use std::collections::BTreeMap;

use super::dump::{DumpedRoom, Trace};
use super::*;
use crate::game::{Game, Move, View};
use crate::pictures::{self, Shown};
use crate::room::{Cause, ItemKind, QuizSpec, Rule};

/// A room in the dumper's format: a box holding a key (south), a desk the key opens
/// through its keyhole, holding the clue picture (north), a safe with a code lock holding
/// a button (east) that unlocks the door (west), and a coffee machine.
fn dumped() -> DumpedRoom {
    serde_json::from_str(
        r#"{
        "name": "room7", "start": "NORTH",
        "clear": {"receptacle": "Door", "state": "open"},
        "walls": [
            {"wall": "NORTH", "receptacles": ["Desk"]},
            {"wall": "EAST", "receptacles": ["Safe"]},
            {"wall": "SOUTH", "receptacles": ["Box", "Coffee"]},
            {"wall": "WEST", "receptacles": ["Door"]}],
        "receptacles": [
            {"id": "Desk", "class": "LockDesk", "states": ["closed", "locked", "open"],
             "initial": "locked",
             "transitions": [
                {"from": "closed", "action": "open", "to": "open", "rule": "always"},
                {"from": "open", "action": "close", "to": "closed", "rule": "always"},
                {"from": "locked", "action": "use key_A", "to": "open", "rule": {"has_item": "key_A"}}],
             "items": [{"name": "Keylock", "states": ["locked"]}, {"name": "Image1", "states": ["open"]}]},
            {"id": "Safe", "class": "Safe", "states": ["closed", "locked", "open"], "initial": "locked",
             "transitions": [
                {"from": "closed", "action": "open", "to": "open", "rule": "always"},
                {"from": "open", "action": "close", "to": "closed", "rule": "always"},
                {"from": "locked", "action": "unlock", "to": "open", "rule": {"trigger": "solved_Numberlock"}}],
             "items": [{"name": "Numberlock", "states": ["locked"]}, {"name": "Button", "states": ["open"]}]},
            {"id": "Box", "class": "NonLockBox", "states": ["closed", "open"], "initial": "closed",
             "transitions": [
                {"from": "closed", "action": "open", "to": "open", "rule": "always"},
                {"from": "open", "action": "close", "to": "closed", "rule": "always"}],
             "items": [{"name": "key_A", "states": ["open"]}]},
            {"id": "Coffee", "class": "CoffeeMachine", "states": ["empty", "full"], "initial": "full",
             "transitions": [{"from": "full", "action": "pour coffee", "to": "empty", "rule": "always"}],
             "items": []},
            {"id": "Door", "class": "LockDoor", "states": ["closed", "locked", "open"], "initial": "locked",
             "transitions": [
                {"from": "closed", "action": "open", "to": "open", "rule": "always"},
                {"from": "open", "action": "close", "to": "closed", "rule": "always"}],
             "items": []}],
        "items": [
            {"name": "Keylock", "class": "KeyLock", "classes": ["KeyLock", "LockKeyItem", "QuizItem", "Item"],
             "item_type": "lock", "actions": ["inspect Keylock"], "answer": "use key_A",
             "appliable_receptacle": "Desk", "appliable_state": "locked", "after_solve_state": "open"},
            {"name": "Image1", "class": "Puzzle", "classes": ["Puzzle", "StaticItem", "Item"],
             "item_type": "puzzle", "actions": ["inspect Image1"]},
            {"name": "Numberlock", "class": "NonKeyLock", "classes": ["NonKeyLock", "QuizItem", "Item"],
             "item_type": "lock", "actions": ["inspect Numberlock"], "answer": "2739",
             "appliable_receptacle": "Safe", "appliable_state": "locked", "after_solve_state": "open"},
            {"name": "Button", "class": "Button", "classes": ["Button", "StaticItem", "Item"],
             "item_type": "button", "actions": ["press Button"],
             "appliable_receptacle": "Door", "appliable_state": "locked", "after_solve_state": "closed"},
            {"name": "key_A", "class": "Key", "classes": ["Key", "PickableItem", "Item"],
             "item_type": "key", "actions": ["pick key_A"]}],
        "hints": {"table": {
            "": "Open the box on the south wall.",
            "picked_key_A": "Use key_A on the desk.",
            "used key_A": "Solve the lock of the safe. The answer is 2739.",
            "solved_Numberlock": "Press the button in the safe.",
            "press Button": "Open the door."}}
    }"#,
    )
    .expect("a dumped room")
}

const WALKTHROUGH: &str = r#"[
    {"chosen_action": "turn_to_south"}, {"chosen_action": "inspect Box"},
    {"chosen_action": "open"}, {"chosen_action": "pick key_A"},
    {"chosen_action": "turn_to_north"}, {"chosen_action": "inspect Desk"},
    {"chosen_action": "inspect Keylock"}, {"chosen_action": "use key_A"},
    {"chosen_action": "inspect Image1"}, {"chosen_action": "turn_to_east"},
    {"chosen_action": "inspect Safe"}, {"chosen_action": "inspect Numberlock"},
    {"chosen_action": "1111"}, {"chosen_action": "2739"},
    {"chosen_action": "press Button"}, {"chosen_action": "turn_to_west"},
    {"chosen_action": "inspect Door"}, {"chosen_action": "open"}]"#;

/// A PNG signature and a tag, enough for the pictures' checks.
fn png(tag: &str) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n".to_vec();
    b.extend_from_slice(tag.as_bytes());
    b
}

fn mappings() -> BTreeMap<String, String> {
    let scenes = |rec: &str, rows: &[(&str, &[&str], &str)], wall: bool| {
        let rows: Vec<serde_json::Value> = rows
            .iter()
            .map(|(state, items, image)| {
                let one = serde_json::json!({"receptacle_state": state, "items": items});
                let states = if wall {
                    serde_json::json!({ rec: one })
                } else {
                    one
                };
                serde_json::json!({"object_states": states, "image_path": image})
            })
            .collect();
        serde_json::json!({ "scene_states": rows }).to_string()
    };
    // two scenes fit an open box: the items seen decide; `Open_Key.png` is the file
    // `open_key.png`, and `open.png` is missing
    let box_scenes: &[(&str, &[&str], &str)] = &[
        ("closed", &[], "closed.png"),
        ("open", &["key_A"], "open_key.png"),
        ("open", &[], "open.png"),
    ];
    let on_wall: Vec<(&str, &[&str], String)> = box_scenes
        .iter()
        .map(|(s, i, p)| (*s, *i, format!("s_{p}")))
        .collect();
    let on_wall: Vec<(&str, &[&str], &str)> = on_wall
        .iter()
        .map(|(s, i, p)| (*s, *i, p.as_str()))
        .collect();
    let mut close_up = box_scenes.to_vec();
    close_up[1].2 = "Open_Key.png";
    BTreeMap::from([
        (
            "wall_view/SOUTH.json".to_string(),
            scenes("Box", &on_wall, true),
        ),
        (
            "object_view/Box.json".to_string(),
            scenes("Box", &close_up, false),
        ),
        (
            "item_view/Numberlock.json".to_string(),
            r#"{"item_states": [{"name": "not_solved", "image_path": "n.png"},
                                {"name": "solved", "image_path": "s.png"}]}"#
                .to_string(),
        ),
    ])
}

fn images() -> BTreeMap<String, Vec<u8>> {
    [
        "wall_view/SOUTH/s_closed.png",
        "wall_view/SOUTH/s_open_key.png",
        "wall_view/SOUTH/s_open.png",
        "object_view/Box/closed.png",
        // named `Open_Key.png` in the mapping: found ignoring case
        "object_view/Box/open_key.png",
        "item_view/Numberlock/n.png",
        "item_view/Numberlock/s.png",
    ]
    .into_iter()
    .map(|p| (p.to_string(), png(p)))
    .collect()
}

fn import_with(dump: &DumpedRoom, walkthrough: &str) -> Result<Imported, VisError> {
    convert(RoomFiles {
        number: 7,
        dump,
        mappings: &mappings(),
        images: &images(),
        walkthrough: Some(walkthrough),
    })
}

fn import() -> Imported {
    import_with(&dumped(), WALKTHROUGH).expect("the room converts")
}

fn item<'r>(room: &'r Room, id: &str) -> &'r crate::room::Item {
    room.item(id).unwrap_or_else(|| panic!("no item {id}"))
}

/// From the start to the desk's close-up with the key in the bag.
const TO_THE_DESK: [&str; 7] = [
    "turn to south",
    "inspect Box",
    "open Box",
    "pick up key_A",
    "step back",
    "turn to north",
    "inspect Desk",
];

fn play(game: &Game, labels: &[&str]) -> crate::game::State {
    let mut state = game.start();
    for label in labels {
        let m = game
            .available(&state)
            .into_iter()
            .find(|m| game.label(m) == *label)
            .unwrap_or_else(|| panic!("`{label}` is not available"));
        game.apply(&mut state, &m);
    }
    state
}

#[test]
fn walls_receptacles_and_names_carry_over() {
    let room = import().room;
    assert_eq!(room.id, "visescape-room07");
    assert_eq!(room.start, Wall::North);
    let walls: Vec<(&str, Wall)> = room
        .receptacles
        .iter()
        .map(|r| (r.name.as_str(), r.wall))
        .collect();
    assert_eq!(
        walls,
        [
            ("Desk", Wall::North),
            ("Safe", Wall::East),
            ("Box", Wall::South),
            ("Coffee", Wall::South),
            ("Door", Wall::West)
        ]
    );
    assert_eq!(room.exit.receptacle, "door");
    assert_eq!(room.exit.state, "open");
    assert!(room.pictures.is_some());
}

#[test]
fn items_become_keys_locks_pictures_and_buttons() {
    let room = import().room;
    let key = item(&room, "key_a");
    assert_eq!(key.kind, ItemKind::Applicable);
    assert!(
        key.single_use && !key.inspectable,
        "a key is picked, not inspected"
    );
    assert_eq!(
        item(&room, "keylock").kind,
        ItemKind::KeyLock {
            key: "key_a".into()
        }
    );
    let button = item(&room, "button");
    assert!(!button.inspectable && button.kind == ItemKind::Decor);
    let ItemKind::Lock { quiz } = &item(&room, "numberlock").kind else {
        panic!("a code lock")
    };
    let q = room.quiz(quiz).unwrap();
    assert_eq!(q.answer, "2739");
    assert_eq!(q.code, crate::room::CodeKind::Number);
    assert_eq!(q.spec, QuizSpec::Pictured { slots: 4 });
}

#[test]
fn transitions_become_interactions_as_the_original_plays_them() {
    let room = import().room;
    let on = |rec: &str| -> Vec<&crate::room::Interaction> {
        room.interactions
            .iter()
            .filter(|x| x.receptacle == rec)
            .collect()
    };
    // the key on the desk, guarded by holding it
    let desk = on("desk");
    assert!(desk.iter().any(|x| x.cause
        == Cause::Item {
            item: "key_a".into()
        }
        && x.from == "locked"
        && x.to == "open"
        && x.guard == Rule::HasItem("key_a".into())));
    // the code moves the safe along `unlock` without its rule; `unlock` stays a verb
    let safe = on("safe");
    assert!(safe.iter().any(|x| x.cause
        == Cause::Answer {
            lock: "numberlock".into()
        }
        && x.guard == Rule::Always
        && x.to == "open"));
    assert!(safe.iter().any(|x| x.cause
        == Cause::Verb {
            verb: "unlock".into()
        }
        && x.guard == Rule::Trigger("solved numberlock".into())));
    // the button in the safe moves the door, and names its trigger after the action
    let door = on("door");
    assert!(door.iter().any(|x| x.cause
        == Cause::ItemVerb {
            verb: "press".into(),
            item: "button".into()
        }
        && x.from == "locked"
        && x.to == "closed"
        && x.trigger.as_deref() == Some("press Button")));
    // an action of two words sets a trigger of its name; one word sets none
    let coffee = on("coffee");
    assert_eq!(coffee[0].trigger.as_deref(), Some("pour coffee"));
    assert!(on("box").iter().all(|x| x.trigger.is_none()));
}

#[test]
fn keys_are_spent_and_buttons_act_across_the_room() {
    let game = Game::new(import().room).unwrap();
    let s = play(&game, &TO_THE_DESK);
    assert_eq!(game.inventory(&s).len(), 1);
    let mut s2 = s.clone();
    let use_key = game
        .available(&s)
        .into_iter()
        .find(|m| matches!(m, Move::Use(_)))
        .unwrap();
    game.apply(&mut s2, &use_key);
    assert!(game.inventory(&s2).is_empty(), "the key is spent");
    assert_eq!(game.state_name(&s2, 0), "open");
    // pressing the button in the safe unlocks the door on the west wall
    let mut room = import().room;
    room.receptacles[1].initial = "open".into();
    let game = Game::new(room).unwrap();
    let s = play(&game, &["turn to east", "inspect Safe", "press Button"]);
    let door = game
        .room()
        .receptacles
        .iter()
        .position(|r| r.id == "door")
        .unwrap();
    assert_eq!(game.state_name(&s, door), "closed");
}

#[test]
fn a_use_the_receptacles_lock_does_not_want_never_happens() {
    let mut dump = dumped();
    // the keylock wants key_A; a second key for the desk cannot open it
    dump.receptacles[0]
        .transitions
        .push(dump::DumpedTransition {
            from: "locked".into(),
            action: "use key_B".into(),
            to: "open".into(),
            rule: dump::DumpedRule::HasItem("key_B".into()),
        });
    let mut key_b = dump.items[4].clone();
    key_b.name = "key_B".into();
    key_b.actions = vec!["pick key_B".into()];
    dump.items.push(key_b);
    dump.receptacles[2].items.push(dump::Contained {
        name: "key_B".into(),
        states: vec!["open".into()],
    });
    let imported = import_with(&dump, WALKTHROUGH).unwrap();
    assert!(!imported.room.interactions.iter().any(|x| x.cause
        == Cause::Item {
            item: "key_b".into()
        }));
    assert!(
        imported.notes.iter().any(|n| n.contains("use key_B")),
        "{:?}",
        imported.notes
    );
}

#[test]
fn checkpoints_are_the_triggers_the_walkthrough_sets_with_the_originals_hints() {
    let room = import().room;
    let triggers: Vec<&str> = room
        .checkpoints
        .iter()
        .map(|c| c.trigger.as_str())
        .collect();
    assert_eq!(
        triggers,
        [
            "picked key_a",
            "used key_a",
            "solved numberlock",
            "press Button"
        ]
    );
    let hints: Vec<&str> = room.checkpoints.iter().map(|c| c.hint.as_str()).collect();
    assert_eq!(
        hints,
        [
            "Open the box on the south wall.",
            "Use key_A on the desk.",
            "Solve the lock of the safe. The answer is 2739.",
            "Press the button in the safe."
        ]
    );
}

#[test]
fn a_code_waits_for_the_picture_the_walkthrough_read_it_from() {
    let imported = import();
    assert_eq!(
        item(&imported.room, "image1").kind,
        ItemKind::Clue {
            quiz: "quiz_numberlock".into()
        }
    );
    let game = Game::new(imported.room).unwrap();
    let solution = crate::oracle::solve(&game).unwrap();
    let clue = game
        .room()
        .items
        .iter()
        .position(|i| i.id == "image1")
        .unwrap();
    let seen = solution
        .moves
        .iter()
        .position(|m| *m == Move::InspectItem(clue))
        .expect("the oracle looks at the clue");
    let answered = solution
        .moves
        .iter()
        .position(|m| matches!(m, Move::Answer(_)))
        .unwrap();
    assert!(seen < answered);
}

#[test]
fn without_a_picture_a_code_waits_for_the_close_up_last_seen() {
    let actions: Vec<serde_json::Value> = serde_json::from_str(WALKTHROUGH).unwrap();
    let without: Vec<&serde_json::Value> = actions
        .iter()
        .filter(|a| a["chosen_action"] != "inspect Image1")
        .collect();
    let imported = import_with(&dumped(), &serde_json::to_string(&without).unwrap()).unwrap();
    let room = &imported.room;
    assert_eq!(item(room, "image1").kind, ItemKind::Decor);
    assert_eq!(
        room.quizzes[0].clue_views,
        [crate::room::ClueView {
            receptacle: "desk".into(),
            state: "open".into()
        }]
    );
    // the oracle cannot answer before it has seen the open desk
    let game = Game::new(room.clone()).unwrap();
    assert!(!game.start().clue_seen(0));
    let s = play(&game, &[&TO_THE_DESK[..], &["use key_A"]].concat());
    assert!(s.clue_seen(0), "the open desk is in view");
}

#[test]
fn states_a_class_does_not_list_are_kept_as_the_original_keeps_them() {
    let mut dump = dumped();
    dump.receptacles[3].items.push(dump::Contained {
        name: "Image1".into(),
        states: vec![],
    });
    // the picture also shows in a desk state its class does not list, and the door has
    // a way out of a state its class does not list either: the original's engine checks
    // neither against the class
    dump.receptacles[0].items[1].states = vec!["open".into(), "ajar".into()];
    dump.receptacles[4]
        .transitions
        .push(dump::DumpedTransition {
            from: "locked".into(),
            action: "kick".into(),
            to: "jammed".into(),
            rule: dump::DumpedRule::Always,
        });
    // an item held twice is an error
    assert!(import_with(&dump, WALKTHROUGH).is_err());
    dump.receptacles[3].items.pop();
    let imported = import_with(&dump, WALKTHROUGH).unwrap();
    let room = &imported.room;
    assert_eq!(item(room, "image1").visible_in, ["open", "ajar"]);
    let states = |id: &str| room.receptacle(id).unwrap().states.clone();
    assert_eq!(states("desk"), ["closed", "locked", "open", "ajar"]);
    assert_eq!(states("door"), ["closed", "locked", "open", "jammed"]);
    assert!(room.interactions.iter().any(|x| x.cause
        == Cause::Verb {
            verb: "kick".into()
        }
        && x.to == "jammed"));
    // and the door can be kicked into it
    let game = Game::new(room.clone()).unwrap();
    let s = play(&game, &["turn to west", "inspect Door", "kick Door"]);
    assert_eq!(game.state_name(&s, 4), "jammed");
    for said in ["`Desk` is also put in states", "(ajar)", "(jammed)"] {
        assert!(
            imported.notes.iter().any(|n| n.contains(said)),
            "{said}: {:?}",
            imported.notes
        );
    }
}

#[test]
fn a_code_entered_after_a_picture_the_room_never_shows_waits_for_no_clue() {
    // the picture shows only in a desk state nothing leads to (room 20's KioskScreen):
    // the walkthrough's `inspect Image1` does nothing, here as in the original
    let mut dump = dumped();
    dump.receptacles[0].items[1].states = vec!["ajar".into()];
    let imported = import_with(&dump, WALKTHROUGH).expect("the room imports");
    let room = &imported.room;
    assert_eq!(item(room, "image1").kind, ItemKind::Decor);
    assert!(room.quizzes[0].clue_views.is_empty());
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n.contains("after trying to look at `Image1`")),
        "{:?}",
        imported.notes
    );
    let report = imported.walkthrough.as_ref().unwrap();
    assert!(report.escaped);
    assert_eq!(report.refused.len(), 1, "{:?}", report.refused);
    // the code can be entered at once, by a player as by the oracle
    let game = Game::new(room.clone()).unwrap();
    assert!(game.start().clue_seen(0));
    crate::oracle::solve(&game).expect("escapable");
}

#[test]
fn after_a_code_the_view_goes_back_to_the_receptacle_as_in_the_original() {
    // the lock stays in view in every state of the safe (room 10's Telephone on its
    // Desk): after the code the original shows the safe, whose button is pressed next
    let mut dump = dumped();
    dump.receptacles[1].items[0].states = vec!["locked".into(), "closed".into(), "open".into()];
    let imported = import_with(&dump, WALKTHROUGH).unwrap();
    let report = imported.walkthrough.as_ref().unwrap();
    assert!(report.refused.is_empty(), "{:?}", report.refused);
    assert!(report.escaped);
    let game = Game::new(imported.room).unwrap();
    let mut s = play(
        &game,
        &["turn to east", "inspect Safe", "inspect Numberlock"],
    );
    game.apply(&mut s, &Move::Answer("2739".into()));
    assert_eq!(s.view(), View::Receptacle(1));
}

#[test]
fn a_room_that_failed_or_uses_unknown_rules_is_not_imported() {
    let failed = DumpedRoom {
        name: "room3".into(),
        error: Some("ModuleNotFoundError: no module".into()),
        ..DumpedRoom::default()
    };
    let e = import_with(&failed, "[]").unwrap_err().to_string();
    assert!(e.contains("config.py failed: ModuleNotFoundError"), "{e}");
    let mut dump = dumped();
    dump.receptacles[0].transitions[0].rule = dump::DumpedRule::Unknown("OrRule: x".into());
    let e = import_with(&dump, WALKTHROUGH).unwrap_err().to_string();
    assert!(e.contains("OrRule"), "{e}");
}

#[test]
fn pictures_are_chosen_as_the_mapping_says() {
    let imported = import();
    let pictures = imported.room.pictures.clone().unwrap();
    assert_eq!(pictures.scenes(), 8);
    assert_eq!(pictures.missing(), 1, "object_view/Box/open.png is absent");
    let game = Game::new(imported.room).unwrap();
    let sha = |path: &str| escapade_core::hash::sha256_hex(&png(path));
    let shown = |labels: &[&str]| match pictures::shown(&game, &play(&game, labels)) {
        Some(Shown::Picture { sha, .. }) => sha.to_string(),
        other => format!("{other:?}"),
    };
    assert_eq!(
        shown(&["turn to south"]),
        sha("wall_view/SOUTH/s_closed.png")
    );
    // the open box with the key in it, then without: the items decide between scenes
    let open = ["turn to south", "inspect Box", "open Box"];
    assert_eq!(shown(&open), sha("object_view/Box/open_key.png"));
    assert_eq!(
        shown(&[&open[..], &["step back"]].concat()),
        sha("wall_view/SOUTH/s_open_key.png")
    );
    let picked = [&open[..], &["pick up key_A", "step back"]].concat();
    assert_eq!(shown(&picked), sha("wall_view/SOUTH/s_open.png"));
    // a scene whose file is missing, and a view no scene maps, are drawn
    assert_eq!(shown(&picked[..4]), "Some(Drawn)");
    assert_eq!(shown(&["turn to west"]), "Some(Drawn)");
    let mut s = game.start();
    let lock = game
        .room()
        .items
        .iter()
        .position(|i| i.id == "numberlock")
        .unwrap();
    s.set_view(View::Item(lock));
    assert_eq!(
        pictures::png(&game, &s),
        Some(png("item_view/Numberlock/n.png").as_slice())
    );
}

#[test]
fn the_walkthrough_replays_and_agrees_with_the_engine_trace() {
    let imported = import();
    let report = imported.walkthrough.unwrap();
    assert!(report.escaped);
    assert_eq!(report.actions, 18);
    // one move per action: `turn to` and `use` work from a close-up, as in the original
    assert!(report.refused.is_empty(), "{:?}", report.refused);
    let game = Game::new(imported.room).unwrap();
    let names = Names {
        receptacles: [
            ("Desk", 0),
            ("Safe", 1),
            ("Box", 2),
            ("Coffee", 3),
            ("Door", 4),
        ]
        .into_iter()
        .map(|(n, i)| (n.to_string(), i))
        .collect(),
        ..Names::default()
    };
    let trace: Trace = serde_json::from_str(
        r#"{"steps": [{"action": "turn_to_south", "listed": true,
              "states": {"Desk": "locked", "Safe": "locked", "Box": "open",
                         "Coffee": "full", "Door": "locked"},
              "triggers": [], "inventory": [], "clear": false,
              "view": {"kind": "WALL", "wall": "SOUTH"}}]}"#,
    )
    .unwrap();
    // the original engine's account of one step, as the dumper prints it, with the box
    // in a state ours is not in: a difference, named
    let r = replay::check(&game, &names, &["turn_to_south".to_string()], Some(&trace));
    assert_eq!((r.logic.compared, r.logic.agreed), (1, 0));
    assert!(
        r.logic
            .first_difference
            .unwrap()
            .contains("`Box` is `closed` here"),
        "a difference names what differs"
    );
    assert!(r.views.all());
}

#[test]
fn counts_follow_table_1() {
    let c = counts(&import().room);
    assert_eq!(c.receptacles, 5);
    assert_eq!(
        c.items, 3,
        "the key, the picture and the button; locks are not items"
    );
    assert_eq!(c.quizzes, 1);
    // desk: open, close, use key_A; safe: open, close, unlock; box: open, close;
    // coffee: pour coffee; door: open, close, press Button (the code is not counted again)
    assert_eq!(c.interactions, 12);
    assert_eq!(c.scenes, 8);
}
