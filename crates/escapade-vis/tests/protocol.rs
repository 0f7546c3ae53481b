//! What the agent is told and shown, turn by turn (VisEscape §2, §4.1, App. A.5 and the
//! original's BaseAgent step prompt): golden prompts and observation transcripts, and one
//! test per rule of the observation.
//!
//! Golden texts live in `tests/golden/*.txt`; after a deliberate change, regenerate them
//! with `ESCAPADE_BLESS=1 cargo test -p escapade-vis --test protocol` and read them
//! before committing.

mod common;

use std::sync::Arc;

use escapade_core::{Action, Env};
use escapade_vis::game::ANSWER_TEMPLATE;
use escapade_vis::options::{Feedback, Invalid, Options, Prompt};
use escapade_vis::{Game, Move, VisEnv, oracle, suite};

fn golden(name: &str, text: &str) {
    common::golden(&format!("{name}.txt"), text.as_bytes());
}

/// The hand-written study (`rooms/study.toml`): small, stable, one quiz.
fn study() -> Arc<Game> {
    let room = suite::hand_authored().unwrap().remove(0);
    Arc::new(Game::new(room).unwrap())
}

fn env_with(game: &Arc<Game>, options: Options) -> VisEnv {
    VisEnv::new(game.clone()).unwrap().with_options(options)
}

fn act(env: &mut VisEnv, text: &str) -> escapade_core::Step {
    env.step(&Action::text(text)).expect("step")
}

/// The oracle's moves as replies, with a wrong code and a reply that is no action put in
/// before the right code.
fn script(game: &Game) -> Vec<String> {
    let mut out = Vec::new();
    for m in oracle::solve(game).unwrap().moves {
        if let Move::Answer(a) = &m {
            out.push("<ANSWER>0000</ANSWER>".to_string());
            out.push("dance a little".to_string());
            out.push(format!("[ACTION] <ANSWER>{a}</ANSWER>"));
        } else {
            out.push(format!("[ACTION] {}", game.label(&m)));
        }
    }
    out
}

/// The system prompt and every observation of a scripted play, as a model reads them.
fn transcript(options: Options) -> String {
    let game = study();
    let mut env = env_with(&game, options);
    let mut t = format!("# system prompt\n{}\n", env.system_prompt());
    let first = env.reset(7);
    t.push_str(&format!(
        "\n# observation 0 ({} picture)\n{}\n",
        first.images.len(),
        first.text
    ));
    for (n, reply) in script(&game).iter().enumerate() {
        let s = act(&mut env, reply);
        t.push_str(&format!(
            "\n# reply {}: {reply}\nfeedback: {}\n# observation {} ({} picture)\n{}\n",
            n + 1,
            s.feedback,
            n + 1,
            s.observation.images.len(),
            s.observation.text
        ));
        if s.terminated || s.truncated {
            break;
        }
    }
    t
}

#[test]
fn system_prompts_match_their_goldens() {
    let game = study();
    for (name, prompt) in [
        ("prompt_paper", Prompt::Paper),
        ("prompt_helpful", Prompt::Helpful),
    ] {
        let env = env_with(
            &game,
            Options {
                prompt,
                ..Options::default()
            },
        );
        golden(name, &env.system_prompt());
    }
}

#[test]
fn observations_match_their_goldens() {
    golden("observations_paper", &transcript(Options::default()));
    golden(
        "observations_helpful",
        &transcript(Options {
            prompt: Prompt::Helpful,
            feedback: Feedback::Sentences,
            labels: true,
            invalid: Invalid::Wasted,
            answers: escapade_vis::game::AnswerRule::Lenient,
        }),
    );
}

/// §2: "the game agent in VisEscape receives no instruction except for the instruction
/// 'escape the room'" — the default prompt says how to look around and how to answer,
/// and nothing of how the room works.
#[test]
fn the_papers_prompt_gives_no_help() {
    let game = study();
    let paper = env_with(&game, Options::default()).system_prompt();
    assert!(paper.contains("escape the room"), "{paper}");
    assert!(paper.contains("turn to <direction>") && paper.contains("inspect <object>"));
    assert!(paper.contains("[ACTION]") && paper.contains("<ANSWER>your answer</ANSWER>"));
    for help in ["Clues", "use <item>", "bag", "step back", "[THINK]"] {
        assert!(!paper.contains(help), "the paper's prompt says `{help}`");
    }
    let helpful = env_with(
        &game,
        Options {
            prompt: Prompt::Helpful,
            ..Options::default()
        },
    )
    .system_prompt();
    assert!(helpful.contains("Clues for codes are hidden elsewhere in the room"));
    assert!(helpful.contains("use <item>"));
}

