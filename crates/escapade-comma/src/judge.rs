//! COMMA's error analysis (§5.2): each conversation of a two-role episode read by a
//! model that names which of the four error types it shows (role-play, misinterpretation,
//! repetition loop, miscommunication). `escapade judge --task errors`.

use escapade_core::action::truncate_chars;
use escapade_core::judge::{
    Aggregate, CategoryShare, Item, JudgeRequest, JudgeRow, JudgeTask, StepView, Unit,
    aggregate_units,
};

/// COMMA's error analysis (§5.2): each episode of a two-role world (solver and expert)
/// read as one conversation — solver and expert messages with the environment's feedback
/// on the solver's actions — and checked for four kinds of failure. The verdict is a set
/// of labels (possibly empty); the aggregate gives, per error type, the share of judged
/// episodes that show it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Errors;

/// The error types of [`Errors`], in the order of COMMA §5.2: `(label, name, short)`.
pub const ERROR_TYPES: [(&str, &str, &str); 4] = [
    ("roleplay", "Roleplay", "Role"),
    ("misinterpretation", "Misinterpretation", "Misint"),
    ("repetition", "Repetition loop", "Loop"),
    ("miscommunication", "Miscommunication", "Miscomm"),
];

/// Our instructions to the judge (the four error types of COMMA §5.2, in our own words).
const ERRORS_SYSTEM: &str = "\
You review a conversation between two AI agents who cooperate on a puzzle. The SOLVER \
can see the puzzle and act on it; the EXPERT cannot see it but holds the instructions \
for solving it. After each solver message you also see what the puzzle reported back.

Decide which of these failures happen anywhere in the conversation:

- roleplay: an agent stops playing its own part, for example the expert claims to see \
the puzzle or acts on it, the solver invents rules it was never told, or either one \
answers for the other.
- misinterpretation: an agent misreads what it was given: the solver describes the \
puzzle wrongly, or the expert applies the instructions to the description incorrectly.
- repetition: the two get stuck in a loop, saying or doing essentially the same thing \
turn after turn without making progress.
- miscommunication: the agents misunderstand each other: a question goes unanswered, \
an instruction is taken to mean something else, or they talk past each other.

Answer with a single line and nothing else:
ERRORS: <the labels that apply, separated by commas, or none>";

impl Errors {
    /// The conversation of one episode's steps, or `None` when they are not steps of a
    /// multi-role world.
    fn conversation(steps: &[StepView]) -> Option<String> {
        // one-role worlds log every step as `agent`; older rows name no role
        if !steps
            .iter()
            .any(|s| s.role.as_deref().is_some_and(|r| r != "agent"))
        {
            return None;
        }
        let mut text = String::new();
        for s in steps {
            let role = s.role.as_deref().unwrap_or("agent").to_uppercase();
            let message = s.message();
            let message = message.trim();
            text.push_str(&format!(
                "[turn {}] {role}: {}\n",
                s.step,
                if message.is_empty() {
                    "(nothing)"
                } else {
                    message
                }
            ));
            // the expert's feedback only says the message was passed on
            if s.role.as_deref() != Some("expert")
                && let Some(f) = s
                    .feedback
                    .as_deref()
                    .map(str::trim)
                    .filter(|f| !f.is_empty())
            {
                text.push_str(&format!("  (puzzle: {f})\n"));
            }
        }
        Some(text)
    }
}

impl JudgeTask for Errors {
    fn name(&self) -> &'static str {
        "errors"
    }

    fn version(&self) -> u32 {
        1
    }

    fn about(&self) -> &'static str {
        "check each solver-expert conversation for roleplay, misinterpretation, repetition \
         loops and miscommunication (COMMA §5.2)"
    }

    fn items(&self, scenario: &str, epoch: u32, steps: &[StepView], max_chars: usize) -> Vec<Item> {
        let Some(text) = Errors::conversation(steps) else {
            return Vec::new();
        };
        let chars = text.chars().count();
        let (text, truncated) = escapade_core::judge::cut(&text, max_chars);
        vec![Item {
            scenario: scenario.to_string(),
            epoch,
            step: None,
            text,
            chars,
            truncated,
            context: String::new(),
            ..Item::default()
        }]
    }

    fn nothing_to_judge(&self) -> &'static str {
        "no episode is a conversation between roles (step rows of a two-role world such \
         as comma)"
    }

    fn request(&self, item: &Item) -> JudgeRequest {
        let user = format!("The conversation:\n<<<\n{}>>>", item.text);
        JudgeRequest::new(ERRORS_SYSTEM, user)
    }

    fn parse(&self, reply: &str) -> std::result::Result<Vec<Unit>, String> {
        parse_error_labels(reply)
    }

    fn aggregate(&self, rows: &[&JudgeRow]) -> Aggregate {
        let mut a = aggregate_units(rows, &ERROR_TYPES);
        // a share of episodes, not of labels: each episode names a type at most once
        let n = rows.len();
        let share = |k: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
        for c in &mut a.categories {
            c.units = rows
                .iter()
                .filter(|r| r.units.iter().any(|u| u.category == c.category))
                .count();
            c.share = share(c.units);
        }
        let clean = rows.iter().filter(|r| r.units.is_empty()).count();
        a.categories.push(CategoryShare {
            category: "none".into(),
            name: "No error".into(),
            units: clean,
            share: share(clean),
        });
        a
    }

    fn table_words(&self) -> [&'static str; 4] {
        ["error type", "episodes", "errors together", "episodes"]
    }
}

