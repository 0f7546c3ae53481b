//! Structured output: the JSON schema of a world's action format, and reading replies.
//!
//! A 135M-parameter model rarely writes `call N3 {"x": "1"}` unaided, but with decoding
//! constrained to a schema (llama.cpp grammars, OpenAI `json_schema`) every reply is a
//! well-formed action. The schema is derived from the world's interface alone: the
//! closed action list when the observation has one (where an answer template such as
//! VisEscape's `<ANSWER>your answer</ANSWER>` becomes a pattern the model fills in), else
//! the function schemas, else a free-text action field. Replies are read back into
//! [`Action`]s; anything that does not fit is passed on as text so that the world's own
//! parser explains the problem.

use escapade_core::{Action, Observation, ToolSchema};
use escapade_llm::ChatResponse;
use serde_json::{Value, json};

/// Longest string a constrained reply may hold where the world's schema sets no bound.
pub const MAX_STRING: u64 = 200;

/// What a typed answer must look like when the action list offers the answer template
/// (VisEscape's `<ANSWER>your answer</ANSWER>`, Table 17): letters, digits and spaces,
/// 1 to 16 of them, which covers every code lock's answer.
pub const ANSWER_PATTERN: &str = "^<ANSWER>[A-Za-z0-9 ]{1,16}</ANSWER>$";

/// Longest string [`ANSWER_PATTERN`] accepts (`<ANSWER>` + 16 + `</ANSWER>`).
pub const ANSWER_MAX_LENGTH: u64 = 33;

/// Whether an available action is a template to fill in (`<ANSWER>…</ANSWER>`) rather
/// than an action to copy.
pub fn is_answer_template(action: &str) -> bool {
    let a = action.trim();
    a.len() >= "<ANSWER></ANSWER>".len()
        && a.get(..8)
            .is_some_and(|s| s.eq_ignore_ascii_case("<ANSWER>"))
        && a.get(a.len() - 9..)
            .is_some_and(|s| s.eq_ignore_ascii_case("</ANSWER>"))
}

/// Bounds what a schema leaves open, so that constrained decoding cannot run away: a
/// string without `maxLength` gets [`MAX_STRING`], and an object that names no
/// properties is closed (only `{}` fits), because grammar engines cannot bound a map's
/// size. Small models otherwise fill an open string or map until the token cap and the
/// reply is cut mid-JSON. Worlds whose free-form maps matter offer a function with named
/// parameters as well (the tools world: one function per investigated node).
pub fn bounded(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                let v = match k.as_str() {
                    "properties" | "$defs" | "definitions" => match v {
                        Value::Object(props) => Value::Object(
                            props.iter().map(|(n, s)| (n.clone(), bounded(s))).collect(),
                        ),
                        other => other.clone(),
                    },
                    "items" | "additionalProperties" | "anyOf" | "oneOf" | "allOf" => bounded(v),
                    _ => v.clone(),
                };
                out.insert(k.clone(), v);
            }
            let ty = map.get("type").and_then(Value::as_str);
            if ty == Some("string")
                && !map.contains_key("maxLength")
                && !map.contains_key("enum")
                && !map.contains_key("const")
            {
                out.insert("maxLength".into(), MAX_STRING.into());
            }
            if ty == Some("object") && !map.contains_key("properties") {
                // grammar engines cannot bound the number of keys (`maxProperties` is
                // ignored by llama.cpp), so an open map is closed: only `{}` fits
                out.insert("properties".into(), json!({}));
                out.insert("additionalProperties".into(), Value::Bool(false));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(bounded).collect()),
        other => other.clone(),
    }
}

/// The JSON schema replies must follow for this observation (see [`bounded`]).
pub fn action_schema(observation: &Observation, tools: &[ToolSchema]) -> Value {
    bounded(&raw_action_schema(observation, tools))
}

/// The schema of one entry of a closed action list: an enum of the actions, and, when
/// the list offers the answer template, also a string that fills it in (a model whose
/// decoding is constrained could otherwise only copy the template itself).
fn closed_action(actions: &[String]) -> Value {
    let (templates, plain): (Vec<&String>, Vec<&String>) =
        actions.iter().partition(|a| is_answer_template(a));
    if templates.is_empty() {
        return json!({"type": "string", "enum": actions});
    }
    let answer = json!({
        "type": "string",
        "pattern": ANSWER_PATTERN,
        "maxLength": ANSWER_MAX_LENGTH,
    });
    if plain.is_empty() {
        return answer;
    }
    json!({"anyOf": [{"type": "string", "enum": plain}, answer]})
}

/// Longest message a role in a talking world (COMMA's solver and expert) may write in
/// structured mode: 100 words of English fit in about 700 characters.
pub const MAX_MESSAGE: u64 = 800;

