//! The vis world's interface to agents: the system prompt, reading a reply into one of
//! the listed actions, and the function schemas for tool-calling models.
//!
//! VisEscape (App. A.5, Table 17) has the model answer `[ACTION] <action>` (after an
//! optional `[THINK]` section), or `<ANSWER>code</ANSWER>` when a lock is in view, and
//! retries when the reply is not one of the available actions. Reading is forgiving
//! where it cannot be wrong (case, underscores as in `turn_to_north`, quotes, a final
//! period, the action embedded in a sentence when exactly one listed action appears in
//! it) and strict otherwise: anything else is a message naming the available actions.

use escapade_core::{Action, ToolSchema};
use serde_json::json;

use crate::game::ANSWER_TEMPLATE;
use crate::options::Prompt;

/// Longest reply read (characters); the rest is ignored.
pub const MAX_REPLY: usize = 20_000;
/// Longest answer accepted (characters).
pub const MAX_ANSWER: usize = 32;

/// What a reply asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// One of the listed actions (its index in the list given to [`parse`]).
    Listed(usize),
    /// An answer for the lock in view.
    Answer(String),
}

/// The instruction that opens every prompt of the paper's protocol (App. A.5 Table 17's
/// "Initial prompt", in our own words, with the original's action names): a room escape
/// game, four walls, the two ways to look around. It is not a system prompt: the
/// original sends none and puts it at the top of each step's one user message
/// ([`crate::prompt`]).
pub const INSTRUCTIONS: &str = "You are an AI agent playing a room escape game. Four walls \
surround the room, and \"turn_to_[direction]\" lets you look at another wall. On each wall \
are objects you can interact with, and \"inspect [object]\" lets you examine one closely. \
Read the information and the task below carefully and answer accordingly.";

/// The system prompt of `prompt=chat` (`visescape@2` and `@3`: the paper's instruction
/// reworded, with the reply format, for an agent that keeps a chat).
pub const CHAT_PROMPT: &str = "You are an AI agent playing an escape room game: escape the \
room. The room has four walls, one on each side; \"turn to <direction>\" shows you another \
wall. Each wall has objects you can interact with, and \"inspect <object>\" lets you look \
at one closely. Each turn, read what you are given and answer as asked.\n\n\
Answer with [ACTION] followed by one of the available actions, exactly as it is listed, \
and nothing else. While a lock that takes an answer is in front of you, you may instead \
write <ANSWER>your answer</ANSWER>.";

/// The system prompt of `prompt=helpful` (`visescape@1`'s): the chat one, plus how
/// objects and the bag work and that clues for codes are elsewhere in the room.
pub const HELPFUL_PROMPT: &str = "You are playing an escape room game and your goal is to \
get out of the room. The room has four walls: north, east, south and west. From a wall \
you can face another one with \"turn to <direction>\" and look closely at an object with \
\"inspect <object>\"; \"step back\" returns to the wider view. Objects can be opened, \
searched and unlocked; items you pick up go into your bag and can be used on the object \
you are looking at with \"use <item>\". Some locks take a code: when such a lock is in \
view, enter a code with <ANSWER>your code</ANSWER>. Clues for codes are hidden elsewhere \
in the room.\n\n\
Each turn shows the current view (an image, or its description) and the list of \
available actions. Choose exactly one of them. You may think first in a [THINK] \
section; then write [ACTION] followed by the action, exactly as listed, and nothing \
else, or <ANSWER>your code</ANSWER>.";

/// The system prompt for `prompt` (see [`crate::options::Prompt`]): none for the
/// paper's protocol, whose observations are whole prompts.
pub fn system_prompt(prompt: Prompt) -> String {
    match prompt {
        Prompt::Paper => "",
        Prompt::Chat => CHAT_PROMPT,
        Prompt::Helpful => HELPFUL_PROMPT,
    }
    .to_string()
}