/// §4.1: "the model receives the current observation, history of the last 20
/// observations and actions, held items, and available actions"; the original's step
/// prompt frames the view as "{direction} side of room" and repeats the action before
/// this turn.
#[test]
fn an_observation_holds_the_view_the_bag_the_last_action_and_the_actions() {
    let game = study();
    let mut env = env_with(&game, Options::default());
    let first = env.reset(0);
    assert_eq!(first.images.len(), 1, "the current view as a picture");
    assert!(
        first.images[0]
            .alt
            .as_deref()
            .unwrap_or("")
            .starts_with("You face")
    );
    let lines: Vec<&str> = first.text.lines().collect();
    assert_eq!(lines[0], "North side of the room.");
    assert_eq!(lines[1], "In your bag: nothing.");
    assert!(!first.text.contains("Your action before this turn"));
    let actions = first.actions.clone().unwrap();
    assert!(first.text.ends_with(&actions.join("\n")));
    // after picking up the key: the bag holds it, and the action before is named
    for a in ["turn to west", "inspect writing desk", "open writing desk"] {
        act(&mut env, a);
    }
    let s = act(&mut env, "pick up small key");
    assert!(s.observation.text.contains("\nIn your bag: small key.\n"));
    assert!(
        s.observation
            .text
            .contains("\nYour action before this turn: pick up small key\n"),
        "{}",
        s.observation.text
    );
    assert!(s.observation.text.starts_with("West side of the room."));
    // no step counter, no title of the close-up: the picture shows what is in view
    assert!(!s.observation.text.contains("Step "));
    assert!(!s.observation.text.contains("close look"));
}

/// §3.1: "When the agent observes a lock requiring a quiz answer, an additional action to
/// input answer becomes available."
#[test]
fn an_answer_is_offered_only_while_a_lock_is_in_view() {
    let game = study();
    let mut env = env_with(&game, Options::default());
    let mut obs = env.reset(0);
    let mut seen_lock = false;
    for reply in script(&game) {
        let offered = obs
            .actions
            .as_ref()
            .unwrap()
            .iter()
            .any(|a| a == ANSWER_TEMPLATE);
        // a lock that still takes an answer: once solved, its light is green
        let alt = obs.images[0].alt.as_deref().unwrap_or("");
        let at_lock = alt.contains("A code lock of") && alt.contains("Its light is red");
        assert_eq!(offered, at_lock, "{}", obs.text);
        assert_eq!(offered, obs.text.contains("<ANSWER> enters an answer"));
        seen_lock |= at_lock;
        let s = act(&mut env, &reply);
        if s.terminated {
            break;
        }
        obs = s.observation;
    }
    assert!(seen_lock);
    // away from the lock an answer is refused with a reason, and costs no state
    let mut env = env_with(&game, Options::default());
    env.reset(0);
    let why = env
        .check_action(&Action::text("<ANSWER>6835</ANSWER>"))
        .unwrap_err();
    assert!(why.contains("no code lock in view"), "{why}");
}

/// §4.1: the observation holds the view, not words about what happened; what an action
/// did shows in the next picture. `feedback=sentences` adds the sentence.
#[test]
fn the_new_view_is_the_only_feedback() {
    let game = study();
    for feedback in [Feedback::View, Feedback::Sentences] {
        let mut env = env_with(
            &game,
            Options {
                feedback,
                ..Options::default()
            },
        );
        env.reset(0);
        let mut last = None;
        for reply in script(&game).iter().take_while(|r| !r.contains("0000")) {
            last = Some(act(&mut env, reply));
        }
        let before = last.unwrap().observation.images[0].sha256.clone();
        let wrong = act(&mut env, "<ANSWER>0000</ANSWER>");
        let said = wrong.observation.text.contains("stays shut");
        assert_eq!(
            said,
            feedback == Feedback::Sentences,
            "{}",
            wrong.observation.text
        );
        assert!(
            !wrong
                .observation
                .text
                .contains("Result of your last action")
                || said
        );
        // a wrong code changes nothing in view
        assert_eq!(wrong.observation.images[0].sha256, before);
        act(&mut env, "dance");
        let answer = game.answer_of(lock_of(&game)).unwrap().to_string();
        let right = act(&mut env, &format!("<ANSWER>{answer}</ANSWER>"));
        // the right one shows: the view is back on the lock's receptacle (as the
        // original's engine hands it back), no longer locked
        assert_ne!(right.observation.images[0].sha256, before);
        let alt = right.observation.images[0].alt.clone().unwrap();
        assert!(
            alt.starts_with("You look closely at the steel safe") && alt.contains("it is closed"),
            "{alt}"
        );
        assert_eq!(
            right.observation.text.contains("Correct"),
            feedback == Feedback::Sentences
        );
        if feedback == Feedback::View {
            // the step row keeps what was done, not what it did
            assert_eq!(right.feedback, format!("<ANSWER>{answer}</ANSWER>"));
        }
    }
}

