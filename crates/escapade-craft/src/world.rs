//! The `craft` entry of the world registry: the `mm-escape@2` suite, environments,
//! the oracle and random baselines, and the suite's figures beside MM-Escape's.
//!
//! Why: this is the only type the binary and the runner see; everything crosses it as
//! JSON text. Options that change how environments draw or judge (frame size, frames
//! off, the grab rule, bootstrapping) come per run through `World::env` (`-W
//! key=value`) on top of the world's defaults ([`CraftWorld::with_options`]); the
//! baseline agents are made with the defaults (the oracle recognises a bootstrapped
//! start by its first observation). Oracle verification never draws frames.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use escapade_core::env::{
    Generation, OracleReport, PaperStat, RetiredSuite, SuiteSettings, SuiteSpec, Validation,
};
use escapade_core::report::{Breakdown, Grouping, ReportSpec};
use escapade_core::{Agent, CoreError, Env, World};

use crate::CraftError;
use crate::baseline::{OracleAgent, RandomAgent};
use crate::env::{CraftEnv, EnvOptions, step_cap};
use crate::scenario::{CraftScenario, Variant, generate};
use crate::suite;

/// The craft world.
#[derive(Default)]
pub struct CraftWorld {
    options: EnvOptions,
    suite: OnceLock<Result<Vec<CraftScenario>, String>>,
}

impl CraftWorld {
    /// The world with default options (see [`EnvOptions`]: the original's 2048 × 1024
    /// frames at 120° vertical, the red-dot grab rule, the original's feedback, the
    /// paper's prompt, two-room games bootstrapped).
    pub fn new() -> CraftWorld {
        CraftWorld::default()
    }

    /// The world whose environments use `options`.
    pub fn with_options(options: EnvOptions) -> CraftWorld {
        CraftWorld {
            options,
            suite: OnceLock::new(),
        }
    }

    fn scenarios(&self) -> Result<&Vec<CraftScenario>, CoreError> {
        self.suite
            .get_or_init(|| suite::build().map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| CoreError::generation(e.clone()))
    }

    fn parse(json: &str) -> Result<Arc<CraftScenario>, CoreError> {
        Ok(Arc::new(CraftScenario::from_json(json)?))
    }

    /// Plays the oracle on a scenario with `options` (frames off) and reports whether it
    /// escaped within the step cap, and in how many steps.
    ///
    /// # Errors
    /// [`CoreError::InvalidScenario`] for a bad scenario.
    pub fn verify(&self, scenario: Arc<CraftScenario>) -> Result<OracleReport, CoreError> {
        let options = self.options.without_frames();
        let mut env = CraftEnv::bare(scenario.clone(), options)?;
        let mut agent = OracleAgent::new(scenario, options)?;
        let cap = env.cap();
        let (outcome, steps) = escapade_core::agent::play(&mut env, &mut agent, 0, cap)?;
        Ok(OracleReport {
            solved: outcome.success,
            steps,
        })
    }
}

