//! Checkpoints: an episode interrupted at a step boundary, and how `resume` continues it.
//!
//! Why: a model's step can take minutes; the first Ctrl-C used to wait for every episode
//! in flight to finish (37 minutes with a slow model), and a killed run replayed its
//! episodes from their start, paying for every step again. Now the first Ctrl-C cancels
//! the model calls in flight and writes, for each episode that took a step, a
//! [`Checkpoint`] beside its trajectory (`checkpoints/<scenario>/<epoch>.json`): the
//! number of steps recorded and the hash of their rows.
//!
//! `resume` continues such an episode at the next step. Worlds are deterministic (same
//! seed, same actions, same observations), so the environment is rebuilt by replaying the
//! recorded actions; the agent is rebuilt by replaying the same steps through a fresh
//! agent whose model calls are answered from the recorded replies ([`Tape`], given to
//! [`escapade_agents::AsyncAgent::replay_with`]), so its conversation, memory and
//! counters are what they were, whatever the agent keeps. Nothing is sent to the
//! provider for a replayed step. Every replayed step is checked: the observation the
//! environment gives again against the recorded one, the agent's request against the
//! recorded request's SHA-256, the action and the world's answer against the row. A
//! difference (a world that is not deterministic, a changed agent) refuses the
//! checkpoint: the episode is played again from its start, with a warning.

use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use escapade_core::{Checkpoint, FORMAT_VERSION, Observation, Step, StepRow, hash};
use escapade_llm::{Backend, ChatRequest, ChatResponse, Client, ClientOptions, LlmError, ToolCall};
use serde_json::Value;

use crate::error::RunError;
use crate::rundir::RunDir;
use crate::runner::{Episode, Played};

/// One model reply of the main chain of a recorded turn: a rejected reply (a re-ask
/// followed) or the reply the step's action came from.
#[derive(Debug)]
struct Reply {
    response: ChatResponse,
    /// SHA-256 of the request that got it, when the row recorded it (the step's last
    /// request; re-asked replies keep none).
    sha256: Option<String>,
    /// The step it belongs to, for messages.
    step: u32,
    /// The row says the agent dropped older exchanges after the provider refused a
    /// prompt as too long: a request that differs from the recorded one is answered
    /// with that refusal, so the agent trims as it did.
    trimmed: bool,
}

#[derive(Debug, Default)]
struct TapeState {
    /// Replies of side calls (captions, VisEscaper's memory and analysis), by the
    /// SHA-256 of their request.
    keyed: BTreeMap<String, VecDeque<ChatResponse>>,
    /// The turns' replies, in order.
    main: VecDeque<Reply>,
    /// What went wrong first, kept so that the runner can say it.
    failure: Option<String>,
}

/// A model backend that answers from the replies recorded in step rows: what a replayed
/// agent is given ([`Tape::client`]). A request it cannot answer with its recorded reply
/// fails with [`LlmError::Config`], a permanent error, so the replay stops at once.
#[derive(Debug, Default)]
pub struct Tape {
    state: Mutex<TapeState>,
    /// The requests of turns before this step are not checked against the recorded
    /// ones: another model (a fork that keeps the origin's conversation) asks in other
    /// bytes. 0: every request is checked; `u32::MAX`: none is.
    lenient_before: u32,
}

impl Tape {
    /// The replies recorded in `rows`, in order.
    pub fn from_rows(rows: &[StepRow]) -> Tape {
        let mut state = TapeState::default();
        for row in rows {
            // a turn without a request record was not a model's (a baseline member)
            let Some(request) = row.request.as_ref().filter(|r| r.get("sha256").is_some()) else {
                continue;
            };
            side_calls(request, &mut state.keyed);
            let trimmed = request.get("history_trimmed_before").is_some();
            for reask in &row.reasks {
                state.main.push_back(Reply {
                    response: response_of(reask.raw_response.as_deref().unwrap_or(""), None),
                    sha256: None,
                    step: row.step,
                    trimmed,
                });
            }
            state.main.push_back(Reply {
                response: response_of(
                    row.raw_response.as_deref().unwrap_or(""),
                    row.reasoning.clone(),
                ),
                sha256: request
                    .get("sha256")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                step: row.step,
                trimmed,
            });
        }
        Tape {
            state: Mutex::new(state),
            lenient_before: 0,
        }
    }