/// A talking world's roles (COMMA) write free text: the solver names several actions on
/// their own lines and describes what it sees, the expert explains; neither fits a
/// closed list of single actions.
fn message_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"message": {"type": "string", "maxLength": MAX_MESSAGE}},
        "required": ["message"],
    })
}

fn raw_action_schema(observation: &Observation, tools: &[ToolSchema]) -> Value {
    if observation.role.is_some() {
        return message_schema();
    }
    if let Some(actions) = observation.actions.as_ref().filter(|a| !a.is_empty()) {
        return json!({
            "type": "object",
            "properties": {"action": closed_action(actions)},
            "required": ["action"],
        });
    }
    if !tools.is_empty() {
        let variants: Vec<Value> = tools
            .iter()
            .map(|t| {
                json!({
                    "type": "object",
                    "properties": {
                        "tool": {"type": "string", "const": t.name},
                        "arguments": t.parameters,
                    },
                    "required": ["tool", "arguments"],
                })
            })
            .collect();
        return json!({"anyOf": variants});
    }
    json!({
        "type": "object",
        "properties": {"action": {"type": "string"}},
        "required": ["action"],
    })
}

/// A line added to the system prompt so the model knows the JSON shape it must write
/// (`role`: the observation names a role of a talking world).
pub fn schema_instructions(tools: &[ToolSchema], role: bool) -> String {
    if role {
        "\n\nReply with a JSON object {\"message\": \"<what you say>\"}; put each action \
         name on its own line inside the message (\\n between lines)."
            .to_string()
    } else if tools.is_empty() {
        "\n\nReply with a JSON object {\"action\": \"<one action>\"}.".to_string()
    } else {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        format!(
            "\n\nReply with a JSON object {{\"tool\": \"<name>\", \"arguments\": {{...}}}} \
             naming one function ({}) and its arguments.",
            names.join(", ")
        )
    }
}

/// Strips a Markdown code fence around JSON, if there is one.
pub(crate) fn unfence(text: &str) -> &str {
    let t = text.trim();
    let Some(rest) = t.strip_prefix("```") else {
        return t;
    };
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
    rest.strip_suffix("```").unwrap_or(rest).trim()
}

/// Reads a JSON-constrained reply: `{"tool", "arguments"}` becomes a function call,
/// `{"action"}` or `{"message"}` a text action; anything else is passed on as text.
pub fn read_structured(text: &str) -> Action {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(unfence(text)) else {
        return Action::text(text);
    };
    if let (Some(Value::String(name)), Some(arguments)) = (map.get("tool"), map.get("arguments")) {
        return Action::Call {
            name: name.clone(),
            arguments: arguments.to_string(),
        };
    }
    match map.get("action").or_else(|| map.get("message")) {
        Some(Value::String(action)) => Action::text(action.clone()),
        _ => Action::text(text),
    }
}

