//! What an agent sends to a world.
//!
//! Worlds accept actions in two protocols — free text and native function calls — and
//! parse both into their own typed actions. The raw form stays in this enum so that a
//! malformed reply (bad JSON, a megabyte of noise, invalid UTF-8) reaches the world, which
//! answers it with feedback the model can act on instead of an error that ends the episode.

use serde::{Deserialize, Serialize};

/// One agent action in raw form, before the world parses it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Action {
    /// Free text in the world's text protocol (for example `investigate n3`).
    Text {
        /// The text as the agent produced it.
        text: String,
    },
    /// A native function call: the function name and its JSON arguments exactly as the
    /// model produced them (they may be malformed).
    Call {
        /// Function name, one of the world's [`crate::ToolSchema`] names.
        name: String,
        /// Arguments as raw JSON text.
        arguments: String,
    },
    /// Bytes that may not be UTF-8 (a terminal or a remote client sent them).
    Bytes {
        /// The raw bytes.
        bytes: Vec<u8>,
    },
    /// Several native function calls from one reply, in the order the model made them
    /// (AgentEscapeBench App. C: one turn of ten investigations). A world that takes
    /// several actions per turn runs them all and answers each in
    /// [`crate::Step::results`]; a world that takes one reads only the first
    /// ([`Action::first`]).
    Calls {
        /// The calls, in order (an agent sends this variant for two or more).
        calls: Vec<FunctionCall>,
    },
}

/// One native function call of an [`Action::Calls`] reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FunctionCall {
    /// Function name, one of the world's [`crate::ToolSchema`] names.
    pub name: String,
    /// Arguments as raw JSON text (they may be malformed).
    pub arguments: String,
}

impl Action {
    /// A free-text action.
    pub fn text(text: impl Into<String>) -> Self {
        Action::Text { text: text.into() }
    }

    /// A function-call action.
    pub fn call(name: impl Into<String>, arguments: impl Into<String>) -> Self {
        Action::Call {
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    /// The first action of a reply: the first call of [`Action::Calls`] (an empty text
    /// when there is none), any other action itself. What a world that takes one action
    /// per turn reads.
    pub fn first(&self) -> Action {
        match self {
            Action::Calls { calls } => match calls.first() {
                Some(c) => Action::call(c.name.clone(), c.arguments.clone()),
                None => Action::text(""),
            },
            other => other.clone(),
        }
    }

    /// A short human-readable rendering for logs (never longer than `max` characters).
    pub fn summary(&self, max: usize) -> String {
        let full = match self {
            Action::Text { text } => text.clone(),
            Action::Call { name, arguments } => format!("{name}({arguments})"),
            Action::Bytes { bytes } => String::from_utf8_lossy(bytes).into_owned(),
            Action::Calls { calls } => calls
                .iter()
                .map(|c| format!("{}({})", c.name, c.arguments))
                .collect::<Vec<_>>()
                .join("; "),
        };
        truncate_chars(&full, max)
    }
}

/// Cuts `s` to at most `max` characters, marking the cut with `…`.
pub fn truncate_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_truncates_by_characters() {
        let a = Action::text("ééééé");
        assert_eq!(a.summary(3), "éé…");
        assert_eq!(a.summary(10), "ééééé");
    }

    #[test]
    fn several_calls_read_as_their_first_by_one_action_worlds() {
        let call = |n: &str| FunctionCall {
            name: n.into(),
            arguments: "{}".into(),
        };
        let a = Action::Calls {
            calls: vec![call("a"), call("b")],
        };
        assert_eq!(a.first(), Action::call("a", "{}"));
        assert_eq!(a.summary(100), "a({}); b({})");
        assert_eq!(Action::Calls { calls: vec![] }.first(), Action::text(""));
        assert_eq!(Action::text("x").first(), Action::text("x"));
    }

    #[test]
    fn actions_round_trip_through_json() {
        for a in [
            Action::text("investigate n1"),
            Action::call("investigate", "{\"node_id\":\"n1\"}"),
            Action::Bytes {
                bytes: vec![0xff, 0x00],
            },
            Action::Calls {
                calls: vec![FunctionCall {
                    name: "investigate".into(),
                    arguments: "{}".into(),
                }],
            },
        ] {
            let json = serde_json::to_string(&a).unwrap();
            assert_eq!(serde_json::from_str::<Action>(&json).unwrap(), a);
        }
    }
}