/// A reply line or a label in the form they are compared in (also used to keep names
/// that would read alike apart, see [`crate::validate`]).
pub(crate) fn normalize(text: &str) -> String {
    let lowered = text.to_lowercase().replace('_', " ");
    let trimmed = lowered.trim().trim_matches(|c: char| {
        matches!(
            c,
            '"' | '\'' | '`' | '*' | '[' | ']' | '(' | ')' | '.' | ':' | '-' | '>' | '<'
        ) || c.is_whitespace()
    });
    trimmed.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Case-insensitive search for `needle` (ASCII case) in `hay`; byte index of the match.
fn find_ci(hay: &str, needle: &str, last: bool) -> Option<usize> {
    let h = hay.to_ascii_lowercase();
    let n = needle.to_ascii_lowercase();
    if last { h.rfind(&n) } else { h.find(&n) }
}

/// The text of an `<ANSWER>…</ANSWER>` element, if the reply has one.
fn answer_of(text: &str) -> Option<String> {
    let start = find_ci(text, "<answer>", false)? + "<answer>".len();
    let rest = &text[start..];
    let end = find_ci(rest, "</answer>", false).unwrap_or(rest.len());
    Some(rest[..end].trim().to_string())
}

/// Reads `reply` against the listed action labels (the answer template may be among
/// them). `Err` is the message a model sees.
pub fn parse(reply: &Action, labels: &[String]) -> Result<Parsed, String> {
    let text = match reply {
        Action::Text { text } => text.clone(),
        Action::Bytes { bytes } => match std::str::from_utf8(bytes) {
            Ok(t) => t.to_string(),
            Err(_) => return Err(unavailable("(bytes that are not UTF-8)", labels)),
        },
        Action::Call { name, arguments } => return parse_call(name, arguments, labels),
        Action::Calls { .. } => return parse(&reply.first(), labels),
    };
    let text: String = text.chars().take(MAX_REPLY).collect();
    let answer_listed = labels.iter().any(|l| l == ANSWER_TEMPLATE);
    // the part after the last [ACTION] marker, else the whole reply: a thought before
    // the marker may mention <ANSWER> without meaning it
    let body = match find_ci(&text, "[action]", true) {
        Some(i) => &text[i + "[action]".len()..],
        None => text.as_str(),
    };
    if let Some(answer) = answer_of(body) {
        if normalize(&answer) == "your answer" || normalize(&answer) == "your code" {
            return Err(format!(
                "Write the code itself between <ANSWER> and </ANSWER>, not the words of the \
                 template. {}",
                choose(labels)
            ));
        }
        return check_answer(&answer, answer_listed, labels);
    }
    let lines: Vec<&str> = body.lines().filter(|l| !l.trim().is_empty()).collect();
    let wanted: Vec<String> = labels.iter().map(|l| normalize(l)).collect();
    for line in &lines {
        let n = normalize(line);
        if let Some(i) = (0..wanted.len()).find(|&i| wanted[i] == n && labels[i] != ANSWER_TEMPLATE)
        {
            return Ok(Parsed::Listed(i));
        }
    }
    // an action embedded in a sentence: accept it when exactly one label occurs
    let whole = normalize(&lines.join(" "));
    let mut hits: Vec<usize> = (0..wanted.len())
        .filter(|&i| labels[i] != ANSWER_TEMPLATE && contains_words(&whole, &wanted[i]))
        .collect();
    // prefer the longest label when one contains another (`open box` in `open box lid`)
    hits.sort_by_key(|&i| std::cmp::Reverse(wanted[i].len()));
    if let [first, rest @ ..] = hits.as_slice()
        && rest.iter().all(|&j| wanted[*first].contains(&wanted[j]))
    {
        return Ok(Parsed::Listed(*first));
    }
    let shown = lines.first().copied().unwrap_or("");
    Err(unavailable(shown, labels))
}

fn contains_words(hay: &str, needle: &str) -> bool {
    let padded = format!(" {hay} ");
    padded.contains(&format!(" {needle} "))
}

fn check_answer(answer: &str, listed: bool, labels: &[String]) -> Result<Parsed, String> {
    if !listed {
        return Err(format!(
            "There is no code lock in view, so <ANSWER> cannot be used now. {}",
            choose(labels)
        ));
    }
    let answer = answer.trim();
    if answer.is_empty() {
        return Err(
            "The <ANSWER> element is empty: write the code between <ANSWER> and </ANSWER>.".into(),
        );
    }
    if answer.chars().count() > MAX_ANSWER {
        return Err(format!(
            "That answer is too long (more than {MAX_ANSWER} characters): enter only the code."
        ));
    }
    Ok(Parsed::Answer(answer.to_string()))
}

fn parse_call(name: &str, arguments: &str, labels: &[String]) -> Result<Parsed, String> {
    let args: serde_json::Value = match serde_json::from_str(arguments) {
        Ok(v) => v,
        Err(e) => {
            return Err(format!(
                "The arguments of `{}` are not valid JSON ({e}).",
                crate::text::quote(name, 40)
            ));
        }
    };
    match name {
        "act" => {
            let Some(action) = args.get("action").and_then(|v| v.as_str()) else {
                return Err("`act` needs a string argument `action`.".into());
            };
            parse(&Action::text(action), labels)
        }
        "answer" => {
            let Some(code) = args.get("answer").map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string())
            }) else {
                return Err("`answer` needs an argument `answer` with the code.".into());
            };
            check_answer(&code, labels.iter().any(|l| l == ANSWER_TEMPLATE), labels)
        }
        other => Err(format!(
            "There is no function {}; use `act` (or `answer` when a lock is in view).",
            crate::text::quote(other, 40)
        )),
    }
}

