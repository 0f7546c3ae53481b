//! The asynchronous agent contract the runner drives, and the adapter for baselines.
//!
//! Model agents wait on the network, so the runner awaits them on tokio; baselines are
//! plain synchronous [`escapade_core::Agent`]s and get [`Blocking`]. Re-asking is part of
//! the contract because only the runner sees the environment's parser
//! ([`escapade_core::Env::check_action`]); the agent decides how to phrase the retry.

use async_trait::async_trait;
pub use escapade_core::EpisodeStart; // one start for baselines and model agents alike
use escapade_core::{Agent, AgentTurn, Observation, Step, ToolSchema};

use crate::AgentError;

/// What an agent sees at one turn.
#[derive(Debug, Clone, Copy)]
pub struct TurnInput<'a> {
    /// Step number about to be taken, from 1.
    pub step: u32,
    /// The current observation.
    pub observation: &'a Observation,
    /// The previous step (`None` on the first turn).
    pub last: Option<&'a Step>,
    /// The world's function schemas for the current state.
    pub tools: &'a [ToolSchema],
}

/// A policy the runner awaits. One value plays one episode at a time.
#[async_trait]
pub trait AsyncAgent: Send {
    /// Name in run directories and reports (`random`, `llm:openai/gpt-4o`).
    fn name(&self) -> String;

    /// Prepares for a new episode.
    async fn reset(&mut self, start: EpisodeStart<'_>) -> Result<(), AgentError>;

    /// Chooses the next action.
    async fn act(&mut self, input: TurnInput<'_>) -> Result<AgentTurn, AgentError>;

    /// Chooses again after the world's parser rejected the last reply with `error`.
    async fn reask(&mut self, error: &str, input: TurnInput<'_>) -> Result<AgentTurn, AgentError>;

    /// Re-ask limit chosen by the agent's options; `None` uses the world's default
    /// ([`escapade_core::Env::reask_limit`]).
    fn reask_limit(&self) -> Option<u32> {
        None
    }

    /// Whether `TurnInput::tools` must hold the current function schemas at every turn
    /// (native tool calling, schema-constrained replies). When false the runner skips
    /// recomputing them after each step, which costs more than a tools-world step.
    fn uses_tools(&self) -> bool {
        false
    }

    /// Has every model call of this agent (its captioner's too) answered by `client`
    /// instead of its own backend, until called again with `None`. `escapade resume`
    /// replays the recorded steps of an interrupted episode through a fresh agent with
    /// a client that answers from the recorded replies, so that the agent's
    /// conversation, memory and counters are what they were at the checkpoint, without a
    /// request to the provider. Agents that call no model ignore it (the default).
    fn replay_with(&mut self, client: Option<escapade_llm::Client>) {
        let _ = client;
    }
}

/// A synchronous baseline agent (oracle, random) run on the async contract. Its `act` is
/// pure computation, so it runs inline; a re-ask simply asks it again.
pub struct Blocking(pub Box<dyn Agent + Send>);

#[async_trait]
impl AsyncAgent for Blocking {
    fn name(&self) -> String {
        self.0.name()
    }

    async fn reset(&mut self, start: EpisodeStart<'_>) -> Result<(), AgentError> {
        self.0.reset(start);
        Ok(())
    }

    async fn act(&mut self, input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
        self.0
            .act(input.observation, input.last)
            .map_err(|e| AgentError::Baseline(e.to_string()))
    }

    async fn reask(&mut self, _error: &str, input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
        self.act(input).await
    }
}
