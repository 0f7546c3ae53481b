//! The paper's prompts, laid out as the original's BaseAgent lays them out (App. A.5
//! Table 17; `experiment/agent/baseagent/prompt.py`), in our own words.
//!
//! The original sends one user message per step — the prompt's text, then the picture —
//! and no system message. The prompt opens with the instruction ([`INSTRUCTIONS`]) and
//! carries, in this order: `<Action Memory>` (every action so far that was not a turn, an
//! inspection or a step back, with where it was taken), `<Recent actions(from oldest to
//! latest)>` (the last ten actions that were not turns), `<Current Observation>` (the
//! side of the room and the picture's place, `[IMAGE]`), `<Inventory>`, `<Your action
//! before this turn>`, `<Hint Message>` in hint mode, then the task, the available
//! actions as a list, at a lock the line on `<ANSWER>`, and the reply format ending in
//! `[ACTION]`. The first step's prompt has no history, inventory or previous action; a
//! reply that names no available action is answered with the retry prompt. Actions bear
//! the original's names ([`label`]): `turn_to_north`, `step_back`, `pick <item>`.

use crate::game::{ANSWER_TEMPLATE, Game, Move, State, View};
use crate::interface::INSTRUCTIONS;

/// How the original lists the answer action among the available ones.
pub const ANSWER_ENTRY: &str = "<ANSWER> [your answer]";
/// Actions the `<Recent actions…>` section shows (the original's `[-10:]`).
pub const RECENT: usize = 10;
/// What stands for the picture in `<Current Observation>` (the original's `[IMAGE]`).
pub const IMAGE: &str = "[IMAGE]";

/// Everything one step's prompt shows (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct StepPrompt<'a> {
    /// The first step: the original's first-turn prompt (no history, inventory, previous
    /// action or hint).
    pub first: bool,
    /// `<Action Memory>` lines, oldest first.
    pub memory: &'a [String],
    /// `<Recent actions…>` lines, oldest first (at most [`RECENT`]).
    pub recent: &'a [String],
    /// The side of the room in view (`NORTH`).
    pub side: &'a str,
    /// What stands for the picture: [`IMAGE`], or a description when no picture is sent.
    pub scene: &'a str,
    /// The held items' names.
    pub inventory: &'a [String],
    /// The action before this turn.
    pub previous: Option<&'a str>,
    /// The hint of hint mode, when one is showing.
    pub hint: Option<&'a str>,
    /// The available actions, in the order shown, without the answer template.
    pub actions: &'a [String],
    /// A lock that takes an answer is in view.
    pub answer: bool,
    /// A line on what the last action did (`feedback=sentences`).
    pub result: Option<&'a str>,
}

/// The step prompt.
pub fn step(p: &StepPrompt<'_>) -> String {
    let mut out = format!("{INSTRUCTIONS}\n");
    if p.first {
        out.push_str(&observation_line(p.side, p.scene));
        out.push_str(
            "\n\nUsing this information, choose your next action to progress in the game. \
             You can take one of these actions:\n",
        );
        out.push_str(&python_list(p.actions));
        out.push_str(
            "\nPut your action in section [ACTION]. In [ACTION], reply ONLY with the chosen \
             action, and no other text.\n[ACTION]",
        );
        return out;
    }
    if !p.memory.is_empty() {
        out.push_str(&format!(
            "<Action Memory>\n{}</Action Memory>\n",
            p.memory.join("\n")
        ));
    }
    if !p.recent.is_empty() {
        out.push_str(&format!(
            "<Recent actions(from oldest to latest)>\n{}</Recent actions>\n",
            p.recent.join("\n")
        ));
    }
    out.push('\n');
    out.push_str(&observation_line(p.side, p.scene));
    out.push_str(&format!("\n{}\n", inventory(p.inventory)));
    out.push_str(&format!(
        "<Your action before this turn>{}</Your action before this turn>\n",
        p.previous.unwrap_or("")
    ));
    if let Some(result) = p.result {
        out.push_str(&format!("Result of your last action: {result}\n"));
    }
    if let Some(hint) = p.hint {
        out.push_str(&format!("<Hint Message>\n{hint}</Hint Message>\n"));
    }
    out.push_str(
        "\nYour task:\nUsing this information, choose your next action to progress in the \
         game. You must choose one of these actions:\n",
    );
    let mut listed = p.actions.to_vec();
    if p.answer {
        listed.push(ANSWER_ENTRY.to_string());
    }
    out.push_str(&python_list(&listed));
    out.push('\n');
    if p.answer {
        out.push_str(
            "<ANSWER> is the action that enters an answer into the lock you are facing; to \
             take it, write \"<ANSWER>your answer</ANSWER>\".\n",
        );
    }
    if p.hint.is_some() {
        out.push_str(&format!("{HINT_GUIDELINE} "));
    }
    out.push_str(&format!(
        "Put your action in section [ACTION]. In [ACTION], reply ONLY with the chosen \
         action{}, and no other text.\n[ACTION]",
        if p.answer {
            " or <ANSWER>your answer</ANSWER>"
        } else {
            ""
        }
    ));
    out
}

