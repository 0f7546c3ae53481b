//! The action protocol: free text and native function calls, parsed into one
//! [`ToolsAction`], plus the error taxonomy of App. B.1.
//!
//! Text protocol (one action per reply; the first line that starts with a verb wins, so
//! models may think aloud above it; code fences are ignored):
//!
//! ```text
//! investigate N123
//! call N123 {"base": "7", "exponent": "65537", "modulus": "1000003"}
//! call N123 base=7 exponent=65537 modulus="1000003"
//! submit_answer ESCAPE-0123456789ab
//! give_up
//! ```
//!
//! Function-call protocol: `investigate{node_id}`, `call_tool{node_id, parameters}`,
//! `submit_answer{answer}`, `give_up{}`, and one function per investigated node named by
//! its id whose arguments are that node's parameters. Parsing never panics; input longer
//! than [`MAX_ACTION_BYTES`] or not UTF-8 is a `wrong_format` error with a message the
//! model can act on.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use escapade_core::Action;

/// Longest action accepted, in bytes.
pub const MAX_ACTION_BYTES: usize = 64 * 1024;

/// A parsed tools-world action.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolsAction {
    /// Read a node's full description (resolves items).
    Investigate {
        /// Node id.
        node: String,
    },
    /// Invoke a tool, terminal or container with named parameters (raw JSON values).
    Call {
        /// Node id.
        node: String,
        /// Parameters as given.
        params: Map<String, Value>,
    },
    /// Submit the final flag.
    Submit {
        /// The answer text.
        answer: String,
    },
    /// Declare failure and end the episode.
    GiveUp,
}

impl ToolsAction {
    /// The text-protocol form (what the oracle and the random agent send).
    pub fn to_text(&self) -> String {
        match self {
            ToolsAction::Investigate { node } => format!("investigate {node}"),
            ToolsAction::Call { node, params } => {
                format!("call {node} {}", Value::Object(params.clone()))
            }
            ToolsAction::Submit { answer } => format!("submit_answer {answer}"),
            ToolsAction::GiveUp => "give_up".into(),
        }
    }
}

/// The eight error types of App. B.1, assigned to every failed action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// 1. One or more mandatory parameters omitted (or none given).
    MissingRequiredParameter,
    /// 2. An operation incompatible with the node's type (calling an item).
    WrongNodeType,
    /// 3. Invoking a node that is already solved.
    RepeatedSolvedNode,
    /// 4. A parameter value of the wrong type (not hex where hex is expected, …).
    WrongParameterType,
    /// 5. The node exists but is not visible yet.
    NodeNotVisible,
    /// 6. No node has this id.
    NodeNotExist,
    /// 7. The request is structurally malformed (unparseable, missing node_id).
    WrongFormat,
    /// 8. Anything else: wrong values, unknown parameters, a missing dependency, a wrong
    ///    answer format.
    Other,
}

impl ErrorKind {
    /// All kinds in taxonomy order.
    pub const ALL: [ErrorKind; 8] = [
        ErrorKind::MissingRequiredParameter,
        ErrorKind::WrongNodeType,
        ErrorKind::RepeatedSolvedNode,
        ErrorKind::WrongParameterType,
        ErrorKind::NodeNotVisible,
        ErrorKind::NodeNotExist,
        ErrorKind::WrongFormat,
        ErrorKind::Other,
    ];

    /// snake_case name used in step rows and metric names.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::MissingRequiredParameter => "missing_required_parameter",
            ErrorKind::WrongNodeType => "wrong_node_type",
            ErrorKind::RepeatedSolvedNode => "repeated_solved_node",
            ErrorKind::WrongParameterType => "wrong_parameter_type",
            ErrorKind::NodeNotVisible => "node_not_visible",
            ErrorKind::NodeNotExist => "node_not_exist",
            ErrorKind::WrongFormat => "wrong_format",
            ErrorKind::Other => "other",
        }
    }

    /// Index in [`ErrorKind::ALL`].
    pub fn index(self) -> usize {
        ErrorKind::ALL.iter().position(|k| *k == self).unwrap_or(7)
    }
}

/// Why an action could not be parsed (always [`ErrorKind::WrongFormat`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub String);

const USAGE: &str = "Reply with exactly one action: `investigate <node_id>`, `call <node_id> {\"param\": \"value\", ...}`, `submit_answer <flag>` or `give_up`.";

