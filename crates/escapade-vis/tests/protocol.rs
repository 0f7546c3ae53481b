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
use escapade_vis::game::AnswerRule;
use escapade_vis::options::{Descriptions, Feedback, Invalid, Options, Prompt};
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

/// Escapade's own protocol before `visescape@4` (`prompt=chat` and the rest).
fn ours() -> Options {
    Options {
        prompt: Prompt::Chat,
        invalid: Invalid::Wasted,
        answers: AnswerRule::Lenient,
        descriptions: Descriptions::Full,
        ..Options::default()
    }
}

/// The oracle's moves as replies, named as `prompt` names them, with a wrong code and
/// (when `invalid`) a reply that is no action put in before the right code.
fn script_with(game: &Game, prompt: Prompt, invalid: bool) -> Vec<String> {
    let mut out = Vec::new();
    for m in oracle::solve(game).unwrap().moves {
        if let Move::Answer(a) = &m {
            out.push("<ANSWER>0000</ANSWER>".to_string());
            if invalid {
                out.push("dance a little".to_string());
            }
            out.push(format!("[ACTION] <ANSWER>{a}</ANSWER>"));
        } else if prompt == Prompt::Paper {
            out.push(format!(
                "[ACTION] {}",
                escapade_vis::prompt::label(game, &m)
            ));
        } else {
            out.push(format!("[ACTION] {}", game.label(&m)));
        }
    }
    out
}

/// [`script_with`] in the original's names, with the reply that is no action.
fn script(game: &Game) -> Vec<String> {
    script_with(game, Prompt::Paper, true)
}

/// The system prompt and every observation of a scripted play, as a model reads them
/// (the reply that is no action only where it costs nothing but its step).
fn transcript(options: Options) -> String {
    let game = study();
    let replies = script_with(&game, options.prompt, options.invalid == Invalid::Wasted);
    let mut env = env_with(&game, options);
    let mut t = format!("# system prompt\n{}\n", env.system_prompt());
    let first = env.reset(7);
    t.push_str(&format!(
        "\n# observation 0 ({} picture)\n{}\n",
        first.images.len(),
        first.text
    ));
    for (n, reply) in replies.iter().enumerate() {
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
        ("prompt_chat", Prompt::Chat),
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
    golden("observations_chat", &transcript(ours()));
    golden(
        "observations_helpful",
        &transcript(Options {
            prompt: Prompt::Helpful,
            feedback: Feedback::Sentences,
            labels: true,
            ..ours()
        }),
    );
    // the retry prompt at the start
    let game = study();
    let mut env = env_with(&game, Options::default());
    env.reset(3);
    let retry = env
        .check_action(&Action::text("[ACTION]: fly out of the window"))
        .unwrap_err();
    golden("retry_paper", &retry);
}

/// App. A.5 Table 17 and the original's BaseAgent: no system prompt; each observation is
/// the whole prompt, the instruction first, then the history sections, the current
/// observation with the picture's place, the bag, the action before, the task, the
/// actions as the original lists them and the reply format.
#[test]
fn the_papers_observation_is_the_originals_whole_prompt() {
    let game = study();
    let mut env = env_with(&game, Options::default());
    assert_eq!(
        env.system_prompt(),
        "",
        "the original sends no system message"
    );
    let first = env.reset(0);
    let instructions = escapade_vis::interface::INSTRUCTIONS;
    assert!(first.text.starts_with(instructions), "{}", first.text);
    assert!(
        first.text.contains(
            "\n<Current Observation>NORTH side of room - [IMAGE]</Current Observation>\n"
        )
    );
    // the first step: no history, bag or action before, as the original's first turn
    for absent in [
        "<Action Memory>",
        "<Recent actions",
        "<Inventory>",
        "<Your action",
    ] {
        assert!(!first.text.contains(absent), "{absent}: {}", first.text);
    }
    assert!(first.text.ends_with("\n[ACTION]"));
    let actions = first.actions.clone().unwrap();
    assert!(actions.iter().any(|a| a.starts_with("turn_to_")));
    assert!(!actions.iter().any(|a| a.starts_with("turn to ")));
    let listed = escapade_vis::prompt::python_list(&actions);
    assert!(
        first.text.contains(&format!("\n{listed}\n")),
        "{}",
        first.text
    );
    assert_eq!(first.images.len(), 1);
    let replies = script_with(&game, Prompt::Paper, false);
    let mut obs = first;
    for reply in &replies {
        let s = act(&mut env, reply);
        assert!(s.valid(), "{reply}: {}", obs.text);
        obs = s.observation;
        if s.terminated {
            break;
        }
        let order = [
            instructions,
            "<Current Observation>",
            "<Inventory>",
            "<Your action before this turn>",
            "You must choose one of these actions:",
            "[ACTION]",
        ];
        let at: Vec<usize> = order
            .iter()
            .map(|p| {
                obs.text
                    .find(p)
                    .unwrap_or_else(|| panic!("{p}: {}", obs.text))
            })
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{}", obs.text);
        if let Some(m) = obs.text.find("<Action Memory>") {
            assert!(m < at[1]);
        }
    }
    // after the play: every action that was not a turn, an inspection or a step back,
    // where it was taken; the code tried at the lock by its code
    let memory = section(&obs.text, "<Action Memory>\n", "</Action Memory>");
    assert!(memory.contains("pick small key"), "{memory}");
    assert!(memory.contains(", try 0000"), "{memory}");
    assert!(!memory.contains("turn_to") && !memory.contains("inspect "));
    let recent = section(
        &obs.text,
        "<Recent actions(from oldest to latest)>\n",
        "</Recent actions>",
    );
    assert!(recent.lines().count() <= 10);
    assert!(!recent.contains("turn_to"), "{recent}");
}

fn section<'a>(text: &'a str, open: &str, close: &str) -> &'a str {
    let i = text.find(open).unwrap_or_else(|| panic!("{open}: {text}")) + open.len();
    let j = text[i..].find(close).unwrap() + i;
    &text[i..j]
}

