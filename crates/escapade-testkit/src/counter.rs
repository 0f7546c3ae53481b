//! `counter`: the toy world escapade's own tests play. Send `inc` until the count reaches
//! the target.
//!
//! One small world serves the runner's tests (limits, env errors and panics, re-asks,
//! agents that fail or panic) and the conformance checker's (an env with one fault per
//! check proves each check catches it), so the toy's rules are written once. Everything
//! beyond the rules is a scenario field, absent unless set so that plain scenarios keep
//! their bytes:
//! `budget` (step limit, truncates), `fail_at` (the env returns `Err` at that step),
//! `panic_at` (the env panics there), `reask_limit` (the parser rejects anything but
//! `inc`/`dec` and agents are re-asked up to that many times), `secret` (a string no
//! agent may see) and `fault` (a broken contract, see [`Fault`]).
//! Suites: `counter@1` (five counters), `counter-broken@1` (one the oracle cannot play),
//! `counter-paper@1` (with its paper's run settings); `counter@0` is retired.
//! Agents: `oracle` (always `inc`), `random` (seeded inc/dec/junk, reports usage),
//! `broken` (fails on its second turn), `down` (always `dec`, never finishes), `panicky`
//! (panics on its third turn), `stammer` (a junk reply, then fails).

use std::collections::BTreeMap;

use escapade_core::env::{Outcome, RetiredSuite, SuiteSettings, SuiteSpec};
use escapade_core::{
    Action, Agent, AgentTurn, CoreError, Env, EnvError, Image, Observation, Step, ToolSchema,
    Usage, World,
};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// A broken contract the env can be switched to, one per check of `check_env`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// The first observation counts resets: two plays differ.
    Drifts,
    /// The secret is in the first observation's text.
    LeaksInText,
    /// The secret is in the first picture's description.
    LeaksInPicture,
    /// Progress 1.5 after each step.
    Overshoots,
    /// Empty feedback.
    Mute,
    /// Steps after the end are accepted.
    Unguarded,
    /// Each step reports the oracle's distance from before it, not the one
    /// [`Env::steps_to_go`] answers after it.
    Stale,
}

/// A counter scenario.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Counter {
    /// Always `counter`.
    pub world: String,
    /// The scenario's id.
    pub id: String,
    /// The difficulty (the target, unless set otherwise).
    pub difficulty: u32,
    /// The seed it was made from.
    pub seed: u64,
    /// The count that wins.
    pub target: u32,
    /// The step limit (default four times the target, plus two).
    #[serde(default)]
    pub budget: Option<u32>,
    /// The env returns `Err` at this step.
    #[serde(default)]
    pub fail_at: Option<u32>,
    /// The env panics at this step.
    #[serde(default)]
    pub panic_at: Option<u32>,
    /// When set, anything but `inc`/`dec` is re-asked up to this many times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reask_limit: Option<u32>,
    /// A string no agent may see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// A broken contract.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
}

/// A scenario with the given target and no quirks.
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
        secret: None,
        fault: None,
    }
}

impl Counter {
    /// The scenario's JSON.
    pub fn json(&self) -> String {
        serde_json::to_string(self).expect("a counter serializes")
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

/// The counter world.
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
            SuiteSpec {
                name: "counter-paper@1".into(),
                world: "counter".into(),
                description: "one counter, with its paper's run settings".into(),
                tiers: vec![(1, 1)],
                settings: SuiteSettings {
                    epochs: Some(2),
                    agent: BTreeMap::from([("temperature".into(), "0.7".into())]),
                    source: "the counter paper §1".into(),
                },
            },
        ]
    }
    fn retired_suites(&self) -> Vec<RetiredSuite> {
        vec![RetiredSuite::new(
            "counter@0",
            "counter@1",
            "counting starts at one now",
        )]
    }
    fn catalogue(&self) -> String {
        "actions: inc, dec\n".into()
    }
    fn generate(
        &self,
        difficulty: u32,
        seed: u64,
        _options: &escapade_core::Options,
    ) -> Result<String, CoreError> {
        if difficulty == 0 {
            return Err(CoreError::generation("difficulty must be at least 1"));
        }
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
            "counter-paper@1" => Ok(vec![scenario("p", 1).json()]),
            _ => Err(CoreError::Unknown {
                what: "suite",
                name: suite.into(),
                known: "counter@1, counter-broken@1, counter-paper@1".into(),
            }),
        }
    }
    fn env(
        &self,
        scenario_json: &str,
        options: &escapade_core::Options,
    ) -> Result<Box<dyn Env + Send>, CoreError> {
        escapade_core::options::check_keys(options, &[])?;
        let scenario: Counter =
            serde_json::from_str(scenario_json).map_err(CoreError::invalid_scenario)?;
        Ok(Box::new(CounterEnv::new(scenario)))
    }
    fn agent(
        &self,
        kind: &str,
        _scenario_json: &str,
        seed: u64,
        _options: &escapade_core::Options,
    ) -> Result<Box<dyn Agent + Send>, CoreError> {
        if !self.agent_kinds().contains(&kind) {
            return Err(CoreError::Unknown {
                what: "agent",
                name: kind.into(),
                known: self.agent_kinds().join(", "),
            });
        }
        Ok(Box::new(CounterAgent {
            kind: kind.to_string(),
            rng: escapade_core::seed::rng(seed),
            turns: 0,
        }))
    }
    fn agent_kinds(&self) -> Vec<&'static str> {
        vec!["oracle", "random", "broken", "down", "panicky", "stammer"]
    }
}

