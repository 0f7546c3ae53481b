//! The craft judges (`intent`, `debrief`) on hand-made run directories judged by
//! scripted backends: which steps are judged, the escape case, rationale-less steps,
//! verdict parsing, the storyteller's two calls, ground truth kept from the storyteller,
//! and resume.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use escapade_core::judge::{EpisodeInfo, JudgeRow, JudgeTask, StepView};
use escapade_core::trajectory::LoggedObservation;
use escapade_core::{Action, EpisodeRow, FORMAT_VERSION, StepRow, Usage, World, hash};
use escapade_craft::judge::{
    Debrief, Intent, ground_truth, parse_consistent, parse_score, successful_interactions,
};
use escapade_craft::scenario::{Variant, generate};
use escapade_craft::{CraftScenario, CraftWorld};
use escapade_run::judge::{JUDGE_DIR, JudgeSpec, Judgement, judge, verdict_request};
use escapade_run::rundir::{RunConfig, RunDir, ScenarioRef};
use escapade_run::{Progress, RunError};
use serde_json::json;

use crate::fake::rows;
use crate::judge::{quick, script, spec};

/// A craft step: an action object (`rationale` included when given), its feedback and
/// the progress after it.
fn step(n: u32, action: serde_json::Value, feedback: &str, progress: f64) -> StepRow {
    StepRow {
        format_version: FORMAT_VERSION,
        step: n,
        t_ms: 0,
        role: "agent".into(),
        observation: LoggedObservation {
            text: format!("Interaction result:\nstep {n}\n\nInventory:\nYour bag is empty."),
            images: Vec::new(),
            descriptions: Vec::new(),
        },
        request: None,
        raw_response: None,
        reasoning: None,
        action: Action::text(action.to_string()),
        valid: true,
        feedback: feedback.into(),
        progress,
        terminated: false,
        truncated: false,
        usage: Usage::default(),
        error: None,
        results: Vec::new(),
        reasks: Vec::new(),
        steps_to_go: None,
    }
}

fn view(row: &StepRow) -> StepView {
    serde_json::from_value(serde_json::to_value(row).unwrap()).unwrap()
}

/// A D3 episode: walk, a grab out of reach, pick up a key (no rationale when
/// `rationale` is false), open a box, read a note, escape.
fn episode(rationale: bool) -> Vec<StepRow> {
    let key = if rationale {
        json!({"grab": true, "rationale": "pick up the key on the dresser"})
    } else {
        json!({"grab": true})
    };
    let mut escape = step(
        6,
        json!({"grab": true, "interactions": {"input": "4578"},
               "rationale": "type the code at the door to get out"}),
        "The keypad beeps and accepts the code. The door opens and you step outside: you escaped!",
        1.0,
    );
    escape.terminated = true;
    vec![
        step(
            1,
            json!({"move_forward": 1, "rationale": "walk to the dresser"}),
            "You walked 1.00 m forward.",
            0.0,
        ),
        step(
            2,
            json!({"grab": true, "rationale": "take the key"}),
            "Under the red dot is a key, 3.1 m away: too far to reach.",
            0.0,
        ),
        step(
            3,
            key,
            "You picked up a key: key_1 is now in your bag.",
            0.2,
        ),
        step(
            4,
            json!({"grab": true, "interactions": {"use_item_id": "key_1"},
                   "rationale": "look at the painting"}),
            "You turn key_1 in the lock. The box opens. Inside you find note_1; now in your bag.",
            0.6,
        ),
        step(
            5,
            json!({"read": "note_1", "rationale": "read the note"}),
            "You read note_1. A code is written on it: 4578",
            0.6,
        ),
        escape,
    ]
}

fn config(world: &str, source: &str, agent: &str) -> RunConfig {
    RunConfig {
        suite: "file:s".into(),
        world: world.into(),
        source: source.into(),
        agent: agent.into(),
        agent_options: Default::default(),
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
            id: "room".into(),
            hash: "00".into(),
        }],
        shard: None,
        fork: None,
    }
}

