//! VisEscape's own 20 rooms, converted from a user's copy of the original repository.
//!
//! The original (`pull-ups/VisEscape-demo`) carries no licence, so escapade ships none of
//! it: `escapade import vis <copy>` runs the copy's own Python, through our dumper
//! ([`DUMPER`]), and hands this module what it printed ([`dump::Dump`]) together with
//! each room's `mapping/` files, pictures and `walkthrough_oracle.json`. [`convert`]
//! turns one room into a [`Room`] of escapade's format — walls, receptacles with their
//! states and transitions, items, key and code locks, rules, checkpoints, hints — with
//! the room's pictures ([`crate::pictures`]); this module does no I/O.
//!
//! How the original's game engine (`vis_escape/game/manage/game_state.py`) is carried
//! over, where the paper (§3.1) is silent and the code decided:
//! - **States**: a receptacle has its class's states and any other its config puts it
//!   in (a transition, an item's states, a button's target): the original never checks
//!   a state against its class's list, so neither does the conversion (`states_of`);
//!   whether such a state is ever reached is the game's to decide, as there.
//! - **Views**: a lock solved from its close-up hands the view back to its receptacle
//!   (in [`crate::game`]), so every action of the original is one move here, and a
//!   walkthrough replays step for step ([`replay`]).
//! - **Receptacle actions** (`open`, `open_first_drawer`, `pour coffee`) are verbs on
//!   their receptacle (underscores read as spaces); one with a space also sets a trigger
//!   named after it, as the original does.
//! - **`use <item>`** works where the receptacle has a transition for it and, if the
//!   receptacle holds a lock, only when that lock's answer is that use (the original
//!   asks the receptacle's lock first). The item is spent: it leaves the bag.
//! - **Code locks** (`NonKeyLock`): a right answer moves the lock's receptacle along
//!   its `unlock` transition without checking that transition's rule (the original's
//!   answer path), and sets `solved <lock>`; the `unlock` action stays listed as a verb.
//!   Their quizzes are pictures ([`QuizSpec::Pictured`]); a code's clue is what the
//!   authors' walkthrough looked at before entering it.
//! - **Key locks** (`KeyLock`) are inspectable pictures of the lock ([`ItemKind::KeyLock`]).
//! - **Buttons** (`press Button`) act on the receptacle and state they name, wherever it
//!   stands ([`Cause::ItemVerb`]); keys and buttons cannot be inspected, as in the
//!   original.
//! - **Checkpoints** are the original's triggers, in the order the authors' walkthrough
//!   sets them (completed by our oracle's when the walkthrough does not escape); the
//!   hint toward each is the one the original gives once the previous trigger is set.

mod clues; // which pictures a code is read from; checkpoints and hints
mod counts; // Table 1's counts of a room, a suite's statistics
pub mod dump; // the dumper's output, as types
mod logic; // transitions, uses, answers and item actions as interactions
mod mapping; // mapping/ and image/ as pictures
pub mod replay; // the original's action strings played in a converted room
#[cfg(test)]
mod tests; // the conversion, rule by rule, on a room in the dumper's format

pub use counts::{Counts, counts, paper_stats};
pub use mapping::find_image;

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::game::Game;
use crate::room::{
    Cause, Checkpoint, CodeKind, Exit, Furniture, Item, ItemKind, Quiz, QuizSpec, Receptacle, Room,
    Rule, Wall,
};
use crate::{VisError, oracle};
use dump::{DumpedItem, DumpedRoom, DumpedRule, ItemRole};

/// The dumper: our Python file, run with the user's `python3` on their copy (the file on
/// standard input: `python3 -B - <copy> <room dir>... [--walks N] [--walk-steps M]`).
pub const DUMPER: &str = include_str!("dump.py");

/// What the importer needs of one room directory of the copy.
#[derive(Debug, Clone, Copy)]
pub struct RoomFiles<'a> {
    /// The room's number (`N` of `roomN`).
    pub number: u32,
    /// The dumper's account of it.
    pub dump: &'a DumpedRoom,
    /// Its `mapping/` files: path under `mapping/` (`wall_view/NORTH.json`) → text.
    pub mappings: &'a BTreeMap<String, String>,
    /// Its pictures: path under `image/` (`object_view/Safe/safeL.png`) → bytes.
    pub images: &'a BTreeMap<String, Vec<u8>>,
    /// Its `walkthrough_oracle.json`, when it has one.
    pub walkthrough: Option<&'a str>,
}

