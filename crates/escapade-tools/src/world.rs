//! The `tools` entry of the world registry, and the suite `agentescape@2`.
//!
//! `agentescape@2` (§3.1): 60 scenarios at each of 5, 10, 15 and 20 nodes and 30 at 25,
//! with the paper's agent settings (App. B: temperature 0.7, one run per instance).
//! Scenario `i` of tier `d` uses seed `1000·d + i`; when its skeleton is isomorphic to
//! one already in the tier (A.2), the seed moves on by 100 000 until it is not. Every
//! scenario therefore carries the seed that rebuilds it alone with
//! `escapade gen tools --difficulty d --seed <seed>`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use escapade_core::env::{OracleReport, RetiredSuite, SuiteSettings, SuiteSpec};
use escapade_core::report::ReportSpec;
use escapade_core::{Agent, CoreError, Env, World};

use crate::ToolsError;
use crate::baseline::{OracleAgent, RandomAgent};
use crate::clue::ClueStyle;
use crate::env::ToolsEnv;
use crate::generator::{self, GenConfig};
use crate::library;
use crate::sandbox::{CodeRunner, MemoRunner, PythonSandbox, SandboxConfig, SandboxError};
use crate::scenario::ToolsScenario;
use crate::template::NodeKind;

/// Name of the suite.
pub const AGENTESCAPE_V2: &str = "agentescape@2";
/// The retired first version (literal clues, trimmed text outputs, any regex pattern
/// wired; a correct flag counted without the terminal's call).
pub const AGENTESCAPE_V1: &str = "agentescape@1";
/// Tiers of the suite (§3.1).
const TIERS: [(u32, u32); 5] = [(5, 60), (10, 60), (15, 60), (20, 60), (25, 30)];
const SEED_STRIDE: u64 = 100_000;

/// The paper's agent settings (App. B): "a sampling temperature of 0.7"; "each
/// instance is evaluated in a single run".
pub fn suite_settings() -> SuiteSettings {
    SuiteSettings {
        epochs: None,
        agent: [("temperature".to_string(), "0.7".to_string())].into(),
        source: "AgentEscapeBench App. B".into(),
    }
}

/// The real sandbox, opened when it first runs a program. Opening probes the
/// interpreter and its protections (two interpreter starts, 20 ms or more of wall time),
/// which a process that never plays this world — a VisEscape or COMMA run, `escapade
/// list` — should not pay. Every program after a failed opening fails the same way.
struct OnFirstUse {
    config: SandboxConfig,
    opened: OnceLock<Result<PythonSandbox, SandboxError>>,
}

impl CodeRunner for OnFirstUse {
    fn run(&self, code: &str, stdin: &str) -> Result<String, SandboxError> {
        let opened = self
            .opened
            .get_or_init(|| PythonSandbox::new(self.config.clone()));
        match opened {
            Ok(sandbox) => sandbox.run(code, stdin),
            Err(e) => Err(match e {
                SandboxError::NoInterpreter { searched } => SandboxError::NoInterpreter {
                    searched: searched.clone(),
                },
                SandboxError::Unsupported => SandboxError::Unsupported,
                SandboxError::Unusable { python, reason } => SandboxError::Unusable {
                    python: python.clone(),
                    reason: reason.clone(),
                },
                other => SandboxError::Unusable {
                    python: self
                        .config
                        .python
                        .clone()
                        .unwrap_or_else(|| "python3".into()),
                    reason: other.to_string(),
                },
            }),
        }
    }
}

/// The tools world.
pub struct ToolsWorld {
    runner: Arc<dyn CodeRunner>,
    config: GenConfig,
}

impl ToolsWorld {
    /// The world with the real Python sandbox (memoized, opened at its first program:
    /// see [`OnFirstUse`]) and the paper's generator settings. Does not fail: a machine
    /// without a usable `python3` is told so when the world first runs a program.
    pub fn new() -> Result<Self, ToolsError> {
        let sandbox = OnFirstUse {
            config: SandboxConfig::default(),
            opened: OnceLock::new(),
        };
        Ok(Self::with_runner(Arc::new(MemoRunner::new(sandbox))))
    }

    /// The world with a given code runner.
    pub fn with_runner(runner: Arc<dyn CodeRunner>) -> Self {
        ToolsWorld {
            runner,
            config: GenConfig::default(),
        }
    }

    /// Replaces the generator settings.
    pub fn with_config(mut self, config: GenConfig) -> Self {
        self.config = config;
        self
    }

    /// The code runner.
    pub fn runner(&self) -> Arc<dyn CodeRunner> {
        self.runner.clone()
    }

    /// Generates a typed scenario.
    pub fn scenario(&self, difficulty: u32, seed: u64) -> Result<ToolsScenario, ToolsError> {
        generator::generate(difficulty, seed, &self.config, &*self.runner)
    }

