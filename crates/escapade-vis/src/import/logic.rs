//! The original's receptacle transitions, uses, code answers and item actions as
//! escapade interactions (see the module docs of [`super`] for how each is carried over).

use std::collections::BTreeSet;

use super::Builder;
use super::dump::{DumpedItem, ItemRole};
use crate::VisError;
use crate::room::{Cause, Interaction, Rule};

/// The interactions of a room: receptacle actions, uses, answers and item verbs.
pub(super) fn interactions(b: &mut Builder<'_>) -> Result<Vec<Interaction>, VisError> {
    let dump = b.files.dump;
    let mut out = Vec::new();
    // item verbs whose item names a receptacle to act on shadow the receptacle's own
    // transition of the same name (the original routes them through the item)
    let shadowed: BTreeSet<String> = dump
        .items
        .iter()
        .filter(|i| i.appliable_receptacle.is_some() && i.role() == Ok(ItemRole::Static))
        .flat_map(|i| {
            i.actions
                .iter()
                .filter(|a| !a.starts_with("inspect "))
                .cloned()
        })
        .collect();
    for r in &dump.receptacles {
        let rec = b.rec_ids[&r.id].clone();
        // the lock the original asks first when an item is used here
        let locks: Vec<&DumpedItem> = r
            .items
            .iter()
            .filter_map(|c| b.items.get(&c.name).copied())
            .filter(|i| {
                i.classes.iter().any(|c| c == "QuizItem")
                    && i.item_type
                        .as_deref()
                        .is_some_and(|t| t.to_lowercase().contains("lock"))
            })
            .collect();
        if locks.len() > 1 {
            b.note(format!(
                "`{}` holds several locks; the original asks whichever its set yields first, \
                 escapade asks `{}`",
                r.id, locks[0].name
            ));
        }
        for t in &r.transitions {
            let guard = b.rule(&t.rule)?;
            if let Some(used) = t.action.strip_prefix("use ") {
                let Some(item) = b.items.get(used.trim()).copied() else {
                    b.note(format!(
                        "`{}` reacts to `{}`, but the room has no such item",
                        r.id, t.action
                    ));
                    continue;
                };
                if item.role() != Ok(ItemRole::Pickable) {
                    b.note(format!(
                        "`{}` reacts to `{}`, but `{}` never gets into the bag",
                        r.id, t.action, item.name
                    ));
                    continue;
                }
                if let Some(lock) = locks.first() {
                    let wants = lock.answer.clone().unwrap_or_default();
                    if !wants.trim().eq_ignore_ascii_case(t.action.trim()) {
                        b.note(format!(
                            "`{}` reacts to `{}`, but its lock `{}` wants `{wants}` first: \
                             it can never happen",
                            r.id, t.action, lock.name
                        ));
                        continue;
                    }
                }
                out.push(Interaction {
                    receptacle: rec.clone(),
                    cause: Cause::Item {
                        item: b.item_ids[&item.name].clone(),
                    },
                    from: t.from.clone(),
                    to: t.to.clone(),
                    guard,
                    trigger: None,
                    refusal: None,
                    message: None,
                });
                continue;
            }
            if shadowed.contains(&t.action) {
                continue;
            }
            let trigger = t.action.contains(' ').then(|| t.action.clone());
            out.push(Interaction {
                receptacle: rec.clone(),
                cause: Cause::Verb {
                    verb: t.action.replace('_', " "),
                },
                from: t.from.clone(),
                to: t.to.clone(),
                guard,
                trigger,
                refusal: None,
                message: None,
            });
        }
    }
    // code locks: a right answer moves the receptacle along its `unlock` transition
    for item in &dump.items {
        let Ok(ItemRole::CodeLock(_)) = item.role() else {
            continue;
        };
        let lock_id = b.item_ids[&item.name].clone();
        let held_by = dump
            .receptacles
            .iter()
            .find(|r| r.items.iter().any(|c| c.name == item.name))
            .map(|r| r.id.clone());
        let Some(target) = item.appliable_receptacle.clone() else {
            b.note(format!("the lock `{}` opens nothing", item.name));
            continue;
        };
        if held_by.as_deref() != Some(target.as_str()) {
            b.note(format!(
                "the lock `{}` is to open `{target}`, which does not hold it: a right code \
                 opens nothing (as in the original)",
                item.name
            ));
            continue;
        }
        let Some(r) = dump.receptacles.iter().find(|r| r.id == target) else {
            continue;
        };
        let unlocks: Vec<_> = r
            .transitions
            .iter()
            .filter(|t| t.action == "unlock")
            .cloned()
            .collect();
        if unlocks.is_empty() {
            b.note(format!(
                "`{target}` has no `unlock` transition: the code of `{}` opens nothing",
                item.name
            ));
        }
        for t in unlocks {
            out.push(Interaction {
                receptacle: b.rec_ids[&target].clone(),
                cause: Cause::Answer {
                    lock: lock_id.clone(),
                },
                from: t.from.clone(),
                to: t.to.clone(),
                guard: Rule::Always,
                trigger: None,
                refusal: None,
                message: None,
            });
        }
    }
    // item verbs (`press Button`)
    for item in &dump.items {
        if item.role() != Ok(ItemRole::Static) {
            continue;
        }
        let item_id = b.item_ids[&item.name].clone();
        for action in item.actions.iter().filter(|a| !a.starts_with("inspect ")) {
            let verb = action
                .strip_suffix(&format!(" {}", item.name))
                .unwrap_or(action)
                .replace('_', " ");
            let acted = match (
                &item.appliable_receptacle,
                &item.appliable_state,
                &item.after_solve_state,
            ) {
                (Some(target), Some(from), Some(to)) => {
                    if !b.rec_ids.contains_key(target) {
                        b.note(format!(
                            "`{action}` is to move `{target}`, which the room does not have: \
                             it does nothing"
                        ));
                        continue;
                    }
                    vec![(target.clone(), from.clone(), to.clone(), Rule::Always)]
                }
                _ => {
                    // no target of its own: the holder's transition of that name
                    let Some(r) = dump
                        .receptacles
                        .iter()
                        .find(|r| r.items.iter().any(|c| c.name == item.name))
                    else {
                        continue;
                    };
                    let mut found = Vec::new();
                    for t in r.transitions.iter().filter(|t| &t.action == action) {
                        let guard = b.rule(&t.rule)?;
                        found.push((r.id.clone(), t.from.clone(), t.to.clone(), guard));
                    }
                    found
                }
            };
            for (target, from, to, guard) in acted {
                out.push(Interaction {
                    receptacle: b.rec_ids[&target].clone(),
                    cause: Cause::ItemVerb {
                        verb: verb.clone(),
                        item: item_id.clone(),
                    },
                    from,
                    to,
                    guard,
                    trigger: Some(action.clone()),
                    refusal: None,
                    message: None,
                });
            }
        }
    }
    Ok(out)
}
