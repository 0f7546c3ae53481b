//! `escapade judge` in the library: the reasoning task's parser and prompt, aggregation on
//! hand-made run directories judged by scripted backends, resume, retries, and runs
//! without reasoning.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use escapade_core::judge::{JudgeRow, JudgeTask, StepView, Unit};
use escapade_core::trajectory::LoggedObservation;
use escapade_core::{Action, EpisodeRow, FORMAT_VERSION, StepRow, Usage, World};
use escapade_llm::ClientOptions;
use escapade_run::judge::{JUDGE_DIR, JudgeSpec, Judgement, judge, task};
use escapade_run::rundir::{RunConfig, RunDir, ScenarioRef};
use escapade_run::{Progress, RunError};
use escapade_vis::judge::{Reasoning, parse_units};
use serde_json::json;

use crate::fake::rows;

fn unit(category: &str, text: &str) -> Unit {
    Unit {
        category: category.into(),
        text: text.into(),
    }
}

fn categories(units: &[Unit]) -> Vec<&str> {
    units.iter().map(|u| u.category.as_str()).collect()
}

#[test]
fn well_formed_replies_parse_in_order() {
    let reply = "[Observation]: The locker in front of me is shut.\n\
                 [Recall]: I already tried 1234 on it.\n\
                 [Hypothesis]: The poster's primes may be the code.\n\
                 [Guess]: Codes are usually four digits.\n\
                 [Planning]: Go back to the east wall.\n\
                 [None-Reflection]: That was a waste of time.";
    let units = parse_units(reply).unwrap();
    assert_eq!(
        units,
        vec![
            unit("observation", "The locker in front of me is shut."),
            unit("recall", "I already tried 1234 on it."),
            unit("hypothesis", "The poster's primes may be the code."),
            unit("guess", "Codes are usually four digits."),
            unit("planning", "Go back to the east wall."),
            unit("none-reflection", "That was a waste of time."),
        ]
    );
}

#[test]
fn junk_lines_are_ignored_and_decorations_tolerated() {
    let reply = "Sure! Here is the breakdown of the reasoning:\n\
                 ```\n\
                 1. **[Observation]**: \"The box has a keypad.\"\n\
                 - [Recall] I saw a note with digits.\n\
                 * Plan: type the digits\n\
                 Note: this line is not a unit\n\
                 [Action]: press keypad\n\
                 [Hypothesis Formation]:\n\
                 ---\n\
                 The digits open the box.\n\
                 and a stray line after it\n\
                 ```\n\
                 Let me know if you need more.";
    let units = parse_units(reply).unwrap();
    assert_eq!(
        units,
        vec![
            unit("observation", "The box has a keypad."),
            unit("recall", "I saw a note with digits."),
            unit("planning", "type the digits"),
            unit("hypothesis", "The digits open the box."),
        ]
    );
}

#[test]
fn unknown_labels_become_none_categories() {
    let reply = "[Summary]: all told, stuck.\n\
                 [None - Self check]: am I sure?\n\
                 [None]: hmm\n\
                 None-Emotion: this is fun\n\
                 [OBS]: a red door\n\
                 [Memory]: the key was in the drawer";
    let units = parse_units(reply).unwrap();
    assert_eq!(
        categories(&units),
        [
            "none-summary",
            "none-self-check",
            "none-other",
            "none-emotion",
            "observation",
            "recall"
        ]
    );
}

#[test]
fn empty_or_unlabelled_replies_are_errors_not_panics() {
    for reply in [
        "",
        "   \n\n",
        "I cannot help with that.",
        "[]: nothing",
        "```\n```",
    ] {
        let err = parse_units(reply).unwrap_err();
        assert!(err.starts_with("the judge's reply"), "{reply:?}: {err}");
    }
    // a huge reply is read, but at most 256 units are kept
    let huge = "[Planning]: go\n".repeat(10_000);
    assert_eq!(parse_units(&huge).unwrap().len(), 256);
    // invalid UTF-8 cannot reach the parser (it takes &str), odd characters can
    assert!(parse_units("[\u{0}]: x\n[🙂]: y").is_ok());
}

fn view(step: u32, reasoning: Option<&str>, raw: Option<&str>) -> StepView {
    StepView {
        step,
        reasoning: reasoning.map(String::from),
        raw_response: raw.map(String::from),
        action: Some(json!({"kind": "text", "text": "open door"})),
        ..StepView::default()
    }
}

