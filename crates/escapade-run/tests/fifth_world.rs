//! A fifth world, defined here and nowhere else, gets every command of the runner:
//! `suite`, `run`, `report` (with a breakdown and tier labels of its own), `show`,
//! `play` and `judge` (with a judge task of its own, answered by a scripted model) —
//! through `escapade-run`'s public API, with no change to `escapade-run`. It sits in the
//! registry beside a real world (comma) to show the two do not meet.
//!
//! The world, `lamps`: light lamps 1 to n in order (`light k`). Lighting the wrong lamp is
//! a mistake (a valid move that puts every lamp out); anything else is not a move.
//! `docs/world-contract.md` walks through it.

use std::collections::BTreeMap;
use std::path::Path;

use escapade_core::env::{Generation, Outcome, SuiteSpec};
use escapade_core::judge::{
    Aggregate, Item, JudgeRequest, JudgeRow, JudgeTask, StepView, Unit, aggregate_units,
};
use escapade_core::report::{Breakdown, Grouping, ReportSpec};
use escapade_core::{
    Action, Agent, AgentTurn, CoreError, Env, EnvError, EpisodeStart, Observation, Options, Step,
    ToolSchema, World, options,
};
use escapade_llm::ClientOptions;
use escapade_run::{
    Baseline, Format, JudgeSpec, PlayOptions, Progress, RunSpec, build_suite, judge, play_terminal,
    report, run, show,
};
use serde_json::json;

// ---- the world ----------------------------------------------------------------------

struct Lamps;

/// A scenario: `difficulty` lamps.
fn scenario(id: &str, lamps: u32, seed: u64) -> String {
    json!({"world": "lamps", "id": id, "difficulty": lamps, "seed": seed}).to_string()
}

fn lamps_of(json: &str) -> Result<u32, CoreError> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(CoreError::invalid_scenario)?;
    match v["difficulty"].as_u64() {
        Some(n @ 1..=9) => Ok(n as u32),
        _ => Err(CoreError::invalid_scenario("1 to 9 lamps")),
    }
}

/// `-W` keys: `say=quiet` leaves the count out of the observation.
const OPTION_KEYS: [(&str, &str); 1] = [("say", "count (default) or quiet")];

