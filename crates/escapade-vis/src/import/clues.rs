//! Which pictures a code is read from, and the checkpoints with their hints, both from
//! the authors' walkthrough.

use std::collections::{BTreeMap, BTreeSet};

use super::{Builder, Names, replay, trigger_name};
use crate::VisError;
use crate::game::{Game, Move, View};
use crate::room::{Cause, Checkpoint, ClueView, ItemKind, Room};

/// Links each code lock to its clue by what the authors' walkthrough looked at after the
/// previous code it tried and before its first try at this one: the pictures it
/// inspected (not locks, not keys) become the lock's clue items; when it inspected none,
/// the last close-up of another receptacle it saw, in the state it saw it (an opened
/// fridge, a screen switched on), becomes the quiz's clue view. A code tried with
/// neither keeps no clue (it can be answered at once, as a code on the start wall can),
/// and so does a code the walkthrough tried after failing to look at a picture: the
/// original's engine never shows that picture either (room 20's `KioskScreen` is seen
/// only in a Kiosk state the Kiosk never reaches), so a player enters that code without
/// it, as the walkthrough does. Returns what the import should say about it.
pub(super) fn link_clues(
    room: &mut Room,
    names: &Names,
    actions: &[String],
) -> Result<Vec<String>, VisError> {
    let mut notes = Vec::new();
    let game = Game::new(room.clone())?;
    let mut stepper = replay::Stepper::new(&game, names);
    let mut window: Vec<usize> = Vec::new();
    let mut seen: Vec<(usize, String)> = Vec::new();
    let mut tried: BTreeSet<usize> = BTreeSet::new();
    let mut clues: Vec<(usize, String)> = Vec::new();
    let mut views: Vec<(String, ClueView)> = Vec::new();
    // pictures the walkthrough looked at that this room can never show
    let mut lost: Vec<usize> = Vec::new();
    for action in actions {
        let meant = stepper.translate(action);
        if let (Ok(Move::Answer(_)), View::Item(lock)) = (&meant, stepper.state.view())
            && let ItemKind::Lock { quiz } = &room.items[lock].kind
            && tried.insert(lock)
        {
            if let Some(&picture) = lost.first() {
                notes.push(format!(
                    "the walkthrough enters the code of `{}` after trying to look at `{}`, \
                     which this room never shows (nor does the original's engine): the code \
                     waits for no clue",
                    room.items[lock].name, room.items[picture].name
                ));
                window.clear();
            } else {
                let holder = game.item_receptacle(lock);
                if window.is_empty()
                    && let Some((r, state)) = seen.iter().rev().find(|(r, _)| *r != holder)
                {
                    views.push((
                        quiz.clone(),
                        ClueView {
                            receptacle: room.receptacles[*r].id.clone(),
                            state: state.clone(),
                        },
                    ));
                }
            }
            clues.extend(window.drain(..).map(|c| (c, quiz.clone())));
            seen.clear();
            lost.clear();
        }
        if stepper.act(action).is_err() {
            if let Ok(Move::InspectItem(i)) = meant
                && room.items[i].kind == ItemKind::Decor
                && room.items[i].inspectable
            {
                lost.push(i);
            }
            continue;
        }
        match stepper.state.view() {
            View::Item(i)
                if room.items[i].kind == ItemKind::Decor
                    && room.items[i].inspectable
                    && !window.contains(&i)
                    && !clues.iter().any(|(c, _)| *c == i) =>
            {
                window.push(i);
            }
            View::Receptacle(r) => {
                seen.push((r, game.state_name(&stepper.state, r).to_string()));
            }
            _ => {}
        }
        if game.escaped(&stepper.state) {
            break;
        }
    }
    for (i, quiz) in clues {
        room.items[i].kind = ItemKind::Clue { quiz };
    }
    for (quiz, view) in views {
        if let Some(q) = room.quizzes.iter_mut().find(|q| q.id == quiz) {
            q.clue_views.push(view);
        }
    }
    Ok(notes)
}

