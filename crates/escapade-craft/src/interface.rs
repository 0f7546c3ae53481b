//! What the craft world says to an agent: the system prompt, the observation text around
//! each frame, and the function schema for tool-calling models.
//!
//! Why its own module: the wording is part of the benchmark. The default
//! ([`PromptStyle::Paper`]) follows MM-Escape's prompts (App. K) point by point in our
//! own words: Table 13's instruction part (you are locked in, escape; explore, interact,
//! solve; a locked door needs a key or a password) and operation part (each JSON key,
//! its range and meaning, the reply format, "every field is optional", "reply with the
//! JSON only"), and Table 14's step prompt (the interaction result, the bag, a nudge to
//! act, the format again). The one sentence added to Table 13 says how the keys of one
//! reply are taken (the original client's order, see [`crate::env`]), which the paper's
//! prompt leaves unsaid. [`PromptStyle::Helpful`] appends escapade's help (where props
//! lie, how far a grab reaches, what opening a box does) and the steps left. No number
//! in any prompt has four digits, so that a password check on observations never
//! matches the prompt.

use escapade_core::ToolSchema;

use crate::action::MAX_FIELD;
use crate::env::PromptStyle;
use serde_json::json;

/// The function name for tool-calling models; its arguments are the action object.
pub const TOOL_NAME: &str = "act";

/// The reply format, as Tables 13 and 14 give it (key names and value types).
const FORMAT: &str = r#"{
    "move_forward": float,
    "rotate_right": float,
    "rotate_down": float,
    "jump": bool,
    "look_at": [x: float, y: float],
    "grab": bool,
    "interactions": {
        "use_item_id": str,
        "input": str
    },
    "read": str,
    "rationale": str
}"#;

/// The system prompt: Table 13 (instruction and operation parts) in our words, with
/// escapade's help appended for [`PromptStyle::Helpful`].
pub fn system_prompt(style: PromptStyle) -> String {
    let mut p = format!(
        "You are locked inside a room, and your final goal is to get out of it: this is a \
room escape game.\n\n\
You may explore the room, interact with objects, examine items and solve puzzles. If a \
door is locked or does not respond, you will probably have to look for a key or a \
password to unlock it as you interact with the room. These are the actions you can take \
to explore the room and interact with objects:\n\n\
- move_forward: float between -10 and 10. How many metres to move forward (a negative \
number moves you backwards).\n\
- rotate_right: float between -180 and 180. How many degrees to turn to the right (a \
negative number turns you left).\n\
- rotate_down: float between -90 and 90. How many degrees to tilt your view: a positive \
number looks down, a negative one looks up, and 0 looks straight ahead.\n\
- jump: bool. Whether to jump (it can go together with move_forward); true means jump.\n\
- look_at: list [x: float, y: float], x and y between 0 and 1. The point of the picture \
you want to look at: the top-left corner of the picture is (0, 0) and the bottom-right \
corner is (1, 1). There are no clues on the ceiling.\n\
- grab: bool. Whether to interact with the object exactly at the centre of the picture, \
which a red dot marks. For example, to pick up a key, or to interact with (or open) a box \
at the centre of the picture, set grab to true. The red dot shows which object you will \
interact with; you may have to turn, tilt or move closer (rotate_right, rotate_down, \
move_forward) to bring the dot onto your target. To grab an object, centre it under the \
red dot and be within a certain distance of it. If a grab fails, move closer to the \
object. If it keeps failing from the same place, keep in mind that not every object can \
be interacted with, and do not get stuck at one that cannot.\n\
- interactions: dict {{\"use_item_id\": str, \"input\": str}}. use_item_id is the item_id \
of an item you want to view or use; together with grab = true it uses that item on the \
object you want to grab (for example the item_id of a key, to open the door in the \
picture). input is a message you want to enter into the object at the centre of the \
picture.\n\
- read: str. The item_id of an item in your bag that you want detailed information \
about.\n\
- rationale: str. Why you chose this action: explain how you decided.\n\n\
Several of these can go in one reply. grab (with its interactions) and read act at once, \
on the picture you were just shown; look_at, rotate_right, rotate_down, move_forward and \
jump are then carried out one after the other, in the order you wrote them.\n\n\
Reply with a JSON string in this format to act in the room:\n{FORMAT}\n\n\
Every field is optional: a field you leave out does nothing.\n\n\
Follow these instructions, and reply with nothing but the JSON string of your actions."
    );
    if style == PromptStyle::Helpful {
        p.push_str(
            "\n\nSome help:\n\
- Keys and notes can lie on furniture, and locked boxes may hold more of them.\n\
- Each turn you see one picture of what is in front of you; whatever is under the red \
dot is what your hands act on.\n\
- A grab reaches about an arm's length, a metre or so, measured along the floor.\n\
- Walls and furniture stop a walk.\n\
- When you open a box, what it holds goes straight into your bag; read a note in your \
bag with read.",
        );
    }
    p
}

/// The step prompt that closes every observation (Table 14, after the interaction
/// result and the bag).
pub fn step_prompt() -> String {
    format!(
        "Decide on the next action or actions that could help you see more of the room or \
get useful tools or clues. If you are stuck in a corner, turn around with rotate_right. \
Reply with a JSON string in this format, and nothing else:\n{FORMAT}"
    )
}

/// The text of an observation (Table 14): the interaction result, the bag, and the step
/// prompt; [`PromptStyle::Helpful`] adds the steps left.
pub fn observation_text(
    result: &str,
    bag: &str,
    steps_left: Option<u32>,
    style: PromptStyle,
) -> String {
    let left = match (style, steps_left) {
        (PromptStyle::Helpful, Some(n)) => format!("Steps left: {n}.\n\n"),
        _ => String::new(),
    };
    format!(
        "Interaction result:\n{result}\n\nInventory:\nThe items in your bag that you can \
use:\n{bag}\n\n{left}{}",
        step_prompt()
    )
}

/// The function schema for tool-calling models: one function whose arguments are the
/// action object.
pub fn tool_schemas() -> Vec<ToolSchema> {
    vec![ToolSchema {
        name: TOOL_NAME.into(),
        description: "Act in the room: look, turn, walk, grab or use what is under the red \
dot, read an item in your bag. Every field is optional; several combine in one turn \
(grab and read act on the picture you were shown, then the motions run in the order \
given)."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "move_forward": {"type": "number", "description": "metres to walk ahead (negative: back), -10 to 10"},
                "rotate_right": {"type": "number", "description": "degrees to turn right (negative: left), -180 to 180"},
                "rotate_down": {"type": "number", "description": "degrees to tilt the view down (negative: up), -90 to 90"},
                "jump": {"type": "boolean"},
                "look_at": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2,
                    "description": "[x, y] between 0 and 1: the picture point to look at"},
                "grab": {"type": "boolean", "description": "interact with the object under the red dot"},
                "interactions": {"type": "object", "properties": {
                    "use_item_id": {"type": "string", "maxLength": MAX_FIELD, "description": "an item id from your bag to use on the object under the red dot (with grab)"},
                    "input": {"type": "string", "maxLength": MAX_FIELD, "description": "text to enter into the object under the red dot (with grab)"}
                }},
                "read": {"type": "string", "maxLength": MAX_FIELD, "description": "an item id from your bag to read"},
                "rationale": {"type": "string"}
            }
        }),
    }]
}
