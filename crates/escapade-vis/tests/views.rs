//! The views of the vis world: golden pictures, determinism, and descriptions that never
//! give an answer away (VisEscape App. B.2 views, App. D.4 quizzes).
//!
//! Golden PNGs live in `tests/golden/`; after a deliberate change to the drawings,
//! regenerate them with `ESCAPADE_BLESS=1 cargo test -p escapade-vis --test views` and
//! look at them before committing.

mod common;

use escapade_vis::describe::describe;
use escapade_vis::render::{Style, VIEW_SIZE, draw, render, render_with};
use escapade_vis::room::Wall;
use escapade_vis::{Game, Move, Room, State, View};

/// A hand-made room with every kind of furniture and one quiz of each kind.
const STUDY: &str = r#"{
  "world": "vis", "id": "vis-test-study", "difficulty": 1, "seed": 0,
  "title": "The Test Study", "start": "north",
  "receptacles": [
    {"id": "door", "name": "exit door", "wall": "north", "furniture": "door",
     "states": ["locked", "open"], "initial": "locked"},
    {"id": "wardrobe", "name": "wardrobe", "wall": "north", "furniture": "wardrobe",
     "states": ["closed", "open"], "initial": "closed"},
    {"id": "safe", "name": "safe", "wall": "north", "furniture": "safe",
     "states": ["locked", "open"], "initial": "locked"},
    {"id": "drawers", "name": "chest of drawers", "wall": "east", "furniture": "drawers",
     "states": ["locked_closed", "closed_closed", "open_closed", "closed_open", "open_open"],
     "initial": "locked_closed"},
    {"id": "desk", "name": "desk", "wall": "east", "furniture": "desk",
     "states": ["closed", "open"], "initial": "closed"},
    {"id": "frame", "name": "painting", "wall": "east", "furniture": "frame",
     "states": ["screwed", "loose", "off"], "initial": "screwed"},
    {"id": "strongbox", "name": "strongbox", "wall": "east", "furniture": "safe",
     "states": ["locked", "closed", "open"], "initial": "locked"},
    {"id": "fuse_box", "name": "fuse box", "wall": "north", "furniture": "cabinet",
     "states": ["off", "on"], "initial": "off"},
    {"id": "fridge", "name": "fridge", "wall": "south", "furniture": "fridge",
     "states": ["locked", "closed", "open"], "initial": "locked"},
    {"id": "chest", "name": "wooden chest", "wall": "south", "furniture": "chest",
     "states": ["locked", "closed", "open"], "initial": "locked"},
    {"id": "locker", "name": "locker", "wall": "south", "furniture": "locker",
     "states": ["locked", "open"], "initial": "locked"},
    {"id": "cabinet", "name": "cabinet", "wall": "west", "furniture": "cabinet",
     "states": ["locked", "open"], "initial": "locked"},
    {"id": "shelf", "name": "shelf", "wall": "west", "furniture": "shelf",
     "states": ["default"], "initial": "default"},
    {"id": "table", "name": "side table", "wall": "west", "furniture": "table",
     "states": ["default"], "initial": "default"}
  ],
  "items": [
    {"id": "brass_key", "name": "brass key", "type": "applicable", "receptacle": "wardrobe",
     "visible_in": ["open"], "look": "a small brass key"},
    {"id": "screwdriver", "name": "screwdriver", "type": "applicable", "receptacle": "wardrobe",
     "visible_in": ["open"], "look": "yellow plastic and steel"},
    {"id": "keycard", "name": "blue keycard", "type": "applicable", "receptacle": "safe",
     "visible_in": ["open"], "look": "a blue plastic card"},
    {"id": "crowbar", "name": "crowbar", "type": "applicable", "receptacle": "table",
     "visible_in": ["default"], "look": "a red iron crowbar"},
    {"id": "vase", "name": "vase", "type": "decor", "receptacle": "table",
     "visible_in": ["default"], "look": "a green vase"},
    {"id": "plant", "name": "potted plant", "type": "decor", "receptacle": "shelf",
     "visible_in": ["default"]},
    {"id": "note", "name": "torn note", "type": "note", "receptacle": "desk",
     "visible_in": ["closed", "open"],
     "text": "Time opens the cabinet. Colours open the safe. Count well, read left to right."},
    {"id": "can_poster", "name": "poster of cans", "type": "clue", "quiz": "q_colour",
     "receptacle": "fridge", "visible_in": ["open"]},
    {"id": "safe_lock", "name": "safe keypad", "type": "lock", "quiz": "q_colour",
     "receptacle": "safe", "visible_in": ["locked"]},
    {"id": "polygon_card", "name": "card of polygons", "type": "clue", "quiz": "q_poly",
     "receptacle": "desk", "visible_in": ["open"]},
    {"id": "drawer_lock", "name": "drawer keypad", "type": "lock", "quiz": "q_poly",
     "receptacle": "drawers", "visible_in": ["locked_closed"]},
    {"id": "symbol_strip", "name": "strip of symbols", "type": "clue", "quiz": "q_symbol",
     "receptacle": "frame", "visible_in": ["off"]},
    {"id": "locker_lock", "name": "locker lock", "type": "lock", "quiz": "q_symbol",
     "receptacle": "locker", "visible_in": ["locked"]},
    {"id": "clock", "name": "wall clock", "type": "clue", "quiz": "q_clock",
     "receptacle": "shelf", "visible_in": ["default"]},
    {"id": "cabinet_lock", "name": "cabinet lock", "type": "lock", "quiz": "q_clock",
     "receptacle": "cabinet", "visible_in": ["locked"]},
    {"id": "arrow_card", "name": "card of arrows", "type": "clue", "quiz": "q_arrow",
     "receptacle": "chest", "visible_in": ["open"]},
    {"id": "door_lock", "name": "door keypad", "type": "lock", "quiz": "q_arrow",
     "receptacle": "door", "visible_in": ["locked"]},
    {"id": "silver_coin", "name": "silver coin", "type": "applicable", "receptacle": "drawers",
     "visible_in": ["open_closed", "open_open"], "look": "an old silver coin"},
    {"id": "fuse", "name": "fuse", "type": "applicable", "receptacle": "strongbox",
     "visible_in": ["open"], "look": "white ceramic"},
    {"id": "photo", "name": "old photo", "type": "decor", "receptacle": "drawers",
     "visible_in": ["closed_open", "open_open"], "look": "a faded photo"},
    {"id": "book", "name": "red book", "type": "decor", "receptacle": "cabinet",
     "visible_in": ["open"]}
  ],
  "quizzes": [
    {"id": "q_colour", "code": "number", "answer": "3241",
     "spec": {"kind": "colour_count",
              "objects": [["star", "red"], ["circle", "blue"], ["triangle", "green"],
                          ["star", "red"], ["square", "yellow"], ["moon", "purple"],
                          ["triangle", "green"], ["circle", "blue"], ["star", "red"],
                          ["triangle", "green"], ["moon", "purple"], ["triangle", "green"]],
              "slots": ["red", "blue", "green", "yellow"]}},
    {"id": "q_poly", "code": "number", "answer": "8653",
     "spec": {"kind": "polygon_sides",
              "polygons": [[6, "red"], [3, "blue"], [8, "green"], [5, "yellow"]],
              "slots": ["green", "red", "yellow", "blue"]}},
    {"id": "q_symbol", "code": "letter", "answer": "CADE",
     "spec": {"kind": "symbol_order",
              "sequence": ["moon", "star", "cross", "hexagon"],
              "buttons": [["star", "A"], ["circle", "B"], ["moon", "C"], ["cross", "D"],
                          ["hexagon", "E"], ["diamond", "F"]]}},
    {"id": "q_clock", "code": "number", "answer": "1035",
     "spec": {"kind": "clock", "hour": 10, "minute": 35}},
    {"id": "q_arrow", "code": "direction", "answer": "ULLDR",
     "spec": {"kind": "arrows", "arrows": ["U", "L", "L", "D", "R"]}}
  ],
  "interactions": [
    {"receptacle": "wardrobe", "by": "verb", "verb": "open", "from": "closed", "to": "open"},
    {"receptacle": "fuse_box", "by": "item", "item": "fuse", "from": "off", "to": "on",
     "trigger": "power on"},
    {"receptacle": "desk", "by": "verb", "verb": "open", "from": "closed", "to": "open",
     "guard": {"trigger": "power on"}},
    {"receptacle": "fridge", "by": "item", "item": "brass_key", "from": "locked", "to": "closed"},
    {"receptacle": "strongbox", "by": "item", "item": "keycard", "from": "locked", "to": "closed"},
    {"receptacle": "strongbox", "by": "verb", "verb": "open", "from": "closed", "to": "open"},
    {"receptacle": "fridge", "by": "verb", "verb": "open", "from": "closed", "to": "open"},
    {"receptacle": "frame", "by": "item", "item": "screwdriver", "from": "screwed", "to": "loose"},
    {"receptacle": "frame", "by": "verb", "verb": "take down", "from": "loose", "to": "off"},
    {"receptacle": "chest", "by": "item", "item": "crowbar", "from": "locked", "to": "closed"},
    {"receptacle": "chest", "by": "verb", "verb": "open", "from": "closed", "to": "open"},
    {"receptacle": "safe", "by": "answer", "lock": "safe_lock", "from": "locked", "to": "open"},
    {"receptacle": "drawers", "by": "answer", "lock": "drawer_lock",
     "from": "locked_closed", "to": "closed_closed"},
    {"receptacle": "drawers", "by": "verb", "verb": "open top drawer of",
     "from": "closed_closed", "to": "open_closed"},
    {"receptacle": "drawers", "by": "verb", "verb": "open bottom drawer of",
     "from": "open_closed", "to": "open_open"},
    {"receptacle": "locker", "by": "answer", "lock": "locker_lock", "from": "locked", "to": "open"},
    {"receptacle": "cabinet", "by": "answer", "lock": "cabinet_lock", "from": "locked", "to": "open"},
    {"receptacle": "door", "by": "answer", "lock": "door_lock", "from": "locked", "to": "open",
     "guard": {"has_item": "keycard"}, "trigger": "escaped"}
  ],
  "checkpoints": [{"trigger": "escaped", "hint": "The arrows open the door."}],
  "exit": {"receptacle": "door", "state": "open"}
}"#;

