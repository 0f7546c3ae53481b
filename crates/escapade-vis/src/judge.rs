//! VisEscape's reasoning judge (§6.2, App. D.1): each step's pre-action reasoning cut
//! into units labelled Observation, Guess, Hypothesis, Planning or Recall by a model at
//! temperature 0, counted per category (Fig. 7, Fig. 13) and per sequence (Table 5).
//! `escapade judge --task reasoning` runs it over any world's runs.

use escapade_core::action::truncate_chars;
use escapade_core::judge::{
    Aggregate, Item, JudgeRequest, JudgeRow, JudgeTask, StepView, Unit, aggregate_units,
    reasoning_of,
};

/// Most units kept from one reply (a runaway reply is not a verdict on 8,000 characters).
const MAX_UNITS: usize = 256;

/// VisEscape's reasoning decomposition (§6.2, App. D.1, Table 24): each step's reasoning
/// cut into units labelled with one of five categories, or `none-<name>` for anything
/// else.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reasoning;

/// The categories of [`Reasoning`] in the order of App. D.1: `(category, name, short)`,
/// where `short` is the abbreviation of Table 5.
pub const REASONING_CATEGORIES: [(&str, &str, &str); 5] = [
    ("observation", "Observation", "Obs"),
    ("guess", "Guess", "Gue"),
    ("hypothesis", "Hypothesis", "Hypo"),
    ("planning", "Planning", "Plan"),
    ("recall", "Recall", "Recall"),
];

/// Our instructions to the judge (App. D.1's five categories in our own words).
const REASONING_SYSTEM: &str = "\
You annotate the log of an AI agent that is trying to get out of an escape room.

Before each action the agent wrote down its thinking. Cut that thinking into units, \
in the order they appear, and give each unit exactly one category:

- Observation: the agent reports or examines what it sees right now (the current view, \
the visible state of an object, text it is reading).
- Guess: the agent assumes something from general knowledge or intuition, with nothing \
found in this room to back it up.
- Hypothesis: the agent proposes an idea to try out, grounded in evidence it has found \
in this room (a clue, a code, a state it saw).
- Planning: the agent decides what to do next or lays out the steps it will take.
- Recall: the agent brings back something from earlier in the game: where things are, \
their states, what it already tried and what came of it.

A unit can be part of a sentence, one sentence, or several sentences with one purpose. \
If a unit fits none of the five categories, label it None-<short name of your own>, for \
example None-Reflection.

Answer with one unit per line, in the original order, copying the agent's words, and \
nothing else:
[Category]: words of the unit";

impl JudgeTask for Reasoning {
    fn name(&self) -> &'static str {
        "reasoning"
    }

    fn version(&self) -> u32 {
        1
    }

    fn about(&self) -> &'static str {
        "label each step's reasoning as Observation, Guess, Hypothesis, Planning or Recall \
         units (VisEscape §6.2)"
    }

    fn items(&self, scenario: &str, epoch: u32, steps: &[StepView], max_chars: usize) -> Vec<Item> {
        steps
            .iter()
            .filter_map(|s| {
                let text = reasoning_of(s)?;
                let chars = text.chars().count();
                let (text, truncated) = escapade_core::judge::cut(&text, max_chars);
                Some(Item {
                    scenario: scenario.to_string(),
                    epoch,
                    step: Some(s.step),
                    text,
                    chars,
                    truncated,
                    context: s.action_text(),
                    ..Item::default()
                })
            })
            .collect()
    }

    fn nothing_to_judge(&self) -> &'static str {
        "no step carries reasoning (a `reasoning` field or a [THINK] section in \
         `raw_response`)"
    }

    fn request(&self, item: &Item) -> JudgeRequest {
        let action = if item.context.is_empty() {
            "(none recorded)"
        } else {
            item.context.as_str()
        };
        let user = format!(
            "The agent's thinking:\n<<<\n{}\n>>>\n\nThe action it then took: {action}",
            item.text
        );
        JudgeRequest::new(REASONING_SYSTEM, user)
    }

    fn parse(&self, reply: &str) -> std::result::Result<Vec<Unit>, String> {
        parse_units(reply)
    }

    fn aggregate(&self, rows: &[&JudgeRow]) -> Aggregate {
        aggregate_units(rows, &REASONING_CATEGORIES)
    }
}

/// Labels (lowercase words) that echo the request or the answer format, not units.
const ECHO_LABELS: [&str; 8] = [
    "action",
    "think",
    "thinking",
    "category",
    "response",
    "input",
    "the agent s thinking",
    "the action it then took",
];

/// Whether `label` echoes the request rather than labelling a unit.
fn is_echo(label: &str) -> bool {
    let words: Vec<String> = label
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    ECHO_LABELS.contains(&words.join(" ").as_str())
}