    /// [`Tape::from_rows`] that gives the turns' replies in order whatever the requests
    /// (a fork's agent, of another model, rebuilding the origin's conversation). Side
    /// calls are still found by their request only.
    pub fn lenient(rows: &[StepRow]) -> Tape {
        Tape::lenient_before(rows, u32::MAX)
    }

    /// The replies recorded in `rows`, the requests of steps before `step` unchecked:
    /// a checkpointed fork, whose steps before its fork step were the origin model's
    /// and whose later ones are its own agent's.
    pub fn lenient_before(rows: &[StepRow], step: u32) -> Tape {
        Tape {
            lenient_before: step,
            ..Tape::from_rows(rows)
        }
    }

    /// A client over this tape for [`escapade_agents::AsyncAgent::replay_with`]: no
    /// retries (a refused replay fails at once).
    pub fn client(self: &Arc<Self>) -> Client {
        let options = ClientOptions {
            max_retries: 0,
            ..ClientOptions::default()
        };
        Client::new(self.clone(), &options)
    }

    /// Recorded replies nobody asked for: a replay that ends with some left asked the
    /// model less than the recorded run did.
    pub fn left(&self) -> usize {
        let state = self.lock();
        state.main.len() + state.keyed.values().map(VecDeque::len).sum::<usize>()
    }

    /// The first refusal, if any.
    pub fn failure(&self) -> Option<String> {
        self.lock().failure.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TapeState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn answer(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let bytes = serde_json::to_vec(request).map_err(|e| LlmError::Config(e.to_string()))?;
        let sha = hash::sha256_hex(&bytes);
        let mut state = self.lock();
        if let Some(queue) = state.keyed.get_mut(&sha)
            && let Some(response) = queue.pop_front()
        {
            return Ok(response);
        }
        let refuse = |state: &mut TapeState, why: String| {
            let why = format!("replaying the recorded steps: {why}");
            state.failure.get_or_insert(why.clone());
            Err(LlmError::Config(why))
        };
        let Some(next) = state.main.front() else {
            return refuse(
                &mut state,
                "the agent asked the model more often than the recorded run did".into(),
            );
        };
        match &next.sha256 {
            Some(want) if *want != sha && next.step >= self.lenient_before => {
                if next.trimmed {
                    // the recorded agent was refused this prompt as too long and trimmed
                    return Err(LlmError::Http {
                        status: 400,
                        body: "context length exceeded (as recorded)".into(),
                        retry_after: None,
                    });
                }
                let step = next.step;
                refuse(
                    &mut state,
                    format!("the agent's request at step {step} is not the one recorded"),
                )
            }
            _ => Ok(state.main.pop_front().expect("looked at above").response),
        }
    }
}

impl Backend for Tape {
    fn name(&self) -> String {
        "replay/checkpoint".into()
    }

    // what `#[async_trait]` expands to (the crate is not a dependency here)
    fn chat<'a, 'b, 'c>(
        &'a self,
        request: &'b ChatRequest,
    ) -> Pin<Box<dyn Future<Output = Result<ChatResponse, LlmError>> + Send + 'c>>
    where
        'a: 'c,
        'b: 'c,
        Self: 'c,
    {
        let answer = self.answer(request);
        Box::pin(async move { answer })
    }
}

/// Adds the side calls a request record holds (objects with the `sha256` of their
/// request and the `reply` or `caption` they got, at its top level or in a list there,
/// as VisEscaper's `memory` and `analysis` and the captions are recorded).
fn side_calls(request: &Value, keyed: &mut BTreeMap<String, VecDeque<ChatResponse>>) {
    let Some(fields) = request.as_object() else {
        return;
    };
    let mut add = |v: &Value| {
        let sha = v.get("sha256").and_then(Value::as_str);
        let text = v
            .get("reply")
            .or_else(|| v.get("caption"))
            .and_then(Value::as_str);
        if let (Some(sha), Some(text)) = (sha, text) {
            keyed
                .entry(sha.to_string())
                .or_default()
                .push_back(ChatResponse {
                    text: text.to_string(),
                    ..ChatResponse::default()
                });
        }
    };
    for value in fields.values() {
        match value {
            Value::Object(_) => add(value),
            Value::Array(items) => items.iter().for_each(&mut add),
            _ => {}
        }
    }
}

