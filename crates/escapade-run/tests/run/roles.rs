//! Worlds whose roles take turns: `relay`, where a `caller` names a number and a
//! `counter` must repeat it; the runner drives a team of one agent per role and records
//! whose turn each step was.

use std::collections::BTreeMap;

use escapade_core::env::{Outcome, SuiteSpec};
use escapade_core::{
    Action, Agent, AgentTurn, CoreError, Env, EnvError, Observation, Step, StepRow, ToolSchema,
    World,
};
use escapade_run::{Baseline, RunSpec, TeamFactory};
use serde_json::json;

use crate::fake::rows;

struct Relay;

fn scenario(id: &str, rounds: u32) -> String {
    json!({"world": "relay", "id": id, "difficulty": rounds, "seed": 0}).to_string()
}

impl World for Relay {
    fn name(&self) -> &'static str {
        "relay"
    }
    fn description(&self) -> &'static str {
        "a caller names a number, a counter repeats it"
    }
    fn suites(&self) -> Vec<SuiteSpec> {
        Vec::new()
    }
    fn generate(
        &self,
        d: u32,
        _seed: u64,
        _options: &escapade_core::Options,
    ) -> Result<String, CoreError> {
        Ok(scenario("r", d))
    }
    fn build_suite(&self, _suite: &str) -> Result<Vec<String>, CoreError> {
        Ok(vec![scenario("a", 2), scenario("b", 3)])
    }
    fn env(
        &self,
        json: &str,
        options: &escapade_core::Options,
    ) -> Result<Box<dyn Env + Send>, CoreError> {
        escapade_core::options::check_keys(options, &[])?;
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        Ok(Box::new(RelayEnv {
            rounds: v["difficulty"].as_u64().unwrap() as u32,
            done: 0,
            called: None,
            steps: 0,
            over: false,
        }))
    }
    fn agent(
        &self,
        kind: &str,
        _json: &str,
        _seed: u64,
        _options: &escapade_core::Options,
    ) -> Result<Box<dyn Agent + Send>, CoreError> {
        match kind {
            "caller" | "counter" => Ok(Box::new(Player)),
            other => Err(CoreError::Unknown {
                what: "agent",
                name: other.into(),
                known: "caller, counter".into(),
            }),
        }
    }
    fn agent_kinds(&self) -> Vec<&'static str> {
        vec!["caller", "counter"]
    }
}

struct RelayEnv {
    rounds: u32,
    done: u32,
    called: Option<String>,
    steps: u32,
    over: bool,
}

impl RelayEnv {
    fn observe(&self) -> Observation {
        let (role, text) = match &self.called {
            None => ("caller", format!("round {}: name a number", self.done + 1)),
            // the counter sees only what the caller said
            Some(n) => ("counter", format!("the caller said {n}")),
        };
        Observation {
            role: Some(role.into()),
            ..Observation::text(text)
        }
    }
}

impl Env for RelayEnv {
    fn reset(&mut self, _seed: u64) -> Observation {
        (self.done, self.called, self.steps, self.over) = (0, None, 0, false);
        self.observe()
    }
    fn step(&mut self, action: &Action) -> Result<Step, EnvError> {
        if self.over {
            return Err(EnvError::EpisodeOver);
        }
        self.steps += 1;
        let Action::Text { text } = action else {
            unreachable!("the test agents speak text")
        };
        let feedback = match self.called.take() {
            None => {
                self.called = Some(text.clone());
                "heard".to_string()
            }
            Some(n) if *text == n => {
                self.done += 1;
                "repeated".to_string()
            }
            Some(_) => "wrong".to_string(),
        };
        let terminated = self.done == self.rounds;
        self.over = terminated;
        Ok(Step {
            observation: self.observe(),
            feedback,
            progress: f64::from(self.done) / f64::from(self.rounds),
            terminated,
            truncated: false,
            error: None,
            ..Default::default()
        })
    }
    fn system_prompt(&self) -> String {
        "play your role".into()
    }
    fn roles(&self) -> Vec<String> {
        vec!["caller".into(), "counter".into()]
    }
    fn role_prompt(&self, role: &str) -> String {
        format!("you are the {role}")
    }
    fn tool_schemas(&self) -> Vec<ToolSchema> {
        Vec::new()
    }
    fn outcome(&self) -> Outcome {
        Outcome {
            success: self.done == self.rounds,
            steps: self.steps,
            metrics: BTreeMap::new(),
        }
    }
    fn secrets(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The caller says `7`; the counter repeats what it heard; each checks its prompt.
struct Player;

impl Agent for Player {
    fn name(&self) -> String {
        "player".into()
    }
    fn reset(&mut self, start: escapade_core::EpisodeStart<'_>) {
        let prompt = start.system_prompt;
        assert!(prompt.starts_with("you are the "), "{prompt}");
    }
    fn act(&mut self, o: &Observation, _last: Option<&Step>) -> Result<AgentTurn, CoreError> {
        let said = match o.role.as_deref() {
            Some("caller") => "7".to_string(),
            _ => o.text.rsplit(' ').next().unwrap_or("").to_string(),
        };
        Ok(AgentTurn::action(Action::text(said)))
    }
}

#[test]
fn a_team_takes_turns_and_each_step_names_its_role() {
    let dir = tempfile::tempdir().unwrap();
    let scenarios: Vec<(String, String)> = Relay
        .build_suite("relay@1")
        .unwrap()
        .into_iter()
        .map(|j| ("relay@1".to_string(), j))
        .collect();
    let team = TeamFactory::new(vec![
        (
            "caller".into(),
            Box::new(Baseline::new(&Relay, "caller").unwrap()),
        ),
        (
            "counter".into(),
            Box::new(Baseline::new(&Relay, "counter").unwrap()),
        ),
    ]);
    let spec = RunSpec {
        agent: "team".into(),
        source: "relay@1".into(),
        ..Default::default()
    };
    let summary = escapade_run::run(
        &Relay,
        &scenarios,
        &spec,
        &team,
        dir.path(),
        escapade_run::Progress::quiet(),
    )
    .unwrap();
    assert_eq!(summary.errors, 0);
    let episodes: Vec<escapade_core::EpisodeRow> = rows(&summary.dir.join("episodes.jsonl"));
    assert!(episodes.iter().all(|e| e.success), "{episodes:?}");
    assert_eq!(episodes[0].agent, "caller=caller,counter=counter");
    let steps: Vec<StepRow> = rows(&summary.dir.join("trajectories/b/0.jsonl"));
    let roles: Vec<&str> = steps.iter().map(|s| s.role.as_str()).collect();
    assert_eq!(
        roles,
        [
            "caller", "counter", "caller", "counter", "caller", "counter"
        ]
    );
}
