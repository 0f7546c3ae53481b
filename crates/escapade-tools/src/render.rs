//! How the tools world looks to an agent: the system prompt, the room listing, node
//! details with clues, and function schemas.
//!
//! Everything here reads the scenario through the episode state, so it only shows what
//! the agent has earned: hidden nodes are never listed or named, a clue about a wire
//! from a hidden node says only that its source is still hidden, and computed outputs
//! appear only after a successful call. Values are shown as JSON string literals with
//! invisible characters escaped, so they can be copied exactly into a call.

use std::fmt::Write as _;

use serde_json::{Value, json};

use escapade_core::ToolSchema;

use crate::clue::{self, ClueStyle};
use crate::env::{Graph, State};
use crate::library;
use crate::scenario::{Node, ToolsScenario};
use crate::template::NodeKind;
use crate::value::PortType;

/// The system prompt (§3.1's interaction loop, App. B, App. C's several actions per
/// turn): the room, the node kinds, the three actions (investigate, call, submit) and
/// giving up, how replies are read, and that the budget counts turns.
pub fn system_prompt() -> String {
    "You are locked in an escape room built around a chain of unfamiliar devices. \
Nodes are tools, items, locked containers and one terminal that controls the exit. \
Tools compute real functions of their parameters; the output of one node is often the \
input of another, and the narratives and clues hint at which. Some nodes are hidden until \
something reveals them (opening a container, solving a node). Your goal: get the terminal \
to show the exit flag, then submit that flag.\n\n\
Actions (write each on its own line, starting with its verb; lines that start otherwise \
are your own notes):\n\
- investigate <node_id> — read a node: its story, parameters, clues and outputs. Reading an item resolves it.\n\
- call <node_id> {\"param\": \"value\", ...} — invoke a tool, container or terminal with every parameter it takes (values as JSON strings; copy given values exactly).\n\
- submit_answer <flag> — submit the flag the terminal showed.\n\
- give_up — end the attempt.\n\n\
A reply may hold several actions (with function calling: several calls); they run in \
order and each gets its own result. Every reply is one turn of the step budget, however \
many actions it holds. A failed call tells you which parameters were right."
        .to_string()
}

/// `N123 · Chrome Hasher`.
pub fn label(node: &Node) -> String {
    format!("{} · {}", node.id, node.name)
}

/// One line of the room listing.
pub fn listing_line(node: &Node) -> String {
    format!("- {} ({}) — {}", label(node), node.kind.label(), node.brief)
}

