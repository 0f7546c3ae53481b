//! The rows of a run directory (format version [`FORMAT_VERSION`]).
//!
//! `episodes.jsonl` holds one [`EpisodeRow`] per finished episode and
//! `trajectories/<scenario>/<epoch>.jsonl` one [`StepRow`] per step. Both carry
//! `format_version`; a change to either shape bumps it. `escapade schema` prints the JSON
//! Schema generated from these types.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Action;
use crate::env::ActionResult;

/// Version of the run-directory format written by this build.
pub const FORMAT_VERSION: u32 = 1;

/// Token usage, cost and latency of one model call, a step or a whole episode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Usage {
    /// Prompt tokens.
    pub input: u64,
    /// Completion tokens (including reasoning tokens).
    pub output: u64,
    /// Prompt tokens served from the provider's cache.
    pub cached: u64,
    /// Cost in US dollars from the price table (nothing for a reply from the response
    /// cache: it was paid for once, by the run that asked first).
    pub cost_usd: f64,
    /// Wall time spent waiting for the model, in milliseconds.
    pub latency_ms: u64,
    /// The part of `output` the model spent thinking (OpenAI `reasoning_tokens`, an
    /// estimate for Anthropic thinking blocks and a local model's reasoning). Absent
    /// when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning: u64,
    /// Replies answered from escapade's response cache instead of the provider (their
    /// tokens are the cached reply's). Absent when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_hits: u64,
    /// Replies the provider cut at the output token limit (`finish_reason` `length`,
    /// Anthropic `max_tokens`). Absent when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub truncated: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// Adds another usage into this one.
    pub fn add(&mut self, other: &Usage) {
        self.input += other.input;
        self.output += other.output;
        self.cached += other.cached;
        self.cost_usd += other.cost_usd;
        self.latency_ms += other.latency_ms;
        self.reasoning += other.reasoning;
        self.cache_hits += other.cache_hits;
        self.truncated += other.truncated;
    }
}

/// The observation as logged: text and the addresses of its images under `media/`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoggedObservation {
    /// The text the agent read.
    pub text: String,
    /// SHA-256 of each image, stored as `media/<sha>.png`.
    pub images: Vec<String>,
    /// The world's exact description of each image, in `images` order (empty when a
    /// picture has none); absent when no image has one. What a text-only agent read in
    /// place of the picture, and what a judge reads to know what was seen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub descriptions: Vec<String>,
}

/// One step of one episode (`trajectories/<scenario>/<epoch>.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StepRow {
    /// Run-directory format version.
    pub format_version: u32,
    /// Step index, from 1.
    pub step: u32,
    /// Milliseconds since the episode started.
    pub t_ms: u64,
    /// Who acted: `agent` in one-agent worlds; `solver`/`expert` in COMMA.
    pub role: String,
    /// What the agent saw before acting.
    pub observation: LoggedObservation,
    /// Messages sent to the model (or a hash of them); null for baselines.
    pub request: Option<serde_json::Value>,
    /// The model's raw reply; null for baselines.
    pub raw_response: Option<String>,
    /// Reasoning the model exposed, if any.
    pub reasoning: Option<String>,
    /// The action as sent to the environment.
    pub action: Action,
    /// Whether the action parsed and was a legal move.
    pub valid: bool,
    /// The environment's answer.
    pub feedback: String,
    /// Task progress after the step, in [0, 1].
    pub progress: f64,
    /// The task ended at this step.
    pub terminated: bool,
    /// A limit ended the episode at this step.
    pub truncated: bool,
    /// Usage of the model call(s) behind this step.
    pub usage: Usage,
    /// World error kind for a failed action (tools: the B.1 taxonomy), else null; for a
    /// reply with several actions, the first failed action's kind.
    pub error: Option<String>,
    /// The world's answer to each action of a reply that carried several (tools:
    /// AgentEscapeBench App. C), in order. Absent when the world took one action.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<ActionResult>,
    /// Replies the world's parser rejected before this step's action, each with the
    /// message the agent was re-asked with (MM-Escape App. K, VisEscape App. A.5); these
    /// did not cost a step. Absent when the first reply parsed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasks: Vec<Reask>,
    /// The oracle's distance after the step: the fewest steps the world's oracle still
    /// needs to escape, in the unit the world documents; 0 exactly when the episode was
    /// won. Absent where the world cannot say (`docs/world-contract.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps_to_go: Option<u32>,
}

/// A reply the world's parser rejected, and the message the agent was re-asked with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Reask {
    /// The model's raw reply (or the action, for agents without one).
    pub raw_response: Option<String>,
    /// The action the reply was read as.
    pub action: Action,
    /// The parser's message, as shown to the agent.
    pub error: String,
    /// Usage of the model call that produced the rejected reply.
    pub usage: Usage,
}