/// Reads a reply in the native tool-calling protocol: one call is an [`Action::Call`],
/// several are an [`Action::Calls`] in the model's order (a world that takes several
/// actions per turn runs them all, AgentEscapeBench App. C; the others read the first);
/// a reply without calls is read as text.
pub fn read_tool_reply(response: &ChatResponse) -> Action {
    match response.tool_calls.as_slice() {
        [] => Action::text(response.text.clone()),
        [call] => Action::Call {
            name: call.name.clone(),
            arguments: call.arguments.clone(),
        },
        calls => Action::Calls {
            calls: calls
                .iter()
                .map(|c| escapade_core::FunctionCall {
                    name: c.name.clone(),
                    arguments: c.arguments.clone(),
                })
                .collect(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tool(name: &str) -> ToolSchema {
        ToolSchema {
            name: name.into(),
            description: String::new(),
            parameters: json!({"type": "object", "properties": {"node_id": {"type": "string"}}}),
        }
    }

    #[test]
    fn schema_follows_the_interface() {
        let mut obs = Observation::text("x");
        let s = action_schema(&obs, &[tool("investigate"), tool("give_up")]);
        assert_eq!(s["anyOf"].as_array().unwrap().len(), 2);
        assert_eq!(s["anyOf"][0]["properties"]["tool"]["const"], "investigate");
        obs.actions = Some(vec!["open door".into(), "look".into()]);
        let s = action_schema(&obs, &[tool("investigate")]);
        assert_eq!(s["properties"]["action"]["enum"][1], "look");
        let s = action_schema(&Observation::text("x"), &[]);
        assert_eq!(s["properties"]["action"]["type"], "string");
    }

    #[test]
    fn a_role_in_a_talking_world_writes_a_free_message() {
        let mut obs = Observation::text("x");
        obs.actions = Some(vec!["cut_wire_1".into(), "cut_wire_2".into()]);
        obs.role = Some("solver".into());
        let s = action_schema(&obs, &[]);
        assert_eq!(s["properties"]["message"]["type"], "string");
        assert_eq!(s["properties"]["message"]["maxLength"], MAX_MESSAGE);
        assert_eq!(s["required"], json!(["message"]));
        assert!(schema_instructions(&[], true).contains("\"message\""));
        assert_eq!(
            read_structured(r#"{"message": "I see three wires.\ncut_wire_2"}"#),
            Action::text("I see three wires.\ncut_wire_2")
        );
    }

    #[test]
    fn the_answer_template_becomes_a_pattern() {
        let mut obs = Observation::text("x");
        obs.actions = Some(vec![
            "turn to north".into(),
            "<ANSWER>your answer</ANSWER>".into(),
            "inspect safe".into(),
        ]);
        let s = action_schema(&obs, &[]);
        let any = s["properties"]["action"]["anyOf"].as_array().unwrap();
        assert_eq!(any.len(), 2);
        assert_eq!(any[0]["enum"], json!(["turn to north", "inspect safe"]));
        assert_eq!(any[1]["pattern"], ANSWER_PATTERN);
        assert_eq!(any[1]["maxLength"], ANSWER_MAX_LENGTH);
        assert_eq!(s["required"], json!(["action"]));
        // the pattern accepts answers and refuses the rest; the bound fits the longest
        let re = regex::Regex::new(ANSWER_PATTERN).unwrap();
        let longest = format!("<ANSWER>{}</ANSWER>", "9".repeat(16));
        assert_eq!(longest.len() as u64, ANSWER_MAX_LENGTH);
        for (a, ok) in [
            ("<ANSWER>8056</ANSWER>", true),
            ("<ANSWER>red blue</ANSWER>", true),
            (longest.as_str(), true),
            ("<ANSWER></ANSWER>", false),
            ("<ANSWER>12345678901234567</ANSWER>", false),
            ("<ANSWER>80-56</ANSWER>", false),
            ("8056", false),
        ] {
            assert_eq!(re.is_match(a), ok, "{a}");
        }
        // only the template: just the pattern
        obs.actions = Some(vec!["<ANSWER>your answer</ANSWER>".into()]);
        let s = action_schema(&obs, &[]);
        assert_eq!(s["properties"]["action"]["pattern"], ANSWER_PATTERN);
        // no template: the plain enum, as before
        obs.actions = Some(vec!["<ANSWER>".into(), "look".into()]);
        let s = action_schema(&obs, &[]);
        assert_eq!(
            s["properties"]["action"]["enum"],
            json!(["<ANSWER>", "look"])
        );
        for (a, t) in [
            ("<ANSWER>your answer</ANSWER>", true),
            (" <answer>x</answer> ", true),
            ("<ANSWER></ANSWER>", true),
            ("<ANSWER>", false),
            ("open <ANSWER>x</ANSWER> box", false),
            ("é<ANSWER>x</ANSWER>é", false),
        ] {
            assert_eq!(is_answer_template(a), t, "{a}");
        }
    }

    #[test]
    fn structured_replies_become_actions() {
        assert_eq!(
            read_structured(r#"{"tool": "investigate", "arguments": {"node_id": "N1"}}"#),
            Action::Call {
                name: "investigate".into(),
                arguments: r#"{"node_id":"N1"}"#.into()
            }
        );
        assert_eq!(
            read_structured("```json\n{\"action\": \"look\"}\n```"),
            Action::text("look")
        );
        assert_eq!(read_structured("look around"), Action::text("look around"));
        assert_eq!(
            read_structured(r#"{"action": 3}"#),
            Action::text(r#"{"action": 3}"#)
        );
    }

    #[test]
    fn open_strings_and_objects_are_bounded() {
        let s = bounded(&json!({"anyOf": [{"type": "object", "properties": {
            "a": {"type": "string"},
            "b": {"type": "string", "enum": ["x"]},
            "c": {"type": "object"},
            "d": {"type": "array", "items": {"type": "string", "maxLength": 3}},
        }}]}));
        let p = &s["anyOf"][0]["properties"];
        assert_eq!(p["a"]["maxLength"], MAX_STRING);
        assert!(p["b"].get("maxLength").is_none());
        assert_eq!(p["c"]["additionalProperties"], false);
        assert_eq!(p["c"]["properties"], json!({}));
        assert_eq!(p["d"]["items"]["maxLength"], 3);
    }

    proptest! {
        #[test]
        fn reading_never_panics(s in ".{0,300}") {
            let _ = read_structured(&s);
            let _ = unfence(&s);
            let _ = is_answer_template(&s);
        }
    }
}