/// A value as a JSON string literal, with invisible and bidi-control characters
/// escaped as `\uXXXX` (JSON escapes, so a model can paste it into a call).
pub fn literal(value: &str) -> String {
    let json = serde_json::to_string(value).unwrap_or_default();
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        let invisible = matches!(c,
            '\u{00ad}' | '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2069}' | '\u{feff}');
        if invisible {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

/// `name = "value", …` for a node's data outputs.
pub fn outputs_inline(node: &Node) -> String {
    let parts: Vec<String> = node
        .outputs
        .iter()
        .filter(|(_, p)| !p.ty.is_physical())
        .map(|(name, p)| format!("{name} = {}", literal(&p.value)))
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

/// `It takes: a (Big_Int), b (Text_Generic).`
pub fn signature(node: &Node) -> String {
    let params: Vec<String> = node
        .parameters()
        .map(|(name, p)| format!("{name} ({})", p.ty))
        .collect();
    format!("`{}` takes: {}.", node.id, params.join(", "))
}

/// The first observation: setting, rules reminder, visible nodes.
pub(crate) fn opening(s: &ToolsScenario, st: &State) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "{}\n", s.setting);
    let _ = writeln!(
        text,
        "You have {} turns. Investigate nodes to learn what they take; call them with the right values; submit the exit flag.\n",
        s.step_budget
    );
    let _ = writeln!(text, "Visible nodes:");
    for (i, node) in s.nodes.iter().enumerate() {
        if st.visible[i] {
            let _ = writeln!(text, "{}", listing_line(node));
        }
    }
    text.trim_end().to_string()
}

/// What `investigate` shows for node `i`.
pub(crate) fn details(
    s: &ToolsScenario,
    g: &Graph,
    st: &State,
    i: usize,
    style: ClueStyle,
) -> String {
    let node = &s.nodes[i];
    let template = library::template(&node.template);
    let mut t = String::new();
    let _ = writeln!(t, "{} ({})", label(node), node.kind.label());
    let _ = writeln!(t, "{}", node.story);
    if node.kind == NodeKind::Item {
        let _ = writeln!(t, "It holds:");
        for (name, p) in node.outputs.iter().filter(|(_, p)| !p.ty.is_physical()) {
            let note = if p.ty == PortType::FileId {
                clue::file_note(s, &p.value)
            } else {
                String::new()
            };
            let _ = writeln!(t, "- {name} ({}) = {}{note}", p.ty, literal(&p.value));
        }
        consumers_note(&mut t, s, g, st, i, style);
        return t.trim_end().to_string();
    }
    if let Some(tp) = template {
        let _ = writeln!(t, "What it does: {}", tp.semantics);
    }
    let _ = writeln!(t, "Parameters:");
    for (name, p) in node.parameters() {
        let doc = template
            .and_then(|tp| tp.inputs.iter().find(|x| x.name == name))
            .map(|x| x.doc)
            .unwrap_or("");
        let clue = clue::input_clue(s, g, &st.visible, i, name, style)
            .map(|c| format!("Clue: {}", c.text))
            .unwrap_or_default();
        let sep = if doc.is_empty() || doc.ends_with('.') {
            ""
        } else {
            "."
        };
        let _ = writeln!(
            t,
            "- {name} ({}: {}) — {doc}{sep} {clue}",
            p.ty,
            p.ty.hint()
        );
    }
    let data_outputs: Vec<_> = node
        .outputs
        .iter()
        .filter(|(_, p)| !p.ty.is_physical())
        .collect();
    if !data_outputs.is_empty() {
        let _ = writeln!(t, "Outputs:");
        for (name, p) in data_outputs {
            let doc = template
                .and_then(|tp| tp.outputs.iter().find(|x| x.name == name))
                .map(|x| x.doc)
                .unwrap_or("");
            let _ = writeln!(t, "- {name} ({}) — {doc}", p.ty);
        }
    }
    if node.kind == NodeKind::Container {
        let _ = writeln!(t, "Contents: unknown until it is opened.");
    }
    consumers_note(&mut t, s, g, st, i, style);
    if st.resolved[i] {
        let _ = writeln!(t, "Status: solved. Outputs: {}", outputs_inline(node));
    } else {
        let _ = writeln!(t, "Status: not solved yet.");
    }
    t.trim_end().to_string()
}

fn consumers_note(
    t: &mut String,
    s: &ToolsScenario,
    g: &Graph,
    st: &State,
    i: usize,
    style: ClueStyle,
) {
    if let Some(c) = clue::feeds_clue(s, g, &st.visible, i, style) {
        let _ = writeln!(t, "Where it leads: {}", c.text);
    }
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

/// The four generic functions; `investigate` lists the visible node ids.
pub fn base_schemas(visible: &[&str], callable: &[&str]) -> Vec<ToolSchema> {
    let ids = |ids: &[&str], what: &str| {
        if ids.is_empty() {
            json!({"type": "string", "description": what})
        } else {
            json!({"type": "string", "description": what, "enum": ids})
        }
    };
    let node_id = ids(visible, "a node id from the room listing");
    let callable_id = ids(callable, "the node to invoke");
    vec![
        ToolSchema {
            name: "investigate".into(),
            description: "Read a node: its story, parameters, clues and outputs. Reading an item resolves it.".into(),
            parameters: object(json!({"node_id": node_id}), &["node_id"]),
        },
        ToolSchema {
            name: "call_tool".into(),
            description: "Invoke a tool, container or terminal with all of its parameters.".into(),
            parameters: object(
                json!({
                    "node_id": callable_id,
                    "parameters": {"type": "object", "description": "parameter name → value (strings; copy given values exactly)"}
                }),
                &["node_id", "parameters"],
            ),
        },
        ToolSchema {
            name: "submit_answer".into(),
            description: "Submit the exit flag shown by the terminal.".into(),
            parameters: object(json!({"answer": {"type": "string"}}), &["answer"]),
        },
        ToolSchema {
            name: "give_up".into(),
            description: "End the attempt without escaping.".into(),
            parameters: object(json!({}), &[]),
        },
    ]
}

/// A function named by the node id whose arguments are the node's parameters.
pub fn node_schema(node: &Node) -> ToolSchema {
    let mut props = serde_json::Map::new();
    let mut required = Vec::new();
    for (name, p) in node.parameters() {
        props.insert(
            name.clone(),
            json!({"type": "string", "description": format!("{} — {}", p.ty, p.ty.hint())}),
        );
        required.push(name.as_str());
    }
    ToolSchema {
        name: node.id.clone(),
        description: format!("Invoke {} ({}).", label(node), node.kind.label()),
        parameters: object(Value::Object(props), &required),
    }
}
