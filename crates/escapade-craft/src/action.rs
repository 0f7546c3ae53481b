//! Reading a model's reply into one craft action: the JSON object of MM-Escape's
//! operation prompt (App. K, Table 13).
//!
//! Why its own module: the parser is the boundary where untrusted model output enters
//! the world, so it is strict about meaning and forgiving about form. Every key is
//! optional and several may come in one reply; the parser keeps the order in which the
//! reply wrote them ([`CraftAction::order`], read from the JSON text itself: the
//! workspace builds `serde_json` with `preserve_order`), because the original client
//! walks the keys in that order (see [`crate::env`] for what each does when). As there,
//! a key whose value is empty, zero or false does nothing, `look_at` at the centre
//! `[0.5, 0.5]` does nothing, and `interactions` is refused without `"grab": true` (the
//! original's schema makes `interactions` depend on `grab`); an object without a key
//! (`{}`) is refused, as the original's schema refuses it, rather than taken as a turn. Accepted forms: a bare object, an object in
//! a fenced block or embedded in prose (the first `{…}` that reads as an action), the
//! Python spellings `True` / `False` / `None` the paper's own prompt uses, numbers
//! written as strings (`"1.5"`), booleans as strings (`"true"`), `look_at` as a list or
//! a `"x, y"` string. Anything else gives a [`ParseError`] whose text tells the model
//! what to send instead; nothing here panics on any input (a property test proves it).

use serde_json::{Map, Value};

/// Longest reply read, in bytes; longer replies are refused (App. K asks for the JSON
/// alone, a few hundred bytes).
pub const MAX_REPLY: usize = 64 * 1024;
/// Longest text accepted in `input`, `use_item_id`, `read` (characters).
pub const MAX_FIELD: usize = 64;
/// `move_forward` range, metres (Table 13: [-10, 10]; negative walks backwards).
pub const MOVE_RANGE: f32 = 10.0;
/// `rotate_right` range, degrees (Table 13: [-180, 180]; negative turns left).
pub const TURN_RANGE: f32 = 180.0;
/// `rotate_down` range, degrees (Table 13: [-90, 90]; positive looks down).
pub const TILT_RANGE: f32 = 90.0;

/// A key of a reply that does something, as [`CraftAction::order`] lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// `look_at`.
    LookAt,
    /// `rotate_right`.
    RotateRight,
    /// `rotate_down`.
    RotateDown,
    /// `move_forward`.
    MoveForward,
    /// `jump`.
    Jump,
    /// `grab` (with `interactions`, which ride on it).
    Grab,
    /// `read`.
    Read,
}

impl Key {
    /// Whether the key moves the body or the view (gathered into one motion applied after
    /// the whole reply is read), rather than acting at once (`grab`, `read`).
    pub fn moves(self) -> bool {
        !matches!(self, Key::Grab | Key::Read)
    }

    /// The key as the reply spells it.
    pub fn name(self) -> &'static str {
        match self {
            Key::LookAt => "look_at",
            Key::RotateRight => "rotate_right",
            Key::RotateDown => "rotate_down",
            Key::MoveForward => "move_forward",
            Key::Jump => "jump",
            Key::Grab => "grab",
            Key::Read => "read",
        }
    }
}

/// One parsed reply: what each key asks for, and [`CraftAction::order`], the order the
/// reply wrote them in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CraftAction {
    /// Re-aim the camera at this point of the last frame: `(x, y)` as fractions of its
    /// width and height from the top-left corner (Table 13, C.1.2: the centre is
    /// `(0.5, 0.5)`). Values above 1 are read as pixels of the frame.
    pub look_at: Option<(f32, f32)>,
    /// Degrees to turn right (negative: left), clamped to ±180.
    pub rotate_right: Option<f32>,
    /// Degrees to tilt the view down (negative: up), clamped to ±90.
    pub rotate_down: Option<f32>,
    /// Metres to walk along the heading (negative: backwards), clamped to ±10.
    pub move_forward: Option<f32>,
    /// Jump in place (Table 13 keeps it; nothing in a room needs it).
    pub jump: bool,
    /// Interact with the object under the red dot: take a key or note, open a box or a
    /// door (C.1.2 "Grabbing").
    pub grab: bool,
    /// A bag item to use on the object under the red dot (`interactions.use_item_id`).
    pub use_item: Option<String>,
    /// Text to enter at the object under the red dot (`interactions.input`).
    pub input: Option<String>,
    /// A bag item to read (`read`).
    pub read: Option<String>,
    /// The model's stated reason (logged, never interpreted).
    pub rationale: Option<String>,
    /// Values that were out of range and clamped, or keys that were ignored: told back
    /// to the model so it learns the limits.
    pub notes: Vec<String>,
    /// The keys that do something, in the order the reply wrote them (each once). Empty
    /// means the default order of [`CraftAction::keys`] (actions built in code).
    pub order: Vec<Key>,
}

