//! A room's counts in the terms of VisEscape's Table 1, and a suite's statistics beside
//! the paper's.

use std::collections::BTreeSet;

use crate::game::Game;
use crate::pictures::Pictures;
use crate::room::{Cause, ItemKind, Room};
use crate::{VisError, oracle};

/// A room's counts in VisEscape Table 1's terms: receptacles, items (what can be
/// picked, pressed or looked at — locks are not items), quizzes (code locks),
/// interactions, scenes (pictures mapped to a view and state).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    /// Receptacles.
    pub receptacles: usize,
    /// Items, locks excluded.
    pub items: usize,
    /// Visual quizzes (code locks).
    pub quizzes: usize,
    /// Interactions: the distinct actions each receptacle responds to (a verb, an item
    /// used on it, an item pressed), as Table 1 counts them (the original's code has 317
    /// receptacle–action pairs over its 20 rooms); a code's answer acts through its
    /// receptacle's `unlock` and is not counted again.
    pub interactions: usize,
    /// Scenes with a picture mapping.
    pub scenes: usize,
}

/// [`Counts`] of `room`.
pub fn counts(room: &Room) -> Counts {
    Counts {
        receptacles: room.receptacles.len(),
        items: room
            .items
            .iter()
            .filter(|i| !matches!(i.kind, ItemKind::Lock { .. } | ItemKind::KeyLock { .. }))
            .count(),
        quizzes: room.quizzes.len(),
        interactions: room
            .interactions
            .iter()
            .filter_map(|x| {
                let what = match &x.cause {
                    Cause::Verb { verb } => format!("verb {verb}"),
                    Cause::Item { item } => format!("use {item}"),
                    Cause::ItemVerb { verb, item } => format!("{verb} {item}"),
                    Cause::Answer { .. } => return None,
                };
                Some((x.receptacle.as_str(), what))
            })
            .collect::<BTreeSet<_>>()
            .len(),
        scenes: room.pictures.as_ref().map_or(0, Pictures::scenes),
    }
}

/// Statistics of imported rooms beside VisEscape's: Table 1's totals and per-room means
/// (receptacles, items, quizzes, interactions, scenes), §2's checkpoints and oracle steps
/// per room.
pub fn paper_stats(rooms: &[Room]) -> Result<Vec<escapade_core::env::PaperStat>, VisError> {
    let n = rooms.len().max(1) as f64;
    let all: Vec<Counts> = rooms.iter().map(counts).collect();
    let sum = |f: fn(&Counts) -> usize| all.iter().map(f).sum::<usize>() as f64;
    // oracle steps over the rooms the oracle escapes (a suite holds no others)
    let mut steps = 0usize;
    let mut solved = 0usize;
    for room in rooms {
        if let Ok(solution) = oracle::solve(&Game::new(room.clone())?) {
            steps += solution.moves.len();
            solved += 1;
        }
    }
    let checkpoints = rooms.iter().map(|r| r.checkpoints.len()).sum::<usize>() as f64;
    let table = "VisEscape Table 1";
    let stat = |name: &str, ours: f64, paper: f64, source: &str| escapade_core::env::PaperStat {
        name: name.into(),
        ours,
        paper: Some(paper),
        source: source.into(),
    };
    // (column, its count in a room, the paper's total, the paper's mean per room)
    type Column = (&'static str, fn(&Counts) -> usize, f64, f64);
    let columns: [Column; 5] = [
        ("scenes", |c| c.scenes, 1084.0, 54.2),
        ("receptacles", |c| c.receptacles, 118.0, 5.9),
        ("items (locks excluded)", |c| c.items, 102.0, 5.1),
        ("quizzes", |c| c.quizzes, 27.0, 1.4),
        ("interactions", |c| c.interactions, 311.0, 15.6),
    ];
    let mut out = Vec::new();
    for (name, f, total, per_room) in columns {
        out.push(stat(&format!("{name} in all"), sum(f), total, table));
        out.push(stat(
            &format!("{name} per room"),
            sum(f) / n,
            per_room,
            table,
        ));
    }
    out.push(stat(
        "checkpoints per room",
        checkpoints / n,
        8.4,
        "VisEscape §2",
    ));
    out.push(stat(
        "oracle steps per room",
        steps as f64 / solved.max(1) as f64,
        27.2,
        "VisEscape §2",
    ));
    Ok(out)
}
