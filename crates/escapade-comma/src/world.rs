//! The `comma` entry of the world registry: scenarios, the suites, the world options and
//! the baselines (random pair, oracle pair, talking oracle pair).
//!
//! A scenario is one puzzle instance in the original's field names, so a scenario file
//! and the original's puzzle JSON say the same thing:
//! `{"world": "comma", "id": "comma-wire-000", "difficulty": 1, "seed": 0,
//! "puzzle": "wire", "instance": {...}}`. `difficulty` is the puzzle's place in the
//! paper's table (1 Wire … 10 ATM, [`PuzzleKind::ALL`]), since a COMMA tier is a puzzle.
//! The episode seed drives whatever the puzzle draws during play.
//!
//! Suites:
//! - `comma@4` (§4.1) is the paper's own evaluation set, "100 fixed but different
//!   initializations of each of the 10 puzzles": the original's `puzzles_final.json`
//!   (MIT, in `data/` with its licence), entry by entry in the file's order, entry `n`
//!   (from 0) being `comma-<puzzle>-<n>`. Its Telehealth entries name rows of PAD-UFES-20,
//!   which is not shipped: each stands in as a labelled SYNTHETIC case with the row's
//!   diagnosis and treatment ([`Telehealth::stand_in`]); `escapade import comma
//!   <PAD-UFES-20 folder> --suite comma@3` writes the suite with the real rows and
//!   photographs instead.
//! - `comma-gen@3`: 100 fresh instances of each puzzle from our generators, for puzzles no
//!   model has seen; instance `i` (1–100) of puzzle `p` is drawn from
//!   `seed::derive(0, "comma-gen@2/<p>", i)` (the seeds of `comma-gen@2`, so the same
//!   instances), so tiers are independent.
//! - Retired: `comma@1` (100 generated instances per puzzle, drawn from seeds 1–100
//!   shared by all puzzles, with the earlier rules); `comma@2` and `comma-gen@1`, whose
//!   puzzles drew from ChaCha8 — the generators, the Telehealth stand-ins and the
//!   puzzles' in-episode draws now use core's one RNG (ChaCha20), so the stand-ins'
//!   scenario bytes, the generated instances and the episodes changed; `comma@3` and
//!   `comma-gen@2`, the same scenarios played before issue 25 (escapade's PSR and
//!   conversation length, serial number 135790, numbered wires, an action name before
//!   each feedback sentence, a solver prompt and an expert manual that said more than the
//!   original's).
//!
//! The paper's protocol is the default; `-W` options ([`CommaOptions`]) switch the
//! departures: Memory's labels, the feedback after actions, the expert's word limit, the
//! solver prompt's warning, the serial number, and escapade's readings of PSR and the
//! conversation length. The suites declare the original's decoding settings
//! (temperature 0, at most 1024 tokens a reply).

use std::collections::BTreeMap;

use escapade_core::env::{Generation, OracleReport, RetiredSuite, SuiteSettings, SuiteSpec};
use escapade_core::report::{Breakdown, Grouping, ReportSpec, TurnCurve};
use escapade_core::{Action, Agent, AgentTurn, CoreError, Env, Observation, Step, World};
use rand::Rng;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::env::{
    Acl, CommaEnv, EXPERT, ExpertWords, Feedback, Protocol, Psr, SOLVER, SolverPrompt, read_actions,
};
use crate::puzzle::{MemoryLabels, Puzzle, PuzzleKind, Rules, generate, import_with, play_out};
use crate::puzzles::telehealth::Telehealth;
use crate::reader::{DescribingSolver, ReadingExpert};

/// The paper's evaluation set (§4.1).
pub const COMMA: &str = "comma@4";
/// Fresh generated instances.
pub const COMMA_GEN: &str = "comma-gen@3";
/// The suite name the generated instances draw their seeds under ([`generated_seed`]):
/// `comma-gen@2`'s, kept so `comma-gen@3` holds the same instances (only the protocol
/// changed).
pub const GENERATED_SEEDS: &str = "comma-gen@2";
/// Instances per puzzle in each suite.
pub const PER_PUZZLE: u64 = 100;

/// The original's evaluation file, as published.
const PAPER_SET: &str = include_str!("../data/puzzles_final.json");
/// `skin_lesion_idx,diagnostic,treatment` of the evaluation set's Telehealth rows.
const STAND_INS: &str = include_str!("../data/telehealth_stand_in.csv");

