//! The tools world's interface to agents, its reading half: free text and native function
//! calls parsed into [`ToolsAction`]s, plus the error taxonomy of App. B.1 (the prompts
//! and function schemas are drawn by [`crate::render`]). Every world names this module
//! `interface`; "protocol" is kept for the paper's evaluation protocol.
//!
//! A reply may carry several actions (App. C: "12 turns (3 investigation rounds
//! comprising 10 investigations, 8 tool-call rounds comprising 10 tool invocations, and 1
//! answer submission)"); [`parse_all`] reads them in order and the environment runs them
//! all in one turn. Text protocol: every line that starts with an action verb is one
//! action, so models may think aloud on other lines; code fences are ignored, and a
//! call's JSON object may run over several lines:
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
//! its id whose arguments are that node's parameters; every call of a reply is one
//! action ([`escapade_core::Action::Calls`]). Parsing never panics; input longer than
//! [`MAX_ACTION_BYTES`] or not UTF-8 is a `wrong_format` error with a message the model
//! can act on.

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

const USAGE: &str = "Write each action on its own line, starting with its verb: `investigate <node_id>`, `call <node_id> {\"param\": \"value\", ...}`, `submit_answer <flag>` or `give_up`.";

fn perr(msg: impl AsRef<str>) -> ParseError {
    ParseError(format!("{} {USAGE}", msg.as_ref()))
}

/// One action of a reply: how it was written and what it parsed to.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedAction {
    /// The action as written: its line (or lines, for a call whose JSON runs on), or
    /// `name(arguments)` for a function call; cut to 200 characters.
    pub source: String,
    /// The action, or why it could not be read (a `wrong_format` error).
    pub action: Result<ToolsAction, ParseError>,
}

/// Reads every action of a reply, in order: each line of text that starts with an
/// action verb, or each call of a native reply. Never empty: a reply with no action is
/// one error.
pub fn parse_all(action: &Action) -> Vec<ParsedAction> {
    let one = |source: String, action| vec![ParsedAction { source, action }];
    match action {
        Action::Text { text } => parse_text(text),
        Action::Bytes { bytes } => match std::str::from_utf8(bytes) {
            Ok(text) => parse_text(text),
            Err(e) => one(
                action.summary(200),
                Err(perr(format!(
                    "Your action is not valid UTF-8 (invalid byte at offset {}).",
                    e.valid_up_to()
                ))),
            ),
        },
        Action::Call { name, arguments } => one(action.summary(200), parse_call(name, arguments)),
        Action::Calls { calls } => {
            let total: usize = calls.iter().map(|c| c.name.len() + c.arguments.len()).sum();
            if let Err(e) = check_size(total) {
                return one(action.summary(200), Err(e));
            }
            if calls.is_empty() {
                return one(
                    String::new(),
                    Err(perr("Your reply holds no function call.")),
                );
            }
            calls
                .iter()
                .map(|c| ParsedAction {
                    source: Action::call(c.name.clone(), c.arguments.clone()).summary(200),
                    action: parse_call(&c.name, &c.arguments),
                })
                .collect()
        }
    }
}

