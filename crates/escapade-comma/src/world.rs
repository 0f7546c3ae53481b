//! The `comma` entry of the world registry: scenarios, the suite `comma@1`, and the
//! baselines (random pair, oracle pair).
//!
//! A scenario is one puzzle instance in the original's field names, so a scenario file
//! and the original's puzzle JSON say the same thing:
//! `{"world": "comma", "id": "comma-wire-s3", "difficulty": 1, "seed": 3,
//! "puzzle": "wire", "instance": {...}}`. `difficulty` is the puzzle's place in the
//! paper's table (1 Wire … 10 ATM, [`PuzzleKind::ALL`]), since a COMMA tier is a puzzle.
//! The episode seed drives whatever the puzzle draws during play.
//!
//! `comma@1` (§4.1): 100 instances of each puzzle, instance `i` of a puzzle drawn from
//! seed `i` (1–100).

use escapade_core::env::{OracleReport, SuiteSpec};
use escapade_core::{
    Action, Agent, AgentTurn, CoreError, Env, Observation, Step, ToolSchema, World,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::env::{CommaEnv, EXPERT, SOLVER, read_actions};
use crate::puzzle::{Puzzle, PuzzleKind, generate, import, play_out};
use crate::reader::{DescribingSolver, ReadingExpert};

/// The suite of 1000 instances.
pub const COMMA_V1: &str = "comma@1";
/// Instances per puzzle in `comma@1`.
pub const PER_PUZZLE: u64 = 100;

/// A comma scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommaScenario {
    /// Always `comma`.
    pub world: String,
    /// Stable id (`comma-wire-s3`).
    pub id: String,
    /// The puzzle's place in [`PuzzleKind::ALL`], from 1.
    pub difficulty: u32,
    /// The seed the instance was drawn from (0 when imported).
    pub seed: u64,
    /// The puzzle's short name.
    pub puzzle: String,
    /// The instance, in the original's field names.
    pub instance: Value,
}

impl CommaScenario {
    /// The scenario of a freshly drawn puzzle.
    pub fn generated(kind: PuzzleKind, seed: u64) -> Result<CommaScenario, CoreError> {
        let p = generate(kind, seed).map_err(|e| CoreError::Generation(e.to_string()))?;
        Ok(CommaScenario::of(
            kind,
            seed,
            p.instance(),
            format!("comma-{}-s{seed}", kind.name()),
        ))
    }

    /// A scenario around an instance.
    pub fn of(kind: PuzzleKind, seed: u64, instance: Value, id: String) -> CommaScenario {
        CommaScenario {
            world: "comma".into(),
            id,
            difficulty: tier(kind),
            seed,
            puzzle: kind.name().into(),
            instance,
        }
    }

    /// Reads and checks a scenario file.
    pub fn from_json(text: &str) -> Result<(CommaScenario, PuzzleKind), CoreError> {
        let s: CommaScenario =
            serde_json::from_str(text).map_err(|e| CoreError::InvalidScenario(e.to_string()))?;
        let kind =
            PuzzleKind::parse(&s.puzzle).map_err(|e| CoreError::InvalidScenario(e.to_string()))?;
        import(kind, &s.instance, 0).map_err(|e| CoreError::InvalidScenario(e.to_string()))?;
        Ok((s, kind))
    }

    /// The scenario as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    fn puzzle(&self, kind: PuzzleKind, seed: u64) -> Box<dyn Puzzle> {
        // checked in `from_json`; a failure here would be a bug in an importer
        import(kind, &self.instance, seed).unwrap_or_else(|e| panic!("{}: {e}", self.id))
    }
}

/// A puzzle's tier: its place in the paper's table, from 1.
pub fn tier(kind: PuzzleKind) -> u32 {
    PuzzleKind::ALL.iter().position(|k| *k == kind).unwrap_or(0) as u32 + 1
}

/// The comma world.
#[derive(Debug, Default)]
pub struct CommaWorld;