/// A craft run directory with `episodes` of `(scenario hash, epoch, success, steps)`.
fn run_dir(
    parent: &Path,
    source: &str,
    agent: &str,
    episodes: &[(&str, u32, bool, Vec<StepRow>)],
) -> PathBuf {
    let dir = RunDir::create(parent, &config("craft", source, agent)).unwrap();
    for (hash, epoch, success, steps) in episodes {
        let mut t = dir.trajectory("room", *epoch).unwrap();
        for s in steps {
            t.write(s).unwrap();
        }
        dir.append_episode(&EpisodeRow {
            format_version: FORMAT_VERSION,
            suite: "file:s".into(),
            scenario: "room".into(),
            scenario_hash: hash.to_string(),
            world: "craft".into(),
            difficulty: 3,
            epoch: *epoch,
            seed: 0,
            agent: agent.into(),
            config_hash: dir.config_hash().into(),
            success: *success,
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

fn reply(text: &str) -> serde_json::Value {
    json!({"text": text, "usage": {"input": 100, "output": 5}})
}

fn score(j: &Judgement, name: &str) -> (usize, Option<f64>) {
    let s = j.runs[0]
        .aggregate
        .scores
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no score {name}"));
    (s.items, s.value)
}

fn text_of(request: &escapade_core::judge::JudgeRequest) -> String {
    format!("{}\n{}", request.system, request.user)
}

// ---- intent ---------------------------------------------------------------------------

#[test]
fn only_successful_interactions_are_selected() {
    let views: Vec<StepView> = episode(true).iter().map(view).collect();
    let found = successful_interactions(&views);
    let picked: Vec<(u32, &str)> = found.iter().map(|i| (i.step.step, i.kind)).collect();
    // not the walk, the grab out of reach, or the read
    assert_eq!(picked, [(3, "pickup"), (4, "box"), (6, "escape")]);
    assert_eq!(
        found[0].rationale.as_deref(),
        Some("pick up the key on the dresser")
    );
    // rows without progress: the feedback's success words decide
    let mut old = view(&episode(true)[2]);
    old.progress = None;
    assert_eq!(successful_interactions(&[old.clone()]).len(), 1);
    old.feedback = Some("The box is already open and empty.".into());
    assert!(successful_interactions(&[old]).is_empty());
    // an unreadable action is no interaction
    let mut junk = view(&episode(true)[2]);
    junk.action = Some(json!({"kind": "text", "text": "grab it!"}));
    assert!(successful_interactions(&[junk]).is_empty());
}

#[test]
fn the_escape_step_asks_for_the_intent_to_leave() {
    let views: Vec<StepView> = episode(true).iter().map(view).collect();
    let info = EpisodeInfo {
        scenario: "room",
        epoch: 0,
        world: "craft",
        difficulty: 3,
        success: true,
        scenario_json: None,
    };
    let items = Intent.episode_items(&info, &views, 8000).unwrap();
    assert_eq!(items.len(), 3);
    let pickup = text_of(&Intent.request(&items[0]));
    let escape = text_of(&Intent.request(&items[2]));
    assert!(
        pickup.contains("pick up the key on the dresser"),
        "{pickup}"
    );
    assert!(pickup.contains("You picked up a key"), "{pickup}");
    assert!(!pickup.contains("meant to leave"), "{pickup}");
    assert!(escape.contains("meant to leave"), "{escape}");
    assert!(escape.contains("type the code at the door"), "{escape}");
    // the same items give the same request, byte for byte
    assert_eq!(Intent.request(&items[2]), Intent.request(&items[2]));
    // other worlds have nothing to judge
    let vis = EpisodeInfo {
        world: "vis",
        ..info
    };
    assert!(Intent.episode_items(&vis, &views, 8000).unwrap().is_empty());
}

#[test]
fn a_step_without_rationale_is_inconsistent_without_a_call() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_dir(tmp.path(), "s@1", "llm", &[("00", 0, true, episode(false))]);
    // two calls: the box (accidental: it meant the painting) and the escape
    let model = script(
        tmp.path(),
        "j.jsonl",
        &[reply("{\"consistent\": 0}"), reply("Consistency: 1")],
    );
    let j = judge(
        std::slice::from_ref(&dir),
        &spec(&model, "intent"),
        &quick(),
        Progress::quiet(),
        &worlds(),
    )
    .unwrap();
    let r = &j.runs[0];
    assert_eq!(
        (r.episodes, r.steps, r.items, r.judged, r.requests, r.errors),
        (1, 6, 3, 3, 3, 0)
    );
    assert_eq!((r.usage.input, r.usage.output), (200, 10));
    assert_eq!(score(&j, "c_io"), (3, Some(1.0 / 3.0)));
    assert_eq!(score(&j, "c_io_d3"), (3, Some(1.0 / 3.0)));
    assert_eq!(score(&j, "no_rationale"), (1, Some(1.0 / 3.0)));
    let written: Vec<JudgeRow> = rows(&dir.join(JUDGE_DIR).join("intent.jsonl"));
    let first = &written[0];
    assert!(first.no_call && first.reply.is_none() && first.error.is_none());
    assert_eq!(first.units[0].category, "inconsistent");
    assert_eq!(
        written
            .iter()
            .map(|r| r.label.as_deref().unwrap())
            .collect::<Vec<_>>(),
        ["pickup", "box", "escape"]
    );
    assert!(written.iter().all(|r| r.difficulty == Some(3)));

    // another judge model's rows are not reused: its backend is opened (and fails here)
    let again = judge(
        std::slice::from_ref(&dir),
        &spec("scripted/does-not-exist.jsonl", "intent"),
        &quick(),
        Progress::quiet(),
        &worlds(),
    );
    assert!(matches!(again, Err(RunError::Backend { .. })), "{again:?}");
    // the same judge again: nothing is asked
    let j = judge(
        std::slice::from_ref(&dir),
        &spec(&model, "intent"),
        &quick(),
        Progress::quiet(),
        &worlds(),
    )
    .unwrap();
    assert_eq!((j.runs[0].requests, j.runs[0].skipped), (0, 3));
    assert_eq!(
        rows::<JudgeRow>(&dir.join(JUDGE_DIR).join("intent.jsonl")).len(),
        3
    );
}

#[test]
fn bad_verdicts_are_error_rows_not_panics() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_dir(tmp.path(), "s@1", "llm", &[("00", 0, true, episode(true))]);
    let model = script(
        tmp.path(),
        "j.jsonl",
        &[
            reply("I think so."),
            reply("{\"consistent\": 3}"),
            reply("1"),
        ],
    );
    let j = judge(
        std::slice::from_ref(&dir),
        &spec(&model, "intent"),
        &quick(),
        Progress::quiet(),
        &worlds(),
    )
    .unwrap();
    assert_eq!((j.runs[0].judged, j.runs[0].errors), (1, 2));
    let written: Vec<JudgeRow> = rows(&dir.join(JUDGE_DIR).join("intent.jsonl"));
    assert!(written[0].error.as_deref().unwrap().contains("holds no"));
    assert!(!written[0].retryable, "an unreadable verdict is final");
    // odd input never panics
    for reply in [
        "{",
        "}",
        "{{}}",
        "{\"consistent\": [1]}",
        "score: 5/",
        "\u{0}",
        "🙂: 1",
    ] {
        let _ = parse_consistent(reply);
        let _ = parse_score(reply);
    }
}

// ---- debrief --------------------------------------------------------------------------

/// A scenario written to `dir/s.json`: `(scenario, its JSON, the file's path)`.
fn scenario_file(dir: &Path) -> (CraftScenario, String, String) {
    let s = generate(3, 7, Variant::NoteFirst).unwrap();
    let json = s.to_json();
    let path = dir.join("s.json");
    std::fs::write(&path, &json).unwrap();
    (s, json, path.display().to_string())
}

fn worlds() -> Vec<Box<dyn World>> {
    vec![Box::new(CraftWorld::new())]
}

#[test]
fn debrief_takes_escapes_only_and_keeps_the_truth_from_the_storyteller() {
    let tmp = tempfile::tempdir().unwrap();
    let (s, json, _) = scenario_file(tmp.path());
    let views: Vec<StepView> = episode(true).iter().map(view).collect();
    let info = EpisodeInfo {
        scenario: "room",
        epoch: 0,
        world: "craft",
        difficulty: 3,
        success: true,
        scenario_json: Some(&json),
    };
    let items = Debrief.episode_items(&info, &views, 8000).unwrap();
    assert_eq!(items.len(), 1);
    let lost = EpisodeInfo {
        success: false,
        ..info
    };
    assert!(
        Debrief
            .episode_items(&lost, &views, 8000)
            .unwrap()
            .is_empty()
    );
    let missing = EpisodeInfo {
        scenario_json: None,
        ..info
    };
    assert!(Debrief.episode_items(&missing, &views, 8000).is_err());

    let truth = ground_truth(&s);
    assert!(truth.contains(s.story.trim()), "{truth}");
    assert!(truth.contains(s.rooms[0].kind.label()), "{truth}");
    let story = text_of(&Debrief.prior(&items[0]).unwrap());
    assert!(story.contains("The game began: step 1"), "{story}");
    assert!(story.contains("You read note_1. A code is written on it: 4578"));
    assert!(!story.contains(s.story.trim()), "the story leaked: {story}");
    assert!(!story.contains(&truth));
    let judged = text_of(&Debrief.request_after(&items[0], "A bedroom, a key, a note."));
    assert!(judged.contains(s.story.trim()) && judged.contains("A bedroom, a key, a note."));

    // a long record is folded, then cut, and says so
    let long: Vec<StepView> = (1..=200)
        .map(|n| {
            view(&step(
                n,
                json!({"rotate_right": 30}),
                "You turned 30.0 degrees right.",
                0.0,
            ))
        })
        .chain(views.iter().map(|v| StepView {
            step: v.step + 200,
            ..v.clone()
        }))
        .collect();
    let items = Debrief.episode_items(&info, &long, 2000).unwrap();
    assert!(items[0].truncated && items[0].chars > 2000);
    let text = &items[0].text;
    assert!(
        text.contains("Steps 1–201: you looked around and walked (left out).\nStep 202:"),
        "{text}"
    );
    assert!(items[0].text.contains("You read note_1"));
}

#[test]
fn debrief_asks_the_storyteller_then_the_judge_and_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, json, path) = scenario_file(tmp.path());
    let sha = hash::sha256_hex(json.as_bytes());
    let dir = run_dir(
        tmp.path(),
        &path,
        "llm",
        &[
            (&sha, 0, true, episode(true)),
            (&sha, 1, false, episode(true)[..2].to_vec()),
        ],
    );
    let storyteller = script(
        tmp.path(),
        "s.jsonl",
        &[reply(
            "It was a bedroom; a key on the dresser opened a box.",
        )],
    );
    let judge_model = script(
        tmp.path(),
        "j.jsonl",
        &[reply("```json\n{\"score\": 3}\n```")],
    );
    let mut s = spec(&judge_model, "debrief");
    s.storyteller = Some(storyteller.clone());

    // without the craft world there is no debriefing to ask for
    let err = judge(
        std::slice::from_ref(&dir),
        &s,
        &quick(),
        Progress::quiet(),
        &[],
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown judge task `debrief`; known: (none)"
    );

    let run = |s: &JudgeSpec| {
        judge(
            std::slice::from_ref(&dir),
            s,
            &quick(),
            Progress::quiet(),
            &worlds(),
        )
        .unwrap()
    };
    let j = run(&s);
    assert_eq!(j.storyteller.as_deref(), Some(storyteller.as_str()));
    let r = &j.runs[0];
    assert_eq!((r.episodes, r.items, r.judged, r.requests), (2, 1, 1, 1));
    assert_eq!((r.usage.input, r.usage.output), (200, 10));
    assert_eq!(score(&j, "debrief"), (1, Some(3.0)));
    assert_eq!(score(&j, "debrief_share"), (1, Some(0.5)));
    let written: Vec<JudgeRow> = rows(&dir.join(JUDGE_DIR).join("debrief.jsonl"));
    assert_eq!(written.len(), 1);
    let prior = written[0].prior.as_ref().unwrap();
    assert_eq!(
        (prior.role.as_str(), prior.model.as_str()),
        ("storyteller", storyteller.as_str())
    );
    assert_eq!(prior.usage.input, 100);
    assert_eq!(written[0].units[0].category, "score-3");

    // resume skips the judged episode; another storyteller judges it again
    let j = run(&s);
    assert_eq!((j.runs[0].requests, j.runs[0].skipped), (0, 1));
    let other = script(tmp.path(), "o.jsonl", &[reply("A room.")]);
    s.storyteller = Some(other);
    let j = run(&s);
    assert_eq!((j.runs[0].requests, j.runs[0].skipped), (1, 0));

    // a failing storyteller leaves a retryable row and no judge call
    let broken = script(tmp.path(), "b.jsonl", &[json!({"fault": "server_error"})]);
    s.storyteller = Some(broken);
    let j = run(&s);
    assert_eq!(j.runs[0].errors, 1);
    let written: Vec<JudgeRow> = rows(&dir.join(JUDGE_DIR).join("debrief.jsonl"));
    let last = written.last().unwrap();
    assert!(last.retryable && last.reply.is_none(), "{last:?}");
    assert!(
        last.error
            .as_deref()
            .unwrap()
            .starts_with("storyteller failed")
    );
}

