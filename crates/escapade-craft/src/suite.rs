//! The `mm-escape@3` suite and its statistics next to the paper's.
//!
//! Why fixed seeds: a suite must rebuild byte for byte. §3.3 gives the counts — 11
//! Difficulty-1 rooms, 11 Difficulty-2, 21 Difficulty-3 (note-first and key-first; we
//! make 11 and 10, as Table 6's human run had 11 note-key and 10 key-note scenes) and
//! 10 multi-room games of each of D1 + D1, D1 + D2, D2 + D2. Seeds are `1000·group + n`;
//! changing any of them, or what the generator makes of them, is a new version.
//!
//! Versions: `mm-escape@1` furnished every difficulty alike (13.45 / 15.55 / 15.81
//! objects a room against §3.3's 20.18 / 14.55 / 15.24) and could start the agent facing
//! a wall at arm's length; `@2` furnishes each tier to the paper's count and starts
//! every room looking across at least [`MIN_START_VIEW`] of free floor. `@3` has `@2`'s
//! rooms byte for byte under the original's protocol: a reply without a key (`{}`) is
//! re-asked instead of taken as a turn, and model agents resend every frame of the
//! conversation as JPEG (see [`crate::world::paper_settings`]).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::CraftError;
use crate::layout::{MIN_START_VIEW, free_view};
use crate::multi::generate_multi;
use crate::room::RoomKind;
use crate::scenario::{CraftScenario, Variant, generate};

/// The suite's name.
pub const NAME: &str = "mm-escape@3";
/// The names of earlier versions, which no longer build, each with what changed since.
pub const RETIRED: [(&str, &str); 2] = [
    (
        "mm-escape@1",
        "rooms are now furnished to MM-Escape §3.3's objects per room (20.18 / 14.55 / 15.24 \
         for D1 / D2 / D3) and start poses look across free floor; since `@3` a reply \
         without a key is re-asked and model agents resend every frame as JPEG",
    ),
    (
        "mm-escape@2",
        "the same rooms under the original's protocol: a reply without a key (`{}`) is \
         re-asked instead of taken as a turn, and model agents resend every frame of the \
         conversation (JPEG, detail high) instead of only the current one",
    ),
];

/// Objects per room the paper reports for single rooms (§3.3): D1, D2, D3.
pub const PAPER_OBJECTS_PER_ROOM: [(u32, f64); 3] = [(1, 20.18), (2, 14.55), (3, 15.24)];

/// One group of the suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    /// Id prefix of its scenarios (`craft-d3-nf`).
    pub prefix: &'static str,
    /// How many scenarios.
    pub count: u64,
    /// Hops of room 1, and of room 2 for multi-room groups.
    pub hops: (u32, Option<u32>),
    /// The variant.
    pub variant: Variant,
    /// Seeds are `base + n` for `n` in `1..=count`.
    pub seed_base: u64,
}

/// The groups of the suite, in suite order.
pub const GROUPS: [Group; 7] = [
    Group {
        prefix: "craft-d1",
        count: 11,
        hops: (1, None),
        variant: Variant::Standard,
        seed_base: 1000,
    },
    Group {
        prefix: "craft-d2",
        count: 11,
        hops: (2, None),
        variant: Variant::Standard,
        seed_base: 2000,
    },
    Group {
        prefix: "craft-d3-nf",
        count: 11,
        hops: (3, None),
        variant: Variant::NoteFirst,
        seed_base: 3000,
    },
    Group {
        prefix: "craft-d3-kf",
        count: 10,
        hops: (3, None),
        variant: Variant::KeyFirst,
        seed_base: 4000,
    },
    Group {
        prefix: "craft-m11",
        count: 10,
        hops: (1, Some(1)),
        variant: Variant::MultiRoom,
        seed_base: 5000,
    },
    Group {
        prefix: "craft-m12",
        count: 10,
        hops: (1, Some(2)),
        variant: Variant::MultiRoom,
        seed_base: 6000,
    },
    Group {
        prefix: "craft-m22",
        count: 10,
        hops: (2, Some(2)),
        variant: Variant::MultiRoom,
        seed_base: 7000,
    },
];

/// The scenarios of the suite (73 of them), ids `<prefix>-<nn>`.
///
/// # Errors
/// Whatever a generator returns (none does for these seeds; the tests build the suite).
pub fn build() -> Result<Vec<CraftScenario>, CraftError> {
    let mut out = Vec::new();
    for g in GROUPS {
        for n in 1..=g.count {
            let seed = g.seed_base + n;
            let mut s = match g.hops {
                (a, Some(b)) => generate_multi(a, b, seed)?,
                (a, None) => generate(a, seed, g.variant)?,
            };
            s.id = format!("{}-{n:02}", g.prefix);
            out.push(s);
        }
    }
    Ok(out)
}

