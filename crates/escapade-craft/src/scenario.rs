//! The craft scenario: one playable MM-Escape game (one room, or two joined by a door),
//! its generator and its importer entry point.
//!
//! Why here: this is the file format the suite, the CLI and the environment share. It
//! carries the [`escapade_core::ScenarioHeader`] fields first (`world`, `id`,
//! `difficulty`, `seed`), then what the craft world needs: the variant, the background
//! story, whether the exit is in view at the start (Fig. 4), and the rooms, each holding
//! its own prop chain. Field order is fixed by the struct, so the JSON (and its hash) is
//! byte-stable.

use serde::{Deserialize, Serialize};

use crate::CraftError;
use crate::chain::{self, ChainSpec, Order, PropKind, Subgoal};
use crate::importer::parse_level;
use crate::layout::{RoomRequest, furnish};
use crate::room::Room;
use crate::story;

/// The world name craft scenarios carry.
pub const WORLD: &str = "craft";

/// Which kind of game a scenario is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// The paper's standard levels: the door alone (D1), a key or a note-borne password,
    /// drawn by seed (D2), both, in an order drawn by seed (D3 and longer).
    Standard,
    /// A visible note's password comes first (Table 7, the paper's "note-key").
    NoteFirst,
    /// A visible key comes first (the paper's "key-note").
    KeyFirst,
    /// Every lock takes a key; the player must tell the keys apart (the original's
    /// level 3.5).
    TwoKey,
    /// The first password is a number pattern on a wall (§5.2, Fig. 5).
    WallPattern,
    /// Two standard rooms joined by a door (§3.3): room 1's exit leads into room 2.
    MultiRoom,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 6] = [
        Variant::Standard,
        Variant::NoteFirst,
        Variant::KeyFirst,
        Variant::TwoKey,
        Variant::WallPattern,
        Variant::MultiRoom,
    ];

    /// The name used in JSON and ids (`note-first`).
    pub fn name(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::NoteFirst => "note-first",
            Variant::KeyFirst => "key-first",
            Variant::TwoKey => "two-key",
            Variant::WallPattern => "wall-pattern",
            Variant::MultiRoom => "multi-room",
        }
    }

    /// The variant with this name.
    ///
    /// # Errors
    /// [`CraftError::UnknownVariant`] for an unknown name.
    pub fn parse(name: &str) -> Result<Variant, CraftError> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == name)
            .ok_or_else(|| CraftError::UnknownVariant {
                name: name.to_string(),
                known: Variant::ALL.map(Variant::name).join(", "),
            })
    }

    /// The smallest difficulty the variant is made for.
    pub fn min_difficulty(self) -> u32 {
        match self {
            Variant::Standard => 1,
            Variant::NoteFirst | Variant::KeyFirst | Variant::WallPattern => 2,
            Variant::MultiRoom => 11,
            Variant::TwoKey => 3,
        }
    }
}

/// One play-through step of the shortest solution: a sub-goal in a room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanStep {
    /// Index of the room (0 = where the agent starts).
    pub room: usize,
    /// What to do there.
    #[serde(flatten)]
    pub goal: Subgoal,
}

/// A craft scenario. See the module docs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CraftScenario {
    /// Always `craft`.
    pub world: String,
    /// Stable id (`craft-note-first-d3-s7`; suites rename).
    pub id: String,
    /// The chain length tier: hops on the shortest path, summed over rooms (D1 = 1,
    /// D2 = 2, D3 = 3; a D1 + D2 multi-room scenario is 3).
    pub difficulty: u32,
    /// The seed it was generated or furnished from.
    pub seed: u64,
    /// Which kind of game.
    pub variant: Variant,
    /// The background story (ground truth of the debriefing).
    pub story: String,
    /// Whether the exit of the first room is in view from the start pose.
    pub exit_visible_at_start: bool,
    /// The rooms, in the order they are escaped.
    pub rooms: Vec<Room>,
}

impl CraftScenario {
    /// The scenario as pretty JSON (two-space indent, struct field order).
    pub fn to_json(&self) -> String {
        escapade_core::scenario::to_json(self)
    }