/// What a hint asks of the model (the original's `hint_guideline_text`).
const HINT_GUIDELINE: &str =
    "When there is a hint message, choose the action that carries out what it advises.";

/// The retry prompt (Table 17 "Retry"): the previous reply named `attempt`, which is not
/// available; the picture is not sent again.
pub fn retry(side: &str, attempt: &str, hint: Option<&str>, actions: &[String]) -> String {
    let list = python_list(actions);
    let mut out = format!(
        "{INSTRUCTIONS}\n<Current Observation>{side} side of room</Current Observation>\n\
         <Your Previous Action> {attempt}\n"
    );
    if let Some(hint) = hint {
        out.push_str(&format!("<Hint Message>\n{hint}</Hint Message>\n"));
    }
    out.push_str(&format!(
        "<Available Actions> {list}\nYou have just taken <Your Previous Action>, but it is \
         not among the <Available Actions> now. Using your memory, choose the action you \
         need in order to carry out <Your Previous Action>.\n"
    ));
    if hint.is_some() {
        out.push_str(HINT_GUIDELINE);
        out.push('\n');
    }
    out.push_str(&format!(
        "Choose one of these actions:\n{list}\nReply in the format below, with no other \
         text:\n[ACTION]"
    ));
    out
}

fn observation_line(side: &str, scene: &str) -> String {
    format!("<Current Observation>{side} side of room - {scene}</Current Observation>")
}

fn inventory(items: &[String]) -> String {
    if items.is_empty() {
        "<Inventory>You have nothing.</Inventory>".into()
    } else {
        format!("<Inventory>You have {}.</Inventory>", items.join(", "))
    }
}

/// `items` as the original prints a Python list of strings: `['a', "b's"]`.
pub fn python_list(items: &[String]) -> String {
    let quoted: Vec<String> = items
        .iter()
        .map(|s| {
            if s.contains('\'') && !s.contains('"') {
                format!("\"{s}\"")
            } else {
                format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
            }
        })
        .collect();
    format!("[{}]", quoted.join(", "))
}

/// The original's name of move `m`: `turn_to_<direction>`, `step_back`, `pick <item>`,
/// `inspect <object>`, `use <item>`; an object's own verbs keep naming their object as
/// ours do (`open writing desk`), since our rooms' verbs are phrases (`open top drawer
/// of`).
pub fn label(game: &Game, m: &Move) -> String {
    let room = game.room();
    match m {
        Move::Turn(w) => format!("turn_to_{}", w.name()),
        Move::StepBack => "step_back".into(),
        Move::PickUp(i) => format!("pick {}", room.items[*i].name),
        other => game.label(other),
    }
}

/// The original's `get_current_location`: where the player stands before an action, as
/// the action memory prefixes it (`At NORTH side of room, `, `At desk, `).
pub fn location(game: &Game, state: &State) -> String {
    let room = game.room();
    match state.view() {
        View::Wall(w) => format!("At {} side of room, ", w.name().to_uppercase()),
        View::Receptacle(r) => format!("At {}, ", room.receptacles[r].name),
        View::Item(i) => format!("At {}, ", room.items[i].name),
    }
}

