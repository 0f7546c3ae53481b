//! What a text-only client reads of a picture: `escapade serve` sends each picture's
//! `alt`, and by default it says no more than the paper's agent is told in text (VisEscape
//! App. A.5: `<Current Observation>{direction} side of room - [IMAGE]`) — never what a
//! visual quiz shows; `descriptions=full` spells it out on request.

use escapade_vis::quiztask::QuizTask;
use escapade_vis::{Game, VisWorld, describe};
use serde_json::{Value, json};

use crate::kit::{post, start_with};

/// The alt texts of a reset's pictures.
fn alts(answer: &Value) -> Vec<String> {
    answer["observation"]["images"]
        .as_array()
        .unwrap_or_else(|| panic!("pictures: {answer}"))
        .iter()
        .map(|i| i["alt"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test]
async fn a_quiz_views_description_does_not_spell_out_the_quiz() {
    use escapade_core::World;
    let world = VisWorld::new();
    let json = world.build_suite("visescape-quiz@4").unwrap().remove(0);
    let task = QuizTask::from_json(&json).unwrap();
    let r = start_with(
        vec![Box::new(VisWorld::new())],
        escapade_serve::ServeOptions {
            rate: 0.0,
            ..Default::default()
        },
    )
    .await;
    let (status, plain) = post(&r, "/reset", json!({"suite": "visescape-quiz@4"})).await;
    assert_eq!(status, 200, "{plain}");
    let plain = alts(&plain);
    assert_eq!(plain.len(), 2, "the clue and the lock");
    // what the full description of each close-up says it shows
    let game = Game::new(task.room.clone()).unwrap();
    let close_up = |id: &str| {
        let i = task.item(id).unwrap();
        let r = game.item_receptacle(i);
        let mut state = game.start();
        let showing = task.room.receptacles[r]
            .states
            .iter()
            .position(|s| task.room.items[i].visible_in.contains(s))
            .unwrap();
        state.set_receptacle(r, showing as u8);
        state.set_view(escapade_vis::View::Item(i));
        (
            describe::names(&game, &state),
            describe::describe(&game, &state),
        )
    };
    let (clue_names, clue_full) = close_up(&task.clue);
    let (lock_names, lock_full) = close_up(&task.lock);
    assert_eq!(plain, [clue_names, lock_names]);
    for (alt, full) in plain.iter().zip([&clue_full, &lock_full]) {
        // the full one says what is drawn, sentence by sentence after the first
        for sentence in full.split(". ").skip(1).filter(|s| s.len() > 12) {
            assert!(!alt.contains(sentence), "`{sentence}` in `{alt}`");
        }
        for phrase in [
            "One by one",
            "Left to right",
            "hand points",
            "bands are",
            " marked ",
        ] {
            assert!(!alt.contains(phrase), "`{phrase}` in `{alt}`");
        }
    }
    assert!(
        ["One by one", "Left to right", "hand points", "they point"]
            .iter()
            .any(|p| clue_full.contains(p)),
        "the full description spells the clue out: {clue_full}"
    );
    // on request, the full description
    let (_, full_answer) = post(
        &r,
        "/reset",
        json!({"suite": "visescape-quiz@4", "options": {"descriptions": "full"}}),
    )
    .await;
    assert_eq!(alts(&full_answer), [clue_full, lock_full]);
    r.stop().await;
}
