//! Room validation: structure first (ids and references), then playability.
//!
//! [`check_structure`] runs whenever a room is loaded: unique ids and names, every
//! reference resolves, every state named exists, every quiz has one clue and one lock.
//! [`lint`] answers the author's questions about a room that loads: which receptacle
//! states can never be reached, which items are never needed, which locks can never be
//! answered, and whether the room can be escaped at all (by the oracle's search).

use std::collections::BTreeSet;

use crate::VisError;
use crate::game::{Game, State};
use crate::oracle::Solution;
use crate::room::{Cause, ItemKind, Room, Rule};

fn invalid(field: &'static str, reason: String) -> VisError {
    VisError::Invalid { field, reason }
}

/// Checks that ids are unique and every reference in the room resolves.
pub fn check_structure(room: &Room) -> Result<(), VisError> {
    if room.world != "vis" {
        return Err(invalid(
            "world",
            format!("world is `{}`, expected `vis`", room.world),
        ));
    }
    let mut ids = BTreeSet::new();
    let mut names = BTreeSet::new();
    for r in &room.receptacles {
        check_name("receptacles", "receptacle", &r.id, &r.name)?;
        if !ids.insert(r.id.as_str()) {
            return Err(invalid("receptacles", format!("duplicate id `{}`", r.id)));
        }
        if !names.insert(crate::interface::normalize(&r.name)) {
            return Err(invalid(
                "receptacles",
                format!("duplicate name `{}`", r.name),
            ));
        }
        if r.states.is_empty() || !r.states.contains(&r.initial) {
            return Err(invalid(
                "receptacles",
                format!(
                    "receptacle `{}`: initial state `{}` is not among its states",
                    r.id, r.initial
                ),
            ));
        }
    }
    for i in &room.items {
        check_name("items", "item", &i.id, &i.name)?;
        if !ids.insert(i.id.as_str()) {
            return Err(invalid("items", format!("duplicate id `{}`", i.id)));
        }
        if !names.insert(crate::interface::normalize(&i.name)) {
            return Err(invalid("items", format!("duplicate name `{}`", i.name)));
        }
        let r = room.receptacle(&i.receptacle).ok_or_else(|| {
            invalid(
                "items",
                format!(
                    "item `{}` is in unknown receptacle `{}`",
                    i.id, i.receptacle
                ),
            )
        })?;
        if let Some(s) = i.visible_in.iter().find(|s| !r.states.contains(s)) {
            return Err(invalid(
                "items",
                format!(
                    "item `{}` is visible in `{s}`, which `{}` does not have",
                    i.id, r.id
                ),
            ));
        }
        if let ItemKind::KeyLock { key } = &i.kind
            && room.item(key).is_none()
        {
            return Err(invalid(
                "items",
                format!("key lock `{}` names unknown item `{key}`", i.id),
            ));
        }
        if let ItemKind::Clue { quiz } | ItemKind::Lock { quiz } = &i.kind
            && room.quiz(quiz).is_none()
        {
            return Err(invalid(
                "items",
                format!("item `{}` refers to unknown quiz `{quiz}`", i.id),
            ));
        }
    }
    for q in &room.quizzes {
        if q.id.trim().is_empty() {
            return Err(invalid("quizzes", "a quiz has an empty id".into()));
        }
        if !ids.insert(q.id.as_str()) {
            return Err(invalid("quizzes", format!("duplicate id `{}`", q.id)));
        }
        let locks = room
            .items
            .iter()
            .filter(|i| matches!(&i.kind, ItemKind::Lock { quiz } if quiz == &q.id))
            .count();
        let clues = room
            .items
            .iter()
            .filter(|i| matches!(&i.kind, ItemKind::Clue { quiz } if quiz == &q.id))
            .count();
        // an imported quiz may be read from the room's pictures alone
        let pictured = matches!(q.spec, crate::room::QuizSpec::Pictured { .. });
        if clues == 0 && !pictured {
            return Err(invalid(
                "quizzes",
                format!("quiz `{}` has no clue item", q.id),
            ));
        }
        if locks != 1 {
            return Err(invalid(
                "quizzes",
                format!("quiz `{}` needs exactly one lock, has {locks}", q.id),
            ));
        }
        for v in &q.clue_views {
            if !room
                .receptacle(&v.receptacle)
                .is_some_and(|r| r.states.contains(&v.state))
            {
                return Err(invalid(
                    "quizzes",
                    format!(
                        "quiz `{}`: its clue view names `{}` in state `{}`, which does not exist",
                        q.id, v.receptacle, v.state
                    ),
                ));
            }
        }
        if q.answer.trim().is_empty() {
            return Err(invalid(
                "quizzes",
                format!("quiz `{}` has an empty answer", q.id),
            ));
        }
        // the answer must follow from what the clue and the lock face show
        crate::quiz::check(q)?;
    }
    for (n, x) in room.interactions.iter().enumerate() {
        let r = room.receptacle(&x.receptacle).ok_or_else(|| {
            invalid(
                "interactions",
                format!(
                    "interaction {n} names unknown receptacle `{}`",
                    x.receptacle
                ),
            )
        })?;
        for s in [&x.from, &x.to] {
            if !r.states.contains(s) {
                return Err(invalid(
                    "interactions",
                    format!("interaction {n}: `{}` has no state `{s}`", r.id),
                ));
            }
        }
        match &x.cause {
            Cause::Verb { verb }
                if crate::interface::normalize(verb).is_empty()
                    || verb.chars().any(char::is_control) =>
            {
                return Err(invalid(
                    "interactions",
                    format!("interaction {n} has an empty verb (or one with a line break)"),
                ));
            }
            Cause::Item { item } if room.item(item).is_none() => {
                return Err(invalid(
                    "interactions",
                    format!("interaction {n} uses unknown item `{item}`"),
                ));
            }
            Cause::ItemVerb { verb, .. } if verb.trim().is_empty() => {
                return Err(invalid(
                    "interactions",
                    format!("interaction {n} has an empty verb"),
                ));
            }
            Cause::ItemVerb { item, .. } if room.item(item).is_none() => {
                return Err(invalid(
                    "interactions",
                    format!("interaction {n} acts on unknown item `{item}`"),
                ));
            }
            Cause::Answer { lock }
                if !room
                    .item(lock)
                    .is_some_and(|i| matches!(i.kind, ItemKind::Lock { .. })) =>
            {
                return Err(invalid(
                    "interactions",
                    format!("interaction {n}: `{lock}` is not a lock item"),
                ));
            }
            _ => {}
        }
        check_rule(room, &x.guard, n)?;
    }
    let exit = room.receptacle(&room.exit.receptacle).ok_or_else(|| {
        invalid(
            "exit",
            format!("exit names unknown receptacle `{}`", room.exit.receptacle),
        )
    })?;
    if !exit.states.contains(&room.exit.state) {
        return Err(invalid(
            "exit",
            format!("exit state `{}` does not exist", room.exit.state),
        ));
    }
    crate::pictures::check(room)?;
    if room.checkpoints.is_empty() {
        return Err(invalid(
            "checkpoints",
            "a room needs at least one checkpoint".into(),
        ));
    }
    let mut triggers = BTreeSet::new();
    for c in &room.checkpoints {
        if !triggers.insert(c.trigger.as_str()) {
            return Err(invalid(
                "checkpoints",
                format!("checkpoint `{}` is listed twice", c.trigger),
            ));
        }
    }
    Ok(())
}