/// The reply a step row's `raw_response` records: the text, or `{"text", "tool_calls"}`
/// JSON when the model called functions.
pub(crate) fn response_of(raw: &str, reasoning: Option<String>) -> ChatResponse {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Calls {
        text: String,
        tool_calls: Vec<ToolCall>,
    }
    let (text, tool_calls) = match serde_json::from_str::<Calls>(raw) {
        Ok(c) if !c.tool_calls.is_empty() => (c.text, c.tool_calls),
        _ => (raw.to_string(), Vec::new()),
    };
    ChatResponse {
        text,
        tool_calls,
        reasoning,
        ..ChatResponse::default()
    }
}

/// Why `observation` (what the environment gives again) is not what `row` recorded, if
/// it is not: the text, the pictures (by SHA-256), their descriptions, the role.
pub fn observation_differs(observation: &Observation, row: &StepRow) -> Option<String> {
    let logged = &row.observation;
    if observation.text != logged.text {
        return Some("the observation's text differs from the recorded one".into());
    }
    let shas: Vec<&str> = observation
        .images
        .iter()
        .map(|i| i.sha256.as_str())
        .collect();
    if shas != logged.images.iter().map(String::as_str).collect::<Vec<_>>() {
        return Some("the observation's pictures differ from the recorded ones".into());
    }
    if !logged.descriptions.is_empty() {
        let alts: Vec<String> = observation
            .images
            .iter()
            .map(|i| i.alt.clone().unwrap_or_default())
            .collect();
        if alts != logged.descriptions {
            return Some("the pictures' descriptions differ from the recorded ones".into());
        }
    }
    let role = observation.role.as_deref().unwrap_or("agent");
    if role != row.role {
        return Some(format!(
            "it is `{role}`'s turn, but the recorded step was `{}`'s",
            row.role
        ));
    }
    None
}

/// Why the world's answer `step` is not what `row` recorded, if it is not.
pub fn step_differs(step: &Step, row: &StepRow) -> Option<String> {
    let progress = if step.progress.is_finite() {
        step.progress
    } else {
        0.0
    };
    let same = step.feedback == row.feedback
        && step.valid() == row.valid
        && step.terminated == row.terminated
        && step.truncated == row.truncated
        && step.error == row.error
        && progress == row.progress;
    (!same).then(|| "the world's answer differs from the recorded one".to_string())
}

/// The checkpoint of episode `ep` in `dir` with its recorded steps, when it has one;
/// `Err` says why the one there cannot be used (another config, a trajectory changed or
/// cut since it was written).
pub(crate) fn load(
    dir: &RunDir,
    ep: &Episode<'_>,
) -> Result<Option<(Checkpoint, Vec<StepRow>)>, String> {
    let (id, epoch) = (ep.header.id.as_str(), ep.epoch);
    let Some(checkpoint) = dir.read_checkpoint(id, epoch)? else {
        return Ok(None);
    };
    if checkpoint.config_hash != dir.config_hash() {
        return Err("it was made by a run of another configuration".into());
    }
    if checkpoint.scenario != id || checkpoint.epoch != epoch || checkpoint.seed != ep.seed {
        return Err("it names another episode".into());
    }
    if checkpoint.format_version > FORMAT_VERSION {
        return Err(format!(
            "it has format version {}, newer than this escapade's {FORMAT_VERSION}",
            checkpoint.format_version
        ));
    }
    let path = dir.trajectory_path(id, epoch);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let kept = usize::try_from(checkpoint.trajectory_bytes)
        .ok()
        .and_then(|n| bytes.get(..n))
        .ok_or("the trajectory is shorter than its checkpoint says")?;
    if hash::sha256_hex(kept) != checkpoint.trajectory_sha256 {
        return Err("the trajectory changed after the checkpoint was written".into());
    }
    let rows = kept
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(serde_json::from_slice::<StepRow>)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("a step row of the trajectory does not parse: {e}"))?;
    let numbered = rows.iter().zip(1..).all(|(r, n)| r.step == n);
    if rows.len() != checkpoint.steps as usize || !numbered {
        return Err(format!(
            "the trajectory does not hold steps 1 to {}",
            checkpoint.steps
        ));
    }
    Ok(Some((checkpoint, rows)))
}