fn game() -> Game {
    Game::new(Room::from_json(STUDY).expect("the test room loads")).expect("it compiles")
}

fn rec(game: &Game, id: &str) -> usize {
    game.room()
        .receptacles
        .iter()
        .position(|r| r.id == id)
        .unwrap()
}

fn item(game: &Game, id: &str) -> usize {
    game.room().items.iter().position(|i| i.id == id).unwrap()
}

/// `state` looking at `view`.
fn seen(state: &State, view: View) -> State {
    let mut s = state.clone();
    s.set_view(view);
    s
}

/// The start state looking at `view`.
fn at(game: &Game, view: View) -> State {
    seen(&game.start(), view)
}

/// The start state looking at receptacle `id`.
fn at_receptacle(game: &Game, id: &str) -> State {
    at(game, View::Receptacle(rec(game, id)))
}

/// The start state looking at item `id`.
fn at_item(game: &Game, id: &str) -> State {
    at(game, View::Item(item(game, id)))
}

/// Every view of the room: its walls, then each receptacle, then each item.
fn every_view(game: &Game) -> Vec<View> {
    let mut views: Vec<View> = Wall::ALL.iter().map(|w| View::Wall(*w)).collect();
    views.extend((0..game.room().receptacles.len()).map(View::Receptacle));
    views.extend((0..game.room().items.len()).map(View::Item));
    views
}

