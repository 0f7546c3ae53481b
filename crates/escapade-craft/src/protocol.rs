//! What the craft world says to an agent: the system prompt, the step prompt around each
//! frame, and the function schema for tool-calling models.
//!
//! Why its own module: the wording is part of the benchmark. It follows the structure of
//! MM-Escape's prompts (App. K): an instruction part (you are locked in, find the exit,
//! props and clues may be needed) and an operation part (the JSON keys of Table 13 and
//! what each does), then per step the interaction result, the bag, and a nudge to act
//! (Table 14). The text is our own; no number in it has four digits, so that a
//! password check on observations never matches the prompt.

use escapade_core::ToolSchema;

use crate::action::MAX_FIELD;
use serde_json::json;

/// The function name for tool-calling models; its arguments are the action object.
pub const TOOL_NAME: &str = "act";

const FORMAT: &str = r#"{
  "move_forward": <metres, -10 to 10>,
  "rotate_right": <degrees, -180 to 180>,
  "rotate_down": <degrees, -90 to 90>,
  "jump": <true or false>,
  "look_at": [<x, 0 to 1>, <y, 0 to 1>],
  "grab": <true or false>,
  "interactions": {"use_item_id": "<an item id from your bag>", "input": "<text to enter>"},
  "read": "<an item id from your bag>",
  "rationale": "<why you chose this>"
}"#;

/// The system prompt (after MM-Escape App. K, Table 13, in our own words).
pub fn system_prompt() -> String {
    format!(
        "You are shut inside a room and your goal is to get out: this is a room escape \
game.\n\n\
Walk around, look at things, pick up what may help and solve what stands in your way. A \
door that will not open usually needs a key or a code; look for them around the room. \
Keys and notes can lie on furniture, and locked boxes may hold more of them. Each turn \
you see one picture of what is in front of you. A small red dot marks the centre of the \
picture: whatever is under the dot is what your hands act on.\n\n\
You act by replying with one JSON object. Every key is optional and several may be \
combined in one turn; they are carried out in this order: look_at, rotate_right, \
rotate_down, move_forward, jump, grab and interactions, read.\n\
- look_at: [x, y] with x and y between 0 and 1, a point of the picture you were just \
shown ([0, 0] is its top-left corner, [1, 1] its bottom-right, [0.5, 0.5] its centre). \
You turn so that this point comes under the red dot.\n\
- rotate_right: degrees to turn right; negative turns left.\n\
- rotate_down: degrees to tilt your view down; negative tilts it up. 0 is level, and \
the tilt is kept between straight down and straight up.\n\
- move_forward: metres to walk straight ahead; negative walks backwards. Walls and \
furniture stop you; you are told how far you got.\n\
- jump: true to jump.\n\
- grab: true to act on the thing under the red dot: take a key or a note into your \
bag, open a box or a door. You must be close to it (about an arm's length, a metre or \
so, measured along the floor). If a grab fails, move closer or aim better; not every \
object can be used.\n\
- interactions: use_item_id names an item in your bag to use on the thing under the red \
dot (for example a key on a locked box or door); input is text to enter into the thing \
under the red dot (for example a code on a keypad). Combine them with grab: true.\n\
- read: the id of an item in your bag to read it (a note).\n\
- rationale: a sentence on why you act so.\n\n\
When you open a box, what it holds goes straight into your bag. There are no clues on \
the ceiling.\n\n\
Reply with the JSON object only, in this shape:\n{FORMAT}"
    )
}

/// The closing part of every observation (after Table 14).
pub fn step_prompt() -> String {
    format!(
        "Choose your next action: something that shows you more of the room, or gets you a \
useful item or clue. If you are stuck against a wall or in a corner, turn around with \
rotate_right. Reply with the JSON object only:\n{FORMAT}"
    )
}

/// The function schema for tool-calling models: one function whose arguments are the
/// action object.
pub fn tool_schemas() -> Vec<ToolSchema> {
    vec![ToolSchema {
        name: TOOL_NAME.into(),
        description: "Act in the room: look, turn, walk, grab or use what is under the red \
dot, read an item in your bag. Every field is optional; several combine in one turn."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "look_at": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2,
                    "description": "[x, y] between 0 and 1: the picture point to bring under the red dot"},
                "rotate_right": {"type": "number", "description": "degrees to turn right (negative: left), -180 to 180"},
                "rotate_down": {"type": "number", "description": "degrees to tilt the view down (negative: up), -90 to 90"},
                "move_forward": {"type": "number", "description": "metres to walk ahead (negative: back), -10 to 10"},
                "jump": {"type": "boolean"},
                "grab": {"type": "boolean", "description": "act on the thing under the red dot"},
                "interactions": {"type": "object", "properties": {
                    "use_item_id": {"type": "string", "maxLength": MAX_FIELD, "description": "an item id from your bag to use on the thing under the red dot"},
                    "input": {"type": "string", "maxLength": MAX_FIELD, "description": "text to enter into the thing under the red dot"}
                }},
                "read": {"type": "string", "maxLength": MAX_FIELD, "description": "an item id from your bag to read"},
                "rationale": {"type": "string"}
            }
        }),
    }]
}
