//! The oracle's distance (`steps_to_go`, issue 29) in COMMA: the puzzle's remaining
//! required actions. The oracle's actions lower it by one each to 0 at the solution, an
//! mistake never lowers it, an expert's message leaves it, and in
//! random play the oracle's action lowers it by one, a mistake never, and it is 0
//! exactly when solved (Maze and Colour aside: a mistake starts them again from a start
//! that can be nearer the end, see `RESETS`). It is the oracle's plan (the first correct action each time),
//! not always the shortest: in Colour another correct square can lead to fewer stages.

use escapade_comma::puzzle::{generate, play_out};
use escapade_comma::{CommaEnv, PuzzleKind};
use escapade_core::{Action, Env};
use proptest::prelude::*;

/// Puzzles whose mistake starts them again from a start that can be nearer the end than
/// where the player stood: Maze puts the mouse back on its first square, Colour draws the
/// colours of its first grid again from the puzzle's random state.
const RESETS: [PuzzleKind; 2] = [PuzzleKind::Maze, PuzzleKind::Colour];

#[test]
fn the_oracle_lowers_it_by_one_per_action_and_a_wrong_action_does_not() {
    for kind in PuzzleKind::ALL {
        for seed in 0..8 {
            let mut p = generate(kind, seed).unwrap();
            let mut copy = generate(kind, seed).unwrap();
            let (plan, stuck) = play_out(copy.as_mut(), 10_000);
            assert!(!stuck, "{kind:?} {seed}");
            let mut before = p.remaining().expect("every puzzle knows its distance");
            assert_eq!(before as usize, plan.len(), "{kind:?} {seed}");
            while !p.solved() {
                let correct = p.correct_actions();
                let wrong = p.actions().into_iter().find(|a| !correct.contains(a));
                if let Some(wrong) = wrong.filter(|_| !RESETS.contains(&kind)) {
                    let mut tried = generate(kind, seed).unwrap();
                    // the same state on a second copy: replay the plan so far
                    for a in &plan[..plan.len() - before as usize] {
                        tried.act(a);
                    }
                    let mistake = tried.act(&wrong).mistake;
                    let after = tried.remaining().unwrap();
                    assert!(
                        !mistake || after >= before,
                        "{kind:?} {seed}: {wrong} lowered {before} to {after}"
                    );
                }
                p.act(&correct[0]);
                let now = p.remaining().unwrap();
                assert_eq!(now + 1, before, "{kind:?} {seed}: {}", correct[0]);
                before = now;
            }
            assert_eq!(before, 0);
        }
    }
}

#[test]
fn the_env_reports_it_and_the_expert_leaves_it() {
    let kind = PuzzleKind::Memory;
    let mut env = CommaEnv::new(Box::new(move |seed| generate(kind, seed).unwrap()));
    let _ = env.reset(3);
    let start = env.steps_to_go().unwrap();
    assert!(start > 0);
    let first = env.puzzle().correct_actions()[0].clone();
    let step = env.step(&Action::text(first)).unwrap();
    assert_eq!(step.steps_to_go, Some(start - 1));
    let step = env
        .step(&Action::text("Press the second button next."))
        .unwrap();
    assert_eq!(step.steps_to_go, Some(start - 1), "the expert's message");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_actions_never_lower_it_wrongly_and_it_is_0_exactly_when_solved(
        k in 0usize..10, seed in 0u64..1000, picks in proptest::collection::vec(0usize..1000, 1..40)
    ) {
        let kind = PuzzleKind::ALL[k];
        let mut p = generate(kind, seed).unwrap();
        let mut before = p.remaining().unwrap();
        for pick in picks {
            if p.solved() {
                break;
            }
            // half the time the correct action, so that some episodes are solved
            let correct = p.correct_actions();
            let actions = p.actions();
            let a = if pick % 2 == 0 { correct[0].clone() } else { actions[pick % actions.len()].clone() };
            let mistake = p.act(&a).mistake;
            let now = p.remaining().unwrap();
            if a == correct[0] {
                prop_assert_eq!(now + 1, before, "{:?}: the oracle's action", kind);
            } else if mistake && !RESETS.contains(&kind) {
                prop_assert!(now >= before, "{:?}: a wrong action {} -> {}", kind, before, now);
            }
            // another correct action than the oracle's may lower it by more than one
            // (Colour: the next group depends on the square pressed)
            prop_assert_eq!(now == 0, p.solved());
            before = now;
        }
    }
}