impl World for Lamps {
    fn name(&self) -> &'static str {
        "lamps"
    }
    fn description(&self) -> &'static str {
        "light the lamps in order"
    }
    fn suites(&self) -> Vec<SuiteSpec> {
        vec![SuiteSpec {
            name: "lamps@1".into(),
            world: "lamps".into(),
            description: "two rooms of two lamps, one of three".into(),
            tiers: vec![(2, 2), (3, 1)],
            ..Default::default()
        }]
    }
    fn build_suite(&self, suite: &str) -> Result<Vec<String>, CoreError> {
        match suite {
            "lamps@1" => Ok(vec![
                scenario("two-a", 2, 0),
                scenario("two-b", 2, 1),
                scenario("three", 3, 2),
            ]),
            other => Err(CoreError::Unknown {
                what: "suite",
                name: other.into(),
                known: "lamps@1".into(),
            }),
        }
    }
    fn generate(&self, difficulty: u32, seed: u64, o: &Options) -> Result<String, CoreError> {
        options::check_keys(o, &[])?;
        let id = format!("lamps-{difficulty}-s{seed}");
        let json = scenario(&id, difficulty, seed);
        lamps_of(&json).map_err(CoreError::generation)?;
        Ok(json)
    }
    fn env(&self, json: &str, o: &Options) -> Result<Box<dyn Env + Send>, CoreError> {
        options::check_keys(o, &OPTION_KEYS)?;
        let quiet = match o.get("say") {
            Some(v) => options::choose("say", v, &[("count", false), ("quiet", true)])?,
            None => false,
        };
        Ok(Box::new(LampsEnv {
            lamps: lamps_of(json)?,
            quiet,
            lit: 0,
            mistakes: 0,
            steps: 0,
            over: true,
        }))
    }
    fn agent(
        &self,
        kind: &str,
        json: &str,
        _seed: u64,
        o: &Options,
    ) -> Result<Box<dyn Agent + Send>, CoreError> {
        options::check_keys(o, &OPTION_KEYS)?;
        lamps_of(json)?;
        match kind {
            "oracle" => Ok(Box::new(Lighter { next: 1 })),
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
    fn env_options(&self) -> Vec<(&'static str, &'static str)> {
        OPTION_KEYS.to_vec()
    }
    fn generation(&self) -> Generation {
        Generation {
            default_difficulty: 2,
            ..Default::default()
        }
    }
    fn report(&self) -> ReportSpec {
        ReportSpec {
            tier_label: |d, _| format!("{d} ({d} lamps)"),
            breakdowns: vec![Breakdown {
                name: "clean".into(),
                title: "by whether the episode had no mistake".into(),
                column: "no mistake".into(),
                by: Grouping::Metric {
                    metric: "clean".into(),
                    values: vec![(1.0, "clean".into()), (0.0, "with mistakes".into())],
                },
                per_tier: false,
                metrics: vec!["success".into(), "mistakes".into()],
            }],
            turn_curve: None,
            key_metrics: &["success", "mistakes"],
        }
    }
    /// Its paper's table: people, the optimum, and a model (the report sets them beside
    /// its runs).
    fn paper(&self) -> Option<escapade_core::paper::Paper> {
        let json = r#"{"name": "Lamps", "file": "lamps.md", "headline": "success",
          "metrics": [
            {"key": "success", "name": "Lit rate", "definition": "rooms lit", "section": "§2", "percent": true},
            {"key": "mistakes", "name": "Mistakes", "definition": "wrong lamps", "section": "§2", "lower_is_better": true}],
          "models": [{"name": "GPT-4o", "ids": ["gpt-4o"]}],
          "settings": [{"key": "plain", "description": "the paper's rules", "suites": ["lamps"]}],
          "tables": [{"source": "Table 1", "title": "results", "setting": "plain",
            "columns": [{"metric": "success", "tier": 2}, {"metric": "mistakes", "tier": 2},
                        {"metric": "success", "tier": 3}],
            "rows": [{"label": "Human", "kind": "human", "cells": ["90.0", "0.2", "80.0"]},
                     {"label": "Optimum", "kind": "oracle", "cells": ["100.0", "0.5", null]},
                     {"label": "GPT-4o", "cells": ["60 ± 5.0", "1.0", "40 ± 5.0"]}]}]}"#;
        Some(escapade_core::paper::Paper::from_json(json).expect("a valid paper"))
    }
    fn judge_tasks(&self) -> Vec<&'static dyn JudgeTask> {
        vec![&Tone]
    }
}

struct LampsEnv {
    lamps: u32,
    quiet: bool,
    lit: u32,
    mistakes: u32,
    steps: u32,
    over: bool,
}

impl LampsEnv {
    fn observe(&self, feedback: &str) -> Observation {
        if self.quiet {
            return Observation::text(format!("{feedback}Light the lamps."));
        }
        Observation::text(format!(
            "{feedback}{} of {} lamps are lit.",
            self.lit, self.lamps
        ))
    }
}