/// One imported room and what the import found.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The room, pictures included.
    pub room: Room,
    /// What the conversion dropped or could not keep, one line each.
    pub notes: Vec<String>,
    /// The authors' walkthrough replayed in the converted room, checked against the
    /// original engine and the pictures it recorded (absent without a walkthrough).
    pub walkthrough: Option<replay::Report>,
    /// The dumper's random walks replayed the same way.
    pub walks: Vec<replay::Report>,
    /// Views reachable in the room that no picture shows (drawn instead), as
    /// `(reachable views, views drawn)`; views are counted as distinct scenes.
    pub drawn: (usize, usize),
}

/// The original's names of a converted room's receptacles and items (players' names),
/// by escapade index, and back.
#[derive(Debug, Clone, Default)]
pub struct Names {
    /// Receptacle original id → index.
    pub receptacles: BTreeMap<String, usize>,
    /// Item original name → index.
    pub items: BTreeMap<String, usize>,
    /// An item's own action (`press Button`) → the item's index and escapade's verb.
    pub item_verbs: BTreeMap<String, (usize, String)>,
}

fn wall_of(name: &str) -> Option<Wall> {
    match name.to_ascii_uppercase().as_str() {
        "NORTH" => Some(Wall::North),
        "EAST" => Some(Wall::East),
        "SOUTH" => Some(Wall::South),
        "WEST" => Some(Wall::West),
        _ => None,
    }
}

/// An id from an original name: lowercase, runs of other characters as `_`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_').to_string();
    if out.is_empty() { "x".into() } else { out }
}

/// How a receptacle is drawn when a view has no picture, from its class's name.
fn furniture_of(class: &str) -> Furniture {
    let c = class.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| c.contains(w));
    if has(&["door"]) {
        Furniture::Door
    } else if has(&["wardrobe", "closet"]) {
        Furniture::Wardrobe
    } else if has(&["safe"]) {
        Furniture::Safe
    } else if has(&["doubledrawer", "tripledrawer"]) {
        Furniture::Drawers
    } else if has(&["drawer", "desk"]) {
        Furniture::Desk
    } else if has(&["cabinet", "cupboard", "microwave", "shoecase"]) {
        Furniture::Cabinet
    } else if has(&["box", "case", "barrel", "bin"]) {
        Furniture::Chest
    } else if has(&["shelf"]) {
        Furniture::Shelf
    } else if has(&["refrigerator", "fridge"]) {
        Furniture::Fridge
    } else if has(&["poster", "frame", "blind"]) {
        Furniture::Frame
    } else if has(&["locker"]) {
        Furniture::Locker
    } else {
        Furniture::Table
    }
}

/// A trigger name of the original as escapade names it: `picked_X` → `picked <id>`,
/// `used X` → `used <id>`, `solved_X` → `solved <id>`; others (an action's own trigger)
/// unchanged.
fn trigger_name(name: &str, items: &BTreeMap<String, String>) -> String {
    for (prefix, ours) in [
        ("picked_", "picked"),
        ("used ", "used"),
        ("solved_", "solved"),
    ] {
        if let Some(id) = name.strip_prefix(prefix).and_then(|n| items.get(n)) {
            return format!("{ours} {id}");
        }
    }
    name.to_string()
}