    /// Reads a scenario from JSON and validates it.
    ///
    /// # Errors
    /// [`CraftError::Parse`] for text that is not a craft scenario;
    /// [`CraftError::InvalidChain`] when it does not [`validate`](Self::validate).
    pub fn from_json(json: &str) -> Result<CraftScenario, CraftError> {
        let s: CraftScenario = serde_json::from_str(json).map_err(|e| CraftError::Parse {
            file: "craft scenario",
            error: std::sync::Arc::new(e),
        })?;
        s.validate()?;
        Ok(s)
    }

    /// The stable content hash (SHA-256 of the compact JSON).
    pub fn hash(&self) -> String {
        escapade_core::hash::content_hash(self)
    }

    /// The header every world's scenario shares.
    pub fn header(&self) -> escapade_core::ScenarioHeader {
        escapade_core::ScenarioHeader {
            world: self.world.clone(),
            id: self.id.clone(),
            difficulty: self.difficulty,
            seed: self.seed,
        }
    }

    /// Checks the scenario: the world name, at least one room, the room's geometry and
    /// furniture ([`Room::check_geometry`], [`Room::check_furniture`]), every chain valid, the
    /// visible props of each chain placed (in chain order) on furniture that exists, one
    /// exit per room and an entry in every room after the first, prop ids unique across
    /// rooms, and `difficulty` equal to [`tier`] of the rooms' hops.
    ///
    /// # Errors
    /// [`CraftError::InvalidChain`] naming the first problem.
    pub fn validate(&self) -> Result<(), CraftError> {
        let bad = |reason: String| Err(CraftError::InvalidChain { room: None, reason });
        let bad_in = |n: usize, reason: String| {
            Err(CraftError::InvalidChain {
                room: Some(n),
                reason,
            })
        };
        if self.world != WORLD {
            return bad(format!("world is `{}`, not `{WORLD}`", self.world));
        }
        if self.rooms.is_empty() {
            return bad("a scenario needs a room".into());
        }
        if self.rooms.len() > 2 {
            return bad(format!("{} rooms; a game has one or two", self.rooms.len()));
        }
        let mut hops = Vec::new();
        let mut ids = std::collections::BTreeSet::new();
        for (n, room) in self.rooms.iter().enumerate() {
            room.check_geometry()
                .and_then(|()| room.check_furniture())
                .map_err(|m| CraftError::InvalidChain {
                    room: Some(n),
                    reason: format!("room {n}: {m}"),
                })?;
            hops.push(room.chain.hops()?);
            for p in &room.chain.props {
                if !ids.insert(p.id.as_str()) {
                    return bad(format!("prop id `{}` is used in two rooms", p.id));
                }
            }
            let exits = room
                .doors
                .iter()
                .filter(|d| d.role == crate::room::DoorRole::Exit)
                .count();
            if exits != 1 {
                return bad_in(n, format!("room {n} has {exits} exits"));
            }
            if n > 0 && room.entry().is_none() {
                return bad_in(n, format!("room {n} has no entry door"));
            }
            let wanted: Vec<&str> = room.chain.placed().map(|p| p.id.as_str()).collect();
            let placed: Vec<&str> = room.props.iter().map(|p| p.id.as_str()).collect();
            if wanted != placed {
                return bad_in(
                    n,
                    format!("room {n} places {placed:?} but its chain shows {wanted:?}"),
                );
            }
            for p in &room.props {
                if let crate::room::Support::On { furniture, .. } = &p.support
                    && room.furniture(furniture).is_none()
                {
                    return bad_in(
                        n,
                        format!("prop `{}` stands on missing `{furniture}`", p.id),
                    );
                }
            }
        }
        if tier(&hops) != Some(self.difficulty) {
            return bad(format!(
                "difficulty says {} but the rooms' chains have {hops:?} hops",
                self.difficulty
            ));
        }
        Ok(())
    }

    /// The shortest solution, room by room, for the oracle: each room's
    /// [`Chain::plan`](crate::chain::Chain::plan); opening a room's exit leads into the
    /// next room.
    ///
    /// # Errors
    /// [`CraftError::InvalidChain`] when a chain does not validate.
    pub fn plan(&self) -> Result<Vec<PlanStep>, CraftError> {
        let mut out = Vec::new();
        for (room, r) in self.rooms.iter().enumerate() {
            out.extend(
                r.chain
                    .plan()?
                    .into_iter()
                    .map(|goal| PlanStep { room, goal }),
            );
        }
        Ok(out)
    }

