//! The original's action strings (`turn_to_east`, `open_first_drawer`, `pick key_A`,
//! `8056`) played in a converted room, and checked against the original.
//!
//! Each of the original's actions is one move of escapade's, or none where the original
//! does nothing either (an action it does not list, a code typed away from a lock): the
//! converted room offers the moves the original does in the same views (`turn_to_*` and
//! `use <item>` in a close-up too, the view handed back to the receptacle after a lock
//! is solved), so a walkthrough of the original plays unchanged, step for step. After
//! each action the replay compares what the original engine reported (the dumper's
//! trace: receptacle states, bag, triggers, view, and the picture its view manager
//! chose) with the converted room's.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::dump::{Snapshot, Trace};
use super::{Names, RoomFiles};
use crate::game::{Game, Move, State, View};
use crate::pictures::{self, Shown};
use crate::room::{ItemKind, Wall};

/// How often two accounts agreed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Agreement {
    /// Steps compared.
    pub compared: usize,
    /// Steps on which they agreed.
    pub agreed: usize,
    /// The first step on which they did not, described.
    pub first_difference: Option<String>,
}

impl Agreement {
    fn see(&mut self, step: usize, action: &str, same: bool, what: impl FnOnce() -> String) {
        self.compared += 1;
        if same {
            self.agreed += 1;
        } else if self.first_difference.is_none() {
            self.first_difference = Some(format!("step {step} (`{action}`): {}", what()));
        }
    }

    /// Every step compared agreed.
    pub fn all(&self) -> bool {
        self.agreed == self.compared
    }
}

/// A replay of the original's actions in a converted room.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The original's actions played.
    pub actions: usize,
    /// Actions the converted room could not do, with why (the original engine's
    /// account, compared in [`Report::logic`] and [`Report::views`], says whether it
    /// could).
    pub refused: Vec<String>,
    /// The converted room was escaped by the end.
    pub escaped: bool,
    /// The original engine cleared the room by the end (when a trace says).
    pub original_escaped: Option<bool>,
    /// Receptacle states, bag and triggers after each action, against the original
    /// engine's.
    pub logic: Agreement,
    /// The view after each action, against the original engine's.
    pub views: Agreement,
    /// The picture after each action, against the one the original's view manager
    /// chose: the same file, or none on both sides (the original then has no picture to
    /// show, escapade draws the view). Not compared when the view manager could not be
    /// built.
    pub engine_pictures: Agreement,
    /// The picture after each action, against the one the walkthrough recorded (steps
    /// whose recorded file is in the copy).
    pub recorded_pictures: Agreement,
}

/// Plays the original's actions one by one.
pub struct Stepper<'g> {
    game: &'g Game,
    names: &'g Names,
    /// The current state.
    pub state: State,
}

impl<'g> Stepper<'g> {
    /// At the start of `game`.
    pub fn new(game: &'g Game, names: &'g Names) -> Self {
        Stepper {
            game,
            names,
            state: game.start(),
        }
    }

    /// The receptacle whose close-up is in view, or whose item's close-up is.
    fn receptacle_in_view(&self) -> Option<usize> {
        match self.state.view() {
            View::Receptacle(r) => Some(r),
            View::Item(i) => Some(self.game.item_receptacle(i)),
            View::Wall(_) => None,
        }
    }

    /// The move an original action string means here.
    pub fn translate(&self, action: &str) -> Result<Move, String> {
        let a = action.trim();
        let item = |name: &str| self.names.items.get(name.trim()).copied();
        if let Some(dir) = a.strip_prefix("turn_to_") {
            return Wall::ALL
                .into_iter()
                .find(|w| w.name() == dir.to_ascii_lowercase())
                .map(Move::Turn)
                .ok_or_else(|| format!("no wall `{dir}`"));
        }
        if a == "step_back" {
            return Ok(Move::StepBack);
        }
        if let Some(name) = a.strip_prefix("inspect ") {
            if let Some(&r) = self.names.receptacles.get(name.trim()) {
                return Ok(Move::InspectReceptacle(r));
            }
            return item(name)
                .map(Move::InspectItem)
                .ok_or_else(|| format!("nothing called `{name}`"));
        }
        if let Some(name) = a.strip_prefix("pick ") {
            return item(name)
                .map(Move::PickUp)
                .ok_or_else(|| format!("no item `{name}`"));
        }
        if let Some(name) = a.strip_prefix("use ") {
            return item(name)
                .map(Move::Use)
                .ok_or_else(|| format!("no item `{name}`"));
        }
        if let Some((i, verb)) = self.names.item_verbs.get(a) {
            return Ok(Move::ItemVerb {
                item: *i,
                verb: verb.clone(),
            });
        }
        let verb = a.replace('_', " ").to_lowercase();
        if let Some(r) = self.receptacle_in_view() {
            let here = Move::Verb {
                receptacle: r,
                verb: verb.clone(),
            };
            let room = self.game.room();
            let id = &room.receptacles[r].id;
            if room.interactions.iter().any(|x| {
                &x.receptacle == id
                    && matches!(&x.cause, crate::room::Cause::Verb { verb: v } if v.trim().to_lowercase() == verb)
            }) {
                return Ok(here);
            }
        }
        if let View::Item(i) = self.state.view()
            && matches!(self.game.room().items[i].kind, ItemKind::Lock { .. })
        {
            return Ok(Move::Answer(a.to_string()));
        }
        Err("no such action here".into())
    }