/// The room's answers, lowercase.
fn answers(game: &Game) -> Vec<String> {
    game.room()
        .quizzes
        .iter()
        .map(|q| q.answer.to_lowercase())
        .collect()
}

/// Asserts that no description of `state` seen from any of `views` holds an answer.
fn keeps_answers(game: &Game, state: &State, views: &[View], answers: &[String]) {
    for &v in views {
        let text = describe(game, &seen(state, v)).to_lowercase();
        for a in answers {
            assert!(!text.contains(a.as_str()), "{v:?} gives `{a}` away: {text}");
        }
    }
}

/// The state after `verb` on receptacle `id`, looking at it.
fn after_verb(game: &Game, id: &str, verb: &str) -> State {
    let r = rec(game, id);
    let mut s = at_receptacle(game, id);
    game.apply(
        &mut s,
        &Move::Verb {
            receptacle: r,
            verb: verb.into(),
        },
    );
    s
}

/// The state after answering lock `id` correctly, looking at it.
fn after_answer(game: &Game, id: &str) -> State {
    let i = item(game, id);
    let mut s = at(game, View::Item(i));
    let answer = game.answer_of(i).unwrap().to_string();
    game.apply(&mut s, &Move::Answer(answer));
    s.set_view(View::Item(i));
    s
}