fn lock_of(game: &Game) -> usize {
    game.room()
        .items
        .iter()
        .position(|i| matches!(i.kind, escapade_vis::room::ItemKind::Lock { .. }))
        .unwrap()
}

/// App. A.5's retry prompt is the re-ask (up to 3); a reply still not an available
/// action after them costs its step and changes nothing — or, with `invalid=first`,
/// the first listed action is taken, as the original's BaseAgent does.
#[test]
fn a_reply_still_invalid_after_the_reasks_spends_its_step() {
    let game = study();
    let mut env = env_with(&game, Options::default());
    let first = env.reset(0);
    let s = act(&mut env, "fly out of the window");
    assert!(!s.valid() && s.error.as_deref() == Some("invalid_action"));
    assert!(s.observation.text.starts_with("North side of the room."));
    assert!(
        s.observation
            .text
            .contains("Your action before this turn: `fly out of the window` (not one of the available actions: nothing happened)")
    );
    assert_eq!(s.observation.images[0].sha256, first.images[0].sha256);
    assert_eq!(env.outcome().steps, 1);
    let mut env = env_with(
        &game,
        Options {
            invalid: Invalid::First,
            ..Options::default()
        },
    );
    let first = env.reset(0);
    let taken = first.actions.unwrap()[0].clone();
    let s = act(&mut env, "fly out of the window");
    assert!(!s.valid());
    assert!(
        s.observation
            .text
            .contains(&format!("Your action before this turn: {taken}\n")),
        "{}",
        s.observation.text
    );
    assert_eq!(env.outcome().metrics["invalid_actions"], 1.0);
}

/// The paper does not say how codes are compared; ours read them as people write them
/// (`10:35`, `up, right`), `answers=exact` compares them as the original does (the same
/// characters, case aside).
#[test]
fn codes_are_read_leniently_unless_exact_is_asked() {
    use escapade_vis::game::AnswerRule;
    let game = study();
    let lock = lock_of(&game);
    let answer = game.answer_of(lock).unwrap().to_string();
    let spaced: String = answer.chars().flat_map(|c| [c, ' ']).collect();
    for (rule, opens) in [(AnswerRule::Lenient, true), (AnswerRule::Exact, false)] {
        let mut env = env_with(
            &game,
            Options {
                answers: rule,
                ..Options::default()
            },
        );
        env.reset(0);
        for reply in script(&game).iter().take_while(|r| !r.contains("0000")) {
            act(&mut env, reply);
        }
        act(&mut env, &format!("<ANSWER>{spaced}</ANSWER>"));
        assert_eq!(
            env.outcome().metrics["checkpoints"] >= 3.0,
            opens,
            "{rule:?}"
        );
        act(
            &mut env,
            &format!("<ANSWER> {} </ANSWER>", answer.to_lowercase()),
        );
        assert!(env.outcome().metrics["checkpoints"] >= 3.0, "{rule:?}");
    }
}

/// §4.2: success rate, goal completion ("the ratio of checkpoints completed at the end
/// of an episode"), steps, and SPL (Anderson et al.: success × oracle steps / max(steps,
/// oracle steps)).
#[test]
fn metrics_are_the_papers() {
    let game = study();
    let oracle_steps = oracle::solve(&game).unwrap().moves.len() as f64;
    let mut env = env_with(&game, Options::default());
    env.reset(0);
    let script = script(&game);
    // stop after the code: three checkpoints of five
    let upto = script
        .iter()
        .position(|r| r.starts_with("[ACTION] <ANSWER>"))
        .unwrap();
    for reply in &script[..=upto] {
        act(&mut env, reply);
    }
    let o = env.outcome();
    assert!(!o.success);
    let total = game.checkpoints().len() as f64;
    assert_eq!(o.metrics["gc"], o.metrics["checkpoints"] / total);
    assert!(o.metrics["gc"] > 0.0 && o.metrics["gc"] < 1.0);
    assert_eq!(o.metrics["spl"], 0.0);
    for reply in &script[upto + 1..] {
        if act(&mut env, reply).terminated {
            break;
        }
    }
    let o = env.outcome();
    assert!(o.success);
    assert_eq!(o.metrics["gc"], 1.0);
    assert_eq!(o.steps as usize, script.len());
    // two replies more than the oracle's: a wrong code and a reply that was no action
    assert_eq!(o.metrics["spl"], oracle_steps / (oracle_steps + 2.0));
    assert_eq!(o.metrics["oracle_steps"], oracle_steps);
}