    /// `m` as available in `state` (an answer matches the answer template).
    fn available(&self, state: &State, m: &Move) -> Option<Move> {
        self.game
            .available(state)
            .into_iter()
            .find(|x| match (x, m) {
                (Move::Answer(_), Move::Answer(_)) => true,
                _ => x == m,
            })
            .map(|_| m.clone())
    }

    /// Plays one original action as one move: the triggers it fired, or why it could
    /// not be done (the state is then unchanged).
    pub fn act(&mut self, action: &str) -> Result<Vec<usize>, String> {
        let target = self.translate(action)?;
        let m = self
            .available(&self.state, &target)
            .ok_or_else(|| format!("`{}` is not available", self.game.label(&target)))?;
        Ok(self.game.apply(&mut self.state, &m).fired)
    }
}

/// The triggers a play of the original's actions fires, in order, and whether it
/// escaped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walked {
    /// Escapade trigger names, in the order they first fired.
    pub triggers: Vec<String>,
    /// The room was escaped.
    pub escaped: bool,
}

/// Plays `actions` (stopping at the exit) and collects the triggers fired.
pub fn play(game: &Game, names: &Names, actions: &[String]) -> Walked {
    let mut stepper = Stepper::new(game, names);
    let mut out = Walked::default();
    for action in actions {
        if let Ok(fired) = stepper.act(action) {
            for t in fired {
                if let Some(name) = game.trigger_name(t) {
                    out.triggers.push(name.to_string());
                }
            }
        }
        if game.escaped(&stepper.state) {
            out.escaped = true;
            break;
        }
    }
    out
}