#[test]
fn reasoning_comes_from_the_field_or_the_think_section() {
    let steps = [
        view(
            1,
            Some("  from the field  "),
            Some("[THINK] not this [ACTION] x"),
        ),
        view(
            2,
            None,
            Some("[Think]\nfrom the reply\n[Action]\nopen door"),
        ),
        view(3, Some("   "), Some("open door")),
        view(4, None, None),
        view(
            5,
            None,
            Some("{\"text\":\"[THINK] via tools [ACTION]\",\"tool_calls\":[]}"),
        ),
    ];
    let items = Reasoning.items("s", 2, &steps, 1000);
    let got: Vec<(Option<u32>, &str)> = items.iter().map(|i| (i.step, i.text.as_str())).collect();
    assert_eq!(
        got,
        [
            (Some(1), "from the field"),
            (Some(2), "from the reply"),
            (Some(5), "via tools")
        ]
    );
    assert!(
        items
            .iter()
            .all(|i| i.epoch == 2 && i.context == "open door")
    );

    // the cap: characters, not bytes, and the row learns the full length
    let long = "é".repeat(50);
    let items = Reasoning.items("s", 0, &[view(1, Some(&long), None)], 10);
    assert!(items[0].truncated);
    assert_eq!(items[0].chars, 50);
    assert!(items[0].text.starts_with(&"é".repeat(10)));
    assert!(
        items[0].text.contains("40 more characters"),
        "{}",
        items[0].text
    );
}

/// The request text: system and user messages, as the judge reads them.
fn rendered(item_text: &str, action: &str) -> String {
    let steps = [StepView {
        step: 1,
        reasoning: Some(item_text.into()),
        raw_response: None,
        action: Some(json!({"kind": "text", "text": action})),
        ..StepView::default()
    }];
    let item = &Reasoning.items("s", 0, &steps, 8000)[0];
    let request = Reasoning.request(item);
    format!("[System]\n{}\n\n[User]\n{}\n", request.system, request.user)
}

#[test]
fn the_reasoning_prompt_matches_its_golden_file() {
    let got = rendered(
        "I'm facing the locker. I already tried 1234. I should check the poster.",
        "inspect poster",
    );
    // a change to this prompt is a new version of the task: bump it, then bless
    escapade_testkit::golden::check_text(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/run/golden/judge-reasoning.txt"),
        &got,
    );
}

#[test]
fn unknown_tasks_and_options_are_refused_with_the_known_ones() {
    let err = task(&worlds(), "nope").err().unwrap();
    assert_eq!(
        err.to_string(),
        "unknown judge task `nope`; known: reasoning, errors, intent, debrief"
    );
    let err = judge(
        &[],
        &spec("scripted/x.jsonl", "nope"),
        &quick(),
        Progress::quiet(),
        &worlds(),
    )
    .unwrap_err();
    assert!(matches!(err, RunError::Unknown { .. }), "{err}");

    let mut s = JudgeSpec::default();
    let options: BTreeMap<String, String> = [("history".to_string(), "full".to_string())].into();
    let err = s.apply_options(&options).unwrap_err().to_string();
    assert!(
        err.starts_with("unknown judge option `history`; known: "),
        "{err}"
    );
    assert!(
        err.contains("max_chars") && err.contains("timeout"),
        "{err}"
    );
    let options: BTreeMap<String, String> = [
        ("max_chars".to_string(), "100".to_string()),
        ("max_tokens".to_string(), "50".to_string()),
        ("retries".to_string(), "0".to_string()),
    ]
    .into();
    let client = s.apply_options(&options).unwrap();
    assert_eq!(
        (s.max_chars, s.max_tokens, client.max_retries),
        (100, 50, 0)
    );
    let options: BTreeMap<String, String> = [("max_chars".to_string(), "0".to_string())].into();
    assert!(s.apply_options(&options).is_err());
}

// ---- hand-made run directories ------------------------------------------------------

fn config(agent: &str, model: Option<&str>) -> RunConfig {
    RunConfig {
        suite: "s@1".into(),
        world: "vis".into(),
        source: "s@1".into(),
        agent: agent.into(),
        agent_options: model
            .map(|m| [("model".to_string(), m.to_string())].into())
            .unwrap_or_default(),
        expert: None,
        expert_options: Default::default(),
        world_options: Default::default(),
        epochs: 1,
        suite_settings: Default::default(),
        files: Default::default(),
        limit: None,
        sample: None,
        seed: 0,
        max_steps: 100,
        scenarios: vec![ScenarioRef {
            id: "room-a".into(),
            hash: "00".into(),
        }],
        shard: None,
        fork: None,
    }
}

