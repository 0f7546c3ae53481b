//! The prompts as golden files: MM-Escape's system prompt (App. K, Table 13) and step
//! prompt (Table 14) in our words, and escapade's helpful variant (`-W prompt=helpful`).
//! Regenerate deliberately with `ESCAPADE_BLESS=1 cargo test -p escapade-craft --test
//! prompt` and read the diff.

use escapade_core::Env;
use escapade_craft::env::{EnvOptions, PromptStyle};
use escapade_craft::interface::{observation_text, system_prompt};

/// Compares `text` with the golden `tests/golden/<name>`.
fn golden(name: &str, text: &str) {
    escapade_testkit::golden::check_text(escapade_testkit::golden_dir!().join(name), text);
}

const RESULT: &str = "You moved. You did not interact with anything.";
const BAG: &str = "- key_1: a key\n- note_1: a note with the numbers 3141 on it";

#[test]
fn the_prompts_match_their_goldens() {
    golden(
        "prompt-system-paper.txt",
        &system_prompt(PromptStyle::Paper),
    );
    golden(
        "prompt-system-helpful.txt",
        &system_prompt(PromptStyle::Helpful),
    );
    golden(
        "prompt-step-paper.txt",
        &observation_text(RESULT, BAG, None, PromptStyle::Paper),
    );
    golden(
        "prompt-step-helpful.txt",
        &observation_text(RESULT, BAG, Some(42), PromptStyle::Helpful),
    );
}

/// Table 13 names these keys, ranges and rules; the paper's prompt adds nothing about
/// where props lie, how far a grab reaches or how many steps are left.
#[test]
fn the_paper_prompt_is_table_13_and_help_is_an_option() {
    let paper = system_prompt(PromptStyle::Paper);
    for key in [
        "move_forward",
        "rotate_right",
        "rotate_down",
        "jump",
        "look_at",
        "grab",
        "interactions",
        "use_item_id",
        "input",
        "read",
        "rationale",
    ] {
        assert!(
            paper.contains(&format!("\"{key}\"")),
            "{key} not in the format"
        );
    }
    for fact in [
        "between -10 and 10",
        "between -180 and 180",
        "between -90 and 90",
        "no clues on the ceiling",
        "red dot",
        "within a certain distance",
        "not every object can be interacted with",
        "Every field is optional",
        "in the order you wrote them",
    ] {
        assert!(paper.contains(fact), "{fact:?} not in the paper prompt");
    }
    for help in ["lie on furniture", "arm's length", "straight into your bag"] {
        assert!(
            !paper.contains(help),
            "{help:?} is escapade's help, not the paper's"
        );
        assert!(system_prompt(PromptStyle::Helpful).contains(help));
    }
    let step = observation_text(RESULT, BAG, Some(7), PromptStyle::Paper);
    assert!(!step.contains("Steps left"), "{step}");
    assert!(step.contains("If you are stuck in a corner, turn around with rotate_right"));
    assert!(
        observation_text(RESULT, BAG, Some(7), PromptStyle::Helpful).contains("Steps left: 7.")
    );
    // no four-digit number, so no password check ever matches the prompt
    for p in [paper, system_prompt(PromptStyle::Helpful)] {
        let digits: Vec<usize> = p
            .split(|c: char| !c.is_ascii_digit())
            .map(str::len)
            .collect();
        assert!(digits.iter().all(|n| *n < 4));
    }
}

/// The environment hands out the prompt its options name.
#[test]
fn the_environment_uses_the_prompt_its_options_name() {
    let s = std::sync::Arc::new(
        escapade_craft::scenario::generate(1, 3, escapade_craft::Variant::Standard).unwrap(),
    );
    let mut env =
        escapade_craft::CraftEnv::new(s.clone(), EnvOptions::small().without_frames()).unwrap();
    assert_eq!(env.system_prompt(), system_prompt(PromptStyle::Paper));
    let first = env.reset(0);
    assert!(!first.text.contains("Steps left"), "{}", first.text);
    let helpful = EnvOptions {
        prompt: PromptStyle::Helpful,
        ..EnvOptions::small().without_frames()
    };
    let mut env = escapade_craft::CraftEnv::new(s, helpful).unwrap();
    assert_eq!(env.system_prompt(), system_prompt(PromptStyle::Helpful));
    assert!(env.reset(0).text.contains("Steps left: 50."));
}
