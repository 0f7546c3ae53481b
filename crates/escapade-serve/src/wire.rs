//! What goes over the wire: the reset parameters, the action forms, and the observation
//! an episode's turn or ending becomes — in the shapes of openenv-core 0.3.0
//! (`ResetRequest`, `StepRequest`, `StepResponse`: `{"observation", "reward", "done"}`).

use std::collections::BTreeMap;

use base64::Engine;
use escapade_core::reward::{Reward, Standing};
use escapade_core::{Action, Observation, Step, action::FunctionCall};
use escapade_run::remote::{Ending, Seen, Turn};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::ServeError;

/// The parameters of a reset (OpenEnv's `seed` and `episode_id`, and escapade's own).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResetParams {
    /// Seed given to the environment's `reset` (default 0): same seed and same actions,
    /// same observations, on any server.
    pub seed: Option<u64>,
    /// The client's name for the episode (OpenEnv); one is made when absent.
    pub episode_id: Option<String>,
    /// A suite name (`visescape@4`); with `index`, which scenario of it.
    pub suite: Option<String>,
    /// The scenario's index in `suite` (default 0).
    pub index: Option<usize>,
    /// A scenario, inline: its JSON object (or that JSON as a string).
    pub scenario: Option<Value>,
    /// The world's environment options (`-W key=value`); values may be strings, numbers
    /// or booleans.
    #[serde(default)]
    pub options: BTreeMap<String, Value>,
    /// In a world whose roles take turns (comma), the one role the client plays; a
    /// `partner` agent plays the others. Absent: the client plays every role in turn.
    pub role: Option<String>,
    /// The baseline agent in the other roles (`oracle`, `random`, …).
    pub partner: Option<String>,
    /// Start where a recorded episode stood before a step, as `escapade run --from`
    /// forks it: a run this server recorded (see [`FromParams`]).
    pub from: Option<FromParams>,
    /// A cap on steps (default the runner's).
    pub max_steps: Option<u32>,
    /// A label for who played, recorded in run.toml (`participant`).
    pub participant: Option<String>,
    /// How often an unreadable reply is asked again without a step: `world` (default:
    /// the world's re-ask limit, then the reply is stepped, as `escapade run` does —
    /// the papers' protocol) or `unlimited` (as a person playing is asked).
    pub reasks: Option<String>,
    /// HTTP only: the session to reset (absent: a new session).
    pub session_id: Option<String>,
}

/// `from` of a reset: `{"run": NAME, "episode": "SCENARIO[:EPOCH]", "step": K}`. `run`
/// is the name of a run directory in the server's `--record` directory (the state's
/// `run_dir` of an episode played there), never a path: a client reads nothing else of
/// the server's disk.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FromParams {
    /// The run directory's name.
    pub run: String,
    /// Which of its episodes: `SCENARIO[:EPOCH]`.
    pub episode: String,
    /// The step the client plays first (from 1): the steps before it are replayed.
    pub step: u32,
}

impl FromParams {
    /// The run's name, checked to be one directory name (no separator, no `..`).
    pub fn run_name(&self) -> Result<&str, ServeError> {
        let name = self.run.as_str();
        let plain =
            !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0']);
        if plain {
            Ok(name)
        } else {
            Err(ServeError::Invalid(
                "`from.run` is the name of a run directory this server recorded (the state's \
                 `run_dir`), not a path"
                    .into(),
            ))
        }
    }
}

impl ResetParams {
    /// Reads the parameters from a JSON value (an absent body is `{}`).
    pub fn from_value(value: Value) -> Result<ResetParams, ServeError> {
        let value = match value {
            Value::Null => json!({}),
            v => v,
        };
        serde_json::from_value(value).map_err(|e| {
            ServeError::Invalid(format!(
                "bad reset parameters: {e} (known: seed, episode_id, suite, index, scenario, \
                 options (the world's, and `reward`), role, partner, from, max_steps, \
                 participant, reasks, session_id)"
            ))
        })
    }

    /// The re-ask rule asked for.
    pub fn reasks(&self) -> Result<escapade_run::Reasks, ServeError> {
        match self.reasks.as_deref() {
            None | Some("world") => Ok(escapade_run::Reasks::World),
            Some("unlimited") => Ok(escapade_run::Reasks::Unlimited),
            Some(other) => Err(ServeError::Invalid(format!(
                "`reasks` is `world` or `unlimited`, not `{other}`"
            ))),
        }
    }

    /// The reward asked for (`options.reward`: `progress`, the default, `sparse` or
    /// `distance`; see [`escapade_core::reward`]). Not a world option: the world never
    /// sees it, and the papers' metrics do not change.
    pub fn reward(&self) -> Result<Reward, ServeError> {
        match self.options.get("reward") {
            None => Ok(Reward::default()),
            Some(Value::String(s)) => {
                Reward::parse(s).map_err(|e| ServeError::Invalid(e.to_string()))
            }
            Some(other) => Err(ServeError::Invalid(format!(
                "`options.reward` is one of {}, not {other}",
                Reward::NAMES.join(", ")
            ))),
        }
    }