/// The checkpoint of an episode that `played` ended early, after its trajectory reached
/// the file: the rows there, their hash, the usage and time so far.
pub(crate) fn make(
    dir: &RunDir,
    ep: &Episode<'_>,
    played: &Played,
    duration_ms: u64,
) -> Result<Checkpoint, RunError> {
    let path = dir.trajectory_path(&ep.header.id, ep.epoch);
    let bytes = std::fs::read(&path).map_err(|e| RunError::io("cannot read", &path, e))?;
    let rows = bytes.iter().filter(|&&b| b == b'\n').count();
    if rows != played.steps as usize {
        return Err(RunError::BadFile {
            path,
            message: format!(
                "holds {rows} step rows where {} were written; no checkpoint made",
                played.steps
            ),
        });
    }
    Ok(Checkpoint {
        format_version: FORMAT_VERSION,
        scenario: ep.header.id.clone(),
        epoch: ep.epoch,
        seed: ep.seed,
        config_hash: dir.config_hash().to_string(),
        steps: played.steps,
        trajectory_bytes: bytes.len() as u64,
        trajectory_sha256: hash::sha256_hex(&bytes),
        usage: played.usage,
        duration_ms,
        reason: "interrupted".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use escapade_core::trajectory::LoggedObservation;
    use escapade_core::{Action, Reask, Usage};
    use escapade_llm::{Message, Role};
    use serde_json::json;

    fn request(text: &str) -> ChatRequest {
        ChatRequest {
            messages: vec![Message::text(Role::User, text)],
            ..ChatRequest::default()
        }
    }

    fn sha(r: &ChatRequest) -> String {
        hash::sha256_hex(&serde_json::to_vec(r).unwrap())
    }

    fn row(step: u32, request: Value, raw: &str, reasks: &[&str]) -> StepRow {
        StepRow {
            format_version: FORMAT_VERSION,
            step,
            t_ms: 0,
            role: "agent".into(),
            observation: LoggedObservation::default(),
            request: Some(request),
            raw_response: Some(raw.into()),
            reasoning: None,
            action: Action::text(raw),
            valid: true,
            feedback: String::new(),
            progress: 0.0,
            terminated: false,
            truncated: false,
            usage: Usage::default(),
            error: None,
            results: Vec::new(),
            reasks: reasks
                .iter()
                .map(|r| Reask {
                    raw_response: Some(r.to_string()),
                    action: Action::text(*r),
                    error: "no".into(),
                    usage: Usage::default(),
                })
                .collect(),
            steps_to_go: None,
        }
    }

    #[test]
    fn the_tape_answers_in_order_by_hash_and_refuses_another_request() {
        let (a, b, memory) = (request("a"), request("b"), request("remember"));
        let tools =
            json!({"text": "", "tool_calls": [{"id": "c1", "name": "open", "arguments": "{}"}]});
        let rows = [
            row(1, json!({"sha256": sha(&a)}), "first", &["bad"]),
            row(
                2,
                json!({"sha256": sha(&b), "memory": {"sha256": sha(&memory), "reply": "a room"}}),
                &tools.to_string(),
                &[],
            ),
        ];
        let tape = Tape::from_rows(&rows);
        assert_eq!(tape.left(), 4);
        // a re-asked reply carries no hash: it is given in order
        assert_eq!(tape.answer(&request("anything")).unwrap().text, "bad");
        assert_eq!(tape.answer(&a).unwrap().text, "first");
        // a side call is found by its request, whenever it comes
        assert_eq!(tape.answer(&memory).unwrap().text, "a room");
        let err = tape.answer(&request("not b")).unwrap_err().to_string();
        assert!(err.contains("step 2 is not the one recorded"), "{err}");
        let reply = tape.answer(&b).unwrap();
        assert_eq!(reply.tool_calls[0].name, "open");
        assert_eq!(tape.left(), 0);
        let err = tape.answer(&b).unwrap_err().to_string();
        assert!(err.contains("more often"), "{err}");
        assert!(tape.failure().unwrap().contains("step 2"));
    }

    #[test]
    fn a_trimmed_turn_is_refused_as_too_long_until_the_agent_trims() {
        let trimmed = request("short");
        let rows = [row(
            1,
            json!({"sha256": sha(&trimmed), "history_trimmed_before": 2}),
            "ok",
            &[],
        )];
        let tape = Tape::from_rows(&rows);
        let err = tape.answer(&request("long")).unwrap_err();
        assert!(matches!(err, LlmError::Http { status: 400, .. }), "{err}");
        assert_eq!(tape.answer(&trimmed).unwrap().text, "ok");
    }

    #[test]
    fn a_baseline_turn_takes_no_reply() {
        let mut r = row(1, Value::Null, "x", &["y"]);
        r.request = None;
        assert_eq!(Tape::from_rows(&[r]).left(), 0);
    }
}