/// The first state (in search order) in which receptacle `id` is in state `name`.
fn first_with(game: &Game, id: &str, name: &str) -> State {
    let r = rec(game, id);
    let mut found = None;
    escapade_vis::oracle::explore(game, 250_000, |s| {
        if found.is_none() && game.state_name(s, r) == name {
            found = Some(s.clone());
        }
    });
    found.unwrap_or_else(|| panic!("{id} never reaches `{name}`"))
}

/// The first state (in search order) furthest along every receptacle's list of states
/// (the test room lists them from shut to open): nearly everything open.
fn most_changed(game: &Game) -> State {
    let mut best = (0, game.start());
    escapade_vis::oracle::explore(game, 250_000, |s| {
        let score: usize = s.rec_states().iter().map(|&x| usize::from(x)).sum();
        if score > best.0 {
            best = (score, s.clone());
        }
    });
    best.1
}

fn golden(name: &str, png: &[u8]) {
    common::golden(&format!("{name}.png"), png);
}

/// `name` and the SHA-256 of the RGBA pixels `png` decodes to: a line of
/// `tests/golden/pixels.txt`, which pins what the golden views show apart from how their
/// PNG files are encoded (an encoder change rewrites the goldens' bytes, never this file).
fn pixel_line(name: &str, png: &[u8]) -> String {
    let (w, h, rgba) = escapade_render::decode_rgba(png).unwrap();
    format!(
        "{name} {w}x{h} {}\n",
        escapade_core::hash::sha256_hex(&rgba)
    )
}

#[test]
fn golden_views() {
    let g = game();
    let receptacle = |id| at_receptacle(&g, id);
    let mut views: Vec<(String, State)> = vec![
        ("wall_north".into(), g.start()),
        ("wall_east".into(), at(&g, View::Wall(Wall::East))),
        ("wall_south".into(), at(&g, View::Wall(Wall::South))),
        ("wall_west".into(), at(&g, View::Wall(Wall::West))),
        ("wardrobe_closed".into(), receptacle("wardrobe")),
        ("wardrobe_open".into(), after_verb(&g, "wardrobe", "open")),
        ("safe_locked".into(), receptacle("safe")),
        ("chest_locked".into(), receptacle("chest")),
        ("fridge_locked".into(), receptacle("fridge")),
        ("strongbox_locked".into(), receptacle("strongbox")),
        ("desk_unpowered".into(), receptacle("desk")),
        ("frame_screwed".into(), receptacle("frame")),
        ("table".into(), receptacle("table")),
    ];
    let d = rec(&g, "drawers");
    let mut drawers = seen(&after_answer(&g, "drawer_lock"), View::Receptacle(d));
    let open_top = Move::Verb {
        receptacle: d,
        verb: "open top drawer of".into(),
    };
    g.apply(&mut drawers, &open_top);
    views.push(("drawers_top_open".into(), drawers));
    // every clue kind, a note, a tool, every lock face, and a lock answered
    for id in [
        "can_poster",
        "polygon_card",
        "symbol_strip",
        "clock",
        "arrow_card",
        "note",
        "brass_key",
        "safe_lock",
        "locker_lock",
        "cabinet_lock",
        "door_lock",
    ] {
        views.push((id.into(), at_item(&g, id)));
    }
    views.push(("safe_lock_solved".into(), after_answer(&g, "safe_lock")));
    let powered = first_with(&g, "fuse_box", "on");
    views.push((
        "fuse_box_on".into(),
        seen(&powered, View::Wall(Wall::North)),
    ));
    // nearly everything open: every wall, and close-ups of a powered desk and of the niche
    // behind the painting
    let late = most_changed(&g);
    let late_views = Wall::ALL
        .iter()
        .map(|w| (w.name(), View::Wall(*w)))
        .chain(["desk", "frame"].map(|id| (id, View::Receptacle(rec(&g, id)))));
    for (name, view) in late_views {
        views.push((format!("late_{name}"), seen(&late, view)));
    }
    let mut pixels = String::new();
    for (name, state) in &views {
        let png = render(&g, state).unwrap();
        pixels.push_str(&pixel_line(name, &png));
        golden(name, &png);
    }
    // `labels=on`: name tags, banners and lock captions
    let labels = Style { labels: true };
    for (name, state) in [
        ("labels_wall_north", g.start()),
        ("labels_safe_lock", at_item(&g, "safe_lock")),
        ("labels_cabinet_lock", at_item(&g, "cabinet_lock")),
        ("labels_desk", at_receptacle(&g, "desk")),
    ] {
        let png = render_with(&g, &state, labels).unwrap();
        pixels.push_str(&pixel_line(name, &png));
        golden(name, &png);
    }
    escapade_testkit::golden::check_text(
        escapade_testkit::golden_dir!().join("pixels.txt"),
        &pixels,
    );
}