/// The states receptacle `r` can be in: its class's, then, in the order the room names
/// them, the others its config puts it in (its start, its transitions, the states its
/// items show in, a button's or the clear condition's). The original's engine never
/// checks a state against the class's list (`Receptacle.handle_action`,
/// `set_current_state`), so a config may move a receptacle into a state its class lacks
/// (room 13's Computer shows `Image1` in `open`, room 20's Kiosk moves `locked` →
/// `unlock`); whether that state is ever reached is the game's to decide. Also returns
/// the states added.
fn states_of(r: &dump::DumpedReceptacle, dump: &DumpedRoom) -> (Vec<String>, Vec<String>) {
    let mut states = r.states.clone();
    let mut extra = Vec::new();
    let mut add = |s: &str| {
        if !s.is_empty() && !states.iter().any(|x| x == s) {
            states.push(s.to_string());
            extra.push(s.to_string());
        }
    };
    add(&r.initial);
    for t in &r.transitions {
        add(&t.from);
        add(&t.to);
    }
    for held in &r.items {
        held.states.iter().for_each(|s| add(s));
    }
    for item in &dump.items {
        if item.appliable_receptacle.as_deref() == Some(r.id.as_str())
            && item.role() == Ok(ItemRole::Static)
        {
            for s in [&item.appliable_state, &item.after_solve_state]
                .into_iter()
                .flatten()
            {
                add(s);
            }
        }
    }
    if let Some(clear) = &dump.clear
        && clear.receptacle.as_deref() == Some(r.id.as_str())
        && let Some(s) = &clear.state
    {
        add(s);
    }
    (states, extra)
}

/// A rule that never holds.
fn never() -> Rule {
    Rule::Not(Box::new(Rule::Always))
}

/// A converter for one room: the maps from original names to ids, and the notes.
struct Builder<'a> {
    files: RoomFiles<'a>,
    /// Receptacle original id → our id.
    rec_ids: BTreeMap<String, String>,
    /// Item original name → our id.
    item_ids: BTreeMap<String, String>,
    /// Item original name → its dump.
    items: BTreeMap<String, &'a DumpedItem>,
    /// Receptacle original id → its states.
    states: BTreeMap<String, Vec<String>>,
    notes: Vec<String>,
}

impl<'a> Builder<'a> {
    fn note(&mut self, text: String) {
        if !self.notes.contains(&text) {
            self.notes.push(text);
        }
    }

    fn rule(&mut self, rule: &DumpedRule) -> Result<Rule, VisError> {
        Ok(match rule {
            DumpedRule::Always => Rule::Always,
            DumpedRule::HasItem(name) => match self.item_ids.get(name) {
                Some(id) => Rule::HasItem(id.clone()),
                None => {
                    self.note(format!(
                        "a rule needs `{name}`, which the room does not have: it never holds"
                    ));
                    never()
                }
            },
            DumpedRule::Trigger(name) => Rule::Trigger(trigger_name(name, &self.item_ids)),
            DumpedRule::And(rules) => Rule::And(
                rules
                    .iter()
                    .map(|r| self.rule(r))
                    .collect::<Result<_, _>>()?,
            ),
            DumpedRule::Not(r) => Rule::Not(Box::new(self.rule(r)?)),
            DumpedRule::Unknown(what) => {
                return Err(VisError::Invalid {
                    field: "interactions",
                    reason: format!("a transition rule escapade does not know: {what}"),
                });
            }
        })
    }

    fn has_state(&self, rec: &str, state: &str) -> bool {
        self.states
            .get(rec)
            .is_some_and(|s| s.iter().any(|x| x == state))
    }
}

