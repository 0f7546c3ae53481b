//! The `mm-escape@3` suite: the paper's composition, rebuilt byte for byte, rooms as
//! full as §3.3's, start poses that look across free floor, and both sides of Fig. 4's
//! exit-in-view split.

use std::collections::BTreeSet;

use escapade_core::World;
use escapade_craft::layout::{MIN_START_VIEW, free_view};
use escapade_craft::scenario::{CraftScenario, Variant};
use escapade_craft::suite::{NAME, PAPER_OBJECTS_PER_ROOM, RETIRED, build, stats};
use escapade_craft::{CraftWorld, EnvOptions};

#[test]
fn suite_has_the_papers_counts_and_rebuilds_byte_for_byte() {
    let suite = build().unwrap();
    assert_eq!(suite.len(), 73);
    let count = |f: &dyn Fn(&CraftScenario) -> bool| suite.iter().filter(|s| f(s)).count();
    assert_eq!(count(&|s| s.rooms.len() == 1 && s.difficulty == 1), 11);
    assert_eq!(count(&|s| s.rooms.len() == 1 && s.difficulty == 2), 11);
    assert_eq!(count(&|s| s.rooms.len() == 1 && s.difficulty == 3), 21);
    assert_eq!(count(&|s| s.variant == Variant::NoteFirst), 11);
    assert_eq!(count(&|s| s.variant == Variant::KeyFirst), 10);
    for (a, b) in [(1, 1), (1, 2), (2, 2)] {
        let n = count(&|s| {
            s.rooms.len() == 2
                && s.rooms[0].chain.hops().unwrap() == a
                && s.rooms[1].chain.hops().unwrap() == b
        });
        assert_eq!(n, 10, "D{a} + D{b}");
    }
    let ids: BTreeSet<_> = suite.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids.len(), suite.len());
    for s in &suite {
        s.validate().unwrap();
        assert!(!s.plan().unwrap().is_empty());
    }
    let again = build().unwrap();
    for (a, b) in suite.iter().zip(&again) {
        assert_eq!(a.to_json(), b.to_json());
        assert_eq!(a.hash(), b.hash());
    }
}

#[test]
fn rooms_hold_the_papers_objects_per_room_within_fifteen_percent() {
    let st = stats(&build().unwrap());
    println!("{}", serde_json::to_string_pretty(&st).unwrap());
    assert_eq!(st.scenarios, 73);
    for (d, paper) in PAPER_OBJECTS_PER_ROOM {
        let ours = st.objects_per_room[&d];
        assert!(
            (ours - paper).abs() <= 0.15 * paper,
            "difficulty {d}: {ours:.2} objects a room against the paper's {paper}"
        );
    }
    // the tiers differ as the paper's do: Difficulty-1 rooms are the fullest
    assert!(st.objects_per_room[&1] > st.objects_per_room[&2] + 3.0);
    assert!(
        st.room_kinds.values().all(|n| *n > 0),
        "every room type is used"
    );
}

#[test]
fn every_start_looks_across_free_floor_and_the_exit_split_has_both_sides() {
    let suite = build().unwrap();
    let st = stats(&suite);
    for s in &suite {
        for (n, room) in s.rooms.iter().enumerate() {
            let v = free_view(room, &room.start);
            assert!(v >= MIN_START_VIEW, "{} room {n}: free view {v:.2} m", s.id);
        }
    }
    let v = &st.start_view;
    assert_eq!(v.rooms, 103, "43 single rooms and 30 two-room games");
    assert_eq!(v.histogram[0], 0);
    assert_eq!(v.histogram.iter().sum::<usize>(), v.rooms);
    assert!(v.min >= f64::from(MIN_START_VIEW) && v.min <= v.median && v.median <= v.max);
    // Fig. 4 compares episodes whose exit is in view at the start with those whose is not
    assert!(st.exit_visible_at_start > 0.0 && st.exit_visible_at_start < 1.0);
    for tier in [1, 2, 3] {
        let of: Vec<_> = suite
            .iter()
            .filter(|s| s.rooms.len() == 1 && s.difficulty == tier)
            .collect();
        assert!(of.iter().any(|s| s.exit_visible_at_start), "D{tier}");
        assert!(of.iter().any(|s| !s.exit_visible_at_start), "D{tier}");
    }
}

#[test]
fn the_old_version_is_retired_in_favour_of_this_one() {
    assert_eq!(NAME, "mm-escape@3");
    let world = CraftWorld::with_options(EnvOptions::small());
    let retired = world.retired_suites();
    assert_eq!(retired.len(), RETIRED.len());
    for (r, old) in retired.iter().zip(["mm-escape@1", "mm-escape@2"]) {
        assert_eq!(r.name, old);
        assert_eq!(r.replaced_by, NAME);
        assert!(world.build_suite(old).is_err());
    }
    assert!(retired[1].why.contains("re-asked"), "{}", retired[1].why);
}

#[test]
fn the_suite_declares_the_papers_temperature() {
    // §4 "Evaluation Setups": temperature 0
    let world = CraftWorld::with_options(EnvOptions::small());
    let spec = &world.suites()[0];
    assert_eq!(spec.name, NAME);
    assert_eq!(spec.settings.agent["temperature"], "0");
    assert!(spec.settings.source.starts_with("MM-Escape §4"));
}
