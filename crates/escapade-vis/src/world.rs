//! The `vis` entry of the world registry and its suites.
//!
//! Suites: `visescape@4` (20 rooms, §3.1), `visescape-hints@4` (the same rooms in hint
//! mode, §5.4), and the quiz-only evaluations of App. C.2 (`visescape-quiz@4`, answer
//! only; `visescape-quiz-reason@4`, think first), one quiz per room. The room suites
//! declare §4.1's run settings: three trials per room, and no past exchanges for a chat
//! agent, since each observation is the whole prompt and carries the history the
//! original's BaseAgent sends.
//!
//! The `@1` suites had the same rooms under a more helpful protocol (tips in the prompt,
//! a sentence after every action, names on the pictures); they are retired, and the
//! options `prompt=helpful`, `feedback=sentences`, `labels=on` bring that help back.
//! The `@2` suites were the paper's protocol on rooms drawn with ChaCha8; the generators
//! now draw from core's one RNG (ChaCha20), so the generated rooms, their quizzes and the
//! choice of rooms changed and the `@3` suites replaced them. The `@4` suites follow the
//! original where `@3` did not. Its engine: a lock solved from its close-up hands the view
//! back to its receptacle, and a tool leaves the bag once used and cannot be inspected
//! (the rooms' bytes changed with the tools' flags). Its protocol: `@3` had escapade's
//! prompt (a system prompt, short observations, action names in words), lenient codes, a
//! wasted step for an unreadable reply and descriptions that spelled the clues out
//! (`-W prompt=chat -W answers=lenient -W invalid=wasted -W descriptions=full` brings
//! those back).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use escapade_core::env::{OracleReport, RetiredSuite, SuiteSettings, SuiteSpec};
use escapade_core::report::ReportSpec;
use escapade_core::{Agent, CoreError, Env, World};

use crate::baseline::{OracleAgent, RandomAgent};
use crate::game::Game;
use crate::options::{OPTION_KEYS, Options};
use crate::quiztask::{QuizEnv, QuizTask};
use crate::{VisEnv, VisError, generator, room::Room, suite};

/// The room suite.
pub const VISESCAPE: &str = "visescape@4";
/// The room suite in hint mode.
pub const VISESCAPE_HINTS: &str = "visescape-hints@4";
/// Quiz-only, answer without reasoning (App. C.2, Table 23a).
pub const QUIZ: &str = "visescape-quiz@4";
/// Quiz-only, reasoning first (App. C.2, Table 23b).
pub const QUIZ_REASON: &str = "visescape-quiz-reason@4";

/// Trials per room (§4.1: "For each room, we conducted three different trials and
/// averaged the resulting metrics").
pub const TRIALS: u32 = 3;
/// Past exchanges a chat agent sends, as the `history` agent option: none, since each
/// observation is the whole prompt of the original's BaseAgent, with its action memory
/// and recent actions (§4.1 speaks of "history of the last 20 observations and
/// actions"; the original sends those two sections and no past observation).
pub const HISTORY: &str = "last:0";

/// The run settings §4.1 states for the room suites.
pub fn paper_settings() -> SuiteSettings {
    SuiteSettings {
        epochs: Some(TRIALS),
        agent: BTreeMap::from([("history".to_string(), HISTORY.to_string())]),
        source: "VisEscape §4.1".into(),
    }
}

/// The vis world.
#[derive(Default)]
pub struct VisWorld {
    rooms: OnceLock<Result<Vec<Room>, VisError>>,
}

/// A parsed scenario: a room or a quiz task.
enum Scenario {
    Room(Room),
    Quiz(QuizTask),
}

impl VisWorld {
    /// The world.
    pub fn new() -> Self {
        VisWorld::default()
    }

    fn rooms(&self) -> Result<Vec<Room>, CoreError> {
        self.rooms
            .get_or_init(suite::rooms)
            .clone()
            .map_err(CoreError::from)
    }

    fn parse(&self, json: &str) -> Result<Scenario, CoreError> {
        let v: serde_json::Value =
            serde_json::from_str(json).map_err(CoreError::invalid_scenario)?;
        if v.get("task").and_then(|t| t.as_str()) == Some("quiz") {
            Ok(Scenario::Quiz(QuizTask::from_json(json)?))
        } else {
            Ok(Scenario::Room(Room::from_json(json)?))
        }
    }