#[test]
fn a_debrief_without_its_scenario_is_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, _, path) = scenario_file(tmp.path());
    let dir = run_dir(
        tmp.path(),
        &path,
        "llm",
        &[("feed", 0, true, episode(true))],
    );
    let j = judge(
        std::slice::from_ref(&dir),
        &spec("scripted/never-opened.jsonl", "debrief"),
        &quick(),
        Progress::quiet(),
        &worlds(),
    )
    .unwrap();
    assert_eq!(j.runs[0].items, 0);
    assert!(
        j.warnings
            .iter()
            .any(|w| w.contains("not judged: its scenario could not be loaded")),
        "{:?}",
        j.warnings
    );
}

#[test]
fn local_judges_answer_in_the_verdict_schema_and_it_parses() {
    let spec = |model: &str, structured: &str| {
        let mut s = JudgeSpec {
            model: model.into(),
            ..JudgeSpec::default()
        };
        s.apply_options(&BTreeMap::from([("structured".into(), structured.into())]))
            .unwrap();
        s
    };
    for (task, reply) in [
        (&Intent as &dyn JudgeTask, r#"{"consistent": 1}"#),
        (&Debrief as &dyn JudgeTask, r#"{"score": 4}"#),
    ] {
        let schema = task.verdict_schema().unwrap();
        let asked =
            |s: &JudgeSpec| verdict_request(task, s, escapade_core::judge::JudgeRequest::default());
        assert_eq!(
            asked(&spec("local/smollm2", "auto")).response_schema,
            Some(schema.clone())
        );
        assert_eq!(asked(&spec("openai/gpt-4o", "auto")).response_schema, None);
        assert_eq!(
            asked(&spec("openai/gpt-4o", "on")).response_schema,
            Some(schema)
        );
        assert_eq!(asked(&spec("local/smollm2", "off")).response_schema, None);
        assert_eq!(asked(&spec("local/smollm2", "auto")).temperature, Some(0.0));
        // what the schema lets a model say is a verdict
        assert!(task.parse(reply).is_ok(), "{reply}");
    }
    let mut bad = JudgeSpec::default();
    let e = bad
        .apply_options(&BTreeMap::from([("structured".into(), "maybe".into())]))
        .unwrap_err();
    assert!(e.to_string().contains("expected auto, on or off"), "{e}");
}