/// Converts one room of the copy. `Err` when the room cannot be imported (its
/// `config.py` failed, or it uses something escapade cannot express); the room's
/// solvability is not checked here (see [`crate::oracle`]).
pub fn convert(files: RoomFiles<'_>) -> Result<Imported, VisError> {
    let dump = files.dump;
    if let Some(e) = &dump.error {
        return Err(VisError::Invalid {
            field: "config.py",
            reason: format!("its config.py failed: {e}"),
        });
    }
    let mut b = Builder {
        files,
        rec_ids: BTreeMap::new(),
        item_ids: BTreeMap::new(),
        items: BTreeMap::new(),
        states: BTreeMap::new(),
        notes: Vec::new(),
    };
    // ids and players' names: the original's names, kept apart where they would read
    // alike in escapade (case and underscores do not count)
    let mut taken_ids = BTreeSet::new();
    let mut taken_names = BTreeSet::new();
    let unique = |base: String, taken: &mut BTreeSet<String>| {
        let mut id = base.clone();
        let mut n = 2;
        while !taken.insert(id.clone()) {
            id = format!("{base}_{n}");
            n += 1;
        }
        id
    };
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for r in &dump.receptacles {
        if b.rec_ids.contains_key(&r.id) {
            return Err(VisError::Invalid {
                field: "receptacles",
                reason: format!("two receptacles are called `{}`", r.id),
            });
        }
        let id = unique(snake(&r.id), &mut taken_ids);
        b.rec_ids.insert(r.id.clone(), id);
        taken_names.insert(crate::interface::normalize(&r.id));
        names.insert(format!("r:{}", r.id), r.id.clone());
        let (states, extra) = states_of(r, dump);
        if !extra.is_empty() {
            b.note(format!(
                "`{}` is also put in states its class {} does not list ({}), as the \
                 original's engine allows",
                r.id,
                r.class,
                extra.join(", ")
            ));
        }
        b.states.insert(r.id.clone(), states);
    }
    for item in &dump.items {
        if b.items.insert(item.name.clone(), item).is_some() {
            return Err(VisError::Invalid {
                field: "items",
                reason: format!("two items are called `{}`", item.name),
            });
        }
        let id = unique(snake(&item.name), &mut taken_ids);
        b.item_ids.insert(item.name.clone(), id);
        let mut name = item.name.clone();
        if !taken_names.insert(crate::interface::normalize(&name)) {
            name = format!(
                "{} ({})",
                item.name,
                item.item_type.as_deref().unwrap_or("item")
            );
            taken_names.insert(crate::interface::normalize(&name));
            b.note(format!(
                "the item `{}` reads like another name in the room: players call it `{name}`",
                item.name
            ));
        }
        names.insert(format!("i:{}", item.name), name);
    }

    // receptacles, wall by wall
    let mut receptacles = Vec::new();
    let mut wall_of_rec: BTreeMap<String, Wall> = BTreeMap::new();
    for w in &dump.walls {
        let wall = wall_of(&w.wall).ok_or_else(|| VisError::Invalid {
            field: "receptacles",
            reason: format!("unknown wall `{}`", w.wall),
        })?;
        for rid in &w.receptacles {
            wall_of_rec.insert(rid.clone(), wall);
        }
    }
    for r in &dump.receptacles {
        let wall = *wall_of_rec.get(&r.id).ok_or_else(|| VisError::Invalid {
            field: "receptacles",
            reason: format!("`{}` is on no wall", r.id),
        })?;
        receptacles.push(Receptacle {
            id: b.rec_ids[&r.id].clone(),
            name: r.id.clone(),
            wall,
            furniture: furniture_of(&r.class),
            states: b.states[&r.id].clone(),
            initial: r.initial.clone(),
        });
    }
    receptacles.sort_by_key(|r| r.wall.index());

    // items, receptacle by receptacle
    let mut items: Vec<Item> = Vec::new();
    let mut holder: BTreeMap<String, String> = BTreeMap::new();
    let mut quizzes: Vec<Quiz> = Vec::new();
    for r in &dump.receptacles {
        for held in &r.items {
            let Some(item) = b.items.get(&held.name).copied() else {
                return Err(VisError::Invalid {
                    field: "items",
                    reason: format!(
                        "`{}` holds `{}`, which the dump does not describe",
                        r.id, held.name
                    ),
                });
            };
            if let Some(other) = holder.insert(held.name.clone(), r.id.clone()) {
                return Err(VisError::Invalid {
                    field: "items",
                    reason: format!("`{}` is held by both `{other}` and `{}`", held.name, r.id),
                });
            }
            let visible_in = held.states.clone();
            let id = b.item_ids[&held.name].clone();
            let inspect = format!("inspect {}", item.name);
            let inspectable = item.actions.iter().any(|a| a == &inspect);
            let (kind, single_use) = match item.role().map_err(|reason| VisError::Invalid {
                field: "items",
                reason,
            })? {
                ItemRole::Pickable => (ItemKind::Applicable, true),
                ItemRole::CodeLock(answer) => {
                    let quiz = format!("quiz_{id}");
                    let code = if answer.chars().all(|c| c.is_ascii_digit()) {
                        CodeKind::Number
                    } else if answer.chars().all(char::is_alphabetic) {
                        CodeKind::Letter
                    } else {
                        return Err(VisError::Invalid {
                            field: "items",
                            reason: format!(
                                "the lock `{}` takes `{answer}`, neither digits nor letters",
                                item.name
                            ),
                        });
                    };
                    quizzes.push(Quiz {
                        id: quiz.clone(),
                        code,
                        spec: QuizSpec::Pictured {
                            slots: answer.chars().count(),
                        },
                        answer,
                        clue_views: Vec::new(),
                    });
                    (ItemKind::Lock { quiz }, false)
                }
                ItemRole::KeyLock(key) => match b.item_ids.get(&key) {
                    Some(k) => (ItemKind::KeyLock { key: k.clone() }, false),
                    None => {
                        b.note(format!(
                            "the lock `{}` opens with `{key}`, which the room does not have",
                            item.name
                        ));
                        (ItemKind::Decor, false)
                    }
                },
                ItemRole::Static => (ItemKind::Decor, false),
            };
            items.push(Item {
                id,
                name: names[&format!("i:{}", item.name)].clone(),
                kind,
                receptacle: b.rec_ids[&r.id].clone(),
                visible_in,
                look: String::new(),
                inspectable,
                single_use,
            });
        }
    }

    let interactions = logic::interactions(&mut b)?;

    // the clear condition
    let clear = dump.clear.as_ref().ok_or_else(|| VisError::Invalid {
        field: "exit",
        reason: "the room has no clear condition".into(),
    })?;
    let (Some(exit_rec), Some(exit_state)) = (&clear.receptacle, &clear.state) else {
        return Err(VisError::Invalid {
            field: "exit",
            reason: "the clear condition is incomplete".into(),
        });
    };
    let exit_id = b
        .rec_ids
        .get(exit_rec)
        .cloned()
        .ok_or_else(|| VisError::Invalid {
            field: "exit",
            reason: format!("the clear condition names unknown `{exit_rec}`"),
        })?;
    if !b.has_state(exit_rec, exit_state) {
        return Err(VisError::Invalid {
            field: "exit",
            reason: format!(
                "the room clears when `{exit_rec}` is `{exit_state}`, a state it does not have"
            ),
        });
    }

    let start = wall_of(&dump.start).ok_or_else(|| VisError::Invalid {
        field: "receptacles",
        reason: format!("unknown start wall `{}`", dump.start),
    })?;
    let difficulty = match receptacles.len() {
        0..=5 => 1,
        6..=7 => 2,
        _ => 3,
    };
    let mut room = Room {
        world: "vis".into(),
        id: format!("visescape-room{:02}", files.number),
        difficulty,
        seed: 0,
        title: format!("VisEscape room {}", files.number),
        start,
        receptacles,
        items,
        quizzes,
        interactions,
        // set below, once the walkthrough has been played
        checkpoints: vec![Checkpoint {
            trigger: "escaped".into(),
            hint: String::new(),
        }],
        exit: Exit {
            receptacle: exit_id,
            state: exit_state.clone(),
        },
        hints: false,
        pictures: None,
    };

    let walk_actions: Vec<String> = match files.walkthrough {
        Some(text) => walkthrough_actions(text)?,
        None => Vec::new(),
    };

    // original name → index, through our ids
    let index_of =
        |ids: &BTreeMap<String, String>, ours: Vec<&String>| -> BTreeMap<String, usize> {
            ids.iter()
                .filter_map(|(name, id)| {
                    ours.iter()
                        .position(|x| *x == id)
                        .map(|i| (name.clone(), i))
                })
                .collect()
        };
    let mut names = Names {
        receptacles: index_of(&b.rec_ids, room.receptacles.iter().map(|r| &r.id).collect()),
        items: index_of(&b.item_ids, room.items.iter().map(|i| &i.id).collect()),
        item_verbs: BTreeMap::new(),
    };
    for x in &room.interactions {
        if let (Cause::ItemVerb { verb, item }, Some(action)) = (&x.cause, &x.trigger)
            && let Some(i) = room.items.iter().position(|it| &it.id == item)
        {
            names
                .item_verbs
                .insert(action.clone(), (i, verb.trim().to_lowercase()));
        }
    }

    for note in clues::link_clues(&mut room, &names, &walk_actions)? {
        b.note(note);
    }

    // checkpoints: the triggers the walkthrough sets, in order
    let game = Game::new(room.clone())?;
    let walked = replay::play(&game, &names, &walk_actions);
    let mut order: Vec<String> = walked.triggers.clone();
    if !walked.escaped {
        // completed by the oracle's way out
        if let Ok(solution) = oracle::solve(&game) {
            for t in replay::triggers_along(&game, &solution.states) {
                if !order.contains(&t) {
                    order.push(t);
                }
            }
        }
    }
    order.retain(|t| t != "escaped");
    if order.is_empty() {
        order.push("escaped".into());
    }
    room.checkpoints = clues::checkpoints(&mut b, &room, &order);

    // pictures
    room.pictures = Some(mapping::pictures(&mut b, &room)?);
    let game = Game::new(room.clone())?;

    let images = |trace: &dump::Trace| -> Vec<Option<String>> {
        trace
            .steps
            .iter()
            .map(|s| s.snapshot.as_ref().and_then(|x| x.picture.clone()))
            .collect()
    };
    let recorded = match files.walkthrough {
        Some(text) => recorded_pictures(text)?,
        None => Vec::new(),
    };
    let engine_pictures = |actions: &[String], trace: &dump::Trace| {
        if trace.pictures_error.is_some() {
            return replay::Agreement::default();
        }
        replay::compare_pictures(
            &game,
            &names,
            actions,
            &images(trace),
            files,
            replay::Expected::Engine,
        )
    };
    let walkthrough = files.walkthrough.map(|_| {
        let mut report = replay::check(&game, &names, &walk_actions, dump.trace.as_ref());
        if let Some(trace) = &dump.trace {
            report.engine_pictures = engine_pictures(&walk_actions, trace);
        }
        report.recorded_pictures = replay::compare_pictures(
            &game,
            &names,
            &walk_actions,
            &recorded,
            files,
            replay::Expected::Recorded,
        );
        report
    });
    let walks = dump
        .walks
        .iter()
        .map(|trace| {
            let actions: Vec<String> = trace.steps.iter().map(|s| s.action.clone()).collect();
            let mut report = replay::check(&game, &names, &actions, Some(trace));
            report.engine_pictures = engine_pictures(&actions, trace);
            report
        })
        .collect();
    let drawn = drawn_views(&game);
    Ok(Imported {
        room,
        notes: b.notes,
        walkthrough,
        walks,
        drawn,
    })
}

