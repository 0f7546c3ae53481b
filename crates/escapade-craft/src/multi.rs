//! Two rooms joined by a door (§3.3 "multi-room setting", App. F).
//!
//! Why its own module: the paper's multi-room games combine two standard single rooms
//! (D1 + D1, D1 + D2, D2 + D2). The agent starts in room 1, whose exit is the door into
//! room 2; room 2 has that door (its entry, shut behind the agent) and its own exit, so
//! it has two doors and the agent must tell them apart. Each room has its own chain;
//! room 2 numbers its props after room 1's so every id is unique in the scenario.

use crate::CraftError;
use crate::layout::{RoomRequest, furnish};
use crate::room::Room;
use crate::scenario::{CraftScenario, Variant, WORLD, room_chain};
use crate::story;

/// A two-room scenario: room 1 of `first` hops, room 2 of `second` hops, from `seed`.
///
/// Both chains are standard (the order of a D2 room, key or note, drawn by seed); the
/// two rooms get independently drawn types and layouts. The scenario's difficulty is the
/// two-room [`tier`](crate::scenario::tier) `10 first + second`, its id `craft-multi-room-d<first>+d<second>-s<seed>`, and its
/// `exit_visible_at_start` is room 1's (room 2's is stored on the room).
///
/// # Errors
/// [`CraftError::Hops`] when either room has 0 hops; [`CraftError::Layout`] if a room
/// cannot be furnished.
pub fn generate_multi(first: u32, second: u32, seed: u64) -> Result<CraftScenario, CraftError> {
    let Some(difficulty) = crate::scenario::tier(&[first, second]) else {
        return Err(CraftError::Hops {
            hops: if (1..=9).contains(&first) {
                second
            } else {
                first
            },
            reason: format!("each room needs 1 to 9 hops, got {first} and {second}"),
        });
    };
    let story = story::pick(seed);
    let mut rooms: Vec<Room> = Vec::new();
    for (n, hops) in [first, second].into_iter().enumerate() {
        let start_number = 1 + rooms
            .iter()
            .map(|r| r.chain.props.len() as u32)
            .sum::<u32>();
        let last = n == 1;
        let note = last.then(|| story.fragment.to_string());
        let chain = room_chain(hops, seed, Variant::MultiRoom, start_number, note)?;
        rooms.push(furnish(&RoomRequest {
            kind: None,
            chain,
            seed: escapade_core::seed::derive(seed, "craft/multi-room", n as u64),
            with_entry: n > 0,
        })?);
    }
    let scenario = CraftScenario {
        world: WORLD.into(),
        id: format!("craft-multi-room-d{first}+d{second}-s{seed}"),
        difficulty,
        seed,
        variant: Variant::MultiRoom,
        story: story.background.into(),
        exit_visible_at_start: rooms[0].exit_visible_at_start,
        rooms,
    };
    scenario.validate()?;
    Ok(scenario)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::Subgoal;

    #[test]
    fn two_rooms_with_distinct_ids_and_two_doors_in_the_second() {
        for (a, b) in [(1, 1), (1, 2), (2, 2), (2, 3)] {
            let s = generate_multi(a, b, 17).unwrap();
            assert_eq!(s.rooms.len(), 2);
            assert_eq!(s.difficulty, 10 * a + b);
            assert_eq!(s.rooms[0].doors.len(), 1);
            assert_eq!(s.rooms[1].doors.len(), 2);
            let plan = s.plan().unwrap();
            let exits = plan
                .iter()
                .filter(|st| match &st.goal {
                    Subgoal::Interact { target }
                    | Subgoal::UseKey { target, .. }
                    | Subgoal::EnterPassword { target, .. } => target == crate::chain::EXIT,
                    _ => false,
                })
                .count();
            assert_eq!(exits, 2);
            assert_eq!(plan.last().unwrap().room, 1);
        }
        assert!(generate_multi(0, 1, 1).is_err());
    }
}
