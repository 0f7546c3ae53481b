//! Rooms that can be trusted: every generated room (any size class, any seed) loads,
//! passes the author's lint, is escaped by the oracle with its checkpoints firing in the
//! listed order (App. A.4: all logic is sequential), keeps each clue on another wall
//! than its lock (App. D.4), and comes out byte-identical for the same inputs. The same
//! holds for the hand-authored rooms and the 20 rooms of `visescape@4`, whose statistics
//! are printed next to the paper's (`cargo test -p escapade-vis --release --test
//! generator -- --nocapture`).

use std::collections::BTreeSet;
use std::time::Instant;

use escapade_vis::room::ItemKind;
use escapade_vis::{Game, Room, generator, oracle, quiz, suite, validate};
use proptest::prelude::*;

/// Everything a room must satisfy; returns the oracle's step count.
fn check_room(room: &Room) -> usize {
    validate::check_structure(room).expect("structure");
    let lint = validate::lint(room).expect("lint runs");
    assert!(lint.is_clean(), "{}: {lint:?}", room.id);
    assert!(
        (1..=2).contains(&room.quizzes.len()),
        "{}: {} quizzes",
        room.id,
        room.quizzes.len()
    );
    for q in &room.quizzes {
        quiz::check(q).unwrap_or_else(|e| panic!("{}: {e}", room.id));
    }
    clues_apart(room);
    let game = Game::new(room.clone()).expect("compiles");
    let solution = oracle::solve(&game).expect("escapable");
    checkpoints_in_order(&game, &solution);
    solution.moves.len()
}

/// Each clue sits on a different wall from its lock (Fig. 16's separation).
fn clues_apart(room: &Room) {
    let wall_of =
        |item: &escapade_vis::room::Item| room.receptacle(&item.receptacle).map(|r| r.wall);
    for q in &room.quizzes {
        let of = |lock: bool| {
            room.items.iter().find(|i| match &i.kind {
                ItemKind::Lock { quiz } => lock && quiz == &q.id,
                ItemKind::Clue { quiz } => !lock && quiz == &q.id,
                _ => false,
            })
        };
        let (lock, clue) = (of(true).expect("lock"), of(false).expect("clue"));
        assert_ne!(
            wall_of(lock),
            wall_of(clue),
            "{}: quiz {} has clue and lock on one wall",
            room.id,
            q.id
        );
    }
}

/// Along the oracle's path, checkpoints are reached one at a time, in the listed order.
fn checkpoints_in_order(game: &Game, solution: &oracle::Solution) {
    let mut reached = 0;
    for state in &solution.states {
        let now = game.reached(state);
        assert!(
            now <= reached + 1,
            "{}: two checkpoints in one move",
            game.room().id
        );
        if now > reached {
            let next = game.checkpoints()[reached];
            assert!(
                state.fired_triggers().any(|t| t == next),
                "{}: checkpoint {reached} out of order",
                game.room().id
            );
        }
        reached = now;
    }
    assert_eq!(
        reached,
        game.checkpoints().len(),
        "{}: checkpoints left",
        game.room().id
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn generated_rooms_are_clean_solvable_and_deterministic(difficulty in 1u32..=3, seed in any::<u64>()) {
        let room = generator::generate(difficulty, seed).unwrap();
        prop_assert_eq!(room.difficulty, difficulty);
        check_room(&room);
        prop_assert_eq!(room.to_json(), generator::generate(difficulty, seed).unwrap().to_json());
        // and it survives its own file format
        prop_assert_eq!(Room::from_json(&room.to_json()).unwrap(), room);
    }
}

#[test]
fn other_sizes_are_refused() {
    for difficulty in [0, 4, 99] {
        assert!(generator::generate(difficulty, 1).is_err());
    }
}

#[test]
fn hand_authored_rooms_load_and_are_clean() {
    let rooms = suite::hand_authored().unwrap();
    assert_eq!(rooms.len(), 3);
    for room in &rooms {
        check_room(room);
        assert_eq!(room.seed, 0);
    }
}

#[test]
fn the_suite_has_twenty_solved_rooms() {
    let t = Instant::now();
    let rooms = suite::rooms().unwrap();
    let built = t.elapsed();
    assert_eq!(rooms.len(), 20);
    let ids: BTreeSet<&str> = rooms.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), 20);
    for (n, room) in rooms.iter().enumerate() {
        assert_eq!(room.id, format!("vis-r{:02}", n + 1));
        check_room(room);
    }
    println!(
        "visescape@4: built in {built:?}, built and verified in {:?}",
        t.elapsed()
    );
    // the suite is a fixed list: building it twice gives the same bytes
    let again = suite::rooms().unwrap();
    assert!(
        rooms
            .iter()
            .zip(&again)
            .all(|(a, b)| a.to_json() == b.to_json())
    );
    let hinted = suite::hint_variant(&rooms);
    assert!(hinted.iter().all(|r| r.hints) && rooms.iter().all(|r| !r.hints));
}

#[test]
fn the_suite_statistics_are_near_the_paper() {
    let rooms = suite::rooms().unwrap();
    let stats = suite::stats(&rooms).unwrap();
    println!("{stats}");
    // Table 1 and the checkpoints within 0.15 a room (items sit at 5.25 against 5.1: the
    // fewest our rooms allow with 5.9 receptacles); the oracle walks less (shorter rooms)
    for (name, ours, paper) in stats.rows() {
        let slack = if name == "oracle steps" {
            0.25 * paper
        } else {
            0.15 + 1e-9
        };
        assert!(
            (ours - paper).abs() <= slack,
            "{name}: {ours:.2} against the paper's {paper}"
        );
    }
    let kinds: BTreeSet<_> = rooms
        .iter()
        .flat_map(|r| r.quizzes.iter().filter_map(|q| quiz::QuizKind::of(&q.spec)))
        .collect();
    assert_eq!(
        kinds.len(),
        quiz::QuizKind::ALL.len(),
        "every kind of quiz appears"
    );
}

/// As in the original game (its keys leave the bag on use and offer no `inspect`), a
/// tool of our rooms, generated or written by hand, is spent by its use and cannot be
/// looked at closely.
#[test]
fn tools_are_spent_by_their_use_and_cannot_be_inspected() {
    let rooms = suite::rooms().expect("the suite builds");
    let mut tools = 0;
    for room in &rooms {
        let game = Game::new(room.clone()).unwrap();
        for (i, item) in room.items.iter().enumerate() {
            if item.kind != ItemKind::Applicable {
                continue;
            }
            tools += 1;
            assert!(item.single_use, "{}: {} stays in the bag", room.id, item.id);
            assert!(
                !item.inspectable,
                "{}: {} can be inspected",
                room.id, item.id
            );
            // along the oracle's way out, the tool is in the bag until it is used, and
            // gone after
            let solution = oracle::solve(&game).unwrap();
            let used = solution
                .moves
                .iter()
                .position(|m| *m == escapade_vis::Move::Use(i));
            if let Some(k) = used {
                assert!(game.held(&solution.states[k], i));
                assert!(
                    !game.held(&solution.states[k + 1], i),
                    "{}: {}",
                    room.id,
                    item.id
                );
            }
            assert!(
                solution.states.iter().all(|s| !game
                    .available(s)
                    .contains(&escapade_vis::Move::InspectItem(i))),
                "{}: inspect {} is offered",
                room.id,
                item.id
            );
        }
    }
    assert!(tools > 20, "{tools} tools in the suite");
}