/// A comma scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommaScenario {
    /// Always `comma`.
    pub world: String,
    /// Stable id (`comma-wire-000`, `comma-gen-wire-001`, `comma-wire-s3`).
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
    /// The scenario of a freshly drawn puzzle (`comma-<puzzle>-s<seed>`).
    pub fn generated(kind: PuzzleKind, seed: u64) -> Result<CommaScenario, CoreError> {
        CommaScenario::generated_as(kind, seed, format!("comma-{}-s{seed}", kind.name()))
    }

    /// [`CommaScenario::generated`] under the id `id`.
    pub fn generated_as(
        kind: PuzzleKind,
        seed: u64,
        id: String,
    ) -> Result<CommaScenario, CoreError> {
        let p = generate(kind, seed).map_err(CoreError::generation)?;
        Ok(CommaScenario::of(kind, seed, p.instance(), id))
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

    /// Reads and checks a scenario file: the world, the difficulty (the puzzle's
    /// [`tier`]) and the instance, whose fields must be the puzzle's and in range.
    pub fn from_json(text: &str) -> Result<(CommaScenario, PuzzleKind), CoreError> {
        let s: CommaScenario = serde_json::from_str(text).map_err(CoreError::invalid_scenario)?;
        let kind = PuzzleKind::parse(&s.puzzle).map_err(CoreError::invalid_scenario)?;
        if s.world != "comma" {
            return Err(CoreError::invalid_scenario(format!(
                "world is `{}`, not `comma`",
                s.world
            )));
        }
        if s.difficulty != tier(kind) {
            return Err(CoreError::invalid_scenario(format!(
                "difficulty is {} but {} is puzzle {} of the ten",
                s.difficulty,
                kind.name(),
                tier(kind)
            )));
        }
        import_with(kind, &s.instance, 0, Rules::default()).map_err(CoreError::invalid_scenario)?;
        Ok((s, kind))
    }

    /// The scenario as pretty JSON.
    pub fn to_json(&self) -> String {
        escapade_core::scenario::to_json(self)
    }

    fn puzzle(&self, kind: PuzzleKind, seed: u64, rules: Rules) -> Box<dyn Puzzle> {
        // checked in `from_json`, and no rule variant refuses an instance the default
        // accepts; a failure here would be a bug in an importer
        import_with(kind, &self.instance, seed, rules)
            .unwrap_or_else(|e| panic!("{}: {e}", self.id))
    }
}

/// A puzzle's tier: its place in the paper's table, from 1.
/// The capability categories of COMMA §3.2, in the paper's order.
pub const CAPABILITIES: [&str; 4] = ["memory", "grounding", "reasoning", "privacy"];

/// A puzzle's tier: its place in the paper's table, from 1.
pub fn tier(kind: PuzzleKind) -> u32 {
    PuzzleKind::ALL.iter().position(|k| *k == kind).unwrap_or(0) as u32 + 1
}

/// The entries of the paper's evaluation set: `(n from 0, puzzle, fields)`, in file order.
pub fn paper_entries() -> Result<Vec<(usize, PuzzleKind, Value)>, CoreError> {
    let bad = |what: String| CoreError::world(format!("data/puzzles_final.json: {what}"));
    let list: Vec<BTreeMap<String, Value>> =
        serde_json::from_str(PAPER_SET).map_err(|e| bad(e.to_string()))?;
    list.into_iter()
        .enumerate()
        .map(|(n, entry)| {
            let (class, fields) = entry
                .into_iter()
                .next()
                .ok_or_else(|| bad(format!("entry {n} is empty")))?;
            let kind = PuzzleKind::ALL
                .into_iter()
                .find(|k| k.class() == class)
                .ok_or_else(|| bad(format!("entry {n}: unknown class {class}")))?;
            Ok((n, kind, fields))
        })
        .collect()
}

/// The diagnosis and treatment of each PAD-UFES-20 row the evaluation set names
/// (`data/telehealth_stand_in.csv`).
pub fn stand_in_answers() -> BTreeMap<u64, (String, String)> {
    STAND_INS
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut f = l.split(',');
            let idx = f.next()?.trim().parse().ok()?;
            Some((idx, (f.next()?.trim().into(), f.next()?.trim().into())))
        })
        .collect()
}

/// The id of entry `n` of the evaluation set.
pub fn paper_id(kind: PuzzleKind, n: usize) -> String {
    format!("comma-{}-{n:03}", kind.name())
}