/// Figures of a list of scenarios, to set beside the paper's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SuiteStats {
    /// Scenarios counted.
    pub scenarios: usize,
    /// Mean objects per room (furniture, decor, visible props) of single-room scenarios,
    /// by difficulty.
    pub objects_per_room: BTreeMap<u32, f64>,
    /// Mean objects per room over the rooms of multi-room scenarios.
    pub objects_per_room_multi: Option<f64>,
    /// Rooms by type (every room of every scenario).
    pub room_kinds: BTreeMap<String, usize>,
    /// Share of scenarios whose exit is in view at the start.
    pub exit_visible_at_start: f64,
    /// How far every room's start pose looks across free floor
    /// ([`free_view`]), metres.
    pub start_view: ViewStats,
}

/// The spread of the free view at the start over a suite's rooms.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ViewStats {
    /// Rooms counted.
    pub rooms: usize,
    /// The least, metres.
    pub min: f64,
    /// The 10th percentile, metres.
    pub p10: f64,
    /// The median, metres.
    pub median: f64,
    /// The 90th percentile, metres.
    pub p90: f64,
    /// The most, metres.
    pub max: f64,
    /// Rooms whose free view falls in `[1.5, 2)`, `[2, 3)`, `[3, 4)`, `[4, 5)` and from
    /// 5 m on (and, first, below [`MIN_START_VIEW`], which the generator never makes).
    pub histogram: [usize; 6],
}

impl ViewStats {
    fn of(mut views: Vec<f64>) -> ViewStats {
        views.sort_by(f64::total_cmp);
        let at = |q: f64| -> f64 {
            if views.is_empty() {
                return 0.0;
            }
            views[((views.len() - 1) as f64 * q).round() as usize]
        };
        let mut histogram = [0usize; 6];
        for v in &views {
            let bin = match *v {
                v if v < f64::from(MIN_START_VIEW) => 0,
                v if v < 2.0 => 1,
                v if v < 3.0 => 2,
                v if v < 4.0 => 3,
                v if v < 5.0 => 4,
                _ => 5,
            };
            histogram[bin] += 1;
        }
        ViewStats {
            rooms: views.len(),
            min: at(0.0),
            p10: at(0.1),
            median: at(0.5),
            p90: at(0.9),
            max: at(1.0),
            histogram,
        }
    }
}

/// Statistics of `scenarios`.
pub fn stats(scenarios: &[CraftScenario]) -> SuiteStats {
    let mut per: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
    let (mut multi_objects, mut multi_rooms) = (0usize, 0usize);
    let mut room_kinds: BTreeMap<String, usize> = RoomKind::ALL
        .iter()
        .map(|k| (k.label().to_string(), 0))
        .collect();
    for s in scenarios {
        for r in &s.rooms {
            *room_kinds.entry(r.kind.label().into()).or_default() += 1;
        }
        if s.rooms.len() == 1 {
            let e = per.entry(s.difficulty).or_default();
            e.0 += s.rooms[0].object_count();
            e.1 += 1;
        } else {
            multi_objects += s.rooms.iter().map(|r| r.object_count()).sum::<usize>();
            multi_rooms += s.rooms.len();
        }
    }
    let visible = scenarios.iter().filter(|s| s.exit_visible_at_start).count();
    let views: Vec<f64> = scenarios
        .iter()
        .flat_map(|s| &s.rooms)
        .map(|r| f64::from(free_view(r, &r.start)))
        .collect();
    SuiteStats {
        scenarios: scenarios.len(),
        objects_per_room: per
            .into_iter()
            .map(|(d, (o, n))| (d, o as f64 / n as f64))
            .collect(),
        objects_per_room_multi: (multi_rooms > 0)
            .then(|| multi_objects as f64 / multi_rooms as f64),
        room_kinds,
        exit_visible_at_start: if scenarios.is_empty() {
            0.0
        } else {
            visible as f64 / scenarios.len() as f64
        },
        start_view: ViewStats::of(views),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn group_counts_match_the_paper() {
        let count = |p: fn(&super::Group) -> bool| -> u64 {
            super::GROUPS.iter().filter(|g| p(g)).map(|g| g.count).sum()
        };
        assert_eq!(count(|g| g.hops == (1, None)), 11);
        assert_eq!(count(|g| g.hops == (2, None)), 11);
        assert_eq!(count(|g| g.hops == (3, None)), 21);
        assert_eq!(count(|g| g.hops.1.is_some()), 30);
    }
}
