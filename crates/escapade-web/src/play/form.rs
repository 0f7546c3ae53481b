//! A played turn's form, read into the [`Action`] an agent would send.
//!
//! One form, one action, of one of these kinds:
//! - `text`: free text, as typed (every world; a button of the available actions sends
//!   its action this way);
//! - `code`: a code for the lock in view, sent as VisEscape's `<ANSWER>code</ANSWER>`
//!   (§3.2's answer format);
//! - `frame.x`, `frame.y`: a click on the picture (an image input), sent as MM-Escape's
//!   `look_at` at that point of the frame, in fractions of its width and height
//!   (Table 13: "[x, y] … the top-left corner is (0, 0)");
//! - `craft`: one of MM-Escape's moves (Table 13) — `forward`, `back` (`metres`), `left`,
//!   `right` (`degrees`), `up`, `down` (`degrees`), `jump`, `grab` (with `use_item_id`
//!   and `input`), `read` (`item`) — sent as the JSON reply the prompt asks for;
//! - `call`: a function call by name with one field `arg.<name>` per parameter of its
//!   schema, each value typed as the schema says.

use escapade_core::{Action, ToolSchema};
use serde_json::{Map, Value, json};

/// The action of a submitted form (`pairs` in order), or a message naming the field at
/// fault. `tools` are the schemas the episode offers; `frame` the current picture's size.
pub fn action(
    pairs: &[(String, String)],
    tools: &[ToolSchema],
    frame: Option<(u32, u32)>,
) -> Result<Action, String> {
    let get = |key: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    let text = get("text").filter(|t| !t.trim().is_empty());
    let code = get("code").filter(|t| !t.trim().is_empty());
    let click = get("frame.x").is_some() || get("frame.y").is_some();
    let craft = get("craft");
    let call = get("call");
    let kinds = [
        text.is_some(),
        code.is_some(),
        click,
        craft.is_some(),
        call.is_some(),
    ];
    match kinds.iter().filter(|k| **k).count() {
        0 => return Err("nothing to do: type an action or press one of the buttons".into()),
        1 => {}
        _ => return Err("one action at a time: this form says several things at once".into()),
    }
    if let Some(t) = text {
        return Ok(Action::text(t));
    }
    if let Some(c) = code {
        return Ok(Action::text(format!("<ANSWER>{}</ANSWER>", c.trim())));
    }
    if click {
        return look_at(get("frame.x"), get("frame.y"), frame);
    }
    if let Some(kind) = craft {
        return craft_move(kind, &get);
    }
    let name = call.unwrap_or_default();
    let Some(schema) = tools.iter().find(|t| t.name == name) else {
        let known: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        return Err(format!(
            "no function `{name}` here; the functions are: {}",
            known.join(", ")
        ));
    };
    let mut args = Map::new();
    for (key, value) in pairs {
        let Some(param) = key.strip_prefix("arg.") else {
            continue;
        };
        if value.trim().is_empty() {
            continue;
        }
        let kind = schema.parameters["properties"][param]["type"]
            .as_str()
            .unwrap_or("string");
        args.insert(param.to_string(), typed(param, kind, value)?);
    }
    Ok(Action::call(name, Value::Object(args).to_string()))
}

/// `value` as the JSON type `kind` of parameter `param`.
fn typed(param: &str, kind: &str, value: &str) -> Result<Value, String> {
    let v = value.trim();
    let bad = |what: &str| format!("`{param}` must be {what}, not `{v}`");
    Ok(match kind {
        "integer" => Value::from(v.parse::<i64>().map_err(|_| bad("a whole number"))?),
        "number" => {
            let n = v.parse::<f64>().map_err(|_| bad("a number"))?;
            json!(n)
        }
        "boolean" => match v {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return Err(bad("true or false")),
        },
        "object" | "array" => serde_json::from_str(v).map_err(|_| bad("JSON"))?,
        _ => Value::String(value.to_string()),
    })
}