/// `comma@4`: every entry of the evaluation set, Telehealth's as synthetic stand-ins.
fn paper_suite() -> Result<Vec<String>, CoreError> {
    let answers = stand_in_answers();
    paper_entries()?
        .into_iter()
        .map(|(n, kind, fields)| {
            let instance = if kind == PuzzleKind::Telehealth {
                let idx = fields
                    .get("skin_lesion_idx")
                    .and_then(Value::as_u64)
                    .ok_or_else(|| CoreError::world(format!("entry {n}: no skin_lesion_idx")))?;
                let (code, treat) = answers.get(&idx).ok_or_else(|| {
                    CoreError::world(format!("no stand-in answers for PAD-UFES-20 row {idx}"))
                })?;
                Telehealth::stand_in(idx, code, treat)
                    .map_err(CoreError::world)?
                    .instance()
            } else {
                fields
            };
            let json = CommaScenario::of(kind, 0, instance, paper_id(kind, n)).to_json();
            CommaScenario::from_json(&json)?;
            Ok(json)
        })
        .collect()
}

/// The seed of instance `i` of puzzle `kind` in the generated suite `suite`.
pub fn generated_seed(suite: &str, kind: PuzzleKind, i: u64) -> u64 {
    escapade_core::seed::derive(0, &format!("{suite}/{}", kind.name()), i)
}

/// `comma-gen@3`: instance `i` (1–100) of each puzzle from [`generated_seed`] under the
/// name `comma-gen@2` (the instances did not change with the version).
fn generated_suite() -> Result<Vec<String>, CoreError> {
    let mut out = Vec::new();
    for kind in PuzzleKind::ALL {
        for i in 1..=PER_PUZZLE {
            let seed = generated_seed(GENERATED_SEEDS, kind, i);
            let id = format!("comma-gen-{}-{i:03}", kind.name());
            out.push(CommaScenario::generated_as(kind, seed, id)?.to_json());
        }
    }
    Ok(out)
}

/// The world options of a comma run (`-W key=value`, [`CommaWorld::env_options`]); the
/// default is the paper's protocol with the original's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CommaOptions {
    /// Puzzle rule variants.
    pub rules: Rules,
    /// Protocol variants.
    pub protocol: Protocol,
}

/// The option keys, their values (default first) and what they set.
const OPTIONS: [(&str, &str); 7] = [
    (
        "memory_labels",
        "fixed (default: Memory's labels read 3 1 2 4 at every stage, as the original) or \
         shuffled (new labels every stage; a different, harder task)",
    ),
    (
        "feedback",
        "original (default: after each action \"The action was performed successfully.\" or \
         \"That action seems to have been a mistake.\") or detailed (escapade's account of \
         each action, and the turn and mistake counts)",
    ),
    (
        "expert_words",
        "ask (default: the expert's prompt asks for at most 100 words, as the original) or \
         cut (also cut its messages after 100 words)",
    ),
    (
        "action_warning",
        "off (default: the solver's prompt says what App. D says) or on (it also warns that \
         a line naming an action performs it, even inside a question)",
    ),
    (
        "serial",
        "the serial number on the Wire module, a whole number up to 999999 (default \
         123456, as the original's model configurations; its random baseline used 135790)",
    ),
    (
        "psr",
        "original (default: the original's score at the end — Memory and Keypad the last \
         correct press, Maze the straight-line distance covered) or best (the most \
         progress reached, Maze by path)",
    ),
    (
        "acl",
        "original (default: solver and expert messages halved, as the original's summary; \
         10 at the turn limit) or turns (solver turns to success, 10 when not solved)",
    ),
];