fn step(n: u32, reasoning: Option<&str>, raw: Option<&str>) -> StepRow {
    StepRow {
        format_version: FORMAT_VERSION,
        step: n,
        t_ms: 0,
        role: "agent".into(),
        observation: LoggedObservation::default(),
        request: None,
        raw_response: raw.map(String::from),
        reasoning: reasoning.map(String::from),
        action: Action::text("open door"),
        valid: true,
        feedback: "ok".into(),
        progress: 0.0,
        terminated: false,
        truncated: false,
        usage: Usage::default(),
        error: None,
        results: Vec::new(),
        reasks: Vec::new(),
        steps_to_go: None,
    }
}

/// A run directory under `parent` with `episodes` of `(scenario, epoch, steps)`.
fn run_dir(
    parent: &Path,
    agent: &str,
    model: Option<&str>,
    episodes: &[(&str, u32, Vec<StepRow>)],
) -> PathBuf {
    let dir = RunDir::create(parent, &config(agent, model)).unwrap();
    for (scenario, epoch, steps) in episodes {
        let mut t = dir.trajectory(scenario, *epoch).unwrap();
        for s in steps {
            t.write(s).unwrap();
        }
        dir.append_episode(&EpisodeRow {
            format_version: FORMAT_VERSION,
            suite: "s@1".into(),
            scenario: scenario.to_string(),
            scenario_hash: "00".into(),
            world: "vis".into(),
            difficulty: 1,
            epoch: *epoch,
            seed: 0,
            agent: agent.into(),
            config_hash: dir.config_hash().into(),
            success: false,
            steps: steps.len() as u32,
            metrics: BTreeMap::new(),
            usage: Usage::default(),
            duration_ms: 1,
            error: None,
            retryable: false,
            rejected: Vec::new(),
            start_steps_to_go: None,
            step_cap: false,
            origin: None,
        })
        .unwrap();
    }
    dir.path().to_path_buf()
}

/// A scripted backend spec replaying `lines` (JSON values) from a file in `dir`.
pub(crate) fn script(dir: &Path, name: &str, lines: &[serde_json::Value]) -> String {
    let path = dir.join(name);
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(&path, text.join("\n")).unwrap();
    format!("scripted/{}", path.display())
}

fn reply(text: &str) -> serde_json::Value {
    json!({"text": text, "usage": {"input": 100, "output": 20}})
}

/// Client options that fail fast (no retries).
pub(crate) fn quick() -> ClientOptions {
    ClientOptions {
        max_retries: 0,
        backoff_base: Duration::from_millis(1),
        backoff_max: Duration::from_millis(2),
        ..ClientOptions::default()
    }
}

/// A judge spec for `task` with `model`, one call at a time.
pub(crate) fn spec(model: &str, task: &str) -> JudgeSpec {
    JudgeSpec {
        task: task.into(),
        model: model.into(),
        concurrency: 1,
        ..JudgeSpec::default()
    }
}

/// The worlds whose judge tasks these tests use (the tools world needs a python3).
pub fn worlds() -> Vec<Box<dyn World>> {
    vec![
        Box::new(escapade_vis::VisWorld::new()),
        Box::new(escapade_comma::CommaWorld),
        Box::new(escapade_craft::CraftWorld::new()),
    ]
}

fn run_judge(dirs: &[PathBuf], spec: &JudgeSpec) -> Judgement {
    judge(dirs, spec, &quick(), Progress::quiet(), &worlds()).expect("judging finishes")
}

fn judge_rows(dir: &Path) -> Vec<JudgeRow> {
    rows(&dir.join(JUDGE_DIR).join("reasoning.jsonl"))
}

const OBS_RECALL_PLAN: &str =
    "[Observation]: door shut\n[Recall]: tried the key\n[Planning]: try the card";

/// One run: room-a epoch 0 with steps 1–3 reasoned (step 2 through [THINK]) and step 4
/// not; room-b epoch 0 with one reasoned step.
fn three_plus_one(parent: &Path, model: Option<&str>) -> PathBuf {
    run_dir(
        parent,
        "llm",
        model,
        &[
            (
                "room-a",
                0,
                vec![
                    step(1, Some("0123456789"), None),
                    step(
                        2,
                        None,
                        Some("[THINK] 01234567890123456789 [ACTION] open door"),
                    ),
                    step(3, Some("0123"), None),
                    step(4, None, Some("open door")),
                ],
            ),
            ("room-b", 0, vec![step(1, Some("012345"), None)]),
        ],
    )
}