/// The paper's views are rendered rooms with nothing written on them (App. B.3): by
/// default no view of any suite room has a title banner or a name tag; with
/// `labels=on` every wall view has both.
#[test]
fn pictures_carry_no_banner_or_name_tags_unless_asked() {
    let plate = escapade_render::Rgb(255, 255, 252);
    let banner = escapade_render::Rgb(38, 40, 52);
    for room in escapade_vis::suite::rooms().unwrap() {
        let g = Game::new(room).unwrap();
        for w in Wall::ALL {
            let s = at(&g, View::Wall(w));
            for labels in [false, true] {
                let mut c = draw(&g, &s, Style { labels }).unwrap();
                let mut band = |y0: u32, y1: u32, colour| {
                    (y0..y1).any(|y| (0..VIEW_SIZE.0).any(|x| c.pixel(x, y) == Some(colour)))
                };
                // the banner's dark plate at the top; the name plates under the objects
                let tagged = band(8, 44, banner) && band(370, 400, plate);
                let bare = g.on_wall(w).is_empty();
                assert_eq!(
                    tagged,
                    labels && !bare,
                    "{} {w:?} labels={labels}",
                    g.room().id
                );
                assert!(labels || (!band(8, 44, banner) && !band(370, 400, plate)));
            }
        }
        for v in every_view(&g).into_iter().skip(Wall::ALL.len()) {
            let mut c = draw(&g, &at(&g, v), Style::default()).unwrap();
            let top = (8..44).any(|y| (0..VIEW_SIZE.0).any(|x| c.pixel(x, y) == Some(banner)));
            assert!(!top, "{} {v:?} has a banner", g.room().id);
        }
    }
}

#[test]
fn pngs_have_the_view_size() {
    let g = game();
    let png = render(&g, &g.start()).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert_eq!((w, h), VIEW_SIZE);
}

#[test]
fn same_state_same_bytes() {
    let g = game();
    for view in [
        View::Wall(Wall::North),
        View::Receptacle(1),
        View::Item(item(&g, "can_poster")),
    ] {
        let s = at(&g, view);
        assert_eq!(render(&g, &s).unwrap(), render(&g, &s.clone()).unwrap());
        assert_eq!(describe(&g, &s), describe(&g, &s.clone()));
    }
}

#[test]
fn a_changed_receptacle_changes_the_picture_and_the_words() {
    let g = game();
    let closed = at_receptacle(&g, "wardrobe");
    let open = after_verb(&g, "wardrobe", "open");
    assert_ne!(render(&g, &closed).unwrap(), render(&g, &open).unwrap());
    assert_ne!(describe(&g, &closed), describe(&g, &open));
    let north = View::Wall(Wall::North);
    assert_ne!(
        render(&g, &seen(&closed, north)).unwrap(),
        render(&g, &seen(&open, north)).unwrap()
    );
    let lock = at_item(&g, "safe_lock");
    let solved = after_answer(&g, "safe_lock");
    assert_ne!(render(&g, &lock).unwrap(), render(&g, &solved).unwrap());
    assert!(describe(&g, &solved).contains("Its light is green"));
}