/// A click at pixel (`x`, `y`) of a `frame`-sized picture as `look_at`.
fn look_at(x: Option<&str>, y: Option<&str>, frame: Option<(u32, u32)>) -> Result<Action, String> {
    let Some((w, h)) = frame.filter(|(w, h)| *w > 0 && *h > 0) else {
        return Err("there is no picture to click on now".into());
    };
    let pixel = |v: Option<&str>, name: &str| -> Result<f64, String> {
        v.and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|p| p.is_finite() && *p >= 0.0)
            .ok_or_else(|| format!("the click's {name} is not a position on the picture"))
    };
    let (px, py) = (pixel(x, "x")?, pixel(y, "y")?);
    // the centre of the pixel clicked, as a fraction of the frame, at most 1
    let fx = ((px + 0.5) / f64::from(w)).min(1.0);
    let fy = ((py + 0.5) / f64::from(h)).min(1.0);
    let round = |f: f64| (f * 1000.0).round() / 1000.0;
    Ok(Action::text(
        json!({ "look_at": [round(fx), round(fy)] }).to_string(),
    ))
}

/// One of MM-Escape's moves as the JSON reply (Table 13's keys).
fn craft_move<'a>(kind: &str, get: &dyn Fn(&str) -> Option<&'a str>) -> Result<Action, String> {
    let number = |key: &str, default: f64, limit: f64| -> Result<f64, String> {
        match get(key).map(str::trim).filter(|v| !v.is_empty()) {
            None => Ok(default),
            Some(v) => v
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite() && n.abs() <= limit)
                .ok_or_else(|| {
                    format!("`{key}` must be a number between -{limit} and {limit}, not `{v}`")
                }),
        }
    };
    let field = |key: &str| get(key).map(str::trim).filter(|v| !v.is_empty());
    let reply = match kind {
        "forward" => json!({ "move_forward": number("metres", 1.0, 10.0)? }),
        "back" => json!({ "move_forward": -number("metres", 1.0, 10.0)? }),
        "right" => json!({ "rotate_right": number("degrees", 30.0, 180.0)? }),
        "left" => json!({ "rotate_right": -number("degrees", 30.0, 180.0)? }),
        "down" => json!({ "rotate_down": number("tilt", 15.0, 90.0)? }),
        "up" => json!({ "rotate_down": -number("tilt", 15.0, 90.0)? }),
        "jump" => json!({ "jump": true, "move_forward": number("metres", 1.0, 10.0)? }),
        "grab" => {
            let mut reply = Map::new();
            reply.insert("grab".into(), Value::Bool(true));
            let mut with = Map::new();
            if let Some(item) = field("use_item_id") {
                with.insert("use_item_id".into(), Value::String(item.into()));
            }
            if let Some(input) = field("input") {
                with.insert("input".into(), Value::String(input.into()));
            }
            if !with.is_empty() {
                reply.insert("interactions".into(), Value::Object(with));
            }
            Value::Object(reply)
        }
        "read" => match field("item") {
            Some(item) => json!({ "read": item }),
            None => return Err("read needs the item_id of an item in your bag".into()),
        },
        other => {
            return Err(format!(
                "`{other}` is not a move; the moves are forward, back, left, right, up, down, \
                 jump, grab and read"
            ));
        }
    };
    Ok(Action::text(reply.to_string()))
}