/// How MM-Escape ran its models (§4): "we set the temperature to 0"; every step's frame
/// and reply stay in the conversation ("models … fully utilize past trajectories"; the
/// original client sends the full history). One run per scenario.
pub fn paper_settings() -> SuiteSettings {
    SuiteSettings {
        epochs: None,
        agent: [("temperature", "0"), ("history", "full")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        source: "MM-Escape §4".into(),
    }
}

impl World for CraftWorld {
    fn name(&self) -> &'static str {
        "craft"
    }

    fn description(&self) -> &'static str {
        "MM-Escape / EscapeCraft: furnished 3D rooms in first person, prop chains, the red dot"
    }

    fn suites(&self) -> Vec<SuiteSpec> {
        let mut tiers: BTreeMap<u32, u32> = BTreeMap::new();
        for g in suite::GROUPS {
            let hops: Vec<u32> = [Some(g.hops.0), g.hops.1].into_iter().flatten().collect();
            let tier = crate::scenario::tier(&hops).expect("the suite's groups have 1-9 hops");
            *tiers.entry(tier).or_default() += g.count as u32;
        }
        vec![SuiteSpec {
            name: suite::NAME.into(),
            world: "craft".into(),
            description: "11 D1, 11 D2, 21 D3 rooms and 30 two-room games (MM-Escape §3.3); \
                          two-room games bootstrapped: room 1 shown escaped, room 2 played \
                          (Table 3; -W bootstrap=off: both rooms, App. F)"
                .into(),
            tiers: tiers.into_iter().collect(),
            settings: paper_settings(),
        }]
    }

    fn retired_suites(&self) -> Vec<RetiredSuite> {
        suite::RETIRED
            .iter()
            .map(|name| {
                RetiredSuite::new(
                    *name,
                    suite::NAME,
                    "rooms are now furnished to MM-Escape §3.3's objects per room (20.18 / \
                     14.55 / 15.24 for D1 / D2 / D3) and start poses look across free floor",
                )
            })
            .collect()
    }

    /// `-W variant=NAME` (`escapade gen craft --variant note-first`) picks the prop
    /// chain's variant; by default the standard chain.
    fn generate(
        &self,
        difficulty: u32,
        seed: u64,
        options: &escapade_core::Options,
    ) -> Result<String, CoreError> {
        escapade_core::options::check_keys(options, &GENERATION)?;
        let variant = match options.get("variant") {
            Some(name) => Variant::parse(name).map_err(|e| match e {
                CraftError::UnknownVariant { known, .. } => {
                    escapade_core::options::bad("variant", name, format!("one of {known}"))
                }
                other => other.into(),
            })?,
            None => Variant::Standard,
        };
        Ok(generate(difficulty, seed, variant)?.to_json())
    }

    fn generation(&self) -> Generation {
        Generation {
            default_difficulty: 1,
            options: GENERATION.to_vec(),
        }
    }

    fn build_suite(&self, name: &str) -> Result<Vec<String>, CoreError> {
        if name != suite::NAME {
            return Err(CoreError::Unknown {
                what: "suite",
                name: name.into(),
                known: suite::NAME.into(),
            });
        }
        Ok(self
            .scenarios()?
            .iter()
            .map(CraftScenario::to_json)
            .collect())
    }

    fn env_options(&self) -> Vec<(&'static str, &'static str)> {
        crate::env::OPTION_KEYS.to_vec()
    }

    fn env(
        &self,
        scenario_json: &str,
        options: &escapade_core::Options,
    ) -> Result<Box<dyn Env + Send>, CoreError> {
        let options = self.options.with(options)?;
        Ok(Box::new(CraftEnv::new(
            Self::parse(scenario_json)?,
            options,
        )?))
    }

    /// The oracle plays with the run's options (it aims and grabs by the same rule).
    fn agent(
        &self,
        kind: &str,
        scenario_json: &str,
        seed: u64,
        options: &escapade_core::Options,
    ) -> Result<Box<dyn Agent + Send>, CoreError> {
        let options = self.options.with(options)?;
        match kind {
            "oracle" => Ok(Box::new(OracleAgent::new(
                Self::parse(scenario_json)?,
                options,
            )?)),
            "random" => Ok(Box::new(RandomAgent::new(seed))),
            other => Err(CoreError::Unknown {
                what: "agent",
                name: other.into(),
                known: self.agent_kinds().join(", "),
            }),
        }
    }

    fn bench(
        &self,
        probe: &escapade_core::bench::Probe,
    ) -> Option<Result<escapade_core::bench::BenchReport, CoreError>> {
        Some(crate::bench::run(self, probe))
    }

    fn agent_kinds(&self) -> Vec<&'static str> {
        vec!["oracle", "random"]
    }

    fn oracle(&self, scenario_json: &str) -> Result<OracleReport, CoreError> {
        self.verify(Self::parse(scenario_json)?)
    }

    fn check(&self, text: &str) -> Result<Validation, CoreError> {
        let scenario = Self::parse(text)?;
        let report = self.verify(scenario.clone())?;
        let mut problems = Vec::new();
        if !report.solved {
            problems.push(format!(
                "the oracle cannot escape within the step cap ({})",
                step_cap(&scenario)
            ));
        }
        Ok(Validation {
            scenario: scenario.to_json(),
            problems,
            notes: vec![
                format!("oracle steps: {}", report.steps),
                format!("step cap: {}", step_cap(&scenario)),
                format!("objects per room: {:?}", scenario.objects_per_room()),
            ],
        })
    }

    /// Objects per single room by difficulty beside §3.3 (20.18 / 14.55 / 15.24), the
    /// share of scenarios whose exit is in view at the start (Fig. 4; the paper gives no
    /// figure), and how far the start poses look across free floor (least, median, 90th
    /// percentile; the paper's starts are random, ours are never at arm's length).
    fn paper_stats(&self, name: &str, scenarios: &[String]) -> Result<Vec<PaperStat>, CoreError> {
        if name != suite::NAME {
            return Ok(Vec::new());
        }
        let parsed: Vec<CraftScenario> = scenarios
            .iter()
            .map(|s| CraftScenario::from_json(s))
            .collect::<Result<_, _>>()?;
        let stats = suite::stats(&parsed);
        let mut out = Vec::new();
        for (d, paper) in suite::PAPER_OBJECTS_PER_ROOM {
            if let Some(ours) = stats.objects_per_room.get(&d) {
                out.push(PaperStat {
                    name: format!("objects per room, difficulty {d}"),
                    ours: *ours,
                    paper: Some(paper),
                    source: "MM-Escape §3.3".into(),
                });
            }
        }
        if let Some(m) = stats.objects_per_room_multi {
            out.push(PaperStat {
                name: "objects per room, two-room games".into(),
                ours: m,
                paper: None,
                source: "MM-Escape §3.3".into(),
            });
        }
        out.push(PaperStat {
            name: "exit visible at start (share)".into(),
            ours: stats.exit_visible_at_start,
            paper: None,
            source: "MM-Escape Fig. 4".into(),
        });
        let v = &stats.start_view;
        for (name, ours) in [
            ("start free view, least (m)", v.min),
            ("start free view, median (m)", v.median),
            ("start free view, p90 (m)", v.p90),
        ] {
            out.push(PaperStat {
                name: name.into(),
                ours,
                paper: None,
                source: "MM-Escape §3.3 (random starts)".into(),
            });
        }
        Ok(out)
    }

    /// Tiers named by their rooms; each difficulty split by exit in view (Fig. 4).
    fn report(&self) -> ReportSpec {
        ReportSpec {
            tier_label,
            breakdowns: breakdowns(),
            turn_curve: None,
            // Table 2's columns: escape rate, prop gain, steps, grab success rate and
            // grab ratio
            key_metrics: &[
                "success",
                "prop_gain",
                "steps",
                "grab_success_rate",
                "grab_ratio",
            ],
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
        vec![&crate::judge::Intent, &crate::judge::Debrief]
    }
    fn catalogue(&self) -> String {
        let mut t = String::new();
        t.push_str("Rooms: living room, kitchen, bathroom, bedroom (MM-Escape §3.3).\n");
        t.push_str("Props: key, box (key, code or open), note, password, wall pattern, exit.\n");
        t.push_str(
            "Variants: standard, note-first, key-first, two-key, wall-pattern, multi-room.\n",
        );
        t.push_str("Actions (Table 13 JSON): move_forward, rotate_right, rotate_down, jump, look_at, grab, interactions {use_item_id, input}, read, rationale.\n");
        t.push_str("Limits: 50 / 75 / 100 steps for D1 / D2 / D3 (+25 per further hop), 80 for two rooms.\n");
        t.push_str("One reply, several keys: grab and read act at once on the view shown; the motions follow in the order written.\n");
        t.push_str("Two-room games: bootstrapped by default (room 1 shown escaped, Table 3); -W bootstrap=off plays both (App. F).\n");
        t
    }
}

