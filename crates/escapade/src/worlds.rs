//! The world registry: every world the binary knows, in `escapade list` order.
//!
//! Adding a world is one line in [`worlds`] (in `worlds/registry.rs`, a file of its own
//! so that integration tests include the very same list).

pub mod import; // converters of the original benchmarks' files
pub mod importers; // `escapade import <world>`: each world's converter, run
mod registry; // the list of worlds
pub use registry::worlds;

/// `demo`: a world for the binary's own tests. Send `inc` until the count reaches the
/// difficulty; a scenario with `"stuck": true` cannot be solved.
#[cfg(test)]
pub mod demo {
    use std::collections::BTreeMap;

    use escapade_core::env::{Outcome, RetiredSuite, SuiteSettings, SuiteSpec};
    use escapade_core::{
        Action, Agent, AgentTurn, CoreError, Env, EnvError, Observation, Step, ToolSchema, World,
    };
    use serde_json::json;

    /// The demo world.
    pub struct Demo;

    /// A demo scenario's JSON.
    pub fn scenario(id: &str, difficulty: u32, seed: u64, stuck: bool) -> String {
        json!({"world": "demo", "id": id, "difficulty": difficulty, "seed": seed, "stuck": stuck})
            .to_string()
    }

    impl World for Demo {
        fn name(&self) -> &'static str {
            "demo"
        }
        fn description(&self) -> &'static str {
            "count to the difficulty"
        }
        fn suites(&self) -> Vec<SuiteSpec> {
            let spec = |name: &str, tiers: Vec<(u32, u32)>| SuiteSpec {
                name: name.into(),
                world: "demo".into(),
                description: format!("the {name} suite"),
                tiers,
                ..Default::default()
            };
            let paper = SuiteSpec {
                settings: SuiteSettings {
                    epochs: Some(2),
                    agent: BTreeMap::from([("temperature".into(), "0.7".into())]),
                    source: "the demo paper §1".into(),
                },
                ..spec("demo-paper@1", vec![(1, 1)])
            };
            vec![
                spec("demo@1", vec![(1, 2), (3, 1)]),
                spec("demo-stuck@1", vec![(2, 2)]),
                paper,
            ]
        }
        fn retired_suites(&self) -> Vec<RetiredSuite> {
            vec![RetiredSuite {
                name: "demo@0".into(),
                replaced_by: "demo@1".into(),
                why: "counting starts at one now".into(),
            }]
        }
        fn generate(
            &self,
            difficulty: u32,
            seed: u64,
            _options: &escapade_core::Options,
        ) -> Result<String, CoreError> {
            if difficulty == 0 {
                return Err(CoreError::Generation(
                    "difficulty must be at least 1".into(),
                ));
            }
            Ok(scenario(
                &format!("demo-d{difficulty}-s{seed}"),
                difficulty,
                seed,
                false,
            ))
        }
        fn build_suite(&self, suite: &str) -> Result<Vec<String>, CoreError> {
            match suite {
                "demo@1" => Ok(vec![
                    scenario("a", 1, 0, false),
                    scenario("b", 1, 1, false),
                    scenario("c", 3, 2, false),
                ]),
                "demo-stuck@1" => Ok(vec![
                    scenario("ok", 2, 0, false),
                    scenario("st", 2, 1, true),
                ]),
                "demo-paper@1" => Ok(vec![scenario("p", 1, 0, false)]),
                _ => Err(CoreError::Unknown {
                    what: "suite",
                    name: suite.into(),
                    known: "demo@1, demo-stuck@1, demo-paper@1".into(),
                }),
            }
        }
        fn env(
            &self,
            scenario_json: &str,
            options: &escapade_core::Options,
        ) -> Result<Box<dyn Env + Send>, CoreError> {
            escapade_core::options::check_keys(options, &[])?;
            let v: serde_json::Value = serde_json::from_str(scenario_json)
                .map_err(|e| CoreError::InvalidScenario(e.to_string()))?;
            Ok(Box::new(DemoEnv {
                target: v["difficulty"].as_u64().unwrap_or(1) as u32,
                stuck: v["stuck"].as_bool().unwrap_or(false),
                count: 0,
                steps: 0,
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
                "oracle" | "random" => Ok(Box::new(DemoAgent {
                    kind: kind.into(),
                    seed,
                    turn: 0,
                })),
                _ => Err(CoreError::Unknown {
                    what: "agent",
                    name: kind.into(),
                    known: "oracle, random".into(),
                }),
            }
        }
        fn agent_kinds(&self) -> Vec<&'static str> {
            vec!["oracle", "random"]
        }
        fn catalogue(&self) -> String {
            "actions: inc, dec\n".into()
        }
    }

    struct DemoEnv {
        target: u32,
        stuck: bool,
        count: u32,
        steps: u32,
        over: bool,
    }

    impl Env for DemoEnv {
        fn reset(&mut self, _seed: u64) -> Observation {
            (self.count, self.steps, self.over) = (0, 0, false);
            Observation::text(format!("count 0 of {}", self.target))
        }
        fn step(&mut self, action: &Action) -> Result<Step, EnvError> {
            if self.over {
                return Err(EnvError::EpisodeOver);
            }
            self.steps += 1;
            let valid = matches!(action, Action::Text { text } if text == "inc");
            if valid && !self.stuck {
                self.count += 1;
            }
            let terminated = self.count >= self.target;
            let truncated = !terminated && self.steps >= 3 * self.target + 2;
            self.over = terminated || truncated;
            let feedback = if valid { "ok" } else { "unknown action" };
            Ok(Step {
                observation: Observation::text(format!(
                    "{feedback}. count {} of {}",
                    self.count, self.target
                )),
                feedback: feedback.into(),
                progress: f64::from(self.count) / f64::from(self.target),
                terminated,
                truncated,
                error: (!valid).then(|| "parse".to_string()),
                ..Default::default()
            })
        }
        fn system_prompt(&self) -> String {
            "Type inc to count up.".into()
        }
        fn tool_schemas(&self) -> Vec<ToolSchema> {
            Vec::new()
        }
        fn outcome(&self) -> Outcome {
            Outcome {
                success: self.count >= self.target,
                steps: self.steps,
                metrics: BTreeMap::from([(
                    "progress_rate".to_string(),
                    f64::from(self.count) / f64::from(self.target),
                )]),
            }
        }
        fn secrets(&self) -> Vec<String> {
            Vec::new()
        }
    }

    struct DemoAgent {
        kind: String,
        seed: u64,
        turn: u64,
    }

    impl Agent for DemoAgent {
        fn name(&self) -> String {
            self.kind.clone()
        }
        fn reset(&mut self, _start: escapade_core::EpisodeStart<'_>) {
            self.turn = 0;
        }
        fn act(&mut self, _o: &Observation, _l: Option<&Step>) -> Result<AgentTurn, CoreError> {
            self.turn += 1;
            let inc = self.kind == "oracle"
                || escapade_core::seed::derive(self.seed, "turn", self.turn).is_multiple_of(2);
            Ok(AgentTurn::action(Action::text(if inc {
                "inc"
            } else {
                "dec"
            })))
        }
    }
}