impl Env for LampsEnv {
    fn reset(&mut self, _seed: u64) -> Observation {
        (self.lit, self.mistakes, self.steps, self.over) = (0, 0, 0, false);
        self.observe("")
    }
    fn step(&mut self, action: &Action) -> Result<Step, EnvError> {
        if self.over {
            return Err(EnvError::EpisodeOver);
        }
        self.steps += 1;
        let lamp = match action {
            Action::Text { text } => text
                .trim()
                .strip_prefix("light ")
                .and_then(|k| k.parse::<u32>().ok()),
            _ => None,
        };
        let (feedback, error) = match lamp {
            Some(k) if k == self.lit + 1 && k <= self.lamps => {
                self.lit = k;
                ("It glows. ", None)
            }
            Some(_) => {
                self.mistakes += 1;
                self.lit = 0;
                ("Every lamp goes out. ", None)
            }
            None => ("Say `light <number>`. ", Some("parse".to_string())),
        };
        let terminated = self.lit == self.lamps;
        let truncated = !terminated && self.steps >= 4 * self.lamps;
        self.over = terminated || truncated;
        Ok(Step {
            observation: self.observe(feedback),
            feedback: feedback.trim().into(),
            progress: f64::from(self.lit) / f64::from(self.lamps),
            terminated,
            truncated,
            error,
            ..Step::default()
        })
    }
    fn system_prompt(&self) -> String {
        "Light the lamps in order: reply `light 1`, then `light 2`, and so on.".into()
    }
    fn tool_schemas(&self) -> Vec<ToolSchema> {
        Vec::new()
    }
    fn outcome(&self) -> Outcome {
        Outcome {
            success: self.lit == self.lamps,
            steps: self.steps,
            metrics: BTreeMap::from([
                ("mistakes".into(), f64::from(self.mistakes)),
                ("clean".into(), f64::from(u8::from(self.mistakes == 0))),
            ]),
        }
    }
    fn secrets(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The oracle: lights the next lamp.
struct Lighter {
    next: u32,
}

impl Agent for Lighter {
    fn name(&self) -> String {
        "oracle".into()
    }
    fn reset(&mut self, _start: EpisodeStart<'_>) {
        self.next = 1;
    }
    fn act(&mut self, _o: &Observation, _last: Option<&Step>) -> Result<AgentTurn, CoreError> {
        let turn = AgentTurn::action(Action::text(format!("light {}", self.next)));
        self.next += 1;
        Ok(turn)
    }
}

/// The world's own judge task: was each move said calmly or hastily?
struct Tone;

impl JudgeTask for Tone {
    fn name(&self) -> &'static str {
        "tone"
    }
    fn version(&self) -> u32 {
        1
    }
    fn about(&self) -> &'static str {
        "the tone of each move: calm or hasty"
    }
    fn items(&self, scenario: &str, epoch: u32, steps: &[StepView], _max: usize) -> Vec<Item> {
        steps
            .iter()
            .map(|s| {
                let text = s.message();
                Item {
                    scenario: scenario.into(),
                    epoch,
                    step: Some(s.step),
                    chars: text.chars().count(),
                    text,
                    ..Item::default()
                }
            })
            .collect()
    }
    fn nothing_to_judge(&self) -> &'static str {
        "no moves"
    }
    fn request(&self, item: &Item) -> JudgeRequest {
        JudgeRequest::new("Answer calm or hasty.", item.text.clone())
    }
    fn parse(&self, reply: &str) -> Result<Vec<Unit>, String> {
        match reply.trim() {
            c @ ("calm" | "hasty") => Ok(vec![Unit {
                category: c.into(),
                text: String::new(),
            }]),
            other => Err(format!("`{other}` is neither calm nor hasty")),
        }
    }
    fn aggregate(&self, rows: &[&JudgeRow]) -> Aggregate {
        aggregate_units(rows, &[("calm", "Calm", "C"), ("hasty", "Hasty", "H")])
    }
}

// ---- the test ------------------------------------------------------------------------

fn registry() -> Vec<Box<dyn World>> {
    vec![Box::new(escapade_comma::CommaWorld), Box::new(Lamps)]
}

fn find<'a>(worlds: &'a [Box<dyn World>], name: &str) -> &'a dyn World {
    worlds
        .iter()
        .find(|w| w.name() == name)
        .expect("registered")
        .as_ref()
}

