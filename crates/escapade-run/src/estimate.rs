//! What a run would cost before anything is paid (`escapade estimate`, `escapade run
//! --dry-run`): tokens and dollars per episode and for the whole run, between a short
//! episode and a long one.
//!
//! Nothing is guessed from averages: every episode is played by the run's own agents,
//! with their prompts, history mode and pictures, against a stand-in backend that sends
//! nothing and counts each request's tokens ([`escapade_llm::tokens`]). The stand-in
//! answers with the action a world baseline chose, so the episode goes where that
//! baseline takes it:
//!
//! - **oracle**: the world's oracle, the shortest episode (the oracle's step count);
//! - **budget**: the world's random baseline, which the step budget normally ends — the
//!   episode of an agent that never escapes.
//!
//! A reply is counted as `reply_tokens` output tokens, and the replies in the history as
//! at least that many input tokens (a model writes more than the bare action the
//! stand-in answers with). Costs use the run's price table (`-A prices=FILE` over the
//! built-in table, whose date [`escapade_llm::prices::BUILTIN_AS_OF`] gives); a model
//! without a price gets tokens and no cost. Each scenario is played once, with its first
//! epoch's seed, and counted once per epoch.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use escapade_agents::config::client_options;
use escapade_agents::{AgentError, AsyncAgent, EpisodeStart, TurnInput};
use escapade_core::{Action, AgentTurn, ScenarioHeader, World, seed};
use escapade_llm::{
    Backend, ChatRequest, ChatResponse, ClientOptions, LlmError, TokenUsage, ToolCall,
};
use serde::Serialize;

use crate::players::{Opener, Players, PlayersError, agents_with, roles_of};
use crate::progress::Progress;
use crate::runner::{AgentFactory, Baseline, RunSpec, play_episode};

/// Output tokens a reply is counted at by default: a short rationale and an action.
pub const DEFAULT_REPLY_TOKENS: u64 = 100;

/// The tokens and cost of one episode, or of several summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Tally {
    /// Environment steps.
    pub steps: u64,
    /// Model requests.
    pub requests: u64,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// US dollars at the price table's prices (0 for a model without a price).
    pub cost_usd: f64,
}

impl Tally {
    fn add(&mut self, other: &Tally, times: u64) {
        self.steps += other.steps * times;
        self.requests += other.requests * times;
        self.input_tokens += other.input_tokens * times;
        self.output_tokens += other.output_tokens * times;
        self.cost_usd += other.cost_usd * times as f64;
    }
}

/// One scenario's episode, short and long.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EpisodeEstimate {
    /// Scenario id.
    pub scenario: String,
    /// Its tier.
    pub difficulty: u32,
    /// Played along the oracle's path.
    pub oracle: Tally,
    /// Played by the random baseline until the step budget (or the world) ended it.
    pub budget: Tally,
}

/// What a run would cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// The agent (`llm:openai/gpt-4o`, a team's roles).
    pub agent: String,
    /// The models priced, each with whether the price table knows it.
    pub models: BTreeMap<String, bool>,
    /// Epochs per scenario.
    pub epochs: u32,
    /// Output tokens each reply is counted at.
    pub reply_tokens: u64,
    /// Where the prices come from (the built-in table's date, a price file).
    pub prices: String,
    /// One entry per scenario (one epoch's worth).
    pub episodes: Vec<EpisodeEstimate>,
    /// The whole run (every scenario × epochs) along the oracle's paths.
    pub oracle: Tally,
    /// The whole run played to the step budgets.
    pub budget: Tally,
}

/// The reply the stand-in gives next, and the requests it has counted.
#[derive(Default)]
struct Slot {
    reply: Mutex<(String, Vec<ToolCall>)>,
    requests: AtomicU64,
}

/// A backend that sends nothing: it counts the request's tokens and answers with the
/// reply the [`Guided`] agent put in the slot.
struct StandIn {
    name: String,
    slot: Arc<Slot>,
    reply_tokens: u64,
}

#[async_trait]
impl Backend for StandIn {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn cache_identity(&self) -> Option<String> {
        None
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.slot.requests.fetch_add(1, Ordering::Relaxed);
        let (text, tool_calls) = self
            .slot
            .reply
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let usage = TokenUsage {
            input: escapade_llm::tokens::request_tokens(&self.name, request, self.reply_tokens),
            output: self.reply_tokens,
            ..TokenUsage::default()
        };
        Ok(ChatResponse {
            text,
            tool_calls,
            finish_reason: Some("stop".into()),
            usage,
            model: self.name.clone(),
            ..ChatResponse::default()
        })
    }
}

/// The run's model agent, asked at every turn (so its requests are counted), playing the
/// action a world baseline chose (so the episode goes where the baseline takes it).
struct Guided {
    model: Box<dyn AsyncAgent>,
    guide: Box<dyn AsyncAgent>,
    slot: Arc<Slot>,
}