impl CraftAction {
    /// Whether the reply asks for nothing at all.
    pub fn is_empty(&self) -> bool {
        self.look_at.is_none()
            && self.rotate_right.is_none()
            && self.rotate_down.is_none()
            && self.move_forward.is_none()
            && !self.jump
            && !self.grab
            && self.use_item.is_none()
            && self.input.is_none()
            && self.read.is_none()
    }

    /// Whether it acts on the object under the red dot: a `grab` (with or without
    /// `interactions`), what the paper counts as a grabbing action (§3.3, Eqs. 2–3; the
    /// original's evaluator counts the replies with `"grab": true`).
    pub fn interacts(&self) -> bool {
        self.grab
    }

    /// Whether a key is set to something that acts.
    fn has(&self, key: Key) -> bool {
        match key {
            Key::LookAt => self.look_at.is_some(),
            Key::RotateRight => self.rotate_right.is_some(),
            Key::RotateDown => self.rotate_down.is_some(),
            Key::MoveForward => self.move_forward.is_some(),
            Key::Jump => self.jump,
            Key::Grab => self.grab,
            Key::Read => self.read.is_some(),
        }
    }

    /// The keys that act, in the order to take them: [`CraftAction::order`] when given
    /// (keys it leaves out follow in the default order), else the default — `grab`,
    /// `read`, then `look_at`, `rotate_right`, `rotate_down`, `move_forward`, `jump`.
    pub fn keys(&self) -> Vec<Key> {
        const DEFAULT: [Key; 7] = [
            Key::Grab,
            Key::Read,
            Key::LookAt,
            Key::RotateRight,
            Key::RotateDown,
            Key::MoveForward,
            Key::Jump,
        ];
        let mut out: Vec<Key> = Vec::new();
        for k in self.order.iter().chain(DEFAULT.iter()) {
            if self.has(*k) && !out.contains(k) {
                out.push(*k);
            }
        }
        out
    }

    /// The action as the JSON object a model would send (for the oracle and logs), its
    /// keys in the order of [`CraftAction::keys`] (`interactions` right after `grab`,
    /// `rationale` last).
    pub fn to_json(&self) -> String {
        let mut m = Map::new();
        // the shortest decimal that reads back as the same f32 (not the f64 expansion)
        let num = |v: f32| serde_json::from_str::<Value>(&v.to_string()).unwrap_or(Value::Null);
        for key in self.keys() {
            match key {
                Key::LookAt => {
                    if let Some((x, y)) = self.look_at {
                        m.insert("look_at".into(), Value::from(vec![num(x), num(y)]));
                    }
                }
                Key::RotateRight => {
                    if let Some(v) = self.rotate_right {
                        m.insert("rotate_right".into(), num(v));
                    }
                }
                Key::RotateDown => {
                    if let Some(v) = self.rotate_down {
                        m.insert("rotate_down".into(), num(v));
                    }
                }
                Key::MoveForward => {
                    if let Some(v) = self.move_forward {
                        m.insert("move_forward".into(), num(v));
                    }
                }
                Key::Jump => {
                    m.insert("jump".into(), Value::Bool(true));
                }
                Key::Grab => {
                    m.insert("grab".into(), Value::Bool(true));
                    if self.use_item.is_some() || self.input.is_some() {
                        let mut i = Map::new();
                        if let Some(u) = &self.use_item {
                            i.insert("use_item_id".into(), Value::from(u.clone()));
                        }
                        if let Some(t) = &self.input {
                            i.insert("input".into(), Value::from(t.clone()));
                        }
                        m.insert("interactions".into(), Value::Object(i));
                    }
                }
                Key::Read => {
                    if let Some(r) = &self.read {
                        m.insert("read".into(), Value::from(r.clone()));
                    }
                }
            }
        }
        if let Some(r) = &self.rationale {
            m.insert("rationale".into(), Value::from(r.clone()));
        }
        Value::Object(m).to_string()
    }
}

/// Why a reply could not be read; its `Display` is a message for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

const EXAMPLE: &str =
    r#"{"rotate_right": 30, "move_forward": 1.5, "rationale": "walk to the table"}"#;