/// Reads an `ERRORS: a, b` (or `ERRORS: none`) reply into one unit per error type, in
/// [`ERROR_TYPES`] order. The last line that starts with `errors` counts; without one
/// the whole reply is read. Labels are matched loosely (`role-play`, `Repetition loop`);
/// a reply that names no type and does not say `none` holds no verdict.
pub fn parse_error_labels(reply: &str) -> std::result::Result<Vec<Unit>, String> {
    let line = reply
        .lines()
        .rev()
        .map(str::trim)
        .find_map(|l| {
            let lower = l.trim_start_matches(['*', '#', ' ']).to_lowercase();
            lower.strip_prefix("errors").map(|rest| {
                rest.trim_start_matches(['*', ' '])
                    .trim_start_matches(':')
                    .to_string()
            })
        })
        .unwrap_or_else(|| reply.to_lowercase());
    let words: String = line
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let words: Vec<&str> = words.split_whitespace().collect();
    let has = |w: &str| words.contains(&w);
    let mut units = Vec::new();
    let found = [
        has("roleplay") || (has("role") && has("play")),
        has("misinterpretation") || has("misinterpret"),
        has("repetition") || has("loop"),
        has("miscommunication") || has("miscommunicate"),
    ];
    for ((label, _, _), yes) in ERROR_TYPES.iter().zip(found) {
        if yes {
            units.push(Unit {
                category: label.to_string(),
                text: String::new(),
            });
        }
    }
    if units.is_empty() && !(has("none") || has("no")) {
        return Err(format!(
            "the reply names no error type and not `none`: {}",
            truncate_chars(reply.trim(), 200)
        ));
    }
    Ok(units)
}

#[cfg(test)]
mod tests {
    use super::*;
    use escapade_core::Action;

    #[test]
    fn error_labels_are_read_loosely_and_none_is_a_verdict() {
        let labels = |r: &str| -> Vec<String> {
            parse_error_labels(r)
                .unwrap()
                .into_iter()
                .map(|u| u.category)
                .collect()
        };
        assert_eq!(
            labels("Thinking…\n**ERRORS:** Repetition loop, role-play"),
            vec!["roleplay", "repetition"]
        );
        assert_eq!(labels("ERRORS: none"), Vec::<String>::new());
        assert_eq!(labels("miscommunication"), vec!["miscommunication"]);
        assert!(parse_error_labels("ERRORS: confusion").is_err());
    }

    #[test]
    fn a_conversation_is_one_item_per_multi_role_episode() {
        let step = |n: u32, role: &str, text: &str| StepView {
            step: n,
            role: Some(role.into()),
            action: Some(serde_json::to_value(Action::text(text)).unwrap()),
            feedback: Some("cut_wire_2: done".into()),
            ..StepView::default()
        };
        let steps = [step(1, "solver", "I see wires"), step(2, "expert", "cut 2")];
        let items = Errors.items("s", 0, &steps, 10_000);
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].step, None);
        let t = &items[0].text;
        assert!(
            t.contains("[turn 1] SOLVER: I see wires\n  (puzzle: cut_wire_2: done)"),
            "{t}"
        );
        assert!(
            t.contains("[turn 2] EXPERT: cut 2\n") && !t.ends_with("done)\n"),
            "{t}"
        );
        let one_role = [step(1, "agent", "go")];
        assert!(Errors.items("s", 0, &one_role, 10_000).is_empty());
    }
}