    /// The world options as strings (without `reward`, which is the server's).
    pub fn world_options(&self) -> Result<BTreeMap<String, String>, ServeError> {
        self.options
            .iter()
            .filter(|(k, _)| k.as_str() != "reward")
            .map(|(k, v)| {
                let text = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    other => {
                        return Err(ServeError::Invalid(format!(
                            "world option `{k}` must be a string, number or boolean, not {other}"
                        )));
                    }
                };
                Ok((k.clone(), text))
            })
            .collect()
    }
}

/// Reads an action: `{"text": "…"}` (the world's text protocol), `{"name": "…",
/// "arguments": {…} or "…"}` (a function call), `{"calls": [{"name", "arguments"}, …]}`
/// (several calls of one reply), or escapade's own `{"kind": …}` form. OpenEnv's
/// `metadata` key is allowed and ignored.
pub fn action(value: &Value) -> Result<Action, ServeError> {
    let Value::Object(map) = value else {
        return Err(bad_action("an action is a JSON object"));
    };
    if map.contains_key("kind") {
        let mut clean = map.clone();
        clean.remove("metadata");
        return serde_json::from_value(Value::Object(clean))
            .map_err(|e| bad_action(&format!("not an action: {e}")));
    }
    let known = |k: &str| matches!(k, "text" | "name" | "arguments" | "calls" | "metadata");
    if let Some(k) = map.keys().find(|k| !known(k)) {
        return Err(bad_action(&format!("unknown field `{k}`")));
    }
    match (map.get("text"), map.get("name"), map.get("calls")) {
        (Some(Value::String(t)), None, None) => Ok(Action::text(t.clone())),
        (None, Some(_), None) => call(value).map(|c| Action::call(c.name, c.arguments)),
        (None, None, Some(Value::Array(calls))) => match calls.len() {
            0 => Err(bad_action("`calls` is empty")),
            _ => Ok(Action::Calls {
                calls: calls.iter().map(call).collect::<Result<_, _>>()?,
            }),
        },
        (Some(_), None, None) => Err(bad_action("`text` must be a string")),
        (None, None, Some(_)) => Err(bad_action("`calls` must be a list")),
        (None, None, None) => Err(bad_action("no `text`, `name` or `calls`")),
        _ => Err(bad_action("give one of `text`, `name` or `calls`")),
    }
}

fn call(value: &Value) -> Result<FunctionCall, ServeError> {
    let name = match value.get("name") {
        Some(Value::String(n)) => n.clone(),
        _ => return Err(bad_action("a call's `name` must be a string")),
    };
    let arguments = match value.get("arguments") {
        None | Some(Value::Null) => "{}".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    };
    Ok(FunctionCall { name, arguments })
}

fn bad_action(why: &str) -> ServeError {
    ServeError::Invalid(format!(
        "bad action: {why}; send {{\"text\": \"…\"}}, {{\"name\": \"…\", \"arguments\": {{…}}}} \
         or {{\"calls\": [{{\"name\": \"…\", \"arguments\": {{…}}}}, …]}}"
    ))
}

/// An observation's pictures as JSON: PNG bytes in base64, their address and alt text.
fn images(observation: &Observation) -> Value {
    let b64 = base64::engine::general_purpose::STANDARD;
    observation
        .images
        .iter()
        .map(|i| json!({"sha256": i.sha256, "png_base64": b64.encode(&i.png), "alt": i.alt}))
        .collect()
}

/// The parts of a step the client is told: the world's answer to its action.
fn step_fields(step: Option<&Step>) -> (Value, Value, Value) {
    match step {
        Some(s) => (json!(s.feedback), json!(s.valid()), json!(s.error)),
        None => (Value::Null, Value::Null, Value::Null),
    }
}

/// What the client sees, as OpenEnv's `{"observation", "reward", "done"}`: `reward` is
/// the increase of task progress since `before` (`None`: at reset, no reward), so an
/// episode's rewards add up to its final progress; `done` is `terminated or truncated`.
/// `rules` goes with the first observation of an episode. The observation's `metadata`
/// (OpenEnv's free-form field) holds `steps_to_go`, the oracle's distance from the
/// current state (`null` where the world cannot say).
pub fn result(seen: &Seen, before: Option<f64>, rules: Option<&str>, steps: u32) -> Value {
    match seen {
        Seen::Turn(turn) => turn_result(turn, before, rules, steps),
        Seen::Over(ending) => ending_result(ending, before, steps),
    }
}