fn perr(msg: impl AsRef<str>) -> ParseError {
    ParseError(format!("{} {USAGE}", msg.as_ref()))
}

/// Parses any raw action.
pub fn parse(action: &Action) -> Result<ToolsAction, ParseError> {
    match action {
        Action::Text { text } => parse_text(text),
        Action::Bytes { bytes } => match std::str::from_utf8(bytes) {
            Ok(text) => parse_text(text),
            Err(e) => Err(perr(format!(
                "Your action is not valid UTF-8 (invalid byte at offset {}).",
                e.valid_up_to()
            ))),
        },
        Action::Call { name, arguments } => parse_call(name, arguments),
    }
}

fn check_size(len: usize) -> Result<(), ParseError> {
    if len > MAX_ACTION_BYTES {
        return Err(perr(format!(
            "Your action is {len} bytes long; the limit is {MAX_ACTION_BYTES}."
        )));
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Verb {
    Investigate,
    Call,
    Submit,
    GiveUp,
}

fn verb(word: &str) -> Option<Verb> {
    match word.to_ascii_lowercase().as_str() {
        "investigate" | "inspect" | "examine" => Some(Verb::Investigate),
        "call" | "call_tool" | "invoke" | "use" => Some(Verb::Call),
        "submit_answer" | "submit" | "answer" => Some(Verb::Submit),
        "give_up" | "giveup" | "quit" => Some(Verb::GiveUp),
        _ => None,
    }
}

/// Strips decoration a model may put around a line: list markers, `Action:` labels,
/// bold markers, backticks.
fn strip_line(line: &str) -> &str {
    let mut l = line.trim_start();
    loop {
        let before = l;
        for p in ["- ", "* ", "> ", "**", "`"] {
            l = l.strip_prefix(p).unwrap_or(l).trim_start();
        }
        for label in ["action:", "Action:", "ACTION:", "[ACTION]"] {
            l = l.strip_prefix(label).unwrap_or(l).trim_start();
        }
        if l == before {
            return l;
        }
    }
}

fn clean_token(tok: &str) -> String {
    tok.trim_matches(|c: char| {
        matches!(
            c,
            '`' | '"' | '\'' | ',' | '.' | ';' | ':' | '*' | '(' | ')' | '[' | ']'
        )
    })
    .to_string()
}

fn parse_text(text: &str) -> Result<ToolsAction, ParseError> {
    check_size(text.len())?;
    if text.trim().is_empty() {
        return Err(perr("Your reply was empty."));
    }
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with("```") {
            continue;
        }
        let stripped = strip_line(line);
        let word_end = stripped
            .find(|c: char| c.is_whitespace() || c == '(' || c == '{')
            .unwrap_or(stripped.len());
        let Some(v) = verb(stripped[..word_end].trim_end_matches(['`', '*', ':'])) else {
            continue;
        };
        let rest_of_line = &stripped[word_end..];
        // `stripped` is a subslice of `text`: everything after the verb, later lines too
        let pos = stripped.as_ptr() as usize - text.as_ptr() as usize;
        let rest_of_text = &text[pos + word_end..];
        return match v {
            Verb::GiveUp => Ok(ToolsAction::GiveUp),
            Verb::Investigate => {
                let node = rest_of_line.split_whitespace().next().map(clean_token);
                match node {
                    Some(n) if !n.is_empty() => Ok(ToolsAction::Investigate { node: n }),
                    _ => Err(perr(
                        "`investigate` needs a node id, e.g. `investigate N123`.",
                    )),
                }
            }
            Verb::Submit => {
                let answer = rest_of_line
                    .trim()
                    .trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | '*'))
                    .trim();
                if answer.is_empty() {
                    Err(perr("`submit_answer` needs the flag after it."))
                } else {
                    Ok(ToolsAction::Submit {
                        answer: answer.to_string(),
                    })
                }
            }
            Verb::Call => parse_call_text(rest_of_text),
        };
    }
    Err(perr("No action found in your reply."))
}