#[test]
fn aggregation_counts_categories_and_compositions() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = three_plus_one(tmp.path(), Some("openai/gpt-4o"));
    // judged in order at concurrency 1: a/1, a/2, a/3, b/1
    let model = script(
        tmp.path(),
        "j.jsonl",
        &[
            reply(OBS_RECALL_PLAN),
            reply(&format!("Here you go:\n{OBS_RECALL_PLAN}")),
            reply("[Plan]: go"),
            reply("[Obs]: a door\n[Obs]: a lock\n[None-Doubt]: hmm"),
        ],
    );
    let j = run_judge(std::slice::from_ref(&dir), &spec(&model, "reasoning"));
    assert_eq!(
        (j.task.as_str(), j.task_version, j.judge.as_str()),
        ("reasoning", 1, model.as_str())
    );
    assert_eq!(j.runs.len(), 1);
    let r = &j.runs[0];
    assert_eq!(r.label, "llm openai/gpt-4o");
    assert_eq!(
        (r.steps, r.items, r.judged, r.errors, r.requests, r.skipped),
        (5, 4, 4, 0, 4, 0)
    );
    assert_eq!((r.usage.input, r.usage.output), (400, 80));
    let a = &r.aggregate;
    assert_eq!(a.units, 10);
    assert_eq!(a.mean_chars, Some((10.0 + 20.0 + 4.0 + 6.0) / 4.0));
    let shares: Vec<(&str, usize, f64)> = a
        .categories
        .iter()
        .map(|c| (c.category.as_str(), c.units, c.share))
        .collect();
    assert_eq!(
        shares,
        [
            ("observation", 4, 0.4),
            ("guess", 0, 0.0),
            ("hypothesis", 0, 0.0),
            ("planning", 3, 0.3),
            ("recall", 2, 0.2),
            ("none-doubt", 1, 0.1),
        ]
    );
    let comps: Vec<(&str, usize, f64, f64)> = a
        .compositions
        .iter()
        .map(|c| (c.label.as_str(), c.steps, c.share, c.mean_chars))
        .collect();
    assert_eq!(
        comps,
        [
            ("(Obs, Recall, Plan)", 2, 0.5, 15.0),
            ("(Obs, Obs, None-doubt)", 1, 0.25, 6.0),
            ("(Plan)", 1, 0.25, 4.0),
        ]
    );
    assert_eq!(
        a.compositions[1].categories,
        ["observation", "observation", "none-doubt"]
    );

    // the file: one flushed row per judged step, with what the docs promise
    let rows = judge_rows(&dir);
    let keys: Vec<(&str, u32, Option<u32>)> = rows
        .iter()
        .map(|r| (r.scenario.as_str(), r.epoch, r.step))
        .collect();
    assert_eq!(
        keys,
        [
            ("room-a", 0, Some(1)),
            ("room-a", 0, Some(2)),
            ("room-a", 0, Some(3)),
            ("room-b", 0, Some(1))
        ]
    );
    assert!(
        rows.iter()
            .all(|r| r.judge == model && r.error.is_none() && !r.retryable)
    );
    assert_eq!(rows[1].chars, 20);
    assert!(rows[1].reply.as_deref().unwrap().starts_with("Here you go"));
    let text = std::fs::read_to_string(dir.join(JUDGE_DIR).join("reasoning.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    for field in [
        "format_version",
        "task",
        "task_version",
        "judge",
        "scenario",
        "epoch",
        "step",
        "chars",
        "units",
        "reply",
        "usage",
        "error",
    ] {
        assert!(first.get(field).is_some(), "missing {field}: {first}");
    }
    assert!(first.get("truncated").is_none() && first.get("retryable").is_none());

    // markdown and JSON
    let md = j.markdown();
    assert!(md.contains("## llm openai/gpt-4o"), "{md}");
    assert!(md.contains("| Observation | 4 | 40.0 |"), "{md}");
    assert!(
        md.contains("| (Obs, Recall, Plan) | 2 | 50.0 | 15.0 |"),
        "{md}"
    );
    let v = serde_json::to_value(&j).unwrap();
    assert_eq!(v["runs"][0]["categories"][0]["share"], json!(0.4));
    assert_eq!(
        v["runs"][0]["compositions"][0]["label"],
        json!("(Obs, Recall, Plan)")
    );
    assert_eq!(v["runs"][0]["judged"], json!(4));
}

