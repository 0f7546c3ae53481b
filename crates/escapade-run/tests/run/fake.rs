//! `counter`: a tiny world for runner tests. Send `inc` until the count reaches the target.
//!
//! Scenario fields beyond the header: `target`, `budget` (step limit, truncates),
//! `fail_at` (the env returns `Err` at that step), `panic_at` (the env panics there),
//! `reask_limit` (when set, the parser rejects anything but `inc`/`dec` and agents are
//! re-asked up to that many times).
//! Agents: `oracle` (always `inc`), `random` (seeded inc/dec/junk, reports usage),
//! `broken` (fails on its second turn), `down` (always `dec`, never finishes).

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;

use escapade_core::env::{Outcome, SuiteSpec};
use escapade_core::{
    Action, Agent, AgentTurn, CoreError, Env, EnvError, Image, Observation, Step, ToolSchema,
    Usage, World,
};
use rand::Rng;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Counter {
    pub world: String,
    pub id: String,
    pub difficulty: u32,
    pub seed: u64,
    pub target: u32,
    #[serde(default)]
    pub budget: Option<u32>,
    #[serde(default)]
    pub fail_at: Option<u32>,
    #[serde(default)]
    pub panic_at: Option<u32>,
    /// Absent unless set, so the other scenarios keep their bytes and hashes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reask_limit: Option<u32>,
}

/// A scenario JSON with the given target and optional quirks.
pub fn scenario(id: &str, target: u32) -> Counter {
    Counter {
        world: "counter".into(),
        id: id.into(),
        difficulty: target,
        seed: 0,
        target,
        budget: None,
        fail_at: None,
        panic_at: None,
        reask_limit: None,
    }
}

impl Counter {
    pub fn json(&self) -> String {
        serde_json::to_string(self).unwrap()
    }
}

/// `(label, json)` pairs for the runner.
pub fn labelled(label: &str, scenarios: &[Counter]) -> Vec<(String, String)> {
    scenarios
        .iter()
        .map(|s| (label.to_string(), s.json()))
        .collect()
}

/// The standard small suite: targets 1, 2, 3, 2, 1 with ids c0..c4.
pub fn small_suite() -> Vec<Counter> {
    [1, 2, 3, 2, 1]
        .iter()
        .enumerate()
        .map(|(i, &t)| scenario(&format!("c{i}"), t))
        .collect()
}

pub struct CounterWorld;

impl World for CounterWorld {
    fn name(&self) -> &'static str {
        "counter"
    }
    fn description(&self) -> &'static str {
        "count up to the target"
    }
    fn suites(&self) -> Vec<SuiteSpec> {
        vec![
            SuiteSpec {
                name: "counter@1".into(),
                world: "counter".into(),
                description: "five small counters".into(),
                tiers: vec![(1, 2), (2, 2), (3, 1)],
                ..Default::default()
            },
            SuiteSpec {
                name: "counter-broken@1".into(),
                world: "counter".into(),
                description: "a counter the oracle cannot play".into(),
                tiers: vec![(2, 2)],
                ..Default::default()
            },
        ]
    }
    fn generate(
        &self,
        difficulty: u32,
        seed: u64,
        _options: &escapade_core::Options,
    ) -> Result<String, CoreError> {
        let mut s = scenario(&format!("c-d{difficulty}-s{seed}"), difficulty);
        s.seed = seed;
        Ok(s.json())
    }
    fn build_suite(&self, suite: &str) -> Result<Vec<String>, CoreError> {
        match suite {
            "counter@1" => Ok(small_suite().iter().map(Counter::json).collect()),
            "counter-broken@1" => {
                let mut bad = scenario("bad", 2);
                bad.fail_at = Some(1);
                Ok(vec![scenario("good", 2).json(), bad.json()])
            }
            _ => Err(CoreError::Unknown {
                what: "suite",
                name: suite.into(),
                known: "counter@1".into(),
            }),
        }
    }
    fn env(
        &self,
        scenario_json: &str,
        options: &escapade_core::Options,
    ) -> Result<Box<dyn Env + Send>, CoreError> {
        escapade_core::options::check_keys(options, &[])?;
        let scenario: Counter = serde_json::from_str(scenario_json)
            .map_err(|e| CoreError::InvalidScenario(e.to_string()))?;
        Ok(Box::new(CounterEnv {
            scenario,
            count: 0,
            steps: 0,
            started: false,
            over: false,
        }))
    }
    fn agent(
        &self,
        kind: &str,
        _scenario_json: &str,
        seed: u64,
        _options: &escapade_core::Options,
    ) -> Result<Box<dyn Agent + Send>, CoreError> {
        match kind {
            "oracle" | "random" | "broken" | "down" | "panicky" | "stammer" => {
                Ok(Box::new(CounterAgent {
                    kind: kind.to_string(),
                    rng: escapade_core::seed::rng(seed),
                    turns: 0,
                }))
            }
            _ => Err(CoreError::Unknown {
                what: "agent",
                name: kind.into(),
                known: self.agent_kinds().join(", "),
            }),
        }
    }
    fn agent_kinds(&self) -> Vec<&'static str> {
        vec!["oracle", "random", "broken", "down", "panicky", "stammer"]
    }
}

pub struct CounterEnv {
    scenario: Counter,
    count: u32,
    steps: u32,
    started: bool,
    over: bool,
}

