//! The JSON Schemas `GET /schema` answers (OpenEnv's `SchemaResponse`: action,
//! observation, state), written out by hand because the wire forms are this crate's.

use serde_json::{Value, json};

/// `{"action", "observation", "state"}`.
pub fn schemas() -> Value {
    let call = json!({"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "description": "a function of the observation's `tools`"},
        "arguments": {"description": "the arguments: an object, or its JSON as a string"}}});
    json!({
        "action": {
            "title": "Action",
            "description": "one of: free text in the world's text protocol; a function call; \
                several calls of one reply",
            "oneOf": [
                {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}},
                call,
                {"type": "object", "required": ["calls"], "properties": {
                    "calls": {"type": "array", "minItems": 1, "items": call}}}
            ]
        },
        "observation": {
            "title": "Observation",
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "what the agent reads"},
                "images": {"type": "array", "items": {"type": "object", "properties": {
                    "sha256": {"type": "string"},
                    "png_base64": {"type": "string", "description": "PNG file bytes, base64"},
                    "alt": {"type": ["string", "null"], "description": "an exact text description"}}}},
                "actions": {"type": ["array", "null"], "items": {"type": "string"},
                    "description": "the available actions, when the world has a closed set"},
                "role": {"type": ["string", "null"], "description": "whose turn it is (comma: solver, expert)"},
                "tools": {"type": "array", "description": "function schemas of the current state"},
                "rules": {"type": ["string", "null"], "description": "the system prompt (first observation only)"},
                "unreadable": {"type": ["string", "null"], "description": "the last reply could not be read: why (no step spent)"},
                "feedback": {"type": ["string", "null"], "description": "the world's answer to the last action"},
                "valid": {"type": ["boolean", "null"]},
                "error": {"type": ["string", "null"], "description": "the world's error kind of the last action"},
                "progress": {"type": "number", "minimum": 0, "maximum": 1},
                "step": {"type": "integer", "minimum": 0},
                "terminated": {"type": "boolean"},
                "truncated": {"type": "boolean"},
                "success": {"type": ["boolean", "null"], "description": "at the end: escaped"},
                "metrics": {"type": ["object", "null"], "description": "at the end: the world's metrics"},
                "episode_error": {"type": ["string", "null"]}
            }
        },
        "state": {
            "title": "State",
            "type": "object",
            "properties": {
                "episode_id": {"type": ["string", "null"]},
                "step_count": {"type": "integer", "minimum": 0},
                "session_id": {"type": "string"},
                "world": {"type": "string"}, "suite": {"type": "string"},
                "index": {"type": ["integer", "null"]}, "scenario": {"type": "string"},
                "seed": {"type": "integer"}, "role": {"type": ["string", "null"]},
                "partner": {"type": ["string", "null"]}, "roles": {"type": "array"},
                "progress": {"type": "number"}, "done": {"type": "boolean"}
            }
        }
    })
}