    /// Objects per room (furniture, decor and visible props), in room order.
    pub fn objects_per_room(&self) -> Vec<usize> {
        self.rooms.iter().map(Room::object_count).collect()
    }
}

/// Builds one room's chain for a difficulty and variant (`MultiRoom` rooms are
/// `Standard`). `first` numbers the props; `seed` draws the order of a standard chain
/// and the password digits.
pub(crate) fn room_chain(
    difficulty: u32,
    seed: u64,
    variant: Variant,
    first: u32,
    story_note: Option<String>,
) -> Result<chain::Chain, CraftError> {
    let order = match variant {
        Variant::NoteFirst => Order::NoteFirst,
        Variant::KeyFirst => Order::KeyFirst,
        Variant::TwoKey => Order::TwoKey,
        Variant::WallPattern => Order::WallPattern,
        Variant::Standard | Variant::MultiRoom => {
            if escapade_core::seed::derive(seed, "craft/order", u64::from(first)).is_multiple_of(2)
            {
                Order::NoteFirst
            } else {
                Order::KeyFirst
            }
        }
    };
    chain::generate(&ChainSpec {
        hops: difficulty,
        order,
        seed,
        first,
        story_note: if difficulty >= 3 { story_note } else { None },
    })
}

/// The longest chain of one room: 9 hops (a 250-step cap). Longer single rooms would
/// share the two-room tiers' numbers (10 a + b), and nothing in the paper goes past 3.
pub const MAX_HOPS: u32 = 9;

/// A scenario's difficulty tier from its rooms' hops: the hops of a single room (D1 = 1,
/// D2 = 2, …); for two rooms of `a` and `b` hops (1 to 9 each), `10 a + b` — D1+D1 = 11,
/// D1+D2 = 12, D2+D2 = 22 — so reports keep the two-room games of §3.3 apart from the
/// single rooms, as the paper's tables do. `None` for anything else.
pub fn tier(hops: &[u32]) -> Option<u32> {
    match *hops {
        [h] if (1..=MAX_HOPS).contains(&h) => Some(h),
        [a, b] if (1..=9).contains(&a) && (1..=9).contains(&b) => Some(10 * a + b),
        _ => None,
    }
}

/// Generates a scenario: a `difficulty`-hop game of `variant` from `seed`.
///
/// Single-room variants make one room whose chain has `difficulty` hops; `MultiRoom`
/// reads `difficulty` as the two-room [`tier`] `10 a + b` (11 → D1 + D1, 12 → D1 + D2,
/// 22 → D2 + D2), see [`crate::multi`]. The story and the room type are drawn from the
/// seed. Same inputs, same bytes.
///
/// # Errors
/// [`CraftError::Difficulty`] when `difficulty` is below the variant's
/// [`Variant::min_difficulty`]; [`CraftError::Layout`] if no room could be furnished.
pub fn generate(difficulty: u32, seed: u64, variant: Variant) -> Result<CraftScenario, CraftError> {
    if variant != Variant::MultiRoom && difficulty > MAX_HOPS {
        return Err(CraftError::Difficulty {
            difficulty,
            reason: format!(
                "a room's chain has at most {MAX_HOPS} hops, got {difficulty} (two-room games: \
                 --variant multi-room with 10 a + b)"
            ),
        });
    }
    if difficulty < variant.min_difficulty() {
        return Err(CraftError::Difficulty {
            difficulty,
            reason: format!(
                "variant {} needs difficulty {} or more, got {difficulty}",
                variant.name(),
                variant.min_difficulty()
            ),
        });
    }
    if variant == Variant::MultiRoom {
        let (a, b) = (difficulty / 10, difficulty % 10);
        if !(1..=9).contains(&a) || b == 0 {
            return Err(CraftError::Difficulty {
                difficulty,
                reason: format!(
                    "a two-room game's difficulty is 10 a + b for rooms of a and b hops (1 to 9 \
                     each, e.g. 12 for D1 + D2), got {difficulty}"
                ),
            });
        }
        return crate::multi::generate_multi(a, b, seed);
    }
    let story = story::pick(seed);
    let chain = room_chain(
        difficulty,
        seed,
        variant,
        1,
        Some(story.fragment.to_string()),
    )?;
    let room = furnish(&RoomRequest {
        kind: None,
        chain,
        seed,
        with_entry: false,
    })?;
    let scenario = CraftScenario {
        world: WORLD.into(),
        id: format!("craft-{}-d{difficulty}-s{seed}", variant.name()),
        difficulty,
        seed,
        variant,
        story: story.background.into(),
        exit_visible_at_start: room.exit_visible_at_start,
        rooms: vec![room],
    };
    scenario.validate()?;
    Ok(scenario)
}