/// What a model would have written to take `action`.
pub(crate) fn reply_of(action: &Action) -> (String, Vec<ToolCall>) {
    let call = |n: usize, name: &str, arguments: &str| ToolCall {
        id: format!("call_{n}"),
        name: name.to_string(),
        arguments: arguments.to_string(),
    };
    match action {
        Action::Text { text } => (text.clone(), Vec::new()),
        Action::Call { name, arguments } => (String::new(), vec![call(0, name, arguments)]),
        Action::Calls { calls } => (
            String::new(),
            calls
                .iter()
                .enumerate()
                .map(|(n, c)| call(n, &c.name, &c.arguments))
                .collect(),
        ),
        Action::Bytes { bytes } => (String::from_utf8_lossy(bytes).into_owned(), Vec::new()),
    }
}

impl Guided {
    async fn turn(&mut self, input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
        let guide = self.guide.act(input).await?;
        *self.slot.reply.lock().unwrap_or_else(|p| p.into_inner()) = reply_of(&guide.action);
        let mut turn = self.model.act(input).await?;
        turn.action = guide.action;
        Ok(turn)
    }
}

#[async_trait]
impl AsyncAgent for Guided {
    fn name(&self) -> String {
        self.model.name()
    }

    async fn reset(&mut self, start: EpisodeStart<'_>) -> Result<(), AgentError> {
        self.guide.reset(start).await?;
        self.model.reset(start).await
    }

    async fn act(&mut self, input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
        self.turn(input).await
    }

    async fn reask(&mut self, _error: &str, input: TurnInput<'_>) -> Result<AgentTurn, AgentError> {
        // a baseline's actions parse: a re-ask only follows a world that refused one
        self.turn(input).await
    }

    fn uses_tools(&self) -> bool {
        self.model.uses_tools() || self.guide.uses_tools()
    }
}

/// The models `players` talk to (agents and captioners), as the price table knows them.
fn models_of(players: &Players) -> Result<BTreeMap<String, bool>, PlayersError> {
    let mut out = BTreeMap::new();
    let mut all = vec![&players.options];
    if let Some((_, options)) = &players.expert {
        all.push(options);
    }
    for options in all {
        let prices = client_options(options, ClientOptions::default())?.prices;
        for key in ["model", "captioner"] {
            if let Some(model) = options.get(key) {
                out.insert(model.clone(), prices.lookup(model).is_some());
            }
        }
    }
    Ok(out)
}

/// Where the prices come from, in words.
fn price_source(players: &Players) -> String {
    let file = players
        .options
        .get("prices")
        .or_else(|| players.expert.as_ref().and_then(|(_, o)| o.get("prices")));
    let table = format!(
        "built-in table as of {}",
        escapade_llm::prices::BUILTIN_AS_OF
    );
    match file {
        Some(f) => format!("{f} over the {table}"),
        None => table,
    }
}