    /// Rooms per size class, from the classes of the rooms in suite order.
    fn tiers(classes: &[u32]) -> Vec<(u32, u32)> {
        let mut counts: BTreeMap<u32, u32> = BTreeMap::new();
        for &class in classes {
            *counts.entry(class).or_default() += 1;
        }
        counts.into_iter().collect()
    }
}

impl World for VisWorld {
    fn name(&self) -> &'static str {
        "vis"
    }

    fn description(&self) -> &'static str {
        "VisEscape: state-machine rooms seen as images, visual quizzes, hints"
    }

    fn suites(&self) -> Vec<SuiteSpec> {
        // from the rooms' sources, not the rooms: every `run` lists every world's suites
        // to find its own, and building the rooms costs their searches
        let tiers = suite::classes()
            .map(|c| Self::tiers(&c))
            .unwrap_or_default();
        // a quiz task keeps its room's size class
        let quiz_tiers = tiers.clone();
        let spec = |name: &str,
                    description: &str,
                    tiers: Vec<(u32, u32)>,
                    settings: SuiteSettings| SuiteSpec {
            name: name.into(),
            world: "vis".into(),
            description: description.into(),
            tiers,
            settings,
        };
        vec![
            spec(
                VISESCAPE,
                "20 escape rooms with 1-2 visual quizzes each (VisEscape §3)",
                tiers.clone(),
                paper_settings(),
            ),
            spec(
                VISESCAPE_HINTS,
                "the same 20 rooms in hint mode (§5.4)",
                tiers,
                paper_settings(),
            ),
            spec(
                QUIZ,
                "one visual quiz per room: clue + lock image, answer only (App. C.2)",
                quiz_tiers.clone(),
                SuiteSettings::default(),
            ),
            spec(
                QUIZ_REASON,
                "the same quizzes, reasoning before answering (App. C.2)",
                quiz_tiers,
                SuiteSettings::default(),
            ),
        ]
    }

    fn retired_suites(&self) -> Vec<RetiredSuite> {
        let help = "`@1` added help the paper does not give (tips in the system prompt, a \
                    sentence after every action, name tags, banners and lock captions on \
                    the pictures) and drew locks and clues as labelled panels. `-W \
                    prompt=helpful -W feedback=sentences -W labels=on` brings the help \
                    back; since `@3` the generated rooms come from ChaCha20";
        let rng = "generators moved to ChaCha20 (one RNG across worlds): the generated rooms, \
                   their quizzes and the choice of rooms changed";
        let original = "`@4` plays as the original's engine (after a right code, or a key used \
                        at its lock, the view goes back to the receptacle; tools leave the bag \
                        once used and cannot be inspected) and follows its protocol where `@3` \
                        had escapade's own: each observation is the original's whole step \
                        prompt (instruction, action memory, recent actions, the original's \
                        action names) with no system prompt, codes are compared exactly, an \
                        unreadable reply takes the first listed action, and picture \
                        descriptions no longer spell out the clues (`-W prompt=chat -W \
                        answers=lenient -W invalid=wasted -W descriptions=full` restores the \
                        protocol)";
        [
            ("visescape@1", VISESCAPE, help),
            ("visescape-hints@1", VISESCAPE_HINTS, help),
            ("visescape-quiz@1", QUIZ, help),
            ("visescape-quiz-reason@1", QUIZ_REASON, help),
            ("visescape@2", VISESCAPE, rng),
            ("visescape-hints@2", VISESCAPE_HINTS, rng),
            ("visescape-quiz@2", QUIZ, rng),
            ("visescape-quiz-reason@2", QUIZ_REASON, rng),
            ("visescape@3", VISESCAPE, original),
            ("visescape-hints@3", VISESCAPE_HINTS, original),
            ("visescape-quiz@3", QUIZ, original),
            ("visescape-quiz-reason@3", QUIZ_REASON, original),
        ]
        .into_iter()
        .map(|(old, new, why)| RetiredSuite::new(old, new, why))
        .collect()
    }

    fn generate(
        &self,
        difficulty: u32,
        seed: u64,
        options: &escapade_core::Options,
    ) -> Result<String, CoreError> {
        escapade_core::options::check_keys(options, &[])?;
        Ok(generator::generate(difficulty, seed)?.to_json())
    }

    fn build_suite(&self, name: &str) -> Result<Vec<String>, CoreError> {
        let rooms = self.rooms()?;
        match name {
            VISESCAPE => Ok(rooms.iter().map(Room::to_json).collect()),
            VISESCAPE_HINTS => Ok(suite::hint_variant(&rooms)
                .iter()
                .map(Room::to_json)
                .collect()),
            QUIZ | QUIZ_REASON => {
                let reasoning = name == QUIZ_REASON;
                rooms
                    .iter()
                    .map(|r| QuizTask::from_room(r, reasoning).map(|t| t.to_json()))
                    .collect::<Result<_, _>>()
                    .map_err(CoreError::from)
            }
            other => Err(CoreError::Unknown {
                what: "suite",
                name: other.into(),
                known: [VISESCAPE, VISESCAPE_HINTS, QUIZ, QUIZ_REASON].join(", "),
            }),
        }
    }

    fn env_options(&self) -> Vec<(&'static str, &'static str)> {
        OPTION_KEYS.to_vec()
    }

    /// `escapade gen vis` makes a small room (size class 1) unless told otherwise.
    fn generation(&self) -> escapade_core::env::Generation {
        escapade_core::env::Generation {
            default_difficulty: 1,
            ..Default::default()
        }
    }

    /// The options apply to rooms; a quiz task takes `labels` and `descriptions` for its
    /// two pictures and has no use for the others.
    fn env(
        &self,
        scenario_json: &str,
        options: &escapade_core::Options,
    ) -> Result<Box<dyn Env + Send>, CoreError> {
        let options = Options::from_map(options)?;
        match self.parse(scenario_json)? {
            Scenario::Room(room) => Ok(Box::new(
                VisEnv::new(Arc::new(Game::new(room)?))?.with_options(options),
            )),
            Scenario::Quiz(task) => Ok(Box::new(QuizEnv::with_style(
                task,
                crate::render::Style {
                    labels: options.labels,
                },
                options.descriptions,
            )?)),
        }
    }

    /// The baselines play any options' environment (an oracle's moves do not depend on
    /// pictures or wording; it names them as the prompt lists them); the options are
    /// still checked.
    fn agent(
        &self,
        kind: &str,
        scenario_json: &str,
        seed: u64,
        options: &escapade_core::Options,
    ) -> Result<Box<dyn Agent + Send>, CoreError> {
        let options = Options::from_map(options)?;
        let scenario = self.parse(scenario_json)?;
        match (kind, scenario) {
            ("oracle", Scenario::Room(room)) => Ok(Box::new(OracleAgent::with_prompt(
                &Game::new(room)?,
                options.prompt,
            )?)),
            ("oracle", Scenario::Quiz(task)) => {
                Ok(Box::new(crate::quiztask::QuizOracle::new(&task)))
            }
            ("random", Scenario::Room(_)) => Ok(Box::new(RandomAgent::new(seed))),
            ("random", Scenario::Quiz(_)) => Ok(Box::new(crate::quiztask::QuizRandom::new(seed))),
            (other, _) => Err(CoreError::Unknown {
                what: "agent",
                name: other.into(),
                known: self.agent_kinds().join(", "),
            }),
        }
    }

    fn bench(
        &self,
        _probe: &escapade_core::bench::Probe,
    ) -> Option<Result<escapade_core::bench::BenchReport, CoreError>> {
        Some(crate::bench::run(self))
    }

    fn agent_kinds(&self) -> Vec<&'static str> {
        vec!["oracle", "random"]
    }

    fn oracle(&self, scenario_json: &str) -> Result<OracleReport, CoreError> {
        match self.parse(scenario_json)? {
            Scenario::Room(room) => {
                // the shortest solution, replayed through the agent interface (without
                // drawing, which verification does not need)
                let game = Arc::new(Game::new(room)?);
                let mut env = VisEnv::new(game.clone())?.without_images();
                let mut agent = OracleAgent::new(&game)?;
                let (outcome, steps) = escapade_core::agent::play(&mut env, &mut agent, 0, 10_000)?;
                Ok(OracleReport {
                    solved: outcome.success && steps == env.oracle_steps(),
                    steps,
                })
            }
            Scenario::Quiz(task) => Ok(OracleReport {
                solved: task.solvable(),
                steps: 1,
            }),
        }
    }

    /// Receptacles, items, quizzes, interactions, checkpoints and oracle steps per room
    /// beside VisEscape Table 1 and §2 (room suites only).
    fn paper_stats(
        &self,
        suite: &str,
        scenarios: &[String],
    ) -> Result<Vec<escapade_core::env::PaperStat>, CoreError> {
        if suite == QUIZ || suite == QUIZ_REASON {
            return Ok(Vec::new());
        }
        // any suite of rooms (a directory, an import), not quiz tasks
        let Ok(rooms) = scenarios
            .iter()
            .map(|s| Room::from_json(s))
            .collect::<Result<Vec<Room>, _>>()
        else {
            return Ok(Vec::new());
        };
        if !rooms.is_empty() && rooms.iter().all(|r| r.pictures.is_some()) {
            // VisEscape's own rooms: Table 1 counted as the paper counts
            return Ok(crate::import::paper_stats(&rooms)?);
        }
        let stats = suite::stats(&rooms)?;
        Ok(stats
            .rows()
            .into_iter()
            .map(|(name, ours, paper)| escapade_core::env::PaperStat {
                name: format!("{name} per room"),
                ours,
                paper: Some(paper),
                source: if matches!(name, "checkpoints" | "oracle steps") {
                    "VisEscape §2".into()
                } else {
                    "VisEscape Table 1".into()
                },
            })
            .collect())
    }

    /// Loads a room from JSON or TOML and runs the validator (unreachable states, unused
    /// items, unsolvable locks, dead checkpoints, solvability).
    fn check(&self, text: &str) -> Result<escapade_core::env::Validation, CoreError> {
        let room = match Room::from_json(text) {
            Ok(room) => room,
            Err(json_error) => Room::from_toml(text).map_err(|toml_error| {
                CoreError::invalid_scenario(format!(
                    "neither a JSON room ({json_error}) nor a TOML room ({toml_error})"
                ))
            })?,
        };
        let lint = crate::validate::lint(&room)?;
        let mut problems = Vec::new();
        match (lint.solvable, lint.complete) {
            (true, _) => {}
            (false, true) => problems.push("the room cannot be escaped".to_string()),
            (false, false) => problems.push(format!(
                "the oracle's search stopped at its limit of {} states without finding a \
                 way out: the room may still be escapable, but it is too large to verify",
                crate::oracle::STATE_LIMIT
            )),
        }
        // an incomplete search leaves these lists unproven: report only a full search's
        let complete = lint.complete;
        let mut push = |what: &str, list: &[String]| {
            if complete && !list.is_empty() {
                problems.push(format!("{what}: {}", list.join(", ")));
            }
        };
        push("unreachable states", &lint.unreachable_states);
        push("items nothing needs", &lint.unused_items);
        push("locks that can never be answered", &lint.unsolvable_locks);
        push("checkpoints that never fire", &lint.dead_checkpoints);
        let mut notes = vec![format!(
            "{} receptacles, {} items, {} quizzes, {} interactions, {} checkpoints",
            room.receptacles.len(),
            room.items.len(),
            room.quizzes.len(),
            room.interactions.len(),
            room.checkpoints.len()
        )];
        if lint.solvable {
            // the shortest solution must also fit the episode limits (300 steps, 100
            // without a checkpoint) when replayed through the agent interface
            let report = self.oracle(&room.to_json())?;
            notes.push(format!("oracle steps: {}", report.steps));
            if !report.solved {
                problems.push(
                    "the oracle cannot escape within the episode limits (300 steps, 100 \
                     without a new checkpoint)"
                        .to_string(),
                );
            }
        }
        Ok(escapade_core::env::Validation {
            scenario: room.to_json(),
            problems,
            notes,
        })
    }

    fn judge_tasks(&self) -> Vec<&'static dyn escapade_core::judge::JudgeTask> {
        vec![&crate::judge::Reasoning]
    }
    fn catalogue(&self) -> String {
        let mut t = String::new();
        t.push_str("Views: wall -> receptacle -> item (VisEscape App. B.2).\n");
        t.push_str("Actions: turn to <wall>, inspect <object>, step back, <verb> <receptacle>, pick up <item>, use <item>, <ANSWER>code</ANSWER>.\n");
        t.push_str("Furniture: door, wardrobe, safe, drawers, cabinet, desk, chest, shelf, fridge, frame, locker, table.\n");
        t.push_str("Quizzes: colour count, polygon sides, symbol order, clock, arrows.\n");
        t.push_str(
            "Limits: 300 steps, 100 steps without a checkpoint; hint mode after 30 stuck steps.\n",
        );
        t
    }
    /// Tiers by number, no breakdown; the terminal shows §4.2's metrics: success rate,
    /// goal completion, SPL and steps.
    fn report(&self) -> ReportSpec {
        ReportSpec {
            key_metrics: &["success", "gc", "spl", "steps"],
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