/// Parses the first action of a reply (see [`parse_all`]).
pub fn parse(action: &Action) -> Result<ToolsAction, ParseError> {
    parse_all(action)
        .into_iter()
        .next()
        .map_or_else(|| Err(perr("No action found in your reply.")), |p| p.action)
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

fn parse_text(text: &str) -> Vec<ParsedAction> {
    let fail = |msg: &str| {
        vec![ParsedAction {
            source: escapade_core::action::truncate_chars(text.trim(), 200),
            action: Err(perr(msg)),
        }]
    };
    if let Err(e) = check_size(text.len()) {
        return vec![ParsedAction {
            source: escapade_core::action::truncate_chars(text, 200),
            action: Err(e),
        }];
    }
    if text.trim().is_empty() {
        return fail("Your reply was empty.");
    }
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let line_end = text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1);
        let line = &text[pos..line_end];
        if line.trim_start().starts_with("```") {
            pos = line_end;
            continue;
        }
        let stripped = strip_line(line);
        let word_end = stripped
            .find(|c: char| c.is_whitespace() || c == '(' || c == '{')
            .unwrap_or(stripped.len());
        let Some(v) = verb(stripped[..word_end].trim_end_matches(['`', '*', ':'])) else {
            pos = line_end;
            continue;
        };
        let rest_of_line = &stripped[word_end..];
        // `stripped` is a subslice of `text`: everything after the verb, later lines too
        let start = stripped.as_ptr() as usize - text.as_ptr() as usize;
        let after_verb = start + word_end;
        let mut end = line_end;
        let action = match v {
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
            Verb::Call => {
                let (action, used) = parse_call_text(&text[after_verb..]);
                // a JSON object that runs over several lines ends the action on its
                // last line
                let json_end = after_verb + used;
                if json_end > line_end {
                    end = text[json_end..]
                        .find('\n')
                        .map_or(text.len(), |i| json_end + i + 1);
                }
                action
            }
        };
        out.push(ParsedAction {
            source: escapade_core::action::truncate_chars(text[start..end].trim(), 200),
            action,
        });
        pos = end;
    }
    if out.is_empty() {
        return fail("No action found in your reply.");
    }
    out
}