const KEYS: [&str; 9] = [
    "move_forward",
    "rotate_right",
    "rotate_down",
    "jump",
    "look_at",
    "grab",
    "interactions",
    "read",
    "rationale",
];

fn fail(what: impl Into<String>) -> ParseError {
    ParseError(format!(
        "{}. Reply with one JSON object using the keys {}, for example {EXAMPLE}",
        what.into(),
        KEYS.join(", ")
    ))
}

/// Reads a raw agent action (free text, a function call named `act` whose arguments
/// are the object, or bytes).
pub fn parse_action(action: &escapade_core::Action) -> Result<CraftAction, ParseError> {
    match action {
        escapade_core::Action::Text { text } => parse(text),
        escapade_core::Action::Call { name, arguments } => {
            if name != crate::interface::TOOL_NAME {
                return Err(fail(format!(
                    "there is no function `{}`; call `{}`",
                    escapade_core::action::truncate_chars(name, 40),
                    crate::interface::TOOL_NAME
                )));
            }
            parse(arguments)
        }
        escapade_core::Action::Bytes { bytes } => parse(&String::from_utf8_lossy(bytes)),
        escapade_core::Action::Calls { .. } => parse_action(&action.first()),
    }
}

/// Reads a reply's text into an action.
///
/// # Errors
/// A [`ParseError`] naming what was wrong (no JSON object, a value of the wrong type, an
/// oversized reply) and what to send instead.
pub fn parse(text: &str) -> Result<CraftAction, ParseError> {
    if text.len() > MAX_REPLY {
        return Err(fail(format!(
            "the reply is {} bytes long; send only the JSON object (at most {} bytes)",
            text.len(),
            MAX_REPLY
        )));
    }
    let object = find_object(text)?;
    from_object(&object)
}

/// The first JSON object in `text` that is a plausible action: the whole text, a
/// fenced block, or a balanced `{…}` span (trying Python's `True`/`False`/`None` too).
fn find_object(text: &str) -> Result<Map<String, Value>, ParseError> {
    let mut first_error: Option<String> = None;
    let mut try_text = |candidate: &str| -> Option<Map<String, Value>> {
        for variant in [candidate.to_string(), pythonic(candidate)] {
            match serde_json::from_str::<Value>(variant.trim()) {
                Ok(Value::Object(m)) => return Some(m),
                Ok(_) => {
                    first_error.get_or_insert_with(|| "the JSON is not an object".into());
                }
                Err(e) => {
                    first_error.get_or_insert_with(|| format!("the JSON does not parse ({e})"));
                }
            }
        }
        None
    };
    if let Some(m) = try_text(text) {
        return Ok(m);
    }
    // spans starting at each `{`, ending at its balanced `}` (strings respected)
    let bytes = text.as_bytes();
    let mut tried = 0;
    let mut empty = None;
    for (start, b) in bytes.iter().enumerate() {
        if *b != b'{' {
            continue;
        }
        tried += 1;
        if tried > 200 {
            break;
        }
        if let Some(end) = balanced_end(bytes, start)
            && let Some(m) = try_text(&text[start..=end])
        {
            if m.keys().any(|k| KEYS.contains(&k.as_str())) {
                return Ok(m);
            }
            // an empty object is read only when nothing better is there, to be refused
            // with its own message
            if m.is_empty() {
                empty.get_or_insert(m);
            }
        }
    }
    if let Some(m) = empty {
        return Ok(m);
    }
    Err(fail(match first_error {
        Some(e) if text.contains('{') => e,
        _ => "no JSON object was found in the reply".to_string(),
    }))
}