fn choose(labels: &[String]) -> String {
    format!("Choose exactly one of: {}.", labels.join("; "))
}

fn unavailable(shown: &str, labels: &[String]) -> String {
    format!(
        "{} is not one of the available actions. {} Reply with [ACTION] followed by the \
         action exactly as listed.",
        crate::text::quote(shown, 80),
        choose(labels)
    )
}

/// Function schemas for the current action list (`act`, and `answer` when a lock is in
/// view).
pub fn tool_schemas(labels: &[String]) -> Vec<ToolSchema> {
    let actions: Vec<&String> = labels.iter().filter(|l| *l != ANSWER_TEMPLATE).collect();
    let mut out = vec![ToolSchema {
        name: "act".into(),
        description: "Take one of the available actions.".into(),
        parameters: json!({
            "type": "object",
            "properties": {"action": {"type": "string", "enum": actions}},
            "required": ["action"],
        }),
    }];
    if actions.len() < labels.len() {
        out.push(ToolSchema {
            name: "answer".into(),
            description: "Enter a code on the lock in view.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"answer": {"type": "string", "maxLength": MAX_ANSWER}},
                "required": ["answer"],
            }),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels() -> Vec<String> {
        [
            "turn to north",
            "inspect wardrobe",
            "open wardrobe",
            "open wardrobe drawer",
        ]
        .map(String::from)
        .to_vec()
    }

    #[test]
    fn reads_the_paper_formats() {
        let l = labels();
        let p = |t: &str| parse(&Action::text(t), &l);
        assert_eq!(p("[ACTION] turn to north"), Ok(Parsed::Listed(0)));
        assert_eq!(
            p("[THINK] hmm\n[ACTION]\nturn_to_north"),
            Ok(Parsed::Listed(0))
        );
        assert_eq!(p("Inspect Wardrobe."), Ok(Parsed::Listed(1)));
        assert_eq!(p("I will open wardrobe drawer now"), Ok(Parsed::Listed(3)));
        assert_eq!(p("\"open wardrobe\""), Ok(Parsed::Listed(2)));
    }

    #[test]
    fn answers_need_a_lock_in_view() {
        let mut l = labels();
        assert!(parse(&Action::text("<ANSWER>1234</ANSWER>"), &l).is_err());
        l.push(ANSWER_TEMPLATE.into());
        assert_eq!(
            parse(&Action::text("[ACTION] <answer> 12 34 </ANSWER>"), &l),
            Ok(Parsed::Answer("12 34".into()))
        );
        assert!(parse(&Action::text("<ANSWER></ANSWER>"), &l).is_err());
        assert!(
            parse(
                &Action::text(format!("<ANSWER>{}</ANSWER>", "9".repeat(100))),
                &l
            )
            .is_err()
        );
        assert_eq!(
            parse(&Action::call("answer", r#"{"answer": 4821}"#), &l),
            Ok(Parsed::Answer("4821".into()))
        );
    }

    #[test]
    fn junk_gets_a_message_naming_the_actions() {
        let l = labels();
        for junk in ["", "dance", "open", "{\"x\":1}", &"z".repeat(1_000_000)] {
            let e = parse(&Action::text(junk), &l).unwrap_err();
            assert!(e.contains("turn to north"), "{e}");
            assert!(e.len() < 1_000);
        }
        assert!(
            parse(
                &Action::Bytes {
                    bytes: vec![0xff, 0xfe]
                },
                &l
            )
            .is_err()
        );
        assert!(parse(&Action::call("act", "{oops"), &l).is_err());
        assert!(parse(&Action::call("fly", "{}"), &l).is_err());
        assert_eq!(
            parse(&Action::call("act", r#"{"action":"open wardrobe"}"#), &l),
            Ok(Parsed::Listed(2))
        );
    }

    proptest::proptest! {
        /// Any reply either names a listed action (by a valid index) or gets a short
        /// message naming the actions; nothing panics.
        #[test]
        fn any_reply_is_read_or_explained(reply in ".{0,300}", answer_listed: bool) {
            let mut l = labels();
            if answer_listed {
                l.push(ANSWER_TEMPLATE.into());
            }
            match parse(&Action::text(reply.clone()), &l) {
                Ok(Parsed::Listed(i)) => proptest::prop_assert!(i < l.len() && l[i] != ANSWER_TEMPLATE),
                Ok(Parsed::Answer(a)) => proptest::prop_assert!(answer_listed && !a.is_empty() && a.chars().count() <= MAX_ANSWER),
                Err(message) => proptest::prop_assert!(message.chars().count() < 1_000),
            }
            // the same text as a function call's arguments: refused with a message
            let call = parse(&Action::call("act", reply), &l);
            if let Err(message) = call {
                proptest::prop_assert!(message.chars().count() < 1_000);
            }
        }
    }
}