/// A counter being played.
pub struct CounterEnv {
    scenario: Counter,
    count: u32,
    steps: u32,
    resets: u32,
    started: bool,
    over: bool,
}

impl CounterEnv {
    /// A fresh env for `scenario` (reset it before stepping).
    pub fn new(scenario: Counter) -> CounterEnv {
        CounterEnv {
            scenario,
            count: 0,
            steps: 0,
            resets: 0,
            started: false,
            over: false,
        }
    }

    fn observe(&self, feedback: &str) -> Observation {
        Observation {
            text: format!("{feedback}count {} of {}", self.count, self.scenario.target),
            images: vec![Image::from_png(vec![0x89, b'P', self.count as u8])],
            actions: None,
            role: None,
        }
    }

    fn faulty(&self, fault: Fault) -> bool {
        self.scenario.fault == Some(fault)
    }
}

impl Env for CounterEnv {
    fn reset(&mut self, _seed: u64) -> Observation {
        self.count = 0;
        self.steps = 0;
        self.resets += 1;
        self.started = true;
        self.over = false;
        let mut o = self.observe("");
        let secret = self.scenario.secret.as_deref().unwrap_or_default();
        if self.faulty(Fault::Drifts) {
            o.text = format!("reset number {}. {}", self.resets, o.text);
        } else if self.faulty(Fault::LeaksInText) {
            o.text = format!("the password is {secret}. {}", o.text);
        } else if self.faulty(Fault::LeaksInPicture) {
            o.images[0].alt = Some(format!("a note that reads {secret}"));
        }
        o
    }

    fn step(&mut self, action: &Action) -> Result<Step, EnvError> {
        if !self.started {
            return Err(EnvError::NotReset);
        }
        if self.over && !self.faulty(Fault::Unguarded) {
            return Err(EnvError::EpisodeOver);
        }
        self.steps += 1;
        if self.scenario.fail_at == Some(self.steps) {
            return Err(EnvError::NotReset);
        }
        if self.scenario.panic_at == Some(self.steps) {
            panic!("counter exploded");
        }
        let before = self.steps_to_go();
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
        let progress = (f64::from(self.count) / f64::from(self.scenario.target.max(1))).min(1.0);
        Ok(Step {
            observation: self.observe(feedback),
            feedback: if self.faulty(Fault::Mute) {
                ""
            } else {
                feedback.trim()
            }
            .to_string(),
            progress: if self.faulty(Fault::Overshoots) {
                1.5
            } else {
                progress
            },
            terminated,
            truncated,
            error,
            steps_to_go: if self.faulty(Fault::Stale) {
                before
            } else {
                self.steps_to_go()
            },
            ..Default::default()
        })
    }

    fn system_prompt(&self) -> String {
        "Send inc or dec.".into()
    }

    /// The `inc`s still needed.
    fn steps_to_go(&self) -> Option<u32> {
        Some(self.scenario.target.saturating_sub(self.count))
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

    fn step_budget(&self) -> Option<u32> {
        Some(self.scenario.budget.unwrap_or(4 * self.scenario.target + 2))
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
        self.scenario.secret.iter().cloned().collect()
    }
}

/// A scripted counter agent (its kind is one of [`CounterWorld`]'s agent kinds).
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