#[derive(Deserialize)]
struct WalkStep {
    #[serde(default)]
    chosen_action: String,
    #[serde(default)]
    image_path: Option<String>,
}

/// A walkthrough that is not a list of steps.
fn walkthrough_error(e: serde_json::Error) -> VisError {
    VisError::format(Some("walkthrough_oracle.json (a list of steps)".into()), e)
}

/// The actions of a `walkthrough_oracle.json`.
pub fn walkthrough_actions(text: &str) -> Result<Vec<String>, VisError> {
    let steps: Vec<WalkStep> = serde_json::from_str(text).map_err(walkthrough_error)?;
    Ok(steps.into_iter().map(|s| s.chosen_action).collect())
}

/// The pictures a `walkthrough_oracle.json` recorded after each step, as paths under the
/// room directory (`image/...`).
fn recorded_pictures(text: &str) -> Result<Vec<Option<String>>, VisError> {
    let steps: Vec<WalkStep> = serde_json::from_str(text).map_err(walkthrough_error)?;
    Ok(steps
        .into_iter()
        .map(|s| {
            // `room1/image/...`: the part from `image/` on
            s.image_path
                .filter(|p| !p.is_empty())
                .and_then(|p| p.find("image/").map(|i| p[i..].to_string()))
        })
        .collect())
}

/// Distinct views reachable in the room, and how many of them no picture shows.
fn drawn_views(game: &Game) -> (usize, usize) {
    let mut scenes = BTreeSet::new();
    let mut drawn = BTreeSet::new();
    oracle::explore(game, 200_000, |state| {
        let scene = game.scene(state);
        if scenes.insert(scene.clone())
            && matches!(
                crate::pictures::shown(game, state),
                Some(crate::pictures::Shown::Drawn)
            )
        {
            drawn.insert(scene);
        }
    });
    (scenes.len(), drawn.len())
}
