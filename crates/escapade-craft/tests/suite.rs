//! The `mm-escape@1` suite builds deterministically with the paper's counts.

use std::collections::BTreeSet;

use escapade_craft::scenario::Variant;
use escapade_craft::suite::{mm_escape_v1, stats};

#[test]
fn suite_has_the_papers_counts_and_rebuilds_byte_for_byte() {
    let suite = mm_escape_v1().unwrap();
    assert_eq!(suite.len(), 73);
    let count = |f: &dyn Fn(&escapade_craft::scenario::CraftScenario) -> bool| {
        suite.iter().filter(|s| f(s)).count()
    };
    assert_eq!(count(&|s| s.rooms.len() == 1 && s.difficulty == 1), 11);
    assert_eq!(count(&|s| s.rooms.len() == 1 && s.difficulty == 2), 11);
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
    let again = mm_escape_v1().unwrap();
    for (a, b) in suite.iter().zip(&again) {
        assert_eq!(a.to_json(), b.to_json());
        assert_eq!(a.hash(), b.hash());
    }
}

#[test]
fn suite_statistics() {
    let suite = mm_escape_v1().unwrap();
    let st = stats(&suite);
    println!("{}", serde_json::to_string_pretty(&st).unwrap());
    assert_eq!(st.scenarios, 73);
    assert_eq!(st.objects_per_room.len(), 3);
    for mean in st.objects_per_room.values() {
        assert!((8.0..=30.0).contains(mean), "{mean}");
    }
    assert!(
        st.room_kinds.values().all(|n| *n > 0),
        "every room type is used"
    );
    assert!(st.exit_visible_at_start > 0.0 && st.exit_visible_at_start < 1.0);
}
