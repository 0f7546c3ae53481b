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

/// What an agent is told when an episode starts (the same for baselines and model
/// agents: [`Agent::reset`] and `escapade_agents::AsyncAgent::reset` take it).
#[derive(Debug, Clone, Copy)]
pub struct EpisodeStart<'a> {
    /// The episode seed (also given to the environment).
    pub seed: u64,
    /// The world's system prompt.
    pub system_prompt: &'a str,
    /// The world's function schemas at the start.
    pub tools: &'a [ToolSchema],
    /// `(role, system prompt)` of each role of a multi-role world ([`Env::roles`]);
    /// empty in one-role worlds.
    pub roles: &'a [(String, String)],
    /// The oracle's distance from the start ([`Env::steps_to_go`] after `reset`), for
    /// the seats that hand it to a trainer (a server's client under `-W reward=…`);
    /// baselines and model agents leave it alone, so no agent under evaluation reads it.
    pub steps_to_go: Option<u32>,
}

impl<'a> EpisodeStart<'a> {
    /// A one-role start.
    pub fn new(seed: u64, system_prompt: &'a str, tools: &'a [ToolSchema]) -> Self {
        EpisodeStart {
            seed,
            system_prompt,
            tools,
            roles: &[],
            steps_to_go: None,
        }
    }
}

/// `(role, system prompt)` of each of `env`'s roles, for [`EpisodeStart::roles`].
pub fn role_prompts(env: &dyn Env) -> Vec<(String, String)> {
    env.roles()
        .into_iter()
        .map(|r| {
            let prompt = env.role_prompt(&r);
            (r, prompt)
        })
        .collect()
}

/// A policy. The runner calls `reset` once per episode, then `act` until the episode ends.
pub trait Agent {
    /// Name used in run directories and reports (`oracle`, `random`, `llm:<model>`).
    fn name(&self) -> String;
    /// Prepares for a new episode with the world's prompt and function schemas.
    fn reset(&mut self, start: EpisodeStart<'_>);
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
    let (prompt, tools, roles) = (env.system_prompt(), env.tool_schemas(), role_prompts(env));
    agent.reset(EpisodeStart {
        roles: &roles,
        steps_to_go: env.steps_to_go(),
        ..EpisodeStart::new(seed, &prompt, &tools)
    });
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
