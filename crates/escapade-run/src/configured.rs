//! A world with a run's environment options applied (`-W key=value`).
//!
//! Why: the runner, `play` and `show` hand a `&dyn World` to agent factories and open
//! environments in several places. Wrapping the world once, so that `env` and `agent`
//! carry the options, keeps every one of those places option-free and makes sure an
//! oracle plays by the same rules and pictures as the environment it faces.

use std::collections::BTreeMap;

use escapade_core::env::{OracleReport, PaperStat, RetiredSuite, SuiteSpec, Validation};
use escapade_core::{Agent, CoreError, Env, World};

/// `world` whose environments and baseline agents are made with `options`.
pub struct Configured<'a> {
    world: &'a dyn World,
    options: &'a BTreeMap<String, String>,
}

impl<'a> Configured<'a> {
    /// Wraps `world` with `options` (none: it behaves exactly as `world`).
    pub fn new(world: &'a dyn World, options: &'a BTreeMap<String, String>) -> Configured<'a> {
        Configured { world, options }
    }

    /// The run's options with `more` on top.
    fn merged(&self, more: &BTreeMap<String, String>) -> BTreeMap<String, String> {
        let mut all = self.options.clone();
        all.extend(more.iter().map(|(k, v)| (k.clone(), v.clone())));
        all
    }
}

impl World for Configured<'_> {
    fn name(&self) -> &'static str {
        self.world.name()
    }
    fn description(&self) -> &'static str {
        self.world.description()
    }
    fn suites(&self) -> Vec<SuiteSpec> {
        self.world.suites()
    }
    fn generate(&self, difficulty: u32, seed: u64) -> Result<String, CoreError> {
        self.world.generate(difficulty, seed)
    }
    fn build_suite(&self, suite: &str) -> Result<Vec<String>, CoreError> {
        self.world.build_suite(suite)
    }
    fn env(&self, scenario_json: &str) -> Result<Box<dyn Env + Send>, CoreError> {
        self.world.env_with(scenario_json, self.options)
    }
    fn env_options(&self) -> Vec<(&'static str, &'static str)> {
        self.world.env_options()
    }
    fn env_with(
        &self,
        scenario_json: &str,
        options: &BTreeMap<String, String>,
    ) -> Result<Box<dyn Env + Send>, CoreError> {
        self.world.env_with(scenario_json, &self.merged(options))
    }
    fn agent(
        &self,
        kind: &str,
        scenario_json: &str,
        seed: u64,
    ) -> Result<Box<dyn Agent + Send>, CoreError> {
        self.world
            .agent_with(kind, scenario_json, seed, self.options)
    }
    fn agent_with(
        &self,
        kind: &str,
        scenario_json: &str,
        seed: u64,
        options: &BTreeMap<String, String>,
    ) -> Result<Box<dyn Agent + Send>, CoreError> {
        self.world
            .agent_with(kind, scenario_json, seed, &self.merged(options))
    }
    fn agent_kinds(&self) -> Vec<&'static str> {
        self.world.agent_kinds()
    }
    fn oracle(&self, scenario_json: &str) -> Result<OracleReport, CoreError> {
        self.world.oracle(scenario_json)
    }
    fn check(&self, text: &str) -> Result<Validation, CoreError> {
        self.world.check(text)
    }
    fn paper_stats(&self, suite: &str, scenarios: &[String]) -> Result<Vec<PaperStat>, CoreError> {
        self.world.paper_stats(suite, scenarios)
    }
    fn catalogue(&self) -> String {
        self.world.catalogue()
    }
    fn retired_suites(&self) -> Vec<RetiredSuite> {
        self.world.retired_suites()
    }
    fn judge_tasks(&self) -> Vec<&'static dyn escapade_core::judge::JudgeTask> {
        self.world.judge_tasks()
    }
    fn tier_label(&self, difficulty: u32, means: &BTreeMap<String, f64>) -> String {
        self.world.tier_label(difficulty, means)
    }
    fn breakdowns(&self) -> Vec<escapade_core::report::Breakdown> {
        self.world.breakdowns()
    }
    fn turn_curve(&self) -> Option<escapade_core::report::TurnCurve> {
        self.world.turn_curve()
    }
}