/// Estimates a run of `scenarios` by `players` with `spec`'s settings (epochs, limit,
/// seed, world options, step cap); see the module docs. Needs a tokio runtime.
pub async fn estimate(
    world: &dyn World,
    scenarios: &[(String, String)],
    spec: &RunSpec,
    players: &Players,
    reply_tokens: u64,
    progress: Progress,
) -> Result<Estimate, PlayersError> {
    let slot = Arc::new(Slot::default());
    let stand_in = {
        let slot = Arc::clone(&slot);
        move |model: &str| -> Arc<dyn Backend> {
            Arc::new(StandIn {
                name: model.to_string(),
                slot: Arc::clone(&slot),
                reply_tokens,
            })
        }
    };
    let opener = Opener {
        base: ClientOptions::default(),
        stand_in: Some(Arc::new(stand_in)),
    };
    let roles = roles_of(world, scenarios)?;
    let factory = agents_with(world, &roles, players, &opener).await?;
    let oracle = Baseline::new(world, "oracle")?;
    let random = Baseline::new(world, "random")?;
    let take = spec.limit.unwrap_or(usize::MAX);
    let chosen: Vec<&(String, String)> = scenarios.iter().take(take).collect();
    let bar = progress.bar(chosen.len() as u64, "estimate");
    let mut episodes = Vec::new();
    for (_, json) in chosen {
        let header = ScenarioHeader::parse(json)?;
        let episode_seed = seed::derive(spec.seed, &header.id, 0);
        let model = factory.as_ref();
        let short = play_guided(world, json, spec, model, &oracle, &slot, episode_seed).await?;
        let long = play_guided(world, json, spec, model, &random, &slot, episode_seed).await?;
        episodes.push(EpisodeEstimate {
            scenario: header.id,
            difficulty: header.difficulty,
            oracle: short,
            budget: long,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    let epochs = u64::from(spec.epochs.max(1));
    let mut whole_oracle = Tally::default();
    let mut whole_budget = Tally::default();
    for e in &episodes {
        whole_oracle.add(&e.oracle, epochs);
        whole_budget.add(&e.budget, epochs);
    }
    Ok(Estimate {
        agent: factory.name(),
        models: models_of(players)?,
        epochs: spec.epochs.max(1),
        reply_tokens,
        prices: price_source(players),
        episodes,
        oracle: whole_oracle,
        budget: whole_budget,
    })
}

/// One episode of the run's agents guided by `guide`'s baseline, counted.
async fn play_guided(
    world: &dyn World,
    json: &str,
    spec: &RunSpec,
    model: &dyn AgentFactory,
    guide: &dyn AgentFactory,
    slot: &Arc<Slot>,
    episode_seed: u64,
) -> Result<Tally, PlayersError> {
    let options = &spec.world_options;
    let env = world.env(json, options)?;
    let agent = |f: &dyn AgentFactory| {
        f.make(world, json, episode_seed, options)
            .map_err(PlayersError::Agent)
    };
    let mut guided = Guided {
        model: agent(model)?,
        guide: agent(guide)?,
        slot: Arc::clone(slot),
    };
    let before = slot.requests.load(Ordering::Relaxed);
    let played = play_episode(
        env,
        &mut guided,
        episode_seed,
        spec.max_steps,
        None,
        &|_| {},
    )
    .await?;
    Ok(Tally {
        steps: u64::from(played.outcome.steps),
        requests: slot.requests.load(Ordering::Relaxed) - before,
        input_tokens: played.usage.input,
        output_tokens: played.usage.output,
        cost_usd: played.usage.cost_usd,
    })
}

impl Estimate {
    /// Whether every model has a price.
    pub fn priced(&self) -> bool {
        self.models.values().all(|p| *p)
    }

    /// The estimate as a person reads it: the settings, a line per tier (mean per
    /// episode) and the whole run, oracle path and step budget side by side.
    pub fn render(&self) -> String {
        let mut out = format!(
            "estimate for {} — {} scenario(s) × {} epoch(s); replies counted at {} tokens; prices: {}\n",
            self.agent,
            self.episodes.len(),
            self.epochs,
            self.reply_tokens,
            self.prices
        );
        let unpriced: Vec<&str> = self
            .models
            .iter()
            .filter(|(_, p)| !**p)
            .map(|(m, _)| m.as_str())
            .collect();
        if !unpriced.is_empty() {
            out.push_str(&format!(
                "no price for {}: tokens only (give one with -A prices=FILE)\n",
                unpriced.join(", ")
            ));
        }
        let cost = |t: &Tally| {
            if self.priced() {
                format!("${:.4}", t.cost_usd)
            } else {
                "-".to_string()
            }
        };
        out.push_str(&format!(
            "\n{:<12} {:>8} | {:>7} {:>11} {:>9} {:>10} | {:>7} {:>11} {:>9} {:>10}\n",
            "difficulty",
            "episodes",
            "steps",
            "input",
            "output",
            "cost",
            "steps",
            "input",
            "output",
            "cost"
        ));
        out.push_str(&format!(
            "{:<12} {:>8} | {:^40} | {:^40}\n",
            "", "", "oracle path, per episode", "step budget, per episode"
        ));
        let mut tiers: BTreeMap<u32, (u64, Tally, Tally)> = BTreeMap::new();
        for e in &self.episodes {
            let t = tiers.entry(e.difficulty).or_default();
            t.0 += 1;
            t.1.add(&e.oracle, 1);
            t.2.add(&e.budget, 1);
        }
        let line = |label: String, n: u64, a: &Tally, b: &Tally, per: u64| {
            let per = per.max(1);
            let mean = |t: &Tally| Tally {
                steps: t.steps / per,
                requests: t.requests / per,
                input_tokens: t.input_tokens / per,
                output_tokens: t.output_tokens / per,
                cost_usd: t.cost_usd / per as f64,
            };
            let (a, b) = (mean(a), mean(b));
            format!(
                "{:<12} {:>8} | {:>7} {:>11} {:>9} {:>10} | {:>7} {:>11} {:>9} {:>10}\n",
                label,
                n,
                a.steps,
                a.input_tokens,
                a.output_tokens,
                cost(&a),
                b.steps,
                b.input_tokens,
                b.output_tokens,
                cost(&b)
            )
        };
        for (d, (n, a, b)) in &tiers {
            out.push_str(&line(d.to_string(), *n, a, b, *n));
        }
        let episodes = self.episodes.len() as u64 * u64::from(self.epochs);
        out.push_str(&format!(
            "\nwhole run ({episodes} episodes): {} to {} input and {} to {} output tokens, {} to {}\n",
            self.oracle.input_tokens,
            self.budget.input_tokens,
            self.oracle.output_tokens,
            self.budget.output_tokens,
            cost(&self.oracle),
            cost(&self.budget),
        ));
        out
    }
}