/// The original's retry prompt answers a reply that names no available action: the
/// instruction, the side of the room without the picture, what the reply named and the
/// actions.
#[test]
fn a_refused_reply_gets_the_originals_retry_prompt() {
    let game = study();
    let mut env = env_with(&game, Options::default());
    let first = env.reset(0);
    let retry = env
        .check_action(&Action::text("[THINK] hmm\n[ACTION] fly away\nnow"))
        .unwrap_err();
    assert!(retry.starts_with(escapade_vis::interface::INSTRUCTIONS));
    assert!(retry.contains("<Current Observation>NORTH side of room</Current Observation>"));
    assert!(
        retry.contains("<Your Previous Action> fly away\n"),
        "{retry}"
    );
    let listed = escapade_vis::prompt::python_list(&first.actions.unwrap());
    assert!(retry.contains(&format!("<Available Actions> {listed}")));
    assert!(retry.ends_with("[ACTION]"));
    // ours names the actions in a sentence
    let mut env = env_with(&game, ours());
    env.reset(0);
    let why = env.check_action(&Action::text("fly away")).unwrap_err();
    assert!(why.contains("is not one of the available actions"), "{why}");
}

/// §2: "the game agent in VisEscape receives no instruction except for the instruction
/// 'escape the room'" — the default prompt says how to look around and how to answer,
/// and nothing of how the room works.
#[test]
fn the_papers_prompt_gives_no_help() {
    let game = study();
    let first = env_with(&game, Options::default()).reset(0).text;
    assert!(first.contains("room escape game"), "{first}");
    assert!(first.contains("turn_to_[direction]") && first.contains("inspect [object]"));
    assert!(first.contains("[ACTION]"));
    for help in ["Clues", "use <item>", "bag", "step back", "[THINK]"] {
        assert!(!first.contains(help), "the paper's prompt says `{help}`");
    }
    let chat = env_with(&game, ours()).system_prompt();
    assert!(chat.contains("escape the room"), "{chat}");
    assert!(chat.contains("turn to <direction>") && chat.contains("inspect <object>"));
    assert!(chat.contains("[ACTION]") && chat.contains("<ANSWER>your answer</ANSWER>"));
    for help in ["Clues", "use <item>", "bag", "step back", "[THINK]"] {
        assert!(!chat.contains(help), "the chat prompt says `{help}`");
    }
    let helpful = env_with(
        &game,
        Options {
            prompt: Prompt::Helpful,
            ..ours()
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
    assert_eq!(
        first.images[0].alt.as_deref(),
        Some("The north wall, with the exit door and the bookshelf."),
        "a description names what the actions name"
    );
    assert!(
        first
            .text
            .contains("<Current Observation>NORTH side of room - [IMAGE]")
    );
    for a in ["turn_to_west", "inspect writing desk", "open writing desk"] {
        act(&mut env, a);
    }
    let s = act(&mut env, "pick small key");
    let text = &s.observation.text;
    assert!(
        text.contains("\n<Inventory>You have small key.</Inventory>\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "\n<Your action before this turn>pick small key</Your action before this turn>\n"
        ),
        "{text}"
    );
    assert!(text.contains("<Current Observation>WEST side of room - [IMAGE]"));
    // no step counter, no title of the close-up: the picture shows what is in view
    assert!(!text.contains("Step ") && !text.contains("close look"));
    // ours: the same facts in lines of their own, the actions named in words
    let mut env = env_with(&game, ours());
    let first = env.reset(0);
    let lines: Vec<&str> = first.text.lines().collect();
    assert_eq!(lines[0], "North side of the room.");
    assert_eq!(lines[1], "In your bag: nothing.");
    assert!(!first.text.contains("Your action before this turn"));
    let actions = first.actions.clone().unwrap();
    assert!(first.text.ends_with(&actions.join("\n")));
    assert!(
        first.images[0]
            .alt
            .as_deref()
            .unwrap_or("")
            .starts_with("You face")
    );
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
    assert!(!s.observation.text.contains("Step "));
}

/// §3.1: "When the agent observes a lock requiring a quiz answer, an additional action to
/// input answer becomes available."
#[test]
fn an_answer_is_offered_only_while_a_lock_is_in_view() {
    let game = study();
    let full = Options {
        descriptions: Descriptions::Full,
        ..Options::default()
    };
    let mut env = env_with(&game, full);
    let mut obs = env.reset(0);
    let mut seen_lock = false;
    for reply in script_with(&game, Prompt::Paper, false) {
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
        assert_eq!(offered, obs.text.contains("<ANSWER> is the action"));
        assert_eq!(offered, obs.text.contains("'<ANSWER> [your answer]']"));
        seen_lock |= at_lock;
        let s = act(&mut env, &reply);
        if s.terminated {
            break;
        }
        obs = s.observation;
    }
    assert!(seen_lock);
    // away from the lock an answer is refused with a reason, and costs no state
    let mut env = env_with(&game, ours());
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
                invalid: Invalid::Wasted,
                descriptions: Descriptions::Full,
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
/// action after them is replaced by the first listed action, as the original's agents do
/// — or, with `invalid=wasted`, it costs its step and changes nothing.
#[test]
fn a_reply_still_invalid_after_the_reasks_takes_the_first_action() {
    let game = study();
    let mut env = env_with(&game, Options::default());
    let first = env.reset(0);
    let taken = first.actions.unwrap()[0].clone();
    let s = act(&mut env, "fly out of the window");
    assert!(!s.valid() && s.error.as_deref() == Some("invalid_action"));
    assert!(
        s.observation.text.contains(&format!(
            "<Your action before this turn>{taken}</Your action before this turn>"
        )),
        "{}",
        s.observation.text
    );
    assert_eq!(env.outcome().metrics["invalid_actions"], 1.0);
    // never the answer, which the original's list does not hold
    let mut env = env_with(&game, Options::default());
    env.reset(0);
    for reply in script_with(&game, Prompt::Paper, false)
        .iter()
        .take_while(|r| !r.contains("0000"))
    {
        act(&mut env, reply);
    }
    let s = act(&mut env, "dance");
    assert!(!s.feedback.contains("<ANSWER>"), "{}", s.feedback);
    assert!(env.outcome().metrics["answer_attempts"] == 0.0);

    let mut env = env_with(
        &game,
        Options {
            invalid: Invalid::Wasted,
            ..Options::default()
        },
    );
    let first = env.reset(0);
    let s = act(&mut env, "fly out of the window");
    assert!(!s.valid());
    assert!(
        s.observation.text.contains(
            "<Your action before this turn>`fly out of the window` (not one of the available \
             actions: nothing happened)</Your action before this turn>"
        ),
        "{}",
        s.observation.text
    );
    assert_eq!(s.observation.images[0].sha256, first.images[0].sha256);
    assert_eq!(env.outcome().steps, 1);
}

/// The paper does not say how codes are compared; the original compares them letter for
/// letter, case aside (the default); `answers=lenient` reads them as people write them
/// (`10:35`, `up, right`).
#[test]
fn codes_are_compared_exactly_unless_lenient_is_asked() {
    assert_eq!(Options::default().answers, AnswerRule::Exact);
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
    let mut env = env_with(
        &game,
        Options {
            invalid: Invalid::Wasted,
            ..Options::default()
        },
    );
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