fn parse_call_text(rest: &str) -> Result<ToolsAction, ParseError> {
    let rest = rest.trim_start().trim_start_matches('(').trim_start();
    let id_end = rest
        .find(|c: char| c.is_whitespace() || c == '{' || c == ',' || c == ')')
        .unwrap_or(rest.len());
    let node = clean_token(&rest[..id_end]);
    if node.is_empty() {
        return Err(perr(
            "`call` needs a node id, e.g. `call N123 {\"x\": \"1\"}`.",
        ));
    }
    let args = rest[id_end..].trim_start().trim_start_matches(',').trim();
    let args = args.trim_end_matches("```").trim();
    if args.is_empty() {
        return Ok(ToolsAction::Call {
            node,
            params: Map::new(),
        });
    }
    if args.starts_with('{') {
        let mut stream = serde_json::Deserializer::from_str(args).into_iter::<Value>();
        return match stream.next() {
            Some(Ok(Value::Object(params))) => Ok(ToolsAction::Call { node, params }),
            Some(Ok(_)) => Err(perr("The parameters of `call` must be a JSON object.")),
            Some(Err(e)) => Err(perr(format!(
                "The parameters of `call` are not valid JSON ({e})."
            ))),
            None => Err(perr("The parameters of `call` are missing.")),
        };
    }
    parse_key_values(args)
        .map(|params| ToolsAction::Call { node, params })
        .map_err(perr)
}

/// `key=value key2="quoted value"` (values may be JSON strings); stops at the first
/// line break outside quotes.
fn parse_key_values(args: &str) -> Result<Map<String, Value>, String> {
    let mut params = Map::new();
    let mut rest = args.lines().next().unwrap_or("").trim();
    while !rest.is_empty() {
        let Some(eq) = rest.find('=') else {
            return Err(format!(
                "Could not read parameters `{}`: write them as a JSON object.",
                escapade_core::action::truncate_chars(rest, 80)
            ));
        };
        let key = clean_token(rest[..eq].trim());
        if key.is_empty() {
            return Err("A parameter name is empty.".into());
        }
        let after = rest[eq + 1..].trim_start();
        let (value, remaining) = if after.starts_with('"') {
            let mut stream = serde_json::Deserializer::from_str(after).into_iter::<Value>();
            match stream.next() {
                Some(Ok(Value::String(s))) => (s, &after[stream.byte_offset()..]),
                _ => {
                    return Err(format!(
                        "The quoted value of `{key}` is not a valid JSON string."
                    ));
                }
            }
        } else {
            let end = after
                .find(|c: char| c.is_whitespace() || c == ',')
                .unwrap_or(after.len());
            (after[..end].to_string(), &after[end..])
        };
        params.insert(key, Value::String(value));
        rest = remaining.trim_start().trim_start_matches(',').trim_start();
    }
    Ok(params)
}

