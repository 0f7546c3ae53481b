//! Agents: policies that turn observations into actions.
//!
//! Baselines (oracle, random) live with their world because they need its rules; model
//! agents live in `escapade-agents`. All of them meet the runner through [`Agent`].

use serde::{Deserialize, Serialize};

use crate::{
    Action, EnvError, Observation, ToolSchema, Usage,
    env::{Env, Outcome, Step},
};

/// What one agent turn produced, as recorded in the step row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentTurn {
    /// The action to apply.
    pub action: Action,
    /// Messages sent to a model (or a hash of them); `None` for baselines.
    pub request: Option<serde_json::Value>,
    /// The model's raw reply; `None` for baselines.
    pub raw_response: Option<String>,
    /// Visible reasoning, when the agent or model exposes it.
    pub reasoning: Option<String>,
    /// Token usage and cost of this turn.
    pub usage: Usage,
}

impl AgentTurn {
    /// A turn that is just an action (baselines).
    pub fn action(action: Action) -> Self {
        AgentTurn {
            action,
            request: None,
            raw_response: None,
            reasoning: None,
            usage: Usage::default(),
        }
    }
}

/// A policy. The runner calls `reset` once per episode, then `act` until the episode ends.
pub trait Agent {
    /// Name used in run directories and reports (`oracle`, `random`, `llm:<model>`).
    fn name(&self) -> String;
    /// Prepares for a new episode with the world's prompt and function schemas.
    fn reset(&mut self, seed: u64, system_prompt: &str, tools: &[ToolSchema]);
    /// Chooses the next action. `last` is the previous step (`None` on the first turn).
    fn act(
        &mut self,
        observation: &Observation,
        last: Option<&Step>,
    ) -> Result<AgentTurn, crate::CoreError>;
}

/// Plays one episode to its end (or `max_steps`) without recording anything; returns the
/// outcome and the number of steps. Used by oracles and tests; the runner has its own
/// recording loop.
pub fn play(
    env: &mut dyn Env,
    agent: &mut dyn Agent,
    seed: u64,
    max_steps: u32,
) -> Result<(Outcome, u32), EnvError> {
    let mut observation = env.reset(seed);
    agent.reset(seed, &env.system_prompt(), &env.tool_schemas());
    let mut last: Option<Step> = None;
    let mut steps = 0;
    while steps < max_steps {
        let turn = agent
            .act(&observation, last.as_ref())
            .map_err(|e| EnvError::Agent(e.to_string()))?;
        let step = env.step(&turn.action)?;
        steps += 1;
        observation = step.observation.clone();
        let over = step.terminated || step.truncated;
        last = Some(step);
        if over {
            break;
        }
    }
    Ok((env.outcome(), steps))
}