/// The options of [`CraftWorld::generate`] (`escapade gen craft -W variant=note-first`,
/// or `--variant note-first`).
const GENERATION: [(&str, &str); 1] = [(
    "variant",
    "the prop chain's variant: standard (default), note-first, key-first, two-key, \
     wall-pattern, multi-room",
)];

/// `3 (D3)` for a room of three hops, `12 (D1+D2)` for two rooms (MM-Escape §3.3);
/// two-room tiers in a report also say how they were played, from their
/// `bootstrapped` metric (Table 3's bootstrapped setting, App. F's autonomous one).
fn tier_label(difficulty: u32, means: &BTreeMap<String, f64>) -> String {
    let rooms = if (11..=99).contains(&difficulty) && !difficulty.is_multiple_of(10) {
        format!("D{}+D{}", difficulty / 10, difficulty % 10)
    } else {
        format!("D{difficulty}")
    };
    match means.get("bootstrapped") {
        Some(&1.0) => format!("{difficulty} ({rooms}, bootstrapped)"),
        Some(&0.0) => format!("{difficulty} ({rooms}, autonomous)"),
        Some(_) => format!("{difficulty} ({rooms}, bootstrapped and autonomous)"),
        None => format!("{difficulty} ({rooms})"),
    }
}
/// Each difficulty split by whether the exit was in view at the start (MM-Escape
/// Fig. 4 b–d): escape, steps, grab success rate and grab ratio.
fn breakdowns() -> Vec<Breakdown> {
    vec![Breakdown {
        name: "exit_view".into(),
        title: "by whether the exit is in view at the start (MM-Escape Fig. 4)".into(),
        column: "exit in view".into(),
        by: Grouping::Metric {
            metric: "exit_visible_at_start".into(),
            values: vec![(1.0, "yes".into()), (0.0, "no".into())],
        },
        per_tier: true,
        metrics: ["success", "steps", "grab_success_rate", "grab_ratio"]
            .map(String::from)
            .to_vec(),
    }]
}

#[cfg(test)]
mod report_tests {
    use super::*;

    #[test]
    fn tiers_name_their_rooms_and_two_room_games_their_setting() {
        let w = CraftWorld::new();
        let with = |b: f64| BTreeMap::from([("bootstrapped".to_string(), b)]);
        let r = w.report();
        assert_eq!(r.tier(12, &with(1.0)), "12 (D1+D2, bootstrapped)");
        assert_eq!(r.tier(22, &with(0.0)), "22 (D2+D2, autonomous)");
        assert_eq!(
            r.tier(11, &with(0.5)),
            "11 (D1+D1, bootstrapped and autonomous)"
        );
        assert_eq!(r.tier(3, &BTreeMap::new()), "3 (D3)");
        let split = &r.breakdowns[0];
        assert!(split.per_tier && split.name == "exit_view");
    }
}