fn parse_call(name: &str, arguments: &str) -> Result<ToolsAction, ParseError> {
    check_size(arguments.len() + name.len())?;
    let args: Value = if arguments.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_json::from_str(arguments).map_err(|e| {
            perr(format!(
                "The arguments of `{name}` are not valid JSON ({e})."
            ))
        })?
    };
    let Value::Object(mut obj) = args else {
        return Err(perr(format!(
            "The arguments of `{name}` must be a JSON object."
        )));
    };
    let node_id = |obj: &Map<String, Value>| -> Result<String, ParseError> {
        match obj.get("node_id") {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            Some(_) => Err(perr(format!(
                "`{name}`: node_id must be a non-empty string."
            ))),
            None => Err(perr(format!("`{name}` is missing the node_id field."))),
        }
    };
    match name {
        "investigate" => Ok(ToolsAction::Investigate {
            node: node_id(&obj)?,
        }),
        "call_tool" | "call" => {
            let node = node_id(&obj)?;
            let params = match obj.remove("parameters") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(m)) => m,
                Some(Value::String(s)) => match serde_json::from_str::<Value>(&s) {
                    Ok(Value::Object(m)) => m,
                    _ => {
                        return Err(perr(
                            "`call_tool`: parameters must be a JSON object of name → value.",
                        ));
                    }
                },
                Some(_) => {
                    return Err(perr(
                        "`call_tool`: parameters must be a JSON object of name → value.",
                    ));
                }
            };
            Ok(ToolsAction::Call { node, params })
        }
        "submit_answer" => match obj.get("answer") {
            Some(Value::String(s)) => Ok(ToolsAction::Submit {
                answer: s.trim().to_string(),
            }),
            Some(Value::Number(n)) => Ok(ToolsAction::Submit {
                answer: n.to_string(),
            }),
            _ => Err(perr("`submit_answer` needs a string field `answer`.")),
        },
        "give_up" => Ok(ToolsAction::GiveUp),
        other if !other.is_empty() && other.len() <= 64 => Ok(ToolsAction::Call {
            node: other.to_string(),
            params: obj,
        }),
        _ => Err(perr("The function name is empty or too long.")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn t(s: &str) -> Result<ToolsAction, ParseError> {
        parse(&Action::text(s))
    }

    #[test]
    fn text_forms() {
        assert_eq!(
            t("investigate N123").unwrap(),
            ToolsAction::Investigate {
                node: "N123".into()
            }
        );
        assert_eq!(
            t("I will look first.\nAction: `investigate N7`").unwrap(),
            ToolsAction::Investigate { node: "N7".into() }
        );
        let call = t("call N1 {\"a\": \"1\",\n \"b\": 2}\nthanks").unwrap();
        let ToolsAction::Call { node, params } = call else {
            panic!()
        };
        assert_eq!(node, "N1");
        assert_eq!(params["b"], json!(2));
        let kv = t("call N1 a=5 b=\"x y\", c=z").unwrap();
        let ToolsAction::Call { params, .. } = kv else {
            panic!()
        };
        assert_eq!(params["a"], json!("5"));
        assert_eq!(params["b"], json!("x y"));
        assert_eq!(params["c"], json!("z"));
        assert_eq!(
            t("```\nsubmit_answer `ESCAPE-1`\n```").unwrap(),
            ToolsAction::Submit {
                answer: "ESCAPE-1".into()
            }
        );
        assert_eq!(t("give_up").unwrap(), ToolsAction::GiveUp);
        let ToolsAction::Call { params, .. } = t("call N1").unwrap() else {
            panic!()
        };
        assert!(params.is_empty());
    }

    #[test]
    fn text_errors_say_what_to_do() {
        for bad in [
            "",
            "hello there",
            "investigate",
            "call {\"a\":1}",
            "call N1 {\"a\": ",
            "call N1 [1]",
            "submit_answer",
        ] {
            let e = t(bad).unwrap_err();
            assert!(e.0.contains("Reply with exactly one action"), "{bad}: {e}");
        }
        let big = "x".repeat(MAX_ACTION_BYTES + 1);
        assert!(t(&big).unwrap_err().0.contains("limit"));
        let bytes = Action::Bytes {
            bytes: vec![b'c', 0xff, 0xfe],
        };
        assert!(parse(&bytes).unwrap_err().0.contains("UTF-8"));
    }

    #[test]
    fn function_calls() {
        assert_eq!(
            parse(&Action::call("investigate", "{\"node_id\":\"N5\"}")).unwrap(),
            ToolsAction::Investigate { node: "N5".into() }
        );
        let a = parse(&Action::call(
            "call_tool",
            "{\"node_id\":\"N5\",\"parameters\":\"{\\\"x\\\":1}\"}",
        ))
        .unwrap();
        let ToolsAction::Call { params, .. } = a else {
            panic!()
        };
        assert_eq!(params["x"], json!(1));
        let a = parse(&Action::call("N9", "{\"x\":\"1\"}")).unwrap();
        assert!(matches!(a, ToolsAction::Call { node, .. } if node == "N9"));
        assert!(
            parse(&Action::call("investigate", "{}"))
                .unwrap_err()
                .0
                .contains("node_id")
        );
        assert!(parse(&Action::call("call_tool", "{not json")).is_err());
        assert!(parse(&Action::call("call_tool", "[]")).is_err());
        assert_eq!(
            parse(&Action::call("give_up", "")).unwrap(),
            ToolsAction::GiveUp
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        #[test]
        fn never_panics_on_text(s in "\\PC{0,200}") {
            let _ = t(&s);
        }

        #[test]
        fn never_panics_on_bytes(b in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            let _ = parse(&Action::Bytes { bytes: b });
        }

        #[test]
        fn never_panics_on_calls(name in "\\PC{0,20}", args in "\\PC{0,200}") {
            let _ = parse(&Action::call(name, args));
        }

        #[test]
        fn round_trips(node in "N[0-9]{3}", key in "[a-z_]{1,10}", value in "[ -~]{0,30}") {
            let mut params = Map::new();
            params.insert(key, Value::String(value));
            for a in [
                ToolsAction::Investigate { node: node.clone() },
                ToolsAction::Call { node: node.clone(), params: params.clone() },
                ToolsAction::GiveUp,
            ] {
                proptest::prop_assert_eq!(t(&a.to_text()).unwrap(), a);
            }
        }
    }
}