#[test]
fn a_fifth_world_gets_every_command_without_a_change_to_the_runner() {
    let worlds = registry();
    let lamps = find(&worlds, "lamps");
    let tmp = tempfile::tempdir().unwrap();

    // suite: built and every scenario solved by the world's oracle
    let build = build_suite(lamps, "lamps@1", Progress::quiet()).unwrap();
    assert!(build.all_solved());
    assert_eq!(build.json.len(), 3);

    // run: two epochs of the oracle, with a world option recorded
    let scenarios: Vec<(String, String)> = build
        .json
        .iter()
        .map(|j| ("lamps@1".to_string(), j.clone()))
        .collect();
    let spec = RunSpec {
        agent: "oracle".into(),
        epochs: 2,
        world_options: BTreeMap::from([("say".into(), "quiet".into())]),
        ..RunSpec::default()
    };
    let baseline = Baseline::new(lamps, "oracle").unwrap();
    let summary = run(
        lamps,
        &scenarios,
        &spec,
        &baseline,
        &tmp.path().join("runs"),
        Progress::quiet(),
    )
    .unwrap();
    assert_eq!(summary.played, 6);
    let toml = std::fs::read_to_string(summary.dir.join("run.toml")).unwrap();
    assert!(toml.contains("say"), "{toml}");
    // a world that cannot say its oracle's distance: the rows leave it out
    let episodes = std::fs::read_to_string(summary.dir.join("episodes.jsonl")).unwrap();
    assert!(!episodes.contains("steps_to_go"), "{episodes}");
    let trajectories = summary.dir.join("trajectories");
    for scenario in std::fs::read_dir(&trajectories).unwrap() {
        for file in std::fs::read_dir(scenario.unwrap().path()).unwrap() {
            let rows = std::fs::read_to_string(file.unwrap().path()).unwrap();
            assert!(!rows.is_empty() && !rows.contains("steps_to_go"), "{rows}");
        }
    }
    // a bad option is the world's typed refusal, before any run directory
    let bad = RunSpec {
        world_options: BTreeMap::from([("say".into(), "loud".into())]),
        ..spec.clone()
    };
    let e = run(
        lamps,
        &scenarios,
        &bad,
        &baseline,
        &tmp.path().join("bad"),
        Progress::quiet(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("say=loud: expected one of count, quiet"), "{e}");
    assert!(!tmp.path().join("bad").exists());

    // report: the world's tier labels and its own breakdown
    let refs: Vec<&dyn World> = worlds.iter().map(|w| w.as_ref()).collect();
    let r = report(std::slice::from_ref(&summary.dir), &refs).unwrap();
    let labels: Vec<&str> = r.groups.iter().map(|g| g.label.as_str()).collect();
    assert_eq!(labels, ["2 (2 lamps)", "3 (3 lamps)"]);
    assert_eq!(r.groups[0].metrics["success"].mean, 1.0);
    let clean = r
        .breakdowns
        .iter()
        .find(|b| b.name == "clean")
        .expect("its breakdown");
    assert_eq!(clean.world, "lamps");
    assert_eq!(clean.rows.len(), 1);
    assert_eq!(
        (clean.rows[0].group.as_str(), clean.rows[0].n),
        ("clean", 6)
    );
    // its paper beside the run: the oracle reproduces the optimum's success, not its
    // mistakes (the run makes none; the table says 0.5)
    let beside = |tier: u32, metric: &str| {
        r.paper
            .iter()
            .find(|b| b.difficulty == Some(tier) && b.metric == metric)
            .unwrap_or_else(|| panic!("tier {tier} {metric} beside the paper: {:?}", r.paper))
    };
    let lit = beside(2, "success");
    assert_eq!(lit.references.len(), 3);
    assert_eq!(lit.references[0].model, "Human");
    let v = lit.verdict.as_ref().expect("a verdict for the oracle");
    assert_eq!((v.model.as_str(), v.inside), ("Optimum", Some(true)));
    let wrong = beside(2, "mistakes").verdict.as_ref().unwrap();
    assert_eq!(wrong.inside, Some(false));
    assert!((wrong.diff + 0.5).abs() < 1e-12 && (wrong.miss - 0.5).abs() < 1e-12);
    assert!(
        beside(3, "success").verdict.is_none(),
        "no optimum at tier 3"
    );
    let md = r.render(Format::Markdown);
    assert!(md.contains("### lamps beside the paper (Lamps)"), "{md}");
    assert!(
        md.contains(
            "| 2 (2 lamps) | Lit rate (%) | 100.0 [100.0, 100.0] | Optimum 100.0 | inside CI | 90.0 | 100.0 | GPT-4o 60.0 ± 5.0 | 4 |"
        ),
        "{md}"
    );
    assert!(
        md.contains("- lamps `success`: Lit rate: rooms lit (Lamps §2)."),
        "{md}"
    );
    // the terminal shows its key metrics, in their order; report.md every metric
    let header = |text: &str| {
        let line = text.lines().find(|l| l.starts_with("| difficulty"));
        let cells = line.unwrap_or("").split('|').map(|c| c.trim().to_string());
        cells.filter(|c| !c.is_empty()).collect::<Vec<_>>()
    };
    let terminal = header(&r.render(Format::Terminal));
    let full = header(&r.render(Format::Markdown));
    // two epochs: pass@2 and pass^2 follow success
    assert_eq!(
        terminal,
        [
            "difficulty",
            "n",
            "success (%)",
            "pass@2 (%)",
            "pass^2 (%)",
            "mistakes"
        ]
    );
    assert!(full.iter().any(|c| c == "clean"), "{full:?}");

    // show: the first observation, with the options
    let out = tmp.path().join("show");
    let options = BTreeMap::from([("say".to_string(), "quiet".to_string())]);
    let files = show(lamps, &build.json[2], 1, &options, &out).unwrap();
    let md = std::fs::read_to_string(&files[0]).unwrap();
    assert!(md.contains("Light the lamps in order"), "{md}");
    assert!(md.contains("Light the lamps."), "{md}");

    // play: a person lights both lamps of a two-lamp room, after one slip of the tongue
    let mut input = std::io::Cursor::new("light one\nlight 1\nlight 2\n");
    let mut output = Vec::new();
    let played = play_terminal(
        lamps,
        &build.json[0],
        &PlayOptions::default(),
        &mut input,
        &mut output,
    )
    .unwrap();
    assert!(played.played.outcome.success);
    assert_eq!(played.played.outcome.steps, 3);

    // judge: the world's own task, a scripted judge model labelling each of the 14 moves
    let replies: Vec<String> = (0..14)
        .map(|k| json!({"text": if k % 2 == 0 { "calm" } else { "hasty" }}).to_string())
        .collect();
    let script = tmp.path().join("judge.jsonl");
    std::fs::write(&script, replies.join("\n")).unwrap();
    let spec = JudgeSpec {
        task: "tone".into(),
        model: format!("scripted/{}", script.display()),
        concurrency: 1,
        ..JudgeSpec::default()
    };
    let options = ClientOptions {
        max_retries: 0,
        ..ClientOptions::default()
    };
    let verdict = judge(
        std::slice::from_ref(&summary.dir),
        &spec,
        &options,
        Progress::quiet(),
        &worlds,
    )
    .unwrap();
    assert_eq!(verdict.task, "tone");
    let run = &verdict.runs[0];
    assert_eq!((run.items, run.judged, run.errors), (14, 14, 0));
    let calm = run
        .aggregate
        .categories
        .iter()
        .find(|c| c.category == "calm")
        .expect("calm units");
    assert_eq!(calm.units, 7);
    assert!(judge_file(&summary.dir).exists());
}

fn judge_file(dir: &Path) -> std::path::PathBuf {
    dir.join("judge").join("tone.jsonl")
}