/// The checkpoints of `order` (escapade trigger names) with their hints.
pub(super) fn checkpoints(b: &mut Builder<'_>, room: &Room, order: &[String]) -> Vec<Checkpoint> {
    let dump = b.files.dump;
    // the hint the original gives once a trigger (its own name) is the last one set
    let mut after: BTreeMap<String, String> = BTreeMap::new();
    let mut first: Option<String> = None;
    if let Some(table) = &dump.hints.table {
        for (k, v) in table {
            after.insert(k.clone(), v.clone());
        }
    }
    for trace in dump.trace.iter().chain(&dump.walks) {
        if let Some(hint) = trace.start.as_ref().and_then(|s| s.hint.clone()) {
            first.get_or_insert(hint);
        }
        let mut set: BTreeSet<&str> = BTreeSet::new();
        for step in &trace.steps {
            let Some(s) = &step.snapshot else { continue };
            for t in &s.triggers {
                if set.insert(t.as_str())
                    && let Some(h) = &s.hint
                {
                    after.entry(t.clone()).or_insert_with(|| h.clone());
                }
            }
        }
    }
    if let Some(h) = after.get("").cloned() {
        first.get_or_insert(h);
    }
    // escapade's trigger name back to the original's
    let original: BTreeMap<String, String> = dump
        .trace
        .iter()
        .chain(&dump.walks)
        .flat_map(|t| t.steps.iter())
        .filter_map(|s| s.snapshot.as_ref())
        .flat_map(|s| s.triggers.iter())
        .chain(after.keys())
        .map(|t| (trigger_name(t, &b.item_ids), t.clone()))
        .collect();
    let mut out = Vec::new();
    for (k, trigger) in order.iter().enumerate() {
        let hint = if k == 0 {
            first.clone()
        } else {
            original
                .get(&order[k - 1])
                .and_then(|t| after.get(t))
                .cloned()
        };
        let hint = match hint {
            Some(h) => h,
            None => {
                b.note(format!(
                    "no hint of the original leads to `{trigger}`: escapade words one"
                ));
                made_hint(room, trigger)
            }
        };
        out.push(Checkpoint {
            trigger: trigger.clone(),
            hint,
        });
    }
    out
}

/// A hint toward `trigger` in App. A.4's style, for checkpoints the original gives none.
fn made_hint(room: &Room, trigger: &str) -> String {
    let place = |rec: &str| -> String {
        room.receptacle(rec)
            .map(|r| format!("the {} at the {} wall", r.name, r.wall.name()))
            .unwrap_or_else(|| "the room".into())
    };
    let item = |id: &str| room.item(id);
    if let Some(id) = trigger.strip_prefix("picked ")
        && let Some(i) = item(id)
    {
        return format!("Pick up {} in {}.", i.name, place(&i.receptacle));
    }
    if let Some(id) = trigger.strip_prefix("used ")
        && let Some(i) = item(id)
    {
        let target = room
            .interactions
            .iter()
            .find(|x| matches!(&x.cause, Cause::Item { item } if item == id))
            .map(|x| place(&x.receptacle))
            .unwrap_or_else(|| "the room".into());
        return format!("Use {} on {target}.", i.name);
    }
    if let Some(id) = trigger.strip_prefix("solved ")
        && let Some(i) = item(id)
    {
        let answer = room
            .quizzes
            .iter()
            .find(|q| matches!(&i.kind, ItemKind::Lock { quiz } if quiz == &q.id))
            .map(|q| q.answer.clone())
            .unwrap_or_default();
        return format!(
            "Solve the {} in {}. The answer is {answer}.",
            i.name,
            place(&i.receptacle)
        );
    }
    match room
        .interactions
        .iter()
        .find(|x| x.trigger.as_deref() == Some(trigger))
    {
        Some(x) => format!("{trigger} at {}.", place(&x.receptacle)),
        None => format!("Next: {trigger}."),
    }
}