/// An action as the original's history keeps it: the name for `<Your action before this
/// turn>`, and the lines for `<Action Memory>` (when it is not a turn, an inspection or
/// a step back) and `<Recent actions…>` (when it is not a turn). An answer is the code
/// itself before the turn and `At <lock>, try <code>` in both histories.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    /// For `<Your action before this turn>`.
    pub previous: String,
    /// For `<Action Memory>`.
    pub memory: Option<String>,
    /// For `<Recent actions…>`.
    pub recent: Option<String>,
}

/// How the original's runner records action `name` (an answer's code when `answer`)
/// taken at `location` (see [`Taken`]). Its tests are substrings, as the original's are:
/// `turn` anywhere in a name keeps it out of both histories.
pub fn taken(name: &str, answer: bool, location: &str) -> Taken {
    let memory_line = if answer {
        format!("{location}try {name}")
    } else {
        format!("{location}{name}")
    };
    let recent_line = if answer {
        memory_line.clone()
    } else {
        name.to_string()
    };
    let navigation = ["inspect", "turn", "step_back"]
        .iter()
        .any(|w| name.contains(w));
    Taken {
        previous: name.to_string(),
        memory: (!navigation).then_some(memory_line),
        recent: (!recent_line.contains("turn")).then_some(recent_line),
    }
}

/// The action a reply named, as the original's retry prompt quotes it: the first line
/// after the last `[ACTION]` (or of the whole reply), without colons, cut to 80
/// characters.
pub fn attempt(reply: &str) -> String {
    let lower = reply.to_ascii_lowercase();
    let body = match lower.rfind("[action]") {
        Some(i) => &reply[i + "[action]".len()..],
        None => reply,
    };
    let line = body
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let clean: String = line
        .chars()
        .filter(|c| *c != ':' && !c.is_control())
        .collect();
    escapade_core::action::truncate_chars(clean.trim(), 80)
}

/// Whether `label` is the answer template (kept out of the listed names: the list ends
/// with [`ANSWER_ENTRY`] instead).
pub fn is_template(label: &str) -> bool {
    label == ANSWER_TEMPLATE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_python_prints_them() {
        let l = |v: &[&str]| python_list(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(l(&[]), "[]");
        assert_eq!(
            l(&["turn_to_east", "inspect desk"]),
            "['turn_to_east', 'inspect desk']"
        );
        assert_eq!(l(&["pick Bob's key"]), "[\"pick Bob's key\"]");
        assert_eq!(l(&["a'b\"c"]), "['a\\'b\"c']");
    }

    #[test]
    fn histories_keep_what_the_original_keeps() {
        let t = taken("turn_to_east", false, "At NORTH side of room, ");
        assert_eq!((t.memory, t.recent), (None, None));
        let t = taken("inspect desk", false, "At NORTH side of room, ");
        assert_eq!(t.memory, None);
        assert_eq!(t.recent.as_deref(), Some("inspect desk"));
        let t = taken("step_back", false, "At desk, ");
        assert_eq!((t.memory, t.recent.as_deref()), (None, Some("step_back")));
        let t = taken("pick key", false, "At desk, ");
        assert_eq!(t.memory.as_deref(), Some("At desk, pick key"));
        assert_eq!(t.recent.as_deref(), Some("pick key"));
        let t = taken("1234", true, "At lock, ");
        assert_eq!(t.previous, "1234");
        assert_eq!(t.memory.as_deref(), Some("At lock, try 1234"));
        assert_eq!(t.recent.as_deref(), Some("At lock, try 1234"));
        // the original's tests are substrings
        let t = taken("turn on lamp", false, "At desk, ");
        assert_eq!((t.memory, t.recent), (None, None));
    }

    #[test]
    fn attempts_are_the_first_line_after_the_marker() {
        assert_eq!(attempt("[THINK] x\n[ACTION]: open box\nmore"), "open box");
        assert_eq!(attempt("\n\ndance now\nlater"), "dance now");
        assert_eq!(attempt(""), "");
        assert!(attempt(&"z".repeat(10_000)).chars().count() <= 81);
    }
}