/// Parses what follows `call`; returns the action and the bytes of `rest` it used.
fn parse_call_text(rest_all: &str) -> (Result<ToolsAction, ParseError>, usize) {
    let lead = rest_all.len()
        - rest_all
            .trim_start()
            .trim_start_matches('(')
            .trim_start()
            .len();
    let rest = &rest_all[lead..];
    let line_len = rest.find('\n').unwrap_or(rest.len());
    let id_end = rest
        .find(|c: char| c.is_whitespace() || c == '{' || c == ',' || c == ')')
        .unwrap_or(rest.len());
    let node = clean_token(&rest[..id_end]);
    if node.is_empty() {
        return (
            Err(perr(
                "`call` needs a node id, e.g. `call N123 {\"x\": \"1\"}`.",
            )),
            lead + line_len,
        );
    }
    let after_id = &rest[id_end..];
    let skip = after_id.len() - after_id.trim_start_matches([' ', '\t', ',']).len();
    let args_at = id_end + skip;
    let args = &rest[args_at..];
    if args.starts_with('{') {
        let mut stream = serde_json::Deserializer::from_str(args).into_iter::<Value>();
        let parsed = stream.next();
        let used = lead + args_at + stream.byte_offset();
        return match parsed {
            Some(Ok(Value::Object(params))) => (Ok(ToolsAction::Call { node, params }), used),
            Some(Ok(_)) => (
                Err(perr("The parameters of `call` must be a JSON object.")),
                used,
            ),
            Some(Err(e)) => (
                Err(perr(format!(
                    "The parameters of `call` are not valid JSON ({e})."
                ))),
                lead + line_len,
            ),
            None => (
                Err(perr("The parameters of `call` are missing.")),
                lead + line_len,
            ),
        };
    }
    let line = args.lines().next().unwrap_or("");
    let line = line.trim().trim_end_matches("```").trim();
    let action = if line.is_empty() {
        Ok(ToolsAction::Call {
            node,
            params: Map::new(),
        })
    } else {
        parse_key_values(line)
            .map(|params| ToolsAction::Call { node, params })
            .map_err(perr)
    };
    (action, lead + line_len)
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

/// What the interface answers whatever the scenario: its replies to a reply with no
/// action and to each function called with no, empty or broken arguments. A scenario's
/// value inside one of them is a word of the interface (`missing`, as in "… is missing
/// the node_id field"), not ground truth an error could give away, so
/// [`crate::env::ToolsEnv`] does not count it as a secret.
pub fn fixed_replies() -> Vec<String> {
    let mut out = Vec::new();
    for name in [
        "investigate",
        "call_tool",
        "call",
        "submit_answer",
        "give_up",
        "",
    ] {
        for arguments in ["", "{}", "[]", "{oops", "{\"node_id\": 1}"] {
            if let Err(ParseError(e)) = parse_call(name, arguments) {
                out.push(e);
            }
        }
    }
    for text in ["", "call", "investigate", "submit_answer"] {
        if let Err(ParseError(e)) = parse(&Action::text(text)) {
            out.push(e);
        }
    }
    out
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
            assert!(
                e.0.contains("Write each action on its own line"),
                "{bad}: {e}"
            );
        }
        let big = "x".repeat(MAX_ACTION_BYTES + 1);
        assert!(t(&big).unwrap_err().0.contains("limit"));
        let bytes = Action::Bytes {
            bytes: vec![b'c', 0xff, 0xfe],
        };
        assert!(parse(&bytes).unwrap_err().0.contains("UTF-8"));
    }

    fn all(s: &str) -> Vec<Result<ToolsAction, ParseError>> {
        parse_all(&Action::text(s))
            .into_iter()
            .map(|p| p.action)
            .collect()
    }

    #[test]
    fn every_verb_line_is_an_action() {
        let reply = "I will read three nodes.\ninvestigate N1\n- investigate N2\nThen call:\n\
                     call N3 {\"a\": \"1\",\n  \"b\": \"2\"}\ncall N4 x=1 y=\"two words\"\nsubmit_answer F\n";
        let got = all(reply);
        assert_eq!(got.len(), 5, "{got:?}");
        assert_eq!(got[0], Ok(ToolsAction::Investigate { node: "N1".into() }));
        assert_eq!(got[1], Ok(ToolsAction::Investigate { node: "N2".into() }));
        let Ok(ToolsAction::Call { node, params }) = &got[2] else {
            panic!("{:?}", got[2])
        };
        assert_eq!((node.as_str(), params.len()), ("N3", 2));
        let Ok(ToolsAction::Call { node, params }) = &got[3] else {
            panic!("{:?}", got[3])
        };
        assert_eq!(
            (node.as_str(), params["y"].as_str()),
            ("N4", Some("two words"))
        );
        assert_eq!(got[4], Ok(ToolsAction::Submit { answer: "F".into() }));
        let sources: Vec<String> = parse_all(&Action::text(reply))
            .into_iter()
            .map(|p| p.source)
            .collect();
        assert_eq!(sources[2], "call N3 {\"a\": \"1\",\n  \"b\": \"2\"}");
        // a bad line is one failed action among the others
        let got = all("investigate N1\ncall N2 {\"a\": \ninvestigate N3");
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got[1].is_err());
        assert_eq!(got[2], Ok(ToolsAction::Investigate { node: "N3".into() }));
        // prose only: one error
        assert_eq!(all("nothing to do here").len(), 1);
        assert!(all("nothing to do here")[0].is_err());
    }

    #[test]
    fn every_call_of_a_native_reply_is_an_action() {
        use escapade_core::FunctionCall;
        let call = |name: &str, args: &str| FunctionCall {
            name: name.into(),
            arguments: args.into(),
        };
        let reply = Action::Calls {
            calls: vec![
                call("investigate", "{\"node_id\":\"N1\"}"),
                call("N2", "{\"x\":\"1\"}"),
                call("call_tool", "{broken"),
            ],
        };
        let got = parse_all(&reply);
        assert_eq!(got.len(), 3);
        assert_eq!(
            got[0].action,
            Ok(ToolsAction::Investigate { node: "N1".into() })
        );
        assert!(matches!(&got[1].action, Ok(ToolsAction::Call { node, .. }) if node == "N2"));
        assert!(got[2].action.is_err());
        assert_eq!(got[1].source, "N2({\"x\":\"1\"})");
        assert!(
            parse_all(&Action::Calls { calls: vec![] })[0]
                .action
                .is_err()
        );
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
        fn never_panics_on_many_lines(lines in proptest::collection::vec(
            proptest::prop_oneof![
                "\\PC{0,40}",
                "(investigate|call|submit_answer|give_up) \\PC{0,40}",
                "call N[0-9]{3} \\{\"[a-z]{1,4}\": ",
                "\\}\\PC{0,10}",
            ],
            0..12,
        )) {
            let text = lines.join("\n");
            let got = parse_all(&Action::text(&text));
            proptest::prop_assert!(!got.is_empty());
            // every action takes at least one line
            proptest::prop_assert!(got.len() <= lines.len().max(1));
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