impl CommaOptions {
    /// The options `options` names (keys of [`CommaWorld::env_options`]).
    pub fn parse(options: &escapade_core::Options) -> Result<CommaOptions, CoreError> {
        use escapade_core::options::{choose, unknown};
        let mut o = CommaOptions::default();
        for (key, value) in options {
            match key.as_str() {
                "memory_labels" => {
                    o.rules.memory_labels = choose(
                        key,
                        value,
                        &[
                            ("fixed", MemoryLabels::Fixed),
                            ("shuffled", MemoryLabels::Shuffled),
                        ],
                    )?
                }
                "feedback" => {
                    o.protocol.feedback = choose(
                        key,
                        value,
                        &[
                            ("original", Feedback::Original),
                            ("detailed", Feedback::Detailed),
                        ],
                    )?
                }
                "expert_words" => {
                    o.protocol.expert_words = choose(
                        key,
                        value,
                        &[("ask", ExpertWords::Ask), ("cut", ExpertWords::Cut)],
                    )?
                }
                "action_warning" => {
                    o.protocol.solver_prompt = choose(
                        key,
                        value,
                        &[("off", SolverPrompt::AppD), ("on", SolverPrompt::Warned)],
                    )?
                }
                "serial" => {
                    o.rules.serial = value
                        .trim()
                        .parse::<u32>()
                        .ok()
                        .filter(|n| *n <= 999_999)
                        .ok_or_else(|| {
                            escapade_core::options::bad(
                                key,
                                value,
                                "a whole number from 0 to 999999",
                            )
                        })?
                }
                "psr" => {
                    o.protocol.psr = choose(
                        key,
                        value,
                        &[("original", Psr::Original), ("best", Psr::Best)],
                    )?
                }
                "acl" => {
                    o.protocol.acl = choose(
                        key,
                        value,
                        &[("original", Acl::Original), ("turns", Acl::Turns)],
                    )?
                }
                _ => return Err(unknown(key, &OPTIONS)),
            }
        }
        Ok(o)
    }
}

/// `1 (wire)`: a tier is a puzzle (its place in the paper's table).
fn tier_label(difficulty: u32, _means: &BTreeMap<String, f64>) -> String {
    match PuzzleKind::ALL.get((difficulty as usize).wrapping_sub(1)) {
        Some(kind) => format!("{difficulty} ({})", kind.name()),
        None => difficulty.to_string(),
    }
}

/// SR and PSR per capability category (COMMA §3.2, Fig. 6).
fn breakdowns() -> Vec<Breakdown> {
    let groups = CAPABILITIES
        .iter()
        .map(|c| {
            let kinds: Vec<PuzzleKind> = PuzzleKind::ALL
                .into_iter()
                .filter(|k| k.capabilities().contains(c))
                .collect();
            let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
            let label = format!("{c} ({})", names.join(", "));
            (label, kinds.into_iter().map(tier).collect())
        })
        .collect();
    vec![Breakdown {
        name: "capabilities".into(),
        title: "per capability (COMMA §3.2)".into(),
        column: "capability (puzzles)".into(),
        by: Grouping::Tiers(groups),
        per_tier: false,
        metrics: vec!["success".into(), "psr".into()],
    }]
}

/// Success within the first k solver turns (COMMA Fig. 4), up to the 10 turns of §4.1.
fn turn_curve() -> TurnCurve {
    TurnCurve {
        role: Some(crate::env::SOLVER.into()),
        max: crate::env::MAX_TURNS,
        title: "success within k solver turns (COMMA Fig. 4)".into(),
    }
}

/// The options of [`CommaWorld::generate`] (`escapade gen comma -W puzzle=wire`, or
/// `--puzzle wire`).
const GENERATION: [(&str, &str); 1] = [(
    "puzzle",
    "a puzzle by name (wire, memory, maze, …): generates that puzzle whatever the difficulty",
)];

/// The comma world.
#[derive(Debug, Default)]
pub struct CommaWorld;

impl CommaWorld {
    fn agent_for(
        &self,
        kind: &str,
        scenario_json: &str,
        seed: u64,
        rules: Rules,
    ) -> Result<Box<dyn Agent + Send>, CoreError> {
        let (s, puzzle) = CommaScenario::from_json(scenario_json)?;
        match kind {
            "random" => Ok(Box::new(RandomPair::new(seed))),
            "oracle" => Ok(Box::new(OraclePair::new(s.puzzle(puzzle, seed, rules)))),
            "oracle-talk" => Ok(Box::new(TalkingPair::new(
                s.puzzle(puzzle, seed, rules),
                puzzle,
            ))),
            other => Err(CoreError::Unknown {
                what: "agent",
                name: other.into(),
                known: self.agent_kinds().join(", "),
            }),
        }
    }
}

/// The paper's run settings (§4.1): "greedy decoding when available", one conversation
/// per instance; and the original's cap on a reply, which the paper does not state: its
/// model agents send `max_tokens` 1024 (`max_output_len`, default 1024, in every agent of
/// its `agents/`).
fn settings() -> SuiteSettings {
    SuiteSettings {
        epochs: Some(1),
        agent: [
            ("temperature".to_string(), "0".to_string()),
            ("max_tokens".to_string(), "1024".to_string()),
        ]
        .into(),
        source: "COMMA §4.1 (greedy decoding; 1000 conversations); the original's agents \
                 (at most 1024 tokens a reply)"
            .into(),
    }
}