impl World for CommaWorld {
    fn name(&self) -> &'static str {
        "comma"
    }

    fn description(&self) -> &'static str {
        "COMMA: a solver and an expert talk through ten puzzles (work in progress)"
    }

    fn suites(&self) -> Vec<SuiteSpec> {
        vec![SuiteSpec {
            name: COMMA_V1.into(),
            world: "comma".into(),
            description: "100 instances of each of the ten puzzles (COMMA §4.1)".into(),
            tiers: PuzzleKind::ALL
                .iter()
                .map(|k| (tier(*k), PER_PUZZLE as u32))
                .collect(),
            ..Default::default()
        }]
    }

    /// `difficulty` names the puzzle by its tier (1 Wire … 10 ATM).
    fn generate(&self, difficulty: u32, seed: u64) -> Result<String, CoreError> {
        let kind = PuzzleKind::ALL
            .get((difficulty as usize).wrapping_sub(1))
            .copied()
            .ok_or_else(|| {
                CoreError::Generation(format!(
                    "comma difficulty is the puzzle's number, 1 to 10 ({})",
                    PuzzleKind::ALL
                        .iter()
                        .enumerate()
                        .map(|(i, k)| format!("{} {}", i + 1, k.name()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
        Ok(CommaScenario::generated(kind, seed)?.to_json())
    }

    fn build_suite(&self, suite: &str) -> Result<Vec<String>, CoreError> {
        if suite != COMMA_V1 {
            return Err(CoreError::Unknown {
                what: "suite",
                name: suite.into(),
                known: COMMA_V1.into(),
            });
        }
        let mut out = Vec::new();
        for kind in PuzzleKind::ALL {
            for seed in 1..=PER_PUZZLE {
                out.push(CommaScenario::generated(kind, seed)?.to_json());
            }
        }
        Ok(out)
    }

    fn env(&self, scenario_json: &str) -> Result<Box<dyn Env + Send>, CoreError> {
        let (s, kind) = CommaScenario::from_json(scenario_json)?;
        Ok(Box::new(CommaEnv::new(Box::new(move |seed| {
            s.puzzle(kind, seed)
        }))))
    }

    fn agent(
        &self,
        kind: &str,
        scenario_json: &str,
        seed: u64,
    ) -> Result<Box<dyn Agent + Send>, CoreError> {
        let (s, puzzle) = CommaScenario::from_json(scenario_json)?;
        match kind {
            "random" => Ok(Box::new(RandomPair::new(seed))),
            "oracle" => Ok(Box::new(OraclePair::new(s.puzzle(puzzle, seed)))),
            "oracle-talk" => Ok(Box::new(TalkingPair::new(s.puzzle(puzzle, seed), puzzle))),
            other => Err(CoreError::Unknown {
                what: "agent",
                name: other.into(),
                known: self.agent_kinds().join(", "),
            }),
        }
    }

    fn agent_kinds(&self) -> Vec<&'static str> {
        vec!["oracle", "oracle-talk", "random"]
    }

    fn oracle(&self, scenario_json: &str) -> Result<OracleReport, CoreError> {
        let mut env = self.env(scenario_json)?;
        let mut agent = self.agent("oracle", scenario_json, 0)?;
        let (outcome, _) = escapade_core::agent::play(env.as_mut(), agent.as_mut(), 0, 100)?;
        Ok(OracleReport {
            solved: outcome.success,
            steps: outcome
                .metrics
                .get("conversation_length")
                .copied()
                .unwrap_or(0.0) as u32,
        })
    }
}

/// The paper's random baseline (§4.3, fixtures README): the solver picks one uniformly
/// random action from the puzzle's full list each turn; the expert says nothing.
pub struct RandomPair {
    rng: ChaCha8Rng,
}

impl RandomPair {
    /// Seeded by the episode seed.
    pub fn new(seed: u64) -> RandomPair {
        RandomPair {
            rng: ChaCha8Rng::seed_from_u64(escapade_core::seed::derive(seed, "comma-random", 0)),
        }
    }
}

impl Agent for RandomPair {
    fn name(&self) -> String {
        "random".into()
    }
    fn reset(&mut self, seed: u64, _prompt: &str, _tools: &[ToolSchema]) {
        *self = RandomPair::new(seed);
    }
    fn act(&mut self, o: &Observation, _last: Option<&Step>) -> Result<AgentTurn, CoreError> {
        let text = match (o.role.as_deref(), o.actions.as_deref()) {
            (Some(SOLVER), Some(actions)) if !actions.is_empty() => {
                actions[self.rng.random_range(0..actions.len())].clone()
            }
            _ => String::new(),
        };
        Ok(AgentTurn::action(Action::text(text)))
    }
}

/// The talking oracle pair ([`crate::reader`]): the solver says exactly what it sees
/// (never a private value) and does what it is told; the expert knows only the solver's
/// words. Each half plays its role whoever plays the other (`--expert`).
pub struct TalkingPair {
    solver: DescribingSolver,
    expert: ReadingExpert,
}

impl TalkingPair {
    /// The pair for one episode: the solver's copy of the puzzle (scenario + episode
    /// seed) and the kind whose manual the expert holds.
    pub fn new(copy: Box<dyn Puzzle>, kind: PuzzleKind) -> TalkingPair {
        TalkingPair {
            solver: DescribingSolver::new(copy),
            expert: ReadingExpert::new(kind),
        }
    }
}

impl Agent for TalkingPair {
    fn name(&self) -> String {
        "oracle-talk".into()
    }
    fn reset(&mut self, _seed: u64, _prompt: &str, _tools: &[ToolSchema]) {}
    fn act(&mut self, o: &Observation, _last: Option<&Step>) -> Result<AgentTurn, CoreError> {
        let text = match o.role.as_deref() {
            Some(EXPERT) => {
                let said = o.text.strip_prefix("The solver says: ").unwrap_or(&o.text);
                self.expert.advise(said)
            }
            _ => self.solver.say(expert_message(&o.text)),
        };
        Ok(AgentTurn::action(Action::text(text)))
    }
}

/// The expert's last message inside a solver observation (empty before the first).
fn expert_message(observation: &str) -> &str {
    let Some(start) = observation.find("\nThe expert says: ") else {
        return "";
    };
    let rest = &observation[start + "\nThe expert says: ".len()..];
    rest.rfind("\nActions: ").map_or(rest, |end| &rest[..end])
}

/// The oracle pair. The solver describes what it sees and then performs what the expert
/// said; the expert keeps its own copy of the puzzle — built from the scenario and the
/// episode seed, never from the solver's screen — follows the actions the solver reports
/// and answers with the whole remaining solution, one action per line. So a solvable
/// instance ends in two solver turns without a mistake. It proves a scenario solvable
/// within the limits; [`TalkingPair`] is the stricter pair that must talk.
pub struct OraclePair {
    copy: Box<dyn Puzzle>,
    instructions: Vec<String>,
}

impl OraclePair {
    /// The pair for one episode's puzzle.
    pub fn new(copy: Box<dyn Puzzle>) -> OraclePair {
        OraclePair {
            copy,
            instructions: Vec::new(),
        }
    }
}

impl Agent for OraclePair {
    fn name(&self) -> String {
        "oracle".into()
    }
    fn reset(&mut self, _seed: u64, _prompt: &str, _tools: &[ToolSchema]) {
        self.instructions.clear();
    }
    fn act(&mut self, o: &Observation, _last: Option<&Step>) -> Result<AgentTurn, CoreError> {
        let text = match o.role.as_deref() {
            Some(EXPERT) => {
                // follow what the solver did, then plan the rest on the copy
                let said = o.text.strip_prefix("The solver says: ").unwrap_or(&o.text);
                for a in read_actions(said, &self.copy.actions()) {
                    self.copy.act(&a);
                }
                play_out(self.copy.as_mut(), 200).0.join("\n")
            }
            _ => {
                let mut lines = std::mem::take(&mut self.instructions);
                if lines.is_empty() {
                    // the oracle expert plans on its own copy, so the solver only asks
                    // (a description may name an action, like `submit`, and trigger it)
                    lines.push("I can see the puzzle. What should I do?".to_string());
                }
                lines.join("\n")
            }
        };
        if o.role.as_deref() == Some(EXPERT) {
            // what the solver will type next turn
            self.instructions = text.lines().map(String::from).collect();
        }
        Ok(AgentTurn::action(Action::text(text)))
    }
}
