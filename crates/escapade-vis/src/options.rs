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

use escapade_core::{CoreError, options};

use crate::game::AnswerRule;

/// The `-W` keys of the vis world, with what each sets.
pub const OPTION_KEYS: [(&str, &str); 6] = [
    (
        "prompt",
        "paper | chat | helpful: each observation is the whole prompt as the original's \
         BaseAgent sends it, instruction, action memory, recent actions and the original's \
         action names (`turn_to_north`, `pick key`) in one user message and no system \
         message (default); or ours before `visescape@4`, the instruction in a system \
         message and each observation only the view, the bag, the last action and the \
         actions, named in words (`turn to north`, `pick up key`), for an agent that keeps \
         its own history; or that with rules and tips added (how `use` works, that clues \
         for codes are elsewhere, a step counter, how to write directions)",
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
        "first | wasted: a reply that is still not an available action after the re-asks \
         is replaced by the first listed action, as the original's agents do (default), or \
         it costs its step and changes nothing",
    ),
    (
        "answers",
        "exact | lenient: codes are compared letter for letter, case aside, as the original \
         does (default), or read as people write them — case, spaces, dashes and a time's \
         colon ignored, arrows or words for directions",
    ),
    (
        "descriptions",
        "names | full: a picture's text description (for text-only clients and \
         `socratic=alt`) says where the view is and names what the action list names, no \
         more than the paper's agent is told in text (default); or it spells out what the \
         picture shows, the states of things and the clues' shapes, colours, symbols, \
         arrows and clock hands, so that a text-only player can solve the visual quizzes",
    ),
];

/// How the instruction and each observation are laid out, and how much they say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Prompt {
    /// The paper's (App. A.5 Table 17, the original's BaseAgent): no system prompt; each
    /// observation is the whole step prompt, with the original's action names.
    #[default]
    Paper,
    /// Ours of `visescape@2` and `@3`: the paper's instruction reworded in a system
    /// prompt, each observation the view, the bag, the last action and the actions named
    /// in words.
    Chat,
    /// Ours before `visescape@2`: [`Prompt::Chat`] with rules and tips (see
    /// [`OPTION_KEYS`]).
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
    /// The first action of the (shuffled) list is taken instead, as the original's
    /// agents do after three failed attempts.
    #[default]
    First,
    /// It costs the step and changes nothing.
    Wasted,
}

/// What a picture's text description (`Image::alt`) says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Descriptions {
    /// Where the view is and the names the action list gives: what the paper's agent is
    /// told in text ([`crate::describe::names`]).
    #[default]
    Names,
    /// Everything the picture shows, clues included ([`crate::describe::describe`]).
    Full,
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
    /// See [`Descriptions`].
    pub descriptions: Descriptions,
}

impl Options {
    /// The options set by `key=value` pairs (keys of [`OPTION_KEYS`]); unset keys keep
    /// the paper's default.
    ///
    /// # Errors
    /// [`CoreError::UnknownOption`] for a key not in [`OPTION_KEYS`],
    /// [`CoreError::BadOption`] for a value its key does not take.
    pub fn from_map(map: &escapade_core::Options) -> Result<Options, CoreError> {
        let mut o = Options::default();
        for (key, value) in map {
            let Some((_, help)) = OPTION_KEYS.iter().find(|(k, _)| k == key) else {
                return Err(options::unknown(key, &OPTION_KEYS));
            };
            match key.as_str() {
                "prompt" => {
                    o.prompt = pick(
                        key,
                        value,
                        help,
                        &[
                            ("paper", Prompt::Paper),
                            ("chat", Prompt::Chat),
                            ("helpful", Prompt::Helpful),
                        ],
                    )?
                }
                "feedback" => {
                    o.feedback = pick(
                        key,
                        value,
                        help,
                        &[("view", Feedback::View), ("sentences", Feedback::Sentences)],
                    )?
                }
                "labels" => {
                    o.labels =
                        options::on_off(key, value).map_err(|_| options::bad(key, value, *help))?
                }
                "answers" => {
                    o.answers = pick(
                        key,
                        value,
                        help,
                        &[
                            ("lenient", AnswerRule::Lenient),
                            ("exact", AnswerRule::Exact),
                        ],
                    )?
                }
                "descriptions" => {
                    o.descriptions = pick(
                        key,
                        value,
                        help,
                        &[("names", Descriptions::Names), ("full", Descriptions::Full)],
                    )?
                }
                _ => {
                    o.invalid = pick(
                        key,
                        value,
                        help,
                        &[("wasted", Invalid::Wasted), ("first", Invalid::First)],
                    )?
                }
            }
        }
        Ok(o)
    }
}

/// The choice `value` names, or an error whose `expected` is the key's help (it says
/// what each value means, better than a list of words).
fn pick<T: Copy>(
    key: &str,
    value: &str,
    help: &str,
    choices: &[(&str, T)],
) -> Result<T, CoreError> {
    options::choose(key, value, choices).map_err(|_| options::bad(key, value, help))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> escapade_core::Options {
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
            ("invalid", "wasted"),
            ("answers", "lenient"),
            ("descriptions", "full"),
        ]))
        .unwrap();
        assert_eq!(o.prompt, Prompt::Helpful);
        assert_eq!(o.feedback, Feedback::Sentences);
        assert!(o.labels);
        assert_eq!(o.invalid, Invalid::Wasted);
        assert_eq!(o.answers, AnswerRule::Lenient);
        assert_eq!(o.descriptions, Descriptions::Full);
        // the defaults are the original's where the paper is silent
        let d = Options::default();
        assert_eq!(
            (d.prompt, d.invalid, d.answers, d.descriptions),
            (
                Prompt::Paper,
                Invalid::First,
                AnswerRule::Exact,
                Descriptions::Names
            )
        );
        assert_eq!(
            Options::from_map(&map(&[("prompt", "chat")]))
                .unwrap()
                .prompt,
            Prompt::Chat
        );
        match Options::from_map(&map(&[("labels", "maybe")])) {
            Err(CoreError::BadOption {
                key,
                value,
                expected,
            }) => {
                assert_eq!((key.as_str(), value.as_str()), ("labels", "maybe"));
                assert!(expected.contains("off | on"), "{expected}");
            }
            other => panic!("{other:?}"),
        }
        match Options::from_map(&map(&[("colour", "red")])) {
            Err(CoreError::UnknownOption { key, known }) => {
                assert_eq!(key, "colour");
                assert_eq!(
                    known,
                    [
                        "prompt",
                        "feedback",
                        "labels",
                        "invalid",
                        "answers",
                        "descriptions"
                    ]
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
