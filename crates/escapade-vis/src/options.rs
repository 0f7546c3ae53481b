//! The vis world's options (`-W key=value`): each one a named departure from the
//! paper's protocol, recorded in a run's `run.toml`.
//!
//! The defaults are VisEscape's: the instruction says no more than how to act (§2: the
//! agent "receives no instruction except for the instruction 'escape the room'"), the
//! new view is the only feedback (§4.1: the observation is the current view, the recent
//! steps, the held items and the available actions), the pictures carry no names (App.
//! B.3: rendered rooms), and a reply that is still not an available action after the
//! re-asks costs its step. Where the paper is silent and the original decided otherwise
//! (a reply still invalid after the re-asks, how codes are compared), the original's
//! way is an option too.

use std::collections::BTreeMap;

use crate::VisError;
use crate::game::AnswerRule;

/// The `-W` keys of the vis world, with what each sets.
pub const OPTION_KEYS: [(&str, &str); 5] = [
    (
        "prompt",
        "paper | helpful: the paper's instruction, how to act and nothing more (default), or \
         rules and tips added (how `use` works, that clues for codes are elsewhere, a step \
         counter, how to write directions)",
    ),
    (
        "feedback",
        "view | sentences: the new view is the only answer to an action (default, §4.1), or a \
         sentence also says what the action did (\"You enter `1234`, but the lock stays shut\")",
    ),
    (
        "labels",
        "off | on: pictures show things only (default), or every object carries a name tag, \
         every view a title banner and every lock captions for its code",
    ),
    (
        "invalid",
        "wasted | first: a reply that is still not an available action after the re-asks \
         costs its step and changes nothing (default), or the first listed action is taken \
         in its place, as the original's BaseAgent does",
    ),
    (
        "answers",
        "lenient | exact: codes are read as people write them — case, spaces, dashes and a \
         time's colon ignored, arrows or words for directions (default) — or compared \
         letter for letter, case aside, as the original does",
    ),
];

/// How much the system prompt and each observation say beyond the paper's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Prompt {
    /// The paper's: the game, the two navigation verbs, the reply format.
    #[default]
    Paper,
    /// Ours before `visescape@2`: rules and tips (see [`OPTION_KEYS`]).
    Helpful,
}

/// What answers an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Feedback {
    /// The new view only (§4.1).
    #[default]
    View,
    /// The new view and a sentence on what the action did.
    Sentences,
}

/// What happens to a reply that is not an available action once the re-asks are spent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Invalid {
    /// It costs the step and changes nothing.
    #[default]
    Wasted,
    /// The first action of the (shuffled) list is taken instead, as the original's
    /// BaseAgent does after three failed attempts.
    First,
}

/// The vis world's options. `Options::default()` is the paper's protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// See [`Prompt`].
    pub prompt: Prompt,
    /// See [`Feedback`].
    pub feedback: Feedback,
    /// Name tags, banners and lock captions on the pictures.
    pub labels: bool,
    /// See [`Invalid`].
    pub invalid: Invalid,
    /// How entered codes are compared (see [`AnswerRule`]).
    pub answers: AnswerRule,
}

impl Options {
    /// The options set by `key=value` pairs (keys of [`OPTION_KEYS`]); unset keys keep
    /// the paper's default.
    ///
    /// # Errors
    /// [`VisError::Option`] naming an unknown key or a value it does not take.
    pub fn from_map(map: &BTreeMap<String, String>) -> Result<Options, VisError> {
        let mut o = Options::default();
        for (key, value) in map {
            let v = value.trim().to_ascii_lowercase();
            let bad = || {
                let help = OPTION_KEYS
                    .iter()
                    .find(|(k, _)| k == key)
                    .map_or("", |(_, h)| *h);
                VisError::Option(format!("{key}={value}: expected {help}"))
            };
            match key.as_str() {
                "prompt" => {
                    o.prompt = match v.as_str() {
                        "paper" => Prompt::Paper,
                        "helpful" => Prompt::Helpful,
                        _ => return Err(bad()),
                    }
                }
                "feedback" => {
                    o.feedback = match v.as_str() {
                        "view" => Feedback::View,
                        "sentences" => Feedback::Sentences,
                        _ => return Err(bad()),
                    }
                }
                "labels" => {
                    o.labels = match v.as_str() {
                        "on" | "true" => true,
                        "off" | "false" => false,
                        _ => return Err(bad()),
                    }
                }
                "answers" => {
                    o.answers = match v.as_str() {
                        "lenient" => AnswerRule::Lenient,
                        "exact" => AnswerRule::Exact,
                        _ => return Err(bad()),
                    }
                }
                "invalid" => {
                    o.invalid = match v.as_str() {
                        "wasted" => Invalid::Wasted,
                        "first" => Invalid::First,
                        _ => return Err(bad()),
                    }
                }
                _ => {
                    return Err(VisError::Option(format!(
                        "unknown key `{key}`; known: {}",
                        OPTION_KEYS.map(|(k, _)| k).join(", ")
                    )));
                }
            }
        }
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_are_the_papers_and_keys_are_checked() {
        assert_eq!(Options::from_map(&map(&[])).unwrap(), Options::default());
        let o = Options::from_map(&map(&[
            ("prompt", "helpful"),
            ("feedback", "Sentences"),
            ("labels", "on"),
            ("invalid", "first"),
            ("answers", "exact"),
        ]))
        .unwrap();
        assert_eq!(o.prompt, Prompt::Helpful);
        assert_eq!(o.feedback, Feedback::Sentences);
        assert!(o.labels);
        assert_eq!(o.invalid, Invalid::First);
        assert_eq!(o.answers, AnswerRule::Exact);
        let e = Options::from_map(&map(&[("labels", "maybe")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("off | on"), "{e}");
        let e = Options::from_map(&map(&[("colour", "red")]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("known: prompt, feedback, labels, invalid"),
            "{e}"
        );
    }
}