#[test]
fn several_runs_get_one_table_each() {
    let tmp = tempfile::tempdir().unwrap();
    let a = three_plus_one(tmp.path(), Some("openai/gpt-4o"));
    let b = three_plus_one(tmp.path(), Some("anthropic/claude"));
    let model = script(tmp.path(), "j.jsonl", &[reply("[Planning]: go")]);
    let j = run_judge(&[a, b], &spec(&model, "reasoning"));
    let labels: Vec<&str> = j.runs.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["llm openai/gpt-4o", "llm anthropic/claude"]);
    assert!(j.runs.iter().all(|r| r.judged == 4));
    let md = j.markdown();
    assert_eq!(md.matches("\n## ").count(), 2, "{md}");
}

#[test]
fn resume_skips_steps_judged_by_the_same_model() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = three_plus_one(tmp.path(), None);
    let dirs = std::slice::from_ref(&dir);
    let good = script(tmp.path(), "good.jsonl", &[reply("[Planning]: go")]);

    let first = run_judge(
        dirs,
        &JudgeSpec {
            limit: Some(2),
            ..spec(&good, "reasoning")
        },
    );
    let r = &first.runs[0];
    assert_eq!((r.items, r.requests, r.judged), (2, 2, 2));
    assert_eq!(judge_rows(&dir).len(), 2);

    let second = run_judge(
        dirs,
        &JudgeSpec {
            concurrency: 3,
            ..spec(&good, "reasoning")
        },
    );
    let r = &second.runs[0];
    assert_eq!((r.items, r.skipped, r.requests, r.judged), (4, 2, 2, 4));
    // the usage of earlier rows still counts
    assert_eq!(r.usage.input, 400);
    assert_eq!(judge_rows(&dir).len(), 4);

    // nothing left to judge
    let third = run_judge(dirs, &spec(&good, "reasoning"));
    assert_eq!((third.runs[0].skipped, third.runs[0].requests), (4, 0));
    // ... so the backend is not even opened (its script is gone)
    std::fs::remove_file(tmp.path().join("good.jsonl")).unwrap();
    let again = run_judge(dirs, &spec(&good, "reasoning"));
    assert_eq!(again.runs[0].requests, 0);

    // another judge model judges everything again, into the same file
    let other = script(tmp.path(), "other.jsonl", &[reply("[Recall]: x")]);
    let j = run_judge(dirs, &spec(&other, "reasoning"));
    assert_eq!((j.runs[0].requests, j.runs[0].skipped), (4, 0));
    assert_eq!(j.runs[0].aggregate.categories[4].units, 4);
    let rows = judge_rows(&dir);
    assert_eq!(rows.len(), 8);
    let models: BTreeSet<&str> = rows.iter().map(|r| r.judge.as_str()).collect();
    assert_eq!(models.len(), 2);
}

#[test]
fn backend_failures_are_retried_and_bad_replies_are_final() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = three_plus_one(tmp.path(), None);
    let dirs = std::slice::from_ref(&dir);
    // a/1 fails at the backend, a/2 gets an unreadable reply, a/3 and b/1 are fine
    let flaky = script(
        tmp.path(),
        "flaky.jsonl",
        &[
            json!({"fault": "server_error"}),
            reply("I would rather not."),
            reply("[Planning]: go"),
            reply("[Planning]: go"),
        ],
    );
    let j = run_judge(dirs, &spec(&flaky, "reasoning"));
    let r = &j.runs[0];
    assert_eq!((r.judged, r.errors, r.requests), (2, 2, 4));
    let rows = judge_rows(&dir);
    assert!(
        rows[0].retryable
            && rows[0]
                .error
                .as_deref()
                .unwrap()
                .starts_with("judge failed")
    );
    assert!(!rows[1].retryable && rows[1].error.as_deref().unwrap().contains("no `[Category]"));
    assert!(rows[1].units.is_empty() && rows[1].reply.is_some());

    // the next invocation (same model) asks again only for the backend failure
    std::fs::write(
        tmp.path().join("flaky.jsonl"),
        reply("[Recall]: x").to_string(),
    )
    .unwrap();
    let j = run_judge(dirs, &spec(&flaky, "reasoning"));
    let r = &j.runs[0];
    assert_eq!((r.requests, r.skipped, r.judged, r.errors), (1, 3, 3, 1));
    assert_eq!(judge_rows(&dir).len(), 5);
    let recall = &r.aggregate.categories[4];
    assert_eq!((recall.category.as_str(), recall.units), ("recall", 1));
}