fn turn_result(turn: &Turn, before: Option<f64>, rules: Option<&str>, steps: u32) -> Value {
    let o = &turn.observation;
    let (feedback, valid, error) = step_fields(turn.last.as_ref());
    let progress = turn.progress();
    json!({
        "observation": {
            "text": o.text,
            "images": images(o),
            "actions": o.actions,
            "role": o.role,
            "tools": turn.tools,
            "rules": rules,
            "unreadable": turn.unreadable,
            "feedback": feedback,
            "valid": valid,
            "error": error,
            "progress": progress,
            "step": steps,
            "terminated": false,
            "truncated": false,
            "success": null,
            "metrics": null,
            "episode_error": null,
            "metadata": { "steps_to_go": turn.steps_to_go },
        },
        "reward": before.map(|b| progress - b),
        "done": false,
    })
}

fn ending_result(ending: &Ending, before: Option<f64>, steps: u32) -> Value {
    let last = ending.last.as_ref();
    let empty = Observation::default();
    let o = last.map_or(&empty, |s| &s.observation);
    let (feedback, valid, error) = step_fields(last);
    let progress = last.map_or(before.unwrap_or(0.0), |s| s.progress);
    json!({
        "observation": {
            "text": o.text,
            "images": images(o),
            "actions": null,
            "role": o.role,
            "tools": [],
            "rules": null,
            "unreadable": null,
            "feedback": feedback,
            "valid": valid,
            "error": error,
            "progress": progress,
            "step": steps.max(ending.steps),
            "terminated": ending.terminated,
            "truncated": ending.truncated,
            "success": ending.success,
            "metrics": ending.metrics,
            "episode_error": ending.error,
            "metadata": { "steps_to_go": ending.steps_to_go() },
        },
        "reward": before.map(|b| progress - b),
        "done": true,
    })
}

/// Where the episode stands in an answer of [`result`].
pub fn standing(result: &Value) -> Standing {
    let o = &result["observation"];
    Standing {
        progress: o["progress"].as_f64().unwrap_or(0.0),
        steps_to_go: o["metadata"]["steps_to_go"]
            .as_u64()
            .and_then(|n| u32::try_from(n).ok()),
        success: o["success"].as_bool().unwrap_or(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_forms() {
        assert_eq!(
            action(&json!({"text": "look"})).unwrap(),
            Action::text("look")
        );
        assert_eq!(
            action(&json!({"name": "f", "arguments": {"a": 1}})).unwrap(),
            Action::call("f", "{\"a\":1}")
        );
        assert_eq!(
            action(&json!({"name": "f", "arguments": "{bad"})).unwrap(),
            Action::call("f", "{bad")
        );
        assert_eq!(
            action(&json!({"name": "f"})).unwrap(),
            Action::call("f", "{}")
        );
        assert_eq!(
            action(&json!({"text": "x", "metadata": {"k": 1}})).unwrap(),
            Action::text("x")
        );
        assert!(matches!(
            action(&json!({"calls": [{"name": "a"}, {"name": "b", "arguments": {}}]})).unwrap(),
            Action::Calls { calls } if calls.len() == 2
        ));
        assert_eq!(
            action(&json!({"kind": "text", "text": "k"})).unwrap(),
            Action::text("k")
        );
    }

    #[test]
    fn bad_actions_say_what_to_send() {
        for bad in [
            json!("look"),
            json!({}),
            json!({"text": 3}),
            json!({"text": "a", "name": "b"}),
            json!({"calls": []}),
            json!({"calls": {}}),
            json!({"name": 3}),
            json!({"texts": "a"}),
            json!({"kind": "fly"}),
        ] {
            let e = action(&bad).unwrap_err();
            assert!(matches!(e, ServeError::Invalid(_)), "{bad}");
            assert!(e.to_string().starts_with("bad action"), "{e}");
        }
    }

    #[test]
    fn reset_parameters() {
        let p = ResetParams::from_value(json!({"suite": "s@1", "index": 2, "seed": 7,
            "options": {"a": 1, "b": true, "c": "x"}}))
        .unwrap();
        assert_eq!(
            (p.suite.as_deref(), p.index, p.seed),
            (Some("s@1"), Some(2), Some(7))
        );
        let o = p.world_options().unwrap();
        assert_eq!(o["a"], "1");
        assert_eq!(o["b"], "true");
        assert!(
            ResetParams::from_value(Value::Null)
                .unwrap()
                .suite
                .is_none()
        );
        let e = ResetParams::from_value(json!({"siute": "x"})).unwrap_err();
        assert!(e.to_string().contains("siute"), "{e}");
        assert!(ResetParams::from_value(json!({"seed": -1})).is_err());
        let p = ResetParams::from_value(json!({"options": {"a": [1]}})).unwrap();
        assert!(p.world_options().is_err());
    }
}