/// A name players type in actions (`inspect <name>`, `pick up <name>`): not empty once
/// read the way replies are read, and on one line (the action list is one action per
/// line). Ids must not be empty either.
fn check_name(field: &'static str, what: &str, id: &str, name: &str) -> Result<(), VisError> {
    if id.trim().is_empty() {
        return Err(invalid(
            field,
            format!("a {what} has an empty id (its name is `{name}`)"),
        ));
    }
    if crate::interface::normalize(name).is_empty() {
        return Err(invalid(
            field,
            format!("{what} `{id}` has an empty name: players need a name to act on it"),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(invalid(
            field,
            format!("{what} `{id}`: its name has a line break or another control character"),
        ));
    }
    Ok(())
}

fn check_rule(room: &Room, rule: &Rule, n: usize) -> Result<(), VisError> {
    match rule {
        Rule::Always | Rule::Trigger(_) => Ok(()),
        Rule::HasItem(item) => room.item(item).map(|_| ()).ok_or_else(|| {
            invalid(
                "interactions",
                format!("interaction {n}: guard needs unknown item `{item}`"),
            )
        }),
        Rule::And(rules) => rules.iter().try_for_each(|r| check_rule(room, r, n)),
        Rule::Not(r) => check_rule(room, r, n),
    }
}

/// What [`lint`] found. Empty lists, `solvable` and `complete` mean a clean room.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Lint {
    /// The oracle can escape the room.
    pub solvable: bool,
    /// The search visited every state that matters; when false (the room is too large
    /// for [`crate::oracle::STATE_LIMIT`]) an unescaped room may still be escapable and
    /// the lists below may hold things a longer search would clear.
    pub complete: bool,
    /// `receptacle.state` pairs no play can reach.
    pub unreachable_states: Vec<String>,
    /// Items that no interaction or quiz needs (decor and notes excepted).
    pub unused_items: Vec<String>,
    /// Locks that can never be answered (never visible, or no interaction uses them).
    pub unsolvable_locks: Vec<String>,
    /// Checkpoint triggers that nothing in the room can fire.
    pub dead_checkpoints: Vec<String>,
}

impl Lint {
    /// No problems found.
    pub fn is_clean(&self) -> bool {
        self.solvable
            && self.complete
            && self.unreachable_states.is_empty()
            && self.unused_items.is_empty()
            && self.unsolvable_locks.is_empty()
            && self.dead_checkpoints.is_empty()
    }
}

/// Explores every state reachable from the start (bounded) and reports what the room's
/// author should fix.
///
/// The exploration is the oracle's ([`crate::oracle::explore_relevant`]): receptacles
/// whose state cannot matter ([`crate::oracle::Relevance`]) are not opened there, so
/// their states are checked on their own — a state of theirs is reachable when a chain of
/// their own interactions leads to it from the initial state, each allowed by its guard
/// in some state the exploration reached.
pub fn lint(room: &Room) -> Result<Lint, VisError> {
    lint_solving(room).map(|(lint, _)| lint)
}

/// [`lint`], and the oracle's solution its exploration found (the one
/// [`crate::oracle::solve`] finds), if any.
pub(crate) fn lint_solving(room: &Room) -> Result<(Lint, Option<Solution>), VisError> {
    check_structure(room)?;
    let game = Game::new(room.clone())?;
    let relevance = crate::oracle::Relevance::of(&game);
    let aside = relevance.irrelevant();
    let mut seen_states: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut seen_triggers: BTreeSet<usize> = BTreeSet::new();
    let mut seen_locks: BTreeSet<usize> = BTreeSet::new();
    // interactions of receptacles set aside whose guard held somewhere
    let mut allowed: BTreeSet<usize> = BTreeSet::new();
    let aside_interactions: Vec<usize> = (0..room.interactions.len())
        .filter(|&n| {
            aside
                .iter()
                .any(|&r| room.receptacles[r].id == room.interactions[n].receptacle)
        })
        .collect();
    let mut solvable = false;
    let (complete, solution) = crate::oracle::explore_solving(
        &game,
        &relevance,
        crate::oracle::STATE_LIMIT,
        |state: &State| {
            for (r, &s) in state.rec_states().iter().enumerate() {
                seen_states.insert((r, s as usize));
            }
            seen_triggers.extend(state.fired_triggers());
            seen_locks.extend((0..room.items.len()).filter(|&i| game.solved(state, i)));
            for &n in &aside_interactions {
                if !allowed.contains(&n) && game.guard_holds(state, n) {
                    allowed.insert(n);
                }
            }
            solvable |= game.escaped(state);
        },
    );
    for &r in &aside {
        let rec = &room.receptacles[r];
        let index = |name: &str| rec.states.iter().position(|s| s == name);
        let mut reached: BTreeSet<usize> = index(&rec.initial).into_iter().collect();
        let mut grew = true;
        while grew {
            grew = false;
            for &n in &allowed {
                let x = &room.interactions[n];
                if x.receptacle != rec.id {
                    continue;
                }
                if let (Some(from), Some(to)) = (index(&x.from), index(&x.to))
                    && reached.contains(&from)
                    && reached.insert(to)
                {
                    grew = true;
                }
            }
        }
        seen_states.extend(reached.into_iter().map(|s| (r, s)));
    }
    let mut out = Lint {
        solvable,
        complete,
        ..Lint::default()
    };
    for (r, rec) in room.receptacles.iter().enumerate() {
        for (s, name) in rec.states.iter().enumerate() {
            if !seen_states.contains(&(r, s)) {
                out.unreachable_states.push(format!("{}.{name}", rec.id));
            }
        }
    }
    for (i, item) in room.items.iter().enumerate() {
        match &item.kind {
            ItemKind::Applicable => {
                let used = room.interactions.iter().any(|x| {
                    matches!(&x.cause, Cause::Item { item: id } if id == &item.id)
                        || rule_mentions(&x.guard, &item.id)
                });
                if !used {
                    out.unused_items.push(item.id.clone());
                }
            }
            ItemKind::Lock { .. } => {
                let used = room
                    .interactions
                    .iter()
                    .any(|x| matches!(&x.cause, Cause::Answer { lock } if lock == &item.id));
                if !used || !seen_locks.contains(&i) {
                    out.unsolvable_locks.push(item.id.clone());
                }
            }
            _ => {}
        }
    }
    for cp in &room.checkpoints {
        let fired = game
            .trigger_index(&cp.trigger)
            .is_some_and(|t| seen_triggers.contains(&t));
        if !fired {
            out.dead_checkpoints.push(cp.trigger.clone());
        }
    }
    Ok((out, solution))
}

fn rule_mentions(rule: &Rule, item: &str) -> bool {
    match rule {
        Rule::HasItem(i) => i == item,
        Rule::And(rules) => rules.iter().any(|r| rule_mentions(r, item)),
        Rule::Not(r) => rule_mentions(r, item),
        _ => false,
    }
}