/// Reads `[Category]: text` lines (VisEscape Table 24's answer shape), tolerating what
/// models add: list markers, bold, quotes, a label without brackets for a known category,
/// the text on the next line. Unknown labels become `none-<label>`; other lines are
/// ignored. At most 256 units are kept. `Err` when no line is a unit.
pub fn parse_units(reply: &str) -> std::result::Result<Vec<Unit>, String> {
    let mut units: Vec<Unit> = Vec::new();
    for line in reply.lines() {
        match labelled(line) {
            Some((label, _)) if is_echo(&label) => {}
            Some((label, text)) => {
                if units.len() < MAX_UNITS {
                    units.push(Unit {
                        category: reasoning_category(&label),
                        text: clean_text(&text),
                    });
                }
            }
            // the words of a unit whose label stood alone on its line
            None => {
                if let Some(last) = units.last_mut()
                    && last.text.is_empty()
                    && line.chars().any(char::is_alphanumeric)
                {
                    last.text = clean_text(line);
                }
            }
        }
    }
    if units.is_empty() {
        let shown = truncate_chars(reply.trim(), 80);
        return Err(if shown.is_empty() {
            "the judge's reply is empty".to_string()
        } else {
            format!("the judge's reply has no `[Category]: text` line: {shown:?}")
        });
    }
    Ok(units)
}

/// `(label, rest)` of a line that starts with a label: `[Label] …`, or `Label: …` when the
/// label is a known category or a `None-…` label.
fn labelled(line: &str) -> Option<(String, String)> {
    let mut l = line.trim();
    // list markers and emphasis before the label
    loop {
        let before = l;
        for marker in ["- ", "* ", "• ", "**", "__", "> "] {
            l = l.strip_prefix(marker).unwrap_or(l).trim_start();
        }
        let digits = l.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && digits < 4 {
            let rest = &l[digits..];
            if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
                l = r.trim_start();
            }
        }
        if l == before {
            break;
        }
    }
    let (label, rest) = if let Some(inner) = l.strip_prefix('[') {
        let close = inner.find(']')?;
        (&inner[..close], &inner[close + 1..])
    } else {
        let colon = l.find(':')?;
        let label = l[..colon].trim_matches(|c: char| c == '*' || c == '_' || c.is_whitespace());
        let lower = label.to_ascii_lowercase();
        let known = !reasoning_category(label).starts_with("none-")
            || lower == "none"
            || lower.starts_with("none-")
            || lower.starts_with("none -");
        if !known {
            return None;
        }
        (label, &l[colon..])
    };
    let label = label.trim_matches(|c: char| c == '*' || c == '_' || c.is_whitespace());
    if label.is_empty() || label.chars().count() > 60 {
        return None;
    }
    let rest = rest
        .trim_start_matches(['*', '_', ':', '-', '–', '—'])
        .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '_' | ':'));
    Some((label.to_string(), rest.to_string()))
}

/// A unit's words without surrounding space, emphasis or quotes.
fn clean_text(text: &str) -> String {
    let t = text
        .trim()
        .trim_matches(|c: char| c == '*' || c == '_')
        .trim();
    let unquoted = ['"', '“'].iter().zip(['"', '”']).find_map(|(open, close)| {
        t.strip_prefix(*open)
            .and_then(|r| r.strip_suffix(close))
            .filter(|r| !r.is_empty())
    });
    unquoted.unwrap_or(t).trim().to_string()
}

/// The canonical category of a label: one of [`REASONING_CATEGORIES`] (also from their
/// usual variants: `Obs`, `Hypothesis Formation`, `Plan`, `Memory`, …), else
/// `none-<slug>` (`[None-Self check]` → `none-self-check`, `[Summary]` → `none-summary`,
/// `[None]` → `none-other`).
pub fn reasoning_category(label: &str) -> String {
    let words: Vec<String> = label
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let joined = words.join(" ");
    let canonical = match joined.as_str() {
        "observation" | "observations" | "observe" | "observing" | "obs" | "perception" => {
            Some("observation")
        }
        "guess" | "guesses" | "guessing" | "gue" | "assumption" => Some("guess"),
        "hypothesis"
        | "hypotheses"
        | "hypothesis formation"
        | "hypothesizing"
        | "hypothesising"
        | "hypothesize"
        | "hypo" => Some("hypothesis"),
        "planning" | "plan" | "plans" => Some("planning"),
        "recall" | "recalling" | "memory" | "memory recall" | "remembering" => Some("recall"),
        _ => None,
    };
    if let Some(c) = canonical {
        return c.to_string();
    }
    let rest: Vec<&str> = match words.first().map(String::as_str) {
        Some("none") => words[1..].iter().map(String::as_str).collect(),
        _ => words.iter().map(String::as_str).collect(),
    };
    let slug = truncate_slug(&rest.join("-"), 40);
    if slug.is_empty() {
        "none-other".to_string()
    } else {
        format!("none-{slug}")
    }
}

fn truncate_slug(slug: &str, max: usize) -> String {
    let s: String = slug.chars().take(max).collect();
    s.trim_end_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_map_to_categories() {
        for (label, want) in [
            ("Observation", "observation"),
            ("OBS", "observation"),
            ("Hypothesis Formation", "hypothesis"),
            ("plan", "planning"),
            ("Memory Recall", "recall"),
            ("Guess", "guess"),
            ("None-Reflection", "none-reflection"),
            ("None - Self check", "none-self-check"),
            ("None", "none-other"),
            ("Summary", "none-summary"),
        ] {
            assert_eq!(reasoning_category(label), want, "{label}");
        }
    }
}