impl CounterEnv {
    fn observe(&self, feedback: &str) -> Observation {
        Observation {
            text: format!("{feedback}count {} of {}", self.count, self.scenario.target),
            images: vec![Image::from_png(vec![0x89, b'P', self.count as u8])],
            actions: None,
            role: None,
        }
    }
}

impl Env for CounterEnv {
    fn reset(&mut self, _seed: u64) -> Observation {
        self.count = 0;
        self.steps = 0;
        self.started = true;
        self.over = false;
        self.observe("")
    }

    fn step(&mut self, action: &Action) -> Result<Step, EnvError> {
        if !self.started {
            return Err(EnvError::NotReset);
        }
        if self.over {
            return Err(EnvError::EpisodeOver);
        }
        self.steps += 1;
        if self.scenario.fail_at == Some(self.steps) {
            return Err(EnvError::NotReset);
        }
        if self.scenario.panic_at == Some(self.steps) {
            panic!("counter exploded");
        }
        let (feedback, error) = match action {
            Action::Text { text } if text == "inc" => {
                self.count += 1;
                ("up. ", None)
            }
            Action::Text { text } if text == "dec" => {
                self.count = self.count.saturating_sub(1);
                ("down. ", None)
            }
            _ => ("unknown action. ", Some("parse".to_string())),
        };
        let terminated = self.count >= self.scenario.target;
        let budget = self.scenario.budget.unwrap_or(4 * self.scenario.target + 2);
        let truncated = !terminated && self.steps >= budget;
        self.over = terminated || truncated;
        Ok(Step {
            observation: self.observe(feedback),
            feedback: feedback.trim().to_string(),
            progress: (f64::from(self.count) / f64::from(self.scenario.target.max(1))).min(1.0),
            terminated,
            truncated,
            error,
            ..Default::default()
        })
    }

    fn system_prompt(&self) -> String {
        "Send inc or dec.".into()
    }

    fn tool_schemas(&self) -> Vec<ToolSchema> {
        Vec::new()
    }

    fn check_action(&self, action: &Action) -> Result<(), String> {
        match action {
            _ if self.scenario.reask_limit.is_none() => Ok(()),
            Action::Text { text } if text == "inc" || text == "dec" => Ok(()),
            other => Err(format!(
                "unknown action `{}`: send inc or dec",
                other.summary(40)
            )),
        }
    }

    fn reask_limit(&self) -> u32 {
        self.scenario.reask_limit.unwrap_or(0)
    }

    fn outcome(&self) -> Outcome {
        let mut metrics = BTreeMap::new();
        let target = f64::from(self.scenario.target.max(1));
        metrics.insert(
            "progress_rate".to_string(),
            (f64::from(self.count) / target).min(1.0),
        );
        if self.scenario.target.is_multiple_of(2) {
            metrics.insert("even_bonus".to_string(), 1.0);
        }
        Outcome {
            success: self.count >= self.scenario.target,
            steps: self.steps,
            metrics,
        }
    }

    fn secrets(&self) -> Vec<String> {
        Vec::new()
    }
}

pub struct CounterAgent {
    kind: String,
    rng: escapade_core::seed::Rng,
    turns: u32,
}

impl Agent for CounterAgent {
    fn name(&self) -> String {
        self.kind.clone()
    }
    fn reset(&mut self, _start: escapade_core::EpisodeStart<'_>) {
        self.turns = 0;
    }
    fn act(&mut self, _obs: &Observation, _last: Option<&Step>) -> Result<AgentTurn, CoreError> {
        self.turns += 1;
        let text = match self.kind.as_str() {
            "oracle" => "inc",
            "down" => "dec",
            "broken" if self.turns >= 2 => return Err(CoreError::Agent("model went away".into())),
            "panicky" if self.turns >= 3 => panic!("the agent tripped"),
            "panicky" => "inc",
            "stammer" if self.turns == 2 => "junk",
            "stammer" if self.turns >= 3 => return Err(CoreError::Agent("model went away".into())),
            "stammer" => "inc",
            _ => ["inc", "inc", "dec", "junk"][self.rng.random_range(0..4)],
        };
        let mut turn = AgentTurn::action(Action::text(text));
        if self.kind == "random" {
            turn.usage = Usage {
                input: 10,
                output: 2,
                cached: 0,
                cost_usd: 0.001,
                latency_ms: 0,
            };
        }
        Ok(turn)
    }
}

/// Reads every line of a JSON Lines file as `T`, failing on any bad line.
pub fn rows<T: serde::de::DeserializeOwned>(path: &Path) -> Vec<T> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    std::io::BufReader::new(file)
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect()
}

/// A spec for a baseline agent with otherwise default settings.
pub fn spec(agent: &str) -> escapade_run::RunSpec {
    escapade_run::RunSpec {
        agent: agent.into(),
        source: "counter@1".into(),
        ..Default::default()
    }
}

/// Runs `scenarios` with the baseline named by `spec.agent` into `out`, quietly.
pub fn run_in(
    out: &Path,
    scenarios: &[(String, String)],
    spec: &escapade_run::RunSpec,
) -> Result<escapade_run::RunSummary, escapade_run::RunError> {
    let agents = escapade_run::Baseline::new(&CounterWorld, &spec.agent)?;
    escapade_run::run(
        &CounterWorld,
        scenarios,
        spec,
        &agents,
        out,
        escapade_run::Progress::quiet(),
    )
}