/// The triggers that fire along a path of states, in order.
pub fn triggers_along(game: &Game, states: &[State]) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: BTreeSet<usize> = BTreeSet::new();
    for s in states {
        for t in s.fired_triggers() {
            if seen.insert(t)
                && let Some(name) = game.trigger_name(t)
            {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// The original's account of `state`, in its names, for comparison.
fn ours(game: &Game, names: &Names, state: &State) -> Snapshot {
    let rec_name: BTreeMap<usize, &String> =
        names.receptacles.iter().map(|(n, &i)| (i, n)).collect();
    let item_name: BTreeMap<usize, &String> = names.items.iter().map(|(n, &i)| (i, n)).collect();
    let states = names
        .receptacles
        .iter()
        .map(|(n, &r)| (n.clone(), game.state_name(state, r).to_string()))
        .collect();
    let mut inventory: Vec<String> = game
        .inventory(state)
        .into_iter()
        .filter_map(|i| item_name.get(&i).map(|n| n.to_string()))
        .collect();
    inventory.sort();
    let triggers = state
        .fired_triggers()
        .filter_map(|t| game.trigger_name(t))
        .filter(|t| *t != "escaped")
        .map(str::to_string)
        .collect();
    let (kind, receptacle, item) = match state.view() {
        View::Wall(_) => ("WALL", None, None),
        View::Receptacle(r) => ("RECEPTACLE", rec_name.get(&r).map(|n| n.to_string()), None),
        View::Item(i) => (
            "ITEM",
            rec_name
                .get(&game.item_receptacle(i))
                .map(|n| n.to_string()),
            item_name.get(&i).map(|n| n.to_string()),
        ),
    };
    Snapshot {
        states,
        triggers,
        inventory,
        view: super::dump::TraceView {
            kind: kind.into(),
            wall: game.wall_of(state.view()).name().to_ascii_uppercase(),
            receptacle,
            item,
        },
        clear: game.escaped(state),
        hint: None,
        picture: None,
    }
}

/// Replays `actions` and compares each step with `trace` (the original engine's account
/// of the same actions), when given.
pub fn check(game: &Game, names: &Names, actions: &[String], trace: Option<&Trace>) -> Report {
    let item_ids: BTreeMap<String, String> = names
        .items
        .iter()
        .map(|(n, &i)| (n.clone(), game.room().items[i].id.clone()))
        .collect();
    let mut stepper = Stepper::new(game, names);
    let mut report = Report {
        original_escaped: trace.map(Trace::cleared),
        ..Report::default()
    };
    for (k, action) in actions.iter().enumerate() {
        let step = k + 1;
        let original = trace.and_then(|t| t.steps.get(k));
        if original.is_some_and(|o| o.error.is_some()) {
            // the original engine failed on this action: nothing to compare from here
            break;
        }
        report.actions += 1;
        if let Err(why) = stepper.act(action) {
            report
                .refused
                .push(format!("step {step} `{action}`: {why}"));
        }
        if let Some(theirs) = original.and_then(|o| o.snapshot.as_ref()) {
            let mine = ours(game, names, &stepper.state);
            let their_triggers: BTreeSet<String> = theirs
                .triggers
                .iter()
                .map(|t| super::trigger_name(t, &item_ids))
                .collect();
            let my_triggers: BTreeSet<String> = mine.triggers.iter().cloned().collect();
            let same = mine.states == theirs.states
                && mine.inventory == theirs.inventory
                && my_triggers == their_triggers;
            report.logic.see(step, action, same, || {
                let mut diffs = Vec::new();
                for (r, s) in &theirs.states {
                    if mine.states.get(r) != Some(s) {
                        diffs.push(format!(
                            "`{r}` is `{}` here, `{s}` in the original",
                            mine.states.get(r).map_or("?", String::as_str)
                        ));
                    }
                }
                if mine.inventory != theirs.inventory {
                    diffs.push(format!(
                        "bag {:?} here, {:?} in the original",
                        mine.inventory, theirs.inventory
                    ));
                }
                if my_triggers != their_triggers {
                    diffs.push(format!(
                        "triggers {:?} here, {:?} in the original",
                        my_triggers, their_triggers
                    ));
                }
                diffs.join("; ")
            });
            let same_view = mine.view.kind == theirs.view.kind
                && mine.view.wall == theirs.view.wall
                && (mine.view.kind == "WALL" || mine.view.receptacle == theirs.view.receptacle)
                && (mine.view.kind != "ITEM" || mine.view.item == theirs.view.item);
            report.views.see(step, action, same_view, || {
                format!("{:?} here, {:?} in the original", mine.view, theirs.view)
            });
        }
        if game.escaped(&stepper.state) {
            report.escaped = true;
            break;
        }
    }
    report
}

/// Which pictures a replay is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// The original engine's view manager chose them: a step without a picture (no
    /// scene fits, or the file is not in the copy) must be drawn here too.
    Engine,
    /// The walkthrough recorded them: steps recorded without one, or with a file not in
    /// the copy, are not compared.
    Recorded,
}

/// Replays `actions` and compares the picture shown after each with `expected` (paths
/// under the room directory, `image/...`; `None` for none), as `how` says.
pub fn compare_pictures(
    game: &Game,
    names: &Names,
    actions: &[String],
    expected: &[Option<String>],
    files: RoomFiles<'_>,
    how: Expected,
) -> Agreement {
    let mut stepper = Stepper::new(game, names);
    let mut out = Agreement::default();
    for (k, action) in actions.iter().enumerate() {
        let _ = stepper.act(action);
        let Some(path) = expected.get(k) else {
            break;
        };
        let file = path
            .as_deref()
            .and_then(|p| super::find_image(files.images, p.strip_prefix("image/").unwrap_or(p)));
        let want = match (file, how) {
            (Some((_, bytes)), _) => Some(escapade_core::hash::sha256_hex(bytes)),
            (None, Expected::Engine) => None,
            (None, Expected::Recorded) => continue,
        };
        let got = pictures::shown(game, &stepper.state);
        let same = match (&got, &want) {
            (Some(Shown::Picture { sha, .. }), Some(want)) => sha == want,
            (Some(Shown::Drawn) | None, None) => true,
            _ => false,
        };
        let theirs = path.as_deref().unwrap_or("no picture");
        out.see(k + 1, action, same, || match got {
            Some(Shown::Picture { sha, .. }) => {
                let name = files
                    .images
                    .iter()
                    .find(|(_, b)| escapade_core::hash::sha256_hex(b) == sha)
                    .map_or("?".to_string(), |(p, _)| p.clone());
                format!("{name} here, {theirs} in the original")
            }
            _ => format!("a drawn view here, {theirs} in the original"),
        });
        if game.escaped(&stepper.state) {
            break;
        }
    }
    out
}