/// The width and height of a PNG (from its header), when it is one.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" || &png[12..16] != b"IHDR" {
        return None;
    }
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    Some((be(&png[16..20]), be(&png[20..24])))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn text(a: Action) -> String {
        match a {
            Action::Text { text } => text,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn text_code_and_nothing() {
        let t = action(&pairs(&[("text", "open the door")]), &[], None).unwrap();
        assert_eq!(text(t), "open the door");
        let c = action(&pairs(&[("code", " 0427 ")]), &[], None).unwrap();
        assert_eq!(text(c), "<ANSWER>0427</ANSWER>");
        assert!(
            action(&pairs(&[("text", "  ")]), &[], None)
                .unwrap_err()
                .contains("nothing to do")
        );
        assert!(
            action(&pairs(&[("text", "a"), ("code", "1")]), &[], None)
                .unwrap_err()
                .contains("one action at a time")
        );
    }

    #[test]
    fn clicks_are_fractions_of_the_frame() {
        let a = action(
            &pairs(&[("frame.x", "99"), ("frame.y", "0")]),
            &[],
            Some((200, 100)),
        )
        .unwrap();
        let v: Value = serde_json::from_str(&text(a)).unwrap();
        assert_eq!(v, json!({"look_at": [0.498, 0.005]}));
        assert!(action(&pairs(&[("frame.x", "1"), ("frame.y", "1")]), &[], None).is_err());
        let e = action(
            &pairs(&[("frame.x", "-3"), ("frame.y", "1")]),
            &[],
            Some((9, 9)),
        )
        .unwrap_err();
        assert!(e.contains("the click's x"), "{e}");
        // a click past the edge (a zoomed page) stays on the frame
        let a = action(
            &pairs(&[("frame.x", "500"), ("frame.y", "500")]),
            &[],
            Some((10, 10)),
        )
        .unwrap();
        assert_eq!(text(a), r#"{"look_at":[1.0,1.0]}"#);
    }

    #[test]
    fn craft_moves() {
        let m = |p: &[(&str, &str)]| action(&pairs(p), &[], None).map(text);
        assert_eq!(
            m(&[("craft", "forward")]).unwrap(),
            r#"{"move_forward":1.0}"#
        );
        assert_eq!(
            m(&[("craft", "back"), ("metres", "2")]).unwrap(),
            r#"{"move_forward":-2.0}"#
        );
        assert_eq!(
            m(&[("craft", "left")]).unwrap(),
            r#"{"rotate_right":-30.0}"#
        );
        assert_eq!(m(&[("craft", "up")]).unwrap(), r#"{"rotate_down":-15.0}"#);
        assert_eq!(
            m(&[("craft", "grab"), ("use_item_id", "key_1"), ("input", "")]).unwrap(),
            r#"{"grab":true,"interactions":{"use_item_id":"key_1"}}"#
        );
        assert_eq!(
            m(&[("craft", "read"), ("item", "note")]).unwrap(),
            r#"{"read":"note"}"#
        );
        assert!(m(&[("craft", "read")]).unwrap_err().contains("item_id"));
        assert!(m(&[("craft", "fly")]).unwrap_err().contains("not a move"));
        assert!(
            m(&[("craft", "forward"), ("metres", "1e9")])
                .unwrap_err()
                .contains("metres")
        );
        assert!(
            m(&[("craft", "forward"), ("metres", "far")])
                .unwrap_err()
                .contains("metres")
        );
    }

    #[test]
    fn calls_are_typed_by_their_schema() {
        let tools = vec![ToolSchema {
            name: "call_tool".into(),
            description: String::new(),
            parameters: json!({"type": "object", "properties": {
                "node_id": {"type": "string"},
                "parameters": {"type": "object"},
                "count": {"type": "integer"},
                "flag": {"type": "boolean"}
            }}),
        }];
        let a = action(
            &pairs(&[
                ("call", "call_tool"),
                ("arg.node_id", "N12"),
                ("arg.parameters", r#"{"base": "7"}"#),
                ("arg.count", "3"),
                ("arg.flag", ""),
            ]),
            &tools,
            None,
        )
        .unwrap();
        let Action::Call { name, arguments } = a else {
            panic!()
        };
        assert_eq!(name, "call_tool");
        let v: Value = serde_json::from_str(&arguments).unwrap();
        assert_eq!(
            v,
            json!({"node_id": "N12", "parameters": {"base": "7"}, "count": 3})
        );
        let e = action(
            &pairs(&[("call", "call_tool"), ("arg.count", "x")]),
            &tools,
            None,
        )
        .unwrap_err();
        assert!(e.contains("`count` must be a whole number"), "{e}");
        let e = action(
            &pairs(&[("call", "call_tool"), ("arg.parameters", "{")]),
            &tools,
            None,
        )
        .unwrap_err();
        assert!(e.contains("JSON"), "{e}");
        let e = action(&pairs(&[("call", "nope")]), &tools, None).unwrap_err();
        assert!(e.contains("call_tool"), "{e}");
    }

    #[test]
    fn png_sizes() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend(640u32.to_be_bytes());
        png.extend(360u32.to_be_bytes());
        assert_eq!(png_size(&png), Some((640, 360)));
        assert_eq!(png_size(b"GIF89a"), None);
    }
}