/// One finished episode (`episodes.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EpisodeRow {
    /// Run-directory format version.
    pub format_version: u32,
    /// Suite name with version, or `file:<name>` for a single scenario file.
    pub suite: String,
    /// Scenario id.
    pub scenario: String,
    /// Scenario content hash.
    pub scenario_hash: String,
    /// World name.
    pub world: String,
    /// Difficulty tier.
    pub difficulty: u32,
    /// Epoch index, from 0.
    pub epoch: u32,
    /// Seed given to `reset` and to the agent.
    pub seed: u64,
    /// Agent name.
    pub agent: String,
    /// Hash of the resolved run configuration (resume never mixes hashes).
    pub config_hash: String,
    /// Whether the agent escaped.
    pub success: bool,
    /// Number of agent actions.
    pub steps: u32,
    /// The world's per-episode metrics (undefined ones are absent).
    pub metrics: BTreeMap<String, f64>,
    /// Total usage over the episode.
    pub usage: Usage,
    /// Wall time of the episode in milliseconds.
    pub duration_ms: u64,
    /// Why the episode could not be played to its end, or null.
    pub error: Option<String>,
    /// The error came from outside the episode (a model backend that kept failing, a
    /// cancelled run), so `resume` plays the episode again and reports prefer the later
    /// row. Absent when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub retryable: bool,
    /// Replies of a turn that never reached the environment: the world's parser rejected
    /// them and the agent then failed before giving one it accepted (each with the
    /// message it was re-asked with). Kept here because no step row holds them. Absent
    /// when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<Reask>,
    /// The oracle's distance at the start of the episode (its steps from the start, in
    /// the world's unit of [`StepRow::steps_to_go`]); a report's regret is `steps` minus
    /// this. Absent where the world cannot say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_steps_to_go: Option<u32>,
    /// The run's step cap (`--max-steps`, recorded in `run.toml`) ended the episode
    /// before the world did: not an error, an episode that did not escape in the steps
    /// it was allowed. Absent when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub step_cap: bool,
    /// The recorded episode this one was forked from (`escapade run --from`): its steps
    /// before `origin.step` are the origin's, replayed, and another agent played on from
    /// there. Absent for an episode played from its start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
}

/// Where a forked episode comes from: a step of a recorded episode (`escapade run --from
/// RUN --episode SCENARIO[:EPOCH] --step K`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Origin {
    /// The origin's run directory, as an absolute path when it could be resolved.
    pub run: String,
    /// The origin run's config hash.
    pub config_hash: String,
    /// The scenario id (the same as the fork's).
    pub scenario: String,
    /// The origin episode's epoch.
    pub epoch: u32,
    /// The step the fork's agent played first; steps before it were replayed from the
    /// origin's actions.
    pub step: u32,
    /// The fork's agent started with an empty conversation at `step` (`--fresh`) instead
    /// of the origin's conversation rebuilt from its recorded replies.
    #[serde(default, skip_serializing_if = "is_false")]
    pub fresh: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// An episode interrupted at a step boundary
/// (`checkpoints/<scenario>/<epoch>.json`): its first `steps` step rows are in its
/// trajectory file, and `escapade resume` continues it at step `steps + 1` — the
/// environment replayed from the recorded actions (worlds are deterministic), the agent's
/// conversation rebuilt from the recorded replies, each replayed observation checked
/// against the recorded one. Removed when the episode's row is written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Checkpoint {
    /// Run-directory format version.
    pub format_version: u32,
    /// Scenario id.
    pub scenario: String,
    /// Epoch index, from 0.
    pub epoch: u32,
    /// The episode's seed.
    pub seed: u64,
    /// Hash of the run configuration (a checkpoint of another config is ignored).
    pub config_hash: String,
    /// Steps completed and recorded: the trajectory's first `steps` rows.
    pub steps: u32,
    /// Byte length of those rows at the start of the trajectory file.
    pub trajectory_bytes: u64,
    /// SHA-256 of those bytes (lowercase hex): a trajectory changed since is not trusted.
    pub trajectory_sha256: String,
    /// Usage of those steps.
    pub usage: Usage,
    /// Wall time of the episode so far, in milliseconds.
    pub duration_ms: u64,
    /// Why the episode stopped there (`interrupted`).
    pub reason: String,
}

/// JSON Schemas of the run-directory rows, keyed by file role.
pub fn schemas() -> serde_json::Value {
    serde_json::json!({
        "format_version": FORMAT_VERSION,
        "episode_row": schemars::schema_for!(EpisodeRow),
        "step_row": schemars::schema_for!(StepRow),
        "checkpoint": schemars::schema_for!(Checkpoint),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_names_every_step_field() {
        let s = schemas();
        let props = &s["step_row"]["properties"];
        for field in [
            "step",
            "t_ms",
            "role",
            "observation",
            "request",
            "raw_response",
            "reasoning",
            "action",
            "valid",
            "feedback",
            "progress",
            "terminated",
            "truncated",
            "usage",
            "error",
            "format_version",
        ] {
            assert!(props.get(field).is_some(), "missing {field}");
        }
    }

    #[test]
    fn usage_adds() {
        let mut u = Usage {
            input: 1,
            ..Default::default()
        };
        u.add(&Usage {
            input: 2,
            output: 3,
            cached: 1,
            cost_usd: 0.5,
            latency_ms: 7,
            reasoning: 2,
            cache_hits: 1,
            truncated: 1,
        });
        u.add(&Usage {
            reasoning: 1,
            ..Default::default()
        });
        assert_eq!((u.input, u.output, u.cached, u.latency_ms), (3, 3, 1, 7));
        assert_eq!((u.reasoning, u.cache_hits, u.truncated), (3, 1, 1));
        // the counts a row had before them read as zero, and zero is left out
        let old: Usage = serde_json::from_str(
            r#"{"input":1,"output":2,"cached":0,"cost_usd":0.0,"latency_ms":3}"#,
        )
        .unwrap();
        assert_eq!(old.reasoning + old.cache_hits + old.truncated, 0);
        assert!(!serde_json::to_string(&old).unwrap().contains("reasoning"));
    }
}

#[cfg(test)]
mod published {
    /// `docs/run-schema.json` is the published schema; regenerate it with
    /// `escapade schema > docs/run-schema.json` when the rows change.
    #[test]
    fn published_schema_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/run-schema.json");
        let published: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("docs/run-schema.json"))
                .expect("valid JSON");
        assert_eq!(published, super::schemas());
    }
}