impl World for CommaWorld {
    fn name(&self) -> &'static str {
        "comma"
    }

    fn description(&self) -> &'static str {
        "COMMA: a solver and an expert talk through ten puzzles (10 turns, 3 mistakes)"
    }

    fn suites(&self) -> Vec<SuiteSpec> {
        let tiers: Vec<(u32, u32)> = PuzzleKind::ALL
            .iter()
            .map(|k| (tier(*k), PER_PUZZLE as u32))
            .collect();
        vec![
            SuiteSpec {
                name: COMMA.into(),
                world: "comma".into(),
                description: "the paper's evaluation set: its 100 instances of each of the \
                              ten puzzles (COMMA §4.1; Telehealth as labelled synthetic \
                              stand-ins unless imported from PAD-UFES-20)"
                    .into(),
                tiers: tiers.clone(),
                settings: settings(),
            },
            SuiteSpec {
                name: COMMA_GEN.into(),
                world: "comma".into(),
                description: "100 fresh generated instances of each of the ten puzzles \
                              (unseen puzzles; synthetic Telehealth cases)"
                    .into(),
                tiers,
                settings: settings(),
            },
        ]
    }

    fn retired_suites(&self) -> Vec<RetiredSuite> {
        let rng = "generators moved to ChaCha20 (one RNG across worlds): the Telehealth \
                   stand-ins, the generated instances and the puzzles' draws during an \
                   episode changed";
        let protocol = "the same scenarios under the original's protocol (issue 25): PSR \
                        and conversation length as the original's summary counts them, \
                        serial number 123456, unnumbered wires with CUT buttons, feedback \
                        without the action's name, the solver prompt and the manuals as \
                        the original's, at most 1024 tokens a reply";
        [
            (
                "comma@1",
                COMMA,
                "comma@1 held instances of our generators under earlier rules; comma@4 is \
                 the paper's own 1000-instance evaluation set (fresh generated puzzles: \
                 comma-gen@3)",
            ),
            ("comma@2", COMMA, rng),
            ("comma-gen@1", COMMA_GEN, rng),
            ("comma@3", COMMA, protocol),
            ("comma-gen@2", COMMA_GEN, protocol),
        ]
        .into_iter()
        .map(|(name, replaced_by, why)| RetiredSuite::new(name, replaced_by, why))
        .collect()
    }

    /// `difficulty` names the puzzle by its tier (1 Wire … 10 ATM); `-W puzzle=NAME`
    /// (`escapade gen comma --puzzle wire`) names it by name instead.
    fn generate(
        &self,
        difficulty: u32,
        seed: u64,
        options: &escapade_core::Options,
    ) -> Result<String, CoreError> {
        escapade_core::options::check_keys(options, &GENERATION)?;
        let difficulty = match options.get("puzzle") {
            Some(name) => tier(
                PuzzleKind::parse(name)
                    .map_err(|e| escapade_core::options::bad("puzzle", name, e.to_string()))?,
            ),
            None => difficulty,
        };
        let kind = PuzzleKind::ALL
            .get((difficulty as usize).wrapping_sub(1))
            .copied()
            .ok_or_else(|| {
                CoreError::generation(format!(
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
        match suite {
            COMMA => paper_suite(),
            COMMA_GEN => generated_suite(),
            _ => Err(CoreError::Unknown {
                what: "suite",
                name: suite.into(),
                known: format!("{COMMA}, {COMMA_GEN}"),
            }),
        }
    }

    fn env_options(&self) -> Vec<(&'static str, &'static str)> {
        OPTIONS.to_vec()
    }

    fn generation(&self) -> Generation {
        Generation {
            default_difficulty: 1,
            options: GENERATION.to_vec(),
        }
    }

    fn env(
        &self,
        scenario_json: &str,
        options: &escapade_core::Options,
    ) -> Result<Box<dyn Env + Send>, CoreError> {
        let o = CommaOptions::parse(options)?;
        let (s, kind) = CommaScenario::from_json(scenario_json)?;
        Ok(Box::new(CommaEnv::with_protocol(
            Box::new(move |seed| s.puzzle(kind, seed, o.rules)),
            o.protocol,
        )))
    }

    fn agent(
        &self,
        kind: &str,
        scenario_json: &str,
        seed: u64,
        options: &escapade_core::Options,
    ) -> Result<Box<dyn Agent + Send>, CoreError> {
        let o = CommaOptions::parse(options)?;
        self.agent_for(kind, scenario_json, seed, o.rules)
    }

    fn bench(
        &self,
        _probe: &escapade_core::bench::Probe,
    ) -> Option<Result<escapade_core::bench::BenchReport, CoreError>> {
        Some(crate::bench::run(self))
    }

    fn agent_kinds(&self) -> Vec<&'static str> {
        vec!["oracle", "oracle-talk", "random"]
    }

    fn oracle(&self, scenario_json: &str) -> Result<OracleReport, CoreError> {
        let none = escapade_core::Options::new();
        // the oracle's steps are its solver turns, not the paper's halved message count
        let turns: escapade_core::Options = [("acl".to_string(), "turns".to_string())].into();
        let mut env = self.env(scenario_json, &turns)?;
        let mut agent = self.agent("oracle", scenario_json, 0, &none)?;
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

    /// Tiers named by puzzle, SR and PSR per capability, success by turns allowed.
    fn report(&self) -> ReportSpec {
        ReportSpec {
            tier_label,
            breakdowns: breakdowns(),
            turn_curve: Some(turn_curve()),
            // §4.2's metrics: success rate, partial success rate, average mistakes and
            // average conversation length
            key_metrics: &["success", "psr", "mistakes", "conversation_length"],
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
    fn judge_tasks(&self) -> Vec<&'static dyn escapade_core::judge::JudgeTask> {
        vec![&crate::judge::Errors]
    }
    fn catalogue(&self) -> String {
        let mut out = String::from("puzzles (tier = the paper's table order):\n");
        for kind in PuzzleKind::ALL {
            out.push_str(&format!(
                "  {:>2} {:<10} {}\n",
                tier(kind),
                kind.name(),
                kind.class()
            ));
        }
        out
    }
}

/// The paper's random baseline (§4.3, fixtures README): the solver picks one uniformly
/// random action from the puzzle's full list each turn; the expert says nothing.
pub struct RandomPair {
    rng: escapade_core::seed::Rng,
}

impl RandomPair {
    /// Seeded by the episode seed.
    pub fn new(seed: u64) -> RandomPair {
        RandomPair {
            rng: escapade_core::seed::rng(escapade_core::seed::derive(seed, "comma-random", 0)),
        }
    }
}

impl Agent for RandomPair {
    fn name(&self) -> String {
        "random".into()
    }
    fn reset(&mut self, start: escapade_core::EpisodeStart<'_>) {
        let seed = start.seed;
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
    fn reset(&mut self, _start: escapade_core::EpisodeStart<'_>) {}
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

/// What the oracle expert says when, by its copy, the puzzle is solved.
pub const EXPERT_DONE: &str = "By my manual the puzzle is solved now: nothing more to do.";

/// What the oracle expert says when the actions the solver reported leave its copy of
/// the puzzle with no correct action to give (a wrong cut, a strike).
pub const EXPERT_LOST: &str = "After the actions you reported I have no correct step \
left to give you: by my manual this puzzle cannot be solved from here.";

/// The oracle pair. The solver describes what it sees and then performs what the expert
/// said; the expert keeps its own copy of the puzzle — built from the scenario and the
/// episode seed, never from the solver's screen — follows the actions the solver reports
/// and answers with the whole remaining solution, one action per line. So a solvable
/// instance ends in two solver turns without a mistake. It proves a scenario solvable
/// within the limits; [`TalkingPair`] is the stricter pair that must talk. Each half
/// also plays its role beside another agent (`--expert`): the solver then does what the
/// expert's message says.
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
    fn reset(&mut self, _start: escapade_core::EpisodeStart<'_>) {
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
                let plan = play_out(self.copy.as_mut(), 200).0;
                if plan.is_empty() {
                    // a solver that strayed from the plan can leave the copy with no
                    // correct action (a wrong wire cut, a strike): say so in words
                    // rather than send an empty message
                    match self.copy.solved() {
                        true => EXPERT_DONE.to_string(),
                        false => EXPERT_LOST.to_string(),
                    }
                } else {
                    plan.join("\n")
                }
            }
            _ => {
                let mut lines = std::mem::take(&mut self.instructions);
                if lines.is_empty() {
                    // a solver beside a separate expert (`--expert`) is not handed the
                    // plan: it does what the expert's message says, line by line
                    lines = expert_message(&o.text)
                        .lines()
                        .filter(|l| !l.trim().is_empty())
                        .map(String::from)
                        .collect();
                }
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