    /// Builds `agentescape@2` (or any tier list) as typed scenarios, in suite order.
    pub fn build_tiers(&self, tiers: &[(u32, u32)]) -> Result<Vec<ToolsScenario>, ToolsError> {
        let mut out = Vec::new();
        for &(d, count) in tiers {
            let mut taken = BTreeSet::new();
            for i in 0..count as u64 {
                let mut seed = 1000 * d as u64 + i;
                loop {
                    let (s, signature) = generator::generate_unique(
                        d,
                        seed,
                        &self.config,
                        &*self.runner,
                        &BTreeSet::new(),
                    )?;
                    if taken.insert(signature) {
                        out.push(s);
                        break;
                    }
                    seed += SEED_STRIDE;
                }
            }
        }
        Ok(out)
    }

    fn parse(&self, json: &str) -> Result<ToolsScenario, CoreError> {
        let s = ToolsScenario::from_json(json)?;
        crate::validate::validate(&s)?;
        Ok(s)
    }
}

/// The `-W` keys of the tools world.
const OPTION_KEYS: [(&str, &str); 1] = [(
    "clues",
    "themed (default: App. A.6 hints by visible names, in the room's theme) or \
     literal (node ids and explicit wiring; easier than the paper)",
)];

impl World for ToolsWorld {
    fn name(&self) -> &'static str {
        "tools"
    }

    fn description(&self) -> &'static str {
        "AgentEscapeBench: tool DAGs with real tool execution, hidden nodes and per-parameter feedback"
    }

    fn suites(&self) -> Vec<SuiteSpec> {
        vec![SuiteSpec {
            name: AGENTESCAPE_V2.into(),
            world: "tools".into(),
            description:
                "270 tool DAGs: 60 each at 5/10/15/20 nodes, 30 at 25 (AgentEscapeBench §3.1)"
                    .into(),
            tiers: TIERS.to_vec(),
            settings: suite_settings(),
        }]
    }

    fn retired_suites(&self) -> Vec<RetiredSuite> {
        vec![RetiredSuite::new(
            AGENTESCAPE_V1,
            AGENTESCAPE_V2,
            "text outputs are no longer trimmed and wired regex patterns are literal \
             (scenario bytes changed); clues hint in the room's theme instead of naming node \
             ids; a reply may carry several actions; a flag counts only once the terminal has \
             shown it",
        )]
    }

    fn env_options(&self) -> Vec<(&'static str, &'static str)> {
        OPTION_KEYS.to_vec()
    }

    /// `escapade gen tools` makes a room of the suite's smallest tier (5 nodes).
    fn generation(&self) -> escapade_core::env::Generation {
        escapade_core::env::Generation {
            default_difficulty: TIERS[0].0,
            ..Default::default()
        }
    }

    fn env(
        &self,
        scenario_json: &str,
        options: &escapade_core::Options,
    ) -> Result<Box<dyn Env + Send>, CoreError> {
        escapade_core::options::check_keys(options, &OPTION_KEYS)?;
        let style = match options.get("clues") {
            Some(value) => escapade_core::options::choose(
                "clues",
                value,
                &[
                    ("themed", ClueStyle::Themed),
                    ("literal", ClueStyle::Literal),
                ],
            )?,
            None => ClueStyle::default(),
        };
        let s = self.parse(scenario_json)?;
        Ok(Box::new(
            ToolsEnv::new(Arc::new(s), self.runner.clone()).with_clues(style),
        ))
    }

    fn generate(
        &self,
        difficulty: u32,
        seed: u64,
        options: &escapade_core::Options,
    ) -> Result<String, CoreError> {
        escapade_core::options::check_keys(options, &[])?;
        Ok(self.scenario(difficulty, seed)?.to_json())
    }

    fn build_suite(&self, suite: &str) -> Result<Vec<String>, CoreError> {
        if suite != AGENTESCAPE_V2 {
            return Err(CoreError::Unknown {
                what: "suite",
                name: suite.into(),
                known: AGENTESCAPE_V2.into(),
            });
        }
        Ok(self
            .build_tiers(&TIERS)?
            .iter()
            .map(ToolsScenario::to_json)
            .collect())
    }

    fn agent(
        &self,
        kind: &str,
        scenario_json: &str,
        _seed: u64,
        options: &escapade_core::Options,
    ) -> Result<Box<dyn Agent + Send>, CoreError> {
        // the baselines play any clue style (they read the graph, not the clues)
        escapade_core::options::check_keys(options, &OPTION_KEYS)?;
        match kind {
            "oracle" => Ok(Box::new(OracleAgent::new(&self.parse(scenario_json)?))),
            "random" => Ok(Box::new(RandomAgent::default())),
            other => Err(CoreError::Unknown {
                what: "agent",
                name: other.into(),
                known: self.agent_kinds().join(", "),
            }),
        }
    }

    fn agent_kinds(&self) -> Vec<&'static str> {
        vec!["oracle", "random"]
    }

    fn oracle(&self, scenario_json: &str) -> Result<OracleReport, CoreError> {
        let s = self.parse(scenario_json)?;
        let mut env = ToolsEnv::new(Arc::new(s.clone()), self.runner.clone());
        let mut agent = OracleAgent::new(&s);
        let (outcome, _) = escapade_core::agent::play(&mut env, &mut agent, 0, 100_000)?;
        let calls = outcome.metrics.get("tool_calls").copied().unwrap_or(0.0) as u32;
        Ok(OracleReport {
            solved: outcome.success && calls == s.min_tool_calls,
            steps: calls,
        })
    }

    /// Mean minimum tool calls per tier beside AgentEscapeBench Table 3's "Min.
    /// Required" row (5/10/15/20 nodes; the paper gives none for 25).
    fn paper_stats(
        &self,
        _suite: &str,
        scenarios: &[String],
    ) -> Result<Vec<escapade_core::env::PaperStat>, CoreError> {
        const TABLE_3: [(u32, f64); 4] = [(5, 9.03), (10, 18.20), (15, 27.73), (20, 36.63)];
        let parsed: Vec<ToolsScenario> = scenarios
            .iter()
            .map(|s| self.parse(s))
            .collect::<Result<_, _>>()?;
        let tiers: BTreeSet<u32> = parsed.iter().map(|s| s.difficulty).collect();
        Ok(tiers
            .into_iter()
            .map(|d| {
                let calls: Vec<f64> = parsed
                    .iter()
                    .filter(|s| s.difficulty == d)
                    .map(|s| f64::from(s.min_tool_calls))
                    .collect();
                escapade_core::env::PaperStat {
                    name: format!("min tool calls, {d} nodes"),
                    ours: calls.iter().sum::<f64>() / calls.len().max(1) as f64,
                    paper: TABLE_3.iter().find(|t| t.0 == d).map(|t| t.1),
                    source: "AgentEscapeBench Table 3".into(),
                }
            })
            .collect())
    }

    fn catalogue(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "Port types: Big_Int, Text_Generic, Hex_String, Hex_String_Key_AES, Hex_String_IV_AES, File_Id, Code_Python, Item, Hidden_Item."
        );
        let _ = writeln!(
            t,
            "Droppable variants: every tool, terminal and item template also comes with an extra trigger input of type Item or Hidden_Item (hidden until its source resolves); default ratio 30 %."
        );
        for kind in [
            NodeKind::Tool,
            NodeKind::Terminal,
            NodeKind::Item,
            NodeKind::Container,
        ] {
            let templates: Vec<_> = library::library()
                .iter()
                .filter(|t| t.kind == kind)
                .collect();
            let _ = writeln!(t, "\n{} templates ({}):", kind.label(), templates.len());
            for tp in templates {
                let ins: Vec<String> = tp
                    .inputs
                    .iter()
                    .map(|p| {
                        format!(
                            "{}: {}{}",
                            p.name,
                            p.ty,
                            match p.role {
                                crate::template::PortRole::Open => "",
                                crate::template::PortRole::Exclusive => " [exclusive]",
                                crate::template::PortRole::SeedOnly => " [seeded]",
                            }
                        )
                    })
                    .collect();
                let outs: Vec<String> = tp
                    .outputs
                    .iter()
                    .map(|p| format!("{}: {}", p.name, p.ty))
                    .collect();
                let _ = writeln!(
                    t,
                    "  {} — {} [{}]\n    ({}) -> ({})\n    {}",
                    tp.id,
                    tp.title,
                    tp.family,
                    ins.join(", "),
                    outs.join(", "),
                    tp.semantics
                );
            }
        }
        t
    }
    /// Tiers by number, no breakdown; the terminal shows Table 1's columns: success
    /// rate, sub-problem resolution and hidden-node discovery, with the steps and tool
    /// calls spent.
    fn report(&self) -> ReportSpec {
        ReportSpec {
            key_metrics: &[
                "success",
                "sub_problem_resolution",
                "hidden_discovery",
                "steps",
                "tool_calls",
            ],
            ..ReportSpec::default()
        }
    }
    /// The paper's results tables (`src/paper.json`, every number checked against the
    /// paper's text by `tests/paper.rs`).
    fn paper(&self) -> Option<escapade_core::paper::Paper> {
        static PAPER: std::sync::OnceLock<escapade_core::paper::Paper> = std::sync::OnceLock::new();
        Some(escapade_core::paper::Paper::embedded(
            &PAPER,
            include_str!("paper.json"),
        ))
    }
}