#[test]
fn descriptions_say_what_is_seen() {
    let g = game();
    let north = describe(&g, &g.start());
    assert!(north.starts_with("You face the north wall."), "{north}");
    assert!(
        north.contains(
            "The safe (a steel safe): it is locked, with a code lock (the safe keypad) on it."
        ),
        "{north}"
    );
    assert!(
        north.contains("The wardrobe (a tall wardrobe with two doors): its doors are closed."),
        "{north}"
    );
    let open = describe(&g, &after_verb(&g, "wardrobe", "open"));
    assert!(
        open.contains("its doors are open; inside: the brass key (a small brass key)"),
        "{open}"
    );
    let chest = describe(&g, &at_receptacle(&g, "chest"));
    assert!(
        chest.contains("its lid is locked, with planks nailed across it"),
        "{chest}"
    );
    let strongbox = describe(&g, &at_receptacle(&g, "strongbox"));
    assert!(
        strongbox.contains("locked, with a card reader on it"),
        "{strongbox}"
    );
    let desk = describe(&g, &at_receptacle(&g, "desk"));
    assert!(
        desk.contains("an electric latch whose light is red"),
        "{desk}"
    );
    let frame = describe(&g, &at_receptacle(&g, "frame"));
    assert!(
        frame.contains("fixed to the wall, with a screw in each corner"),
        "{frame}"
    );
    let fuse_box = describe(&g, &at_receptacle(&g, "fuse_box"));
    assert!(fuse_box.contains("the lamp on it is dark"), "{fuse_box}");
    let cans = describe(&g, &at_item(&g, "can_poster"));
    assert!(
        cans.contains("cans drawn all over it") && cans.contains("red can, blue can, green can"),
        "{cans}"
    );
    let lock = describe(&g, &at_item(&g, "safe_lock"));
    assert!(
        lock.contains("Its light is red.")
            && lock.contains("four small empty windows in a row, each under a coloured band")
            && lock.contains("red, blue, green, yellow")
            && !lock.contains("digit code"),
        "{lock}"
    );
    let clock_lock = describe(&g, &at_item(&g, "cabinet_lock"));
    assert!(
        clock_lock.contains("four small empty windows") && !clock_lock.contains("H, H"),
        "{clock_lock}"
    );
    let clock = describe(&g, &at_item(&g, "clock"));
    assert!(
        clock.contains("between the 10 and the 11") && clock.contains("at the 7"),
        "{clock}"
    );
    let symbols = describe(&g, &at_item(&g, "locker_lock"));
    assert!(
        symbols.contains("star marked A, circle marked B, moon marked C"),
        "{symbols}"
    );
}

/// Every state the room can reach, seen from every view: no description contains an
/// answer, and every picture draws (a sample of them, to keep debug builds quick).
#[test]
fn no_view_gives_an_answer_away() {
    let g = game();
    let answers = answers(&g);
    let mut states = Vec::new();
    escapade_vis::oracle::explore(&g, 5_000, |s| states.push(s.clone()));
    assert!(states.len() > 50, "only {} states", states.len());
    let views = every_view(&g);
    let late = most_changed(&g);
    let last = states.len() - 1;
    states.push(late);
    for (n, s) in states.iter().enumerate() {
        keeps_answers(&g, s, &views, &answers);
        // pictures are slow in debug builds: every view of three states
        if n == 0 || n >= last {
            for &v in &views {
                render(&g, &seen(s, v)).unwrap();
            }
        }
    }
}

#[test]
fn a_view_outside_the_room_is_an_error() {
    let g = game();
    let bad = at(&g, View::Item(999));
    assert!(render(&g, &bad).is_err());
    assert_eq!(describe(&g, &bad), "Nothing is in view.");
}

/// Generated rooms (one of each size): every view of the start and of a late state
/// draws, and no description of any state reached gives an answer away.
#[test]
fn generated_rooms_draw_and_keep_their_answers() {
    for difficulty in 1..=3 {
        let room = escapade_vis::generator::generate(difficulty, 11).unwrap();
        let g = Game::new(room).unwrap();
        let answers = answers(&g);
        let views = every_view(&g);
        for s in [g.start(), most_changed(&g)] {
            for &v in &views {
                render(&g, &seen(&s, v)).unwrap();
            }
        }
        escapade_vis::oracle::explore(&g, 3_000, |s| keeps_answers(&g, s, &views, &answers));
    }
}