#[test]
fn a_run_without_reasoning_judges_nothing_and_opens_no_backend() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_dir(
        tmp.path(),
        "random",
        None,
        &[(
            "room-a",
            0,
            vec![step(1, None, None), step(2, None, Some("open door"))],
        )],
    );
    let missing = format!("scripted/{}", tmp.path().join("nope.jsonl").display());
    let j = run_judge(std::slice::from_ref(&dir), &spec(&missing, "reasoning"));
    let r = &j.runs[0];
    assert_eq!((r.steps, r.items, r.judged, r.requests), (2, 0, 0, 0));
    assert!(!dir.join(JUDGE_DIR).exists());
    let md = j.markdown();
    assert!(
        md.contains("Nothing judged: of 1 episode(s) and 2 step(s), no step carries reasoning"),
        "{md}"
    );

    // with reasoning, the same missing script is a clear error
    let dir = three_plus_one(tmp.path(), None);
    let err = judge(
        &[dir],
        &spec(&missing, "reasoning"),
        &quick(),
        Progress::quiet(),
        &worlds(),
    )
    .unwrap_err();
    assert!(matches!(err, RunError::Backend { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("cannot open the model backend `scripted/"),
        "{err}"
    );
}

#[test]
fn many_steps_in_flight_are_each_judged_once() {
    let tmp = tempfile::tempdir().unwrap();
    let steps: Vec<StepRow> = (1..=40).map(|n| step(n, Some("think"), None)).collect();
    let dir = run_dir(
        tmp.path(),
        "llm",
        None,
        &[("room-a", 0, steps.clone()), ("room-a", 1, steps)],
    );
    let model = script(
        tmp.path(),
        "j.jsonl",
        &[json!({"text": "[Planning]: go", "delay_ms": 2})],
    );
    let j = run_judge(
        std::slice::from_ref(&dir),
        &JudgeSpec {
            concurrency: 8,
            ..spec(&model, "reasoning")
        },
    );
    assert_eq!((j.runs[0].judged, j.runs[0].requests), (80, 80));
    let rows = judge_rows(&dir);
    let keys: BTreeSet<(u32, Option<u32>)> = rows.iter().map(|r| (r.epoch, r.step)).collect();
    assert_eq!((rows.len(), keys.len()), (80, 80));
}

#[test]
fn a_torn_judge_file_is_cut_and_its_step_judged_again() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = three_plus_one(tmp.path(), None);
    let dirs = std::slice::from_ref(&dir);
    let model = script(tmp.path(), "j.jsonl", &[reply("[Planning]: go")]);
    run_judge(dirs, &spec(&model, "reasoning"));
    let path = dir.join(JUDGE_DIR).join("reasoning.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let torn = &lines[3][..lines[3].len() / 2];
    std::fs::write(&path, format!("{}\n{torn}", lines[..3].join("\n"))).unwrap();

    let j = run_judge(dirs, &spec(&model, "reasoning"));
    assert!(
        j.warnings.iter().any(|w| w.contains("malformed last line")),
        "{:?}",
        j.warnings
    );
    assert_eq!(
        (j.runs[0].skipped, j.runs[0].requests, j.runs[0].judged),
        (3, 1, 4)
    );
    assert_eq!(judge_rows(&dir).len(), 4);
}

#[test]
fn a_judge_file_being_written_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = three_plus_one(tmp.path(), None);
    let model = script(tmp.path(), "j.jsonl", &[reply("[Planning]: go")]);
    std::fs::create_dir_all(dir.join(JUDGE_DIR)).unwrap();
    let held = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(JUDGE_DIR).join(".lock"))
        .unwrap();
    held.try_lock().unwrap();
    let err = judge(
        std::slice::from_ref(&dir),
        &spec(&model, "reasoning"),
        &quick(),
        Progress::quiet(),
        &worlds(),
    )
    .unwrap_err();
    assert!(matches!(err, RunError::JudgeLocked(_)), "{err}");
    drop(held);
    assert_eq!(
        run_judge(&[dir], &spec(&model, "reasoning")).runs[0].judged,
        4
    );
}