/// A scenario from one of the original's level files: its chain (ids kept, passwords
/// from `seed`) and story, in a room furnished by our generator from `seed`.
///
/// The variant is read off the chain: a wall pattern makes `wall-pattern`; a chain
/// without passwords and with two keys or more `two-key`; a three-hop-or-longer chain
/// whose first step grabs a key `key-first`, a note `note-first`; anything else
/// `standard`.
///
/// # Errors
/// What [`parse_level`] returns, and [`CraftError::Layout`] if no room fits.
pub fn from_level(level_json: &str, seed: u64) -> Result<CraftScenario, CraftError> {
    let level = parse_level(level_json, seed)?;
    let chain = level.chain;
    let difficulty = chain.hops()?;
    let kinds = |name: &str| chain.props.iter().filter(|p| p.kind.name() == name).count();
    let first = chain.plan()?.into_iter().next();
    let variant = if kinds("wall_pattern") > 0 {
        Variant::WallPattern
    } else if kinds("password") == 0 && kinds("key") >= 2 {
        Variant::TwoKey
    } else if difficulty >= 3 {
        match first {
            Some(Subgoal::Grab { prop })
                if matches!(
                    chain.prop(&prop).map(|p| &p.kind),
                    Some(PropKind::Key { .. })
                ) =>
            {
                Variant::KeyFirst
            }
            _ => Variant::NoteFirst,
        }
    } else {
        Variant::Standard
    };
    let room = furnish(&RoomRequest {
        kind: None,
        chain: chain.clone(),
        seed,
        with_entry: false,
    })?;
    let digest = escapade_core::hash::content_hash(&chain);
    let scenario = CraftScenario {
        world: WORLD.into(),
        id: format!(
            "craft-level-{}-d{difficulty}-s{seed}-{}",
            variant.name(),
            &digest[..8]
        ),
        difficulty,
        seed,
        variant,
        story: level.story,
        exit_visible_at_start: room.exit_visible_at_start,
        rooms: vec![room],
    };
    scenario.validate()?;
    Ok(scenario)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_round_trip_by_name() {
        for v in Variant::ALL {
            assert_eq!(Variant::parse(v.name()).unwrap(), v);
            assert_eq!(
                serde_json::to_string(&v).unwrap(),
                format!("\"{}\"", v.name())
            );
        }
        assert!(Variant::parse("nope").is_err());
    }

    #[test]
    fn generated_scenarios_validate_and_round_trip() {
        for (d, v) in [
            (1, Variant::Standard),
            (2, Variant::Standard),
            (3, Variant::NoteFirst),
            (3, Variant::KeyFirst),
            (3, Variant::TwoKey),
            (2, Variant::WallPattern),
            (5, Variant::Standard),
        ] {
            let s = generate(d, 4, v).unwrap();
            assert_eq!(s.difficulty, d);
            let json = s.to_json();
            assert_eq!(CraftScenario::from_json(&json).unwrap(), s);
            assert_eq!(generate(d, 4, v).unwrap().to_json(), json);
            let header = escapade_core::ScenarioHeader::parse(&json).unwrap();
            assert_eq!(header.world, "craft");
        }
        assert!(matches!(
            generate(1, 0, Variant::TwoKey),
            Err(CraftError::Difficulty { difficulty: 1, .. })
        ));
        assert!(generate(0, 0, Variant::Standard).is_err());
    }

    #[test]
    fn the_story_note_is_in_the_last_box() {
        let s = generate(3, 9, Variant::KeyFirst).unwrap();
        let chain = &s.rooms[0].chain;
        let story_note = chain
            .props
            .iter()
            .find(|p| matches!(&p.kind, PropKind::Note { lines } if matches!(lines[0], chain::NoteLine::Story { .. })))
            .unwrap();
        assert_eq!(chain.container_of(&story_note.id), Some("box_1"));
    }
}
