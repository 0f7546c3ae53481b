//! `counting`: the harness bench's own world. Say `count` until the budget is spent.
//!
//! Why a world of its own: `escapade bench harness` measures the runner, the model agent
//! and the run directory, not a world's rules, so it plays a world whose step costs
//! next to nothing and whose episodes all last the same number of steps. It also keeps
//! `escapade-run` free of any benchmark world. It is not in the binary's registry.
//!
//! A scenario of difficulty `d` has a step budget of `7 d` (5 → 35 steps, as a
//! five-node AgentEscapeBench room). Every `count` is valid; anything else is invalid
//! (`parse`) and costs its step all the same; no episode ends before its budget.

use escapade_core::env::{Outcome, SuiteSpec};
use escapade_core::{
    Action, Agent, AgentTurn, CoreError, Env, EnvError, EpisodeStart, Observation, Options, Step,
    ToolSchema, World, options,
};
use serde::{Deserialize, Serialize};

/// The one valid action.
pub const COUNT: &str = "count";

/// The counting world.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingWorld;

/// A counting scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counting {
    /// Always `counting`.
    pub world: String,
    /// `count-d<d>-s<seed>`.
    pub id: String,
    /// The difficulty; the budget is seven steps per unit.
    pub difficulty: u32,
    /// The seed it was made with.
    pub seed: u64,
    /// Steps before the episode is truncated.
    pub step_budget: u32,
}

impl Counting {
    /// The scenario of difficulty `difficulty` (at least 1) and `seed`.
    pub fn new(difficulty: u32, seed: u64) -> Result<Counting, CoreError> {
        if !(1..=1000).contains(&difficulty) {
            return Err(CoreError::generation(format!(
                "counting difficulty is 1 to 1000, not {difficulty}"
            )));
        }
        Ok(Counting {
            world: "counting".into(),
            id: format!("count-d{difficulty}-s{seed}"),
            difficulty,
            seed,
            step_budget: 7 * difficulty,
        })
    }

    fn parse(json: &str) -> Result<Counting, CoreError> {
        serde_json::from_str(json).map_err(CoreError::invalid_scenario)
    }
}

impl World for CountingWorld {
    fn name(&self) -> &'static str {
        "counting"
    }
    fn description(&self) -> &'static str {
        "the harness bench's world: say `count` until the budget is spent"
    }
    fn suites(&self) -> Vec<SuiteSpec> {
        Vec::new()
    }
    fn build_suite(&self, suite: &str) -> Result<Vec<String>, CoreError> {
        Err(CoreError::Unknown {
            what: "suite",
            name: suite.into(),
            known: "none".into(),
        })
    }
    fn generate(&self, difficulty: u32, seed: u64, opts: &Options) -> Result<String, CoreError> {
        options::check_keys(opts, &[])?;
        serde_json::to_string(&Counting::new(difficulty, seed)?).map_err(CoreError::world)
    }
    fn env(&self, json: &str, opts: &Options) -> Result<Box<dyn Env + Send>, CoreError> {
        options::check_keys(opts, &[])?;
        Ok(Box::new(CountingEnv {
            scenario: Counting::parse(json)?,
            count: 0,
            steps: 0,
            over: true,
        }))
    }
    fn agent(
        &self,
        kind: &str,
        json: &str,
        _seed: u64,
        opts: &Options,
    ) -> Result<Box<dyn Agent + Send>, CoreError> {
        options::check_keys(opts, &[])?;
        Counting::parse(json)?;
        match kind {
            "oracle" => Ok(Box::new(Counter)),
            other => Err(CoreError::Unknown {
                what: "agent",
                name: other.into(),
                known: "oracle".into(),
            }),
        }
    }
    fn agent_kinds(&self) -> Vec<&'static str> {
        vec!["oracle"]
    }
}

/// A counting episode.
struct CountingEnv {
    scenario: Counting,
    count: u32,
    steps: u32,
    over: bool,
}

impl CountingEnv {
    fn observe(&self, feedback: &str) -> Observation {
        Observation::text(format!(
            "{feedback}You have counted to {} in {} of {} steps.",
            self.count, self.steps, self.scenario.step_budget
        ))
    }
}

impl Env for CountingEnv {
    fn reset(&mut self, _seed: u64) -> Observation {
        (self.count, self.steps, self.over) = (0, 0, false);
        self.observe("")
    }
    fn step(&mut self, action: &Action) -> Result<Step, EnvError> {
        if self.over {
            return Err(EnvError::EpisodeOver);
        }
        self.steps += 1;
        let error = match action {
            Action::Text { text } if text.trim() == COUNT => {
                self.count += 1;
                None
            }
            _ => Some("parse".to_string()),
        };
        let feedback = match error {
            None => "One more. ",
            Some(_) => "Say `count`. ",
        };
        let truncated = self.steps >= self.scenario.step_budget;
        self.over = truncated;
        Ok(Step {
            observation: self.observe(feedback),
            feedback: feedback.trim().into(),
            progress: f64::from(self.steps) / f64::from(self.scenario.step_budget.max(1)),
            truncated,
            error,
            ..Step::default()
        })
    }
    fn system_prompt(&self) -> String {
        format!("Reply with the single word `{COUNT}` at every step.")
    }
    fn tool_schemas(&self) -> Vec<ToolSchema> {
        Vec::new()
    }
    fn outcome(&self) -> Outcome {
        Outcome {
            success: false,
            steps: self.steps,
            metrics: [("count".to_string(), f64::from(self.count))].into(),
        }
    }
    fn secrets(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The oracle: counts.
struct Counter;

impl Agent for Counter {
    fn name(&self) -> String {
        "oracle".into()
    }
    fn reset(&mut self, _start: EpisodeStart<'_>) {}
    fn act(&mut self, _o: &Observation, _last: Option<&Step>) -> Result<AgentTurn, CoreError> {
        Ok(AgentTurn::action(Action::text(COUNT)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn episodes_last_their_budget_and_pass_the_checker() {
        let json = CountingWorld.generate(5, 1, &Options::new()).unwrap();
        let mut env = CountingWorld.env(&json, &Options::new()).unwrap();
        escapade_core::check::check_env(env.as_mut(), 1, &[Action::text(COUNT)]).unwrap();
        let mut oracle = CountingWorld
            .agent("oracle", &json, 0, &Options::new())
            .unwrap();
        let (outcome, steps) =
            escapade_core::agent::play(env.as_mut(), oracle.as_mut(), 0, 100).unwrap();
        assert_eq!((steps, outcome.metrics["count"]), (35, 35.0));
        let bad = Options::from([("size".into(), "9".into())]);
        assert!(matches!(
            CountingWorld.env(&json, &bad),
            Err(CoreError::UnknownOption { .. })
        ));
        assert!(CountingWorld.generate(0, 1, &Options::new()).is_err());
    }
}
