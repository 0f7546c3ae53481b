//! The oracle's distance (`steps_to_go`, issue 29) in VisEscape: the fewest moves from
//! the current state to the exit, searched over the room's state machine. The oracle's
//! plan lowers it by one per step to 0 at the escape, a move off its path never lowers
//! it by more than one and a wasted step not at all, and in random play it falls by at
//! most one per step, rises by at most three (a turn away from a close-up) and is 0
//! exactly when the room is escaped.

use std::sync::Arc;

use escapade_core::{Action, Agent, Env, EpisodeStart};
use escapade_vis::VisEnv;
use escapade_vis::baseline::{OracleAgent, RandomAgent};
use escapade_vis::game::Game;
use escapade_vis::generator::generate;
use escapade_vis::oracle::{Distances, STATE_LIMIT, solve};
use proptest::prelude::*;

fn game(difficulty: u32, seed: u64) -> Arc<Game> {
    Arc::new(Game::new(generate(difficulty, seed).unwrap()).unwrap())
}

fn env_start(g: &Game) -> u32 {
    solve(g).unwrap().moves.len() as u32
}

#[test]
fn the_oracle_plan_lowers_it_by_one_per_step() {
    for difficulty in 1..=3 {
        for seed in 0..3 {
            let g = game(difficulty, seed);
            let mut idle = VisEnv::new(g.clone()).unwrap().without_images();
            let _ = idle.reset(seed);
            // a wasted step: a reply that names no listed action leaves the state (where
            // `-W invalid=first` does not stand the first listed action in for it)
            let wasted = idle.step(&Action::text("dance a jig")).unwrap();
            if idle.state() == &g.start() {
                assert_eq!(wasted.steps_to_go, idle.steps_to_go());
                assert_eq!(wasted.steps_to_go, Some(env_start(&g)));
            }
            let mut env = VisEnv::new(g.clone()).unwrap().without_images();
            let mut oracle = OracleAgent::new(&g).unwrap();
            let mut o = env.reset(seed);
            oracle.reset(EpisodeStart::new(seed, "", &[]));
            let mut before = env.steps_to_go().expect("a generated room is searched");
            assert_eq!(
                before,
                env.oracle_steps(),
                "the oracle's length from the start"
            );
            loop {
                let turn = oracle.act(&o, None).unwrap();
                let step = env.step(&turn.action).unwrap();
                assert_eq!(step.steps_to_go, Some(before - 1), "{difficulty}/{seed}");
                before -= 1;
                o = step.observation;
                if step.terminated || step.truncated {
                    break;
                }
            }
            assert!(env.outcome().success);
            assert_eq!(before, 0);
        }
    }
}

#[test]
fn no_move_lowers_it_by_more_than_one() {
    let g = game(2, 7);
    let solution = solve(&g).unwrap();
    let mut d = Distances::new(&g, &solution, STATE_LIMIT);
    for (k, state) in solution.states.iter().enumerate() {
        let here = d.of(&g, state).unwrap();
        assert_eq!(here as usize, solution.moves.len() - k);
        for m in g.available(state) {
            let mut next = state.clone();
            g.apply(&mut next, &m);
            if let Some(there) = d.of(&g, &next) {
                assert!(there + 1 >= here, "{m:?}: {here} -> {there}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn random_play_lowers_it_by_at_most_one_and_it_is_0_exactly_when_out(
        difficulty in 1u32..=3, room in 0u64..4, seed in 0u64..1000
    ) {
        let g = game(difficulty, room);
        let mut env = VisEnv::new(g).unwrap().without_images();
        let mut agent = RandomAgent::new(seed);
        let mut o = env.reset(seed);
        agent.reset(EpisodeStart::new(seed, "", &[]));
        let mut before = env.steps_to_go().unwrap();
        loop {
            let turn = agent.act(&o, None).unwrap();
            let step = env.step(&turn.action).unwrap();
            let d = step.steps_to_go.expect("every state of a generated room is searched");
            prop_assert!(d + 1 >= before, "{} -> {}", before, d);
            // a turn from an item's close-up leaves it in one move; coming back takes
            // three (turn back, the receptacle, the item): no move raises it more
            prop_assert!(d <= before + 3, "{} -> {}", before, d);
            prop_assert_eq!(d == 0, env.outcome().success);
            before = d;
            o = step.observation;
            if step.terminated || step.truncated {
                break;
            }
        }
    }
}