/// Index of the `}` closing the `{` at `start`, skipping braces inside strings.
fn balanced_end(bytes: &[u8], start: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `text` with bare `True`, `False`, `None` (outside strings) spelled the JSON way.
fn pythonic(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        let word_start = !out.ends_with(|p: char| p.is_alphanumeric() || p == '_');
        let mut replaced = false;
        if word_start {
            for (py, js) in [("True", "true"), ("False", "false"), ("None", "null")] {
                if let Some(after) = rest.strip_prefix(py)
                    && !after.starts_with(|n: char| n.is_alphanumeric() || n == '_')
                {
                    out.push_str(js);
                    rest = after;
                    replaced = true;
                    break;
                }
            }
        }
        if !replaced {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn number(key: &str, v: &Value) -> Result<Option<f32>, ParseError> {
    let n = match v {
        Value::Null => return Ok(None),
        Value::Number(n) => n.as_f64(),
        Value::String(s) if s.trim().is_empty() => return Ok(None),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    match n {
        Some(x) if x.is_finite() => Ok(Some(x as f32)),
        _ => Err(fail(format!(
            "`{key}` must be a number, got {}",
            short(&v.to_string())
        ))),
    }
}

fn boolean(key: &str, v: &Value) -> Result<bool, ParseError> {
    match v {
        Value::Null => Ok(false),
        Value::Bool(b) => Ok(*b),
        Value::Number(n) if n.as_f64() == Some(1.0) => Ok(true),
        Value::Number(n) if n.as_f64() == Some(0.0) => Ok(false),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" => Ok(true),
            "false" | "no" | "0" | "" => Ok(false),
            _ => Err(fail(format!(
                "`{key}` must be true or false, got {}",
                short(s)
            ))),
        },
        other => Err(fail(format!(
            "`{key}` must be true or false, got {}",
            short(&other.to_string())
        ))),
    }
}

fn text_field(key: &str, v: &Value) -> Result<Option<String>, ParseError> {
    let s = match v {
        Value::Null => return Ok(None),
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        other => {
            return Err(fail(format!(
                "`{key}` must be a string, got {}",
                short(&other.to_string())
            )));
        }
    };
    if s.is_empty() {
        return Ok(None);
    }
    if s.chars().count() > MAX_FIELD {
        return Err(fail(format!(
            "`{key}` is longer than {MAX_FIELD} characters"
        )));
    }
    Ok(Some(s))
}

fn short(s: &str) -> String {
    escapade_core::action::truncate_chars(s, 40)
}

fn clamp(key: &str, v: f32, range: f32, notes: &mut Vec<String>) -> f32 {
    if v.abs() > range {
        let c = v.clamp(-range, range);
        notes.push(format!("{key} is out of range; used {c}"));
        c
    } else {
        v
    }
}

fn point(v: &Value) -> Result<Option<(f32, f32)>, ParseError> {
    let bad = || {
        fail(format!(
            "`look_at` must be two numbers [x, y] between 0 and 1 (the image's top-left \
             corner is [0, 0], its centre [0.5, 0.5]), got {}",
            short(&v.to_string())
        ))
    };
    let parts: Vec<Value> = match v {
        Value::Null => return Ok(None),
        Value::Array(a) => a.clone(),
        Value::Object(o) => match (o.get("x"), o.get("y")) {
            (Some(x), Some(y)) => vec![x.clone(), y.clone()],
            _ => return Err(bad()),
        },
        Value::String(s) => s
            .trim()
            .trim_matches(|c| matches!(c, '[' | ']' | '(' | ')'))
            .split(',')
            .map(|p| Value::from(p.trim().to_string()))
            .collect(),
        _ => return Err(bad()),
    };
    if parts.len() != 2 {
        return Err(bad());
    }
    let x = number("look_at", &parts[0]).map_err(|_| bad())?;
    let y = number("look_at", &parts[1]).map_err(|_| bad())?;
    match (x, y) {
        (Some(x), Some(y)) if x >= 0.0 && y >= 0.0 => Ok(Some((x, y))),
        _ => Err(bad()),
    }
}

fn from_object(m: &Map<String, Value>) -> Result<CraftAction, ParseError> {
    let mut a = CraftAction::default();
    // the map iterates in the order of the text (preserve_order); a key written twice
    // keeps its first place and its last value, as Python's `json.loads` does
    let mut order: Vec<Key> = Vec::new();
    let nonzero = |v: Option<f32>| v.filter(|x| *x != 0.0);
    for (key, v) in m {
        let acted = match key.as_str() {
            "move_forward" => {
                a.move_forward =
                    nonzero(number(key, v)?).map(|x| clamp(key, x, MOVE_RANGE, &mut a.notes));
                a.move_forward.is_some().then_some(Key::MoveForward)
            }
            "rotate_right" => {
                a.rotate_right =
                    nonzero(number(key, v)?).map(|x| clamp(key, x, TURN_RANGE, &mut a.notes));
                a.rotate_right.is_some().then_some(Key::RotateRight)
            }
            "rotate_down" => {
                a.rotate_down =
                    nonzero(number(key, v)?).map(|x| clamp(key, x, TILT_RANGE, &mut a.notes));
                a.rotate_down.is_some().then_some(Key::RotateDown)
            }
            "jump" => {
                a.jump = boolean(key, v)?;
                a.jump.then_some(Key::Jump)
            }
            "grab" => {
                a.grab = boolean(key, v)?;
                a.grab.then_some(Key::Grab)
            }
            "look_at" => {
                // the centre is where the view already points
                a.look_at = point(v)?.filter(|p| *p != (0.5, 0.5));
                a.look_at.is_some().then_some(Key::LookAt)
            }
            "read" => {
                a.read = text_field(key, v)?;
                a.read.is_some().then_some(Key::Read)
            }
            "rationale" => {
                a.rationale = match v {
                    Value::String(s) => Some(escapade_core::action::truncate_chars(s, 2000)),
                    Value::Null => None,
                    other => Some(short(&other.to_string())),
                };
                None
            }
            "interactions" => {
                match v {
                    Value::Null => {}
                    Value::Object(i) => {
                        for (k, iv) in i {
                            match k.as_str() {
                                "use_item_id" => a.use_item = text_field("use_item_id", iv)?,
                                "input" => a.input = text_field("input", iv)?,
                                other => a.notes.push(format!(
                                    "ignored interactions.{}: only use_item_id and input are read",
                                    short(other)
                                )),
                            }
                        }
                    }
                    other => {
                        return Err(fail(format!(
                            "`interactions` must be an object {{\"use_item_id\": \"…\", \"input\": \"…\"}}, got {}",
                            short(&other.to_string())
                        )));
                    }
                }
                None
            }
            other => {
                a.notes
                    .push(format!("ignored unknown key `{}`", short(other)));
                None
            }
        };
        if let Some(k) = acted
            && !order.contains(&k)
        {
            order.push(k);
        }
    }
    order.retain(|k| a.has(*k));
    a.order = order;
    if (a.use_item.is_some() || a.input.is_some()) && !a.grab {
        return Err(fail(
            "`interactions` acts on the thing under the red dot, so it needs \"grab\": true \
             in the same reply",
        ));
    }
    let known = m.keys().filter(|k| KEYS.contains(&k.as_str())).count();
    if !m.is_empty() && known == 0 {
        return Err(fail("none of the keys is an action"));
    }
    // the original's schema wants at least one key (`anyOf` … `required`) after dropping
    // `null` values and an empty `interactions` (`Game.__verify_format`), and re-asks
    // otherwise: `{}` is no turn
    let named = m.iter().any(|(k, v)| {
        KEYS.contains(&k.as_str())
            && !v.is_null()
            && !(k == "interactions" && v.as_object().is_some_and(Map::is_empty))
    });
    if !named {
        return Err(fail(
            "the object names no key; send at least one (a `rationale` alone is a turn \
             without an action)",
        ));
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paper_format_reads() {
        let a = parse(
            r#"{"move_forward": 1.5, "rotate_right": -30, "rotate_down": 10, "jump": false,
                "look_at": [0.25, 0.75], "grab": true,
                "interactions": {"use_item_id": "key_1", "input": "0421"},
                "read": "note_1", "rationale": "open it"}"#,
        )
        .unwrap();
        assert_eq!(a.move_forward, Some(1.5));
        assert_eq!(a.rotate_right, Some(-30.0));
        assert_eq!(a.rotate_down, Some(10.0));
        assert_eq!(a.look_at, Some((0.25, 0.75)));
        assert!(a.grab && !a.jump);
        assert_eq!(a.use_item.as_deref(), Some("key_1"));
        assert_eq!(a.input.as_deref(), Some("0421"));
        assert_eq!(a.read.as_deref(), Some("note_1"));
        assert_eq!(parse(&a.to_json()).unwrap(), a);
    }

    #[test]
    fn forgiving_about_form() {
        let fenced = "I will turn.\n```json\n{\"rotate_right\": \"45\", \"grab\": True}\n```";
        let a = parse(fenced).unwrap();
        assert_eq!(a.rotate_right, Some(45.0));
        assert!(a.grab);
        let prose = "Let me think {not json} then {\"move_forward\": 2} ok";
        assert_eq!(parse(prose).unwrap().move_forward, Some(2.0));
        let s = parse(r#"{"look_at": "(0.5, 0.4)", "grab": "true"}"#).unwrap();
        assert_eq!(s.look_at, Some((0.5, 0.4)));
        let big = parse(r#"{"move_forward": 50, "rotate_right": 720}"#).unwrap();
        assert_eq!(big.move_forward, Some(10.0));
        assert_eq!(big.rotate_right, Some(180.0));
        assert_eq!(big.notes.len(), 2);
    }

    #[test]
    fn clear_messages_for_bad_replies() {
        let e = parse("I think I should look around").unwrap_err();
        assert!(e.0.contains("no JSON object"), "{e}");
        let e = parse(r#"{"move_forward": "far"}"#).unwrap_err();
        assert!(e.0.contains("`move_forward` must be a number"), "{e}");
        let e = parse(r#"{"look_at": [1]}"#).unwrap_err();
        assert!(e.0.contains("look_at"), "{e}");
        let e = parse(r#"{"fly": true}"#).unwrap_err();
        assert!(e.0.contains("none of the keys"), "{e}");
        let e = parse(&"x".repeat(MAX_REPLY + 1)).unwrap_err();
        assert!(e.0.contains("bytes long"), "{e}");
        let e = parse(r#"{"move_forward": 1"#).unwrap_err();
        assert!(e.0.contains("does not parse"), "{e}");
        // the original's schema: interactions only together with grab
        let e = parse(r#"{"interactions": {"use_item_id": "key_1"}}"#).unwrap_err();
        assert!(e.0.contains("needs \"grab\": true"), "{e}");
        let e = parse(r#"{"grab": false, "interactions": {"input": "12"}}"#).unwrap_err();
        assert!(e.0.contains("needs \"grab\": true"), "{e}");
        assert!(parse(r#"{"interactions": {}, "rationale": "x"}"#).is_ok());
    }

    /// The original's schema needs at least one key (`anyOf` of `required`), after its
    /// client dropped `null` values and an empty `interactions`; anything less is
    /// re-asked, never taken as a turn that does nothing.
    #[test]
    fn an_object_without_a_key_is_refused_as_in_the_original() {
        for empty in [
            "{}",
            " {} ",
            "```json\n{}\n```",
            r#"{"read": null}"#,
            r#"{"interactions": {}}"#,
        ] {
            let e = parse(empty).unwrap_err();
            assert!(e.0.contains("names no key"), "{empty}: {e}");
        }
        // prose with an empty pair of braces and nothing else is no action either
        assert!(parse("I will wait {} here").is_err());
        // a rationale alone is a key: a turn without an action, as in the original
        assert!(parse(r#"{"rationale": "thinking"}"#).unwrap().is_empty());
        assert!(parse(r#"{"grab": false}"#).unwrap().is_empty());
    }

    /// MM-Escape's client walks a reply's keys in the order the model wrote them, so the
    /// order is read from the text, not from the struct.
    #[test]
    fn keys_keep_the_order_they_were_written_in() {
        let a = parse(r#"{"move_forward": -1.5, "rotate_right": 180, "grab": true}"#).unwrap();
        assert_eq!(a.order, [Key::MoveForward, Key::RotateRight, Key::Grab]);
        assert_eq!(a.keys(), a.order);
        let b = parse(r#"{"read": "note_1", "rotate_down": 5, "look_at": [0.2, 0.3], "grab": true, "interactions": {"input": "1"}}"#).unwrap();
        assert_eq!(
            b.order,
            [Key::Read, Key::RotateDown, Key::LookAt, Key::Grab]
        );
        // written back in the same order, and read back the same
        assert_eq!(parse(&b.to_json()).unwrap(), b);
        assert!(
            b.to_json()
                .starts_with(r#"{"read":"note_1","rotate_down":5,"look_at""#),
            "{}",
            b.to_json()
        );
        // a key written twice keeps its first place and its last value, as in Python
        let c = parse(r#"{"rotate_right": 10, "move_forward": 1, "rotate_right": 20}"#).unwrap();
        assert_eq!(c.order, [Key::RotateRight, Key::MoveForward]);
        assert_eq!(c.rotate_right, Some(20.0));
        // built in code: grab and read first, then the motions
        let d = CraftAction {
            move_forward: Some(1.0),
            rotate_right: Some(5.0),
            grab: true,
            ..CraftAction::default()
        };
        assert_eq!(d.keys(), [Key::Grab, Key::RotateRight, Key::MoveForward]);
    }

    /// As in the original (`if not response[key]: continue`), empty values do nothing;
    /// `look_at` at the centre does nothing either.
    #[test]
    fn zero_false_and_centre_values_do_nothing() {
        let a = parse(r#"{"move_forward": 0, "rotate_right": 0.0, "grab": false, "jump": false, "look_at": [0.5, 0.5], "read": ""}"#).unwrap();
        assert!(a.is_empty(), "{a:?}");
        assert!(a.order.is_empty());
        assert!(parse(r#"{"rationale": "thinking"}"#).unwrap().is_empty());
    }
}
