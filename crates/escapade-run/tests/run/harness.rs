//! The model harness under the runner: LLM agents over scripted backends with injected
//! faults, retryable rows replayed on resume, re-asks, shards, and many episodes in flight.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use escapade_agents::LlmConfig;
use escapade_core::{Action, EpisodeRow, StepRow};
use escapade_llm::scripted::ScriptedBackend;
use escapade_llm::{Backend, ChatRequest, ChatResponse, Client, ClientOptions, LlmError};
use escapade_run::rundir::{EPISODES, TRAJECTORIES};
use escapade_run::{LlmFactory, Progress, RunSpec, RunSummary, report};
use serde_json::{Value, json};

use crate::fake::{Counter, CounterWorld, labelled, rows, run_in, scenario, small_suite, spec};

/// A scripted backend from JSON lines.
fn scripted(lines: &[Value]) -> ScriptedBackend {
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    ScriptedBackend::from_str("scripted/test", &text.join("\n")).expect("a valid script")
}

/// Client settings for tests: quick backoff, `retries` retries.
fn quick(retries: u32) -> ClientOptions {
    ClientOptions {
        max_retries: retries,
        backoff_base: Duration::from_millis(1),
        backoff_max: Duration::from_millis(5),
        ..ClientOptions::default()
    }
}

/// A spec for an `llm` agent with `options` (besides the model).
fn llm_spec(options: &[(&str, &str)]) -> RunSpec {
    let mut agent_options: BTreeMap<String, String> = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    agent_options.insert("model".into(), "scripted/test".into());
    RunSpec {
        agent: "llm".into(),
        agent_options,
        source: "counter".into(),
        ..RunSpec::default()
    }
}

/// Runs `scenarios` with LLM agents over `backend` into `out`; returns the summary and
/// the client (for its statistics).
fn run_llm(
    out: &Path,
    scenarios: &[(String, String)],
    spec: &RunSpec,
    backend: Arc<dyn Backend>,
    options: &ClientOptions,
) -> (RunSummary, Client) {
    let config = LlmConfig::from_options("scripted/test", &spec.agent_options).unwrap();
    let factory = LlmFactory::new(config, Client::new(backend, options));
    let summary = escapade_run::run(
        &CounterWorld,
        scenarios,
        spec,
        &factory,
        out,
        Progress::quiet(),
    )
    .expect("the run finishes");
    (summary, factory.client().clone())
}

/// The rows of a run directory.
fn episodes(dir: &Path) -> Vec<EpisodeRow> {
    rows(&dir.join(EPISODES))
}

/// The step rows of one episode.
fn steps(dir: &Path, id: &str, epoch: u32) -> Vec<StepRow> {
    rows(
        &dir.join(TRAJECTORIES)
            .join(id)
            .join(format!("{epoch}.jsonl")),
    )
}

/// Asserts each `(scenario, epoch)` of `rows` appears once, and returns them.
fn once_each(rows: &[EpisodeRow]) -> BTreeSet<(String, u32)> {
    let mut seen = BTreeSet::new();
    for r in rows {
        assert!(
            seen.insert((r.scenario.clone(), r.epoch)),
            "{} epoch {} appears twice",
            r.scenario,
            r.epoch
        );
    }
    seen
}

/// `n` counters `c0…` with targets 1, 2, 3, 1, 2, 3, …
fn counters(n: usize) -> Vec<Counter> {
    (0..n)
        .map(|i| scenario(&format!("c{i}"), 1 + (i % 3) as u32))
        .collect()
}

#[test]
fn faults_on_a_fifth_of_the_replies_lose_no_episode() {
    let faults = [
        json!({"fault": "rate_limit", "retry_after_ms": 1}),
        json!({"fault": "server_error"}),
        json!({"fault": "timeout"}),
        json!({"fault": "reset"}),
        json!({"fault": "malformed"}),
        json!({"fault": "empty"}),
    ];
    let script: Vec<Value> = (0..60)
        .map(|i| {
            if i % 5 == 2 {
                faults[(i / 5) % faults.len()].clone()
            } else {
                json!({"text": "inc", "delay_ms": i % 3})
            }
        })
        .collect();
    let options = ClientOptions {
        timeout: Duration::from_millis(50),
        ..quick(40)
    };
    let scenarios = counters(20);
    let spec = RunSpec {
        epochs: 5,
        concurrency: 8,
        ..llm_spec(&[])
    };
    let out = tempfile::tempdir().unwrap();
    let (summary, client) = run_llm(
        out.path(),
        &labelled("counter@1", &scenarios),
        &spec,
        Arc::new(scripted(&script)),
        &options,
    );
    assert_eq!(
        (summary.total, summary.played, summary.errors),
        (100, 100, 0)
    );
    let rows = episodes(&summary.dir);
    assert_eq!(rows.len(), 100);
    assert_eq!(once_each(&rows).len(), 100);
    let targets: BTreeMap<&str, u32> = scenarios
        .iter()
        .map(|s| (s.id.as_str(), s.target))
        .collect();
    for r in &rows {
        assert_eq!(r.error, None, "{} epoch {}", r.scenario, r.epoch);
        assert!(!r.retryable);
        // a fault never turns into an action: every reply that arrived was `inc`
        assert!(r.success, "{} epoch {}", r.scenario, r.epoch);
        assert_eq!(r.steps, targets[r.scenario.as_str()]);
    }
    let stats = client.stats();
    let all_steps: u64 = rows.iter().map(|r| u64::from(r.steps)).sum();
    assert_eq!(stats.requests, all_steps, "one request per step");
    assert_eq!(stats.failures, 0);
    assert!(stats.retries > 0 && stats.rate_limited > 0, "{stats:?}");
    assert_eq!(stats.attempts, stats.requests + stats.retries);
}

#[test]
fn a_failing_backend_leaves_retryable_rows_that_resume_replays() {
    let out = tempfile::tempdir().unwrap();
    let suite = labelled("counter@1", &small_suite());
    let spec = RunSpec {
        concurrency: 2,
        ..llm_spec(&[])
    };
    let down = Arc::new(scripted(&[json!({"fault": "server_error"})]));
    let (first, client) = run_llm(out.path(), &suite, &spec, down, &quick(1));
    // the third failure in a row halts the run: the one in flight finishes, one is left
    assert_eq!(escapade_run::runner::BACKEND_DOWN_EPISODES, 3);
    assert_eq!((first.played, first.errors, first.unplayed), (4, 4, 1));
    let why = first.halted.as_deref().expect("halted");
    assert!(why.contains("failed 3 episodes in a row"), "{why}");
    assert_eq!(
        client.stats().attempts,
        8,
        "one try and one retry per episode"
    );
    let failed = episodes(&first.dir);
    assert_eq!(failed.len(), 4);
    for r in &failed {
        assert!(r.retryable, "{r:?}");
        assert!(!r.success);
        let e = r.error.as_deref().unwrap();
        assert!(e.starts_with("agent failed: model backend failed: "), "{e}");
    }

    // the backend is back: resume replays the failed episodes and plays the one left
    let up = Arc::new(scripted(&[json!({"text": "inc"})]));
    let (second, _) = run_llm(&first.dir, &suite, &spec, up.clone(), &quick(1));
    assert!(second.resumed);
    assert_eq!((second.skipped, second.played, second.errors), (0, 5, 0));
    assert_eq!(second.halted, None);
    let all = episodes(&first.dir);
    assert_eq!(all.len(), 9, "rows are appended, never rewritten");
    assert_eq!(once_each(&all[4..]).len(), 5);
    assert!(all[4..].iter().all(|r| r.success && !r.retryable));

    // the report counts each episode once, with its later row
    let r = report(std::slice::from_ref(&first.dir), &[]).unwrap();
    assert_eq!(r.runs.len(), 1);
    assert_eq!((r.runs[0].episodes, r.runs[0].errors), (5, 0));
    assert_eq!(r.overall["counter"].metrics["success"].mean, 1.0);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);

    // and a finished run has nothing left to replay
    let (third, _) = run_llm(&first.dir, &suite, &spec, up, &quick(1));
    assert_eq!((third.skipped, third.played), (5, 0));
}

/// A reply with fixed usage.
fn reply(text: &str, input: u64, output: u64) -> Value {
    json!({"text": text, "usage": {"input": input, "output": output}})
}

/// One counter with a parser that re-asks up to `limit` times.
fn strict(target: u32, limit: u32) -> Vec<(String, String)> {
    let mut s = scenario("strict", target);
    s.reask_limit = Some(limit);
    labelled("counter@1", &[s])
}

#[test]
fn a_rejected_reply_is_reasked_and_logged_with_the_step() {
    let out = tempfile::tempdir().unwrap();
    let backend = scripted(&[reply("junk", 10, 1), reply("inc", 20, 2)]);
    let (summary, client) = run_llm(
        out.path(),
        &strict(2, 2),
        &llm_spec(&[]),
        Arc::new(backend),
        &quick(0),
    );
    let row = &episodes(&summary.dir)[0];
    assert!(row.success);
    assert_eq!(row.steps, 2, "steps count only applied actions");
    assert_eq!((row.usage.input, row.usage.output), (60, 6));
    assert_eq!(client.stats().requests, 4);
    let trajectory = steps(&summary.dir, "strict", 0);
    assert_eq!(trajectory.len(), 2);
    for s in &trajectory {
        assert_eq!(s.action, Action::text("inc"));
        assert!(s.valid);
        assert_eq!(s.raw_response.as_deref(), Some("inc"));
        assert_eq!(s.reasks.len(), 1);
        let reask = &s.reasks[0];
        assert_eq!(reask.action, Action::text("junk"));
        assert_eq!(reask.raw_response.as_deref(), Some("junk"));
        assert_eq!(reask.error, "unknown action `junk`: send inc or dec");
        assert_eq!((reask.usage.input, reask.usage.output), (10, 1));
        assert_eq!(
            (s.usage.input, s.usage.output),
            (30, 3),
            "a step's usage sums the rejected and the accepted reply"
        );
        // the re-ask the model saw carries the parser's message
        let new = s.request.as_ref().unwrap()["new"].as_array().unwrap();
        let env: Vec<&str> = new
            .iter()
            .filter(|e| e["role"] == "env")
            .map(|e| e["text"].as_str().unwrap())
            .collect();
        assert!(
            env.last()
                .unwrap()
                .contains("could not be used: unknown action `junk`: send inc or dec"),
            "{env:?}"
        );
    }
    // with `log=delta` the rows hold the whole conversation: each step logs every entry
    // since the previous step, its re-asks included, and the first logs the system prompt
    let first = trajectory[0].request.as_ref().unwrap();
    assert_eq!(first["system"], "Send inc or dec.");
    let logged = |s: &StepRow| -> Vec<(String, String)> {
        s.request.as_ref().unwrap()["new"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let text = e["text"].as_str().unwrap();
                let text = text.split(':').next().unwrap();
                (e["role"].as_str().unwrap().to_string(), text.to_string())
            })
            .collect()
    };
    let entry = |role: &str, text: &str| (role.to_string(), text.to_string());
    let reasked = "That reply could not be used";
    assert_eq!(
        logged(&trajectory[0]),
        [
            entry("env", "count 0 of 2"),
            entry("model", "junk"),
            entry("env", reasked),
        ]
    );
    assert_eq!(
        logged(&trajectory[1]),
        [
            entry("model", "inc"),
            entry("env", "up. count 1 of 2"),
            entry("model", "junk"),
            entry("env", reasked),
        ]
    );
}

#[test]
fn after_the_reask_limit_the_reply_is_stepped() {
    let out = tempfile::tempdir().unwrap();
    let backend = scripted(&[
        reply("junk", 1, 1),
        reply("junk", 1, 1),
        reply("junk", 1, 1),
        reply("inc", 1, 1),
    ]);
    let (summary, _) = run_llm(
        out.path(),
        &strict(1, 2),
        &llm_spec(&[]),
        Arc::new(backend),
        &quick(0),
    );
    let trajectory = steps(&summary.dir, "strict", 0);
    assert_eq!(trajectory.len(), 2);
    let first = &trajectory[0];
    assert_eq!(first.reasks.len(), 2);
    assert_eq!(first.action, Action::text("junk"));
    assert!(!first.valid);
    assert_eq!(first.usage.input, 3);
    assert!(trajectory[1].reasks.is_empty() && trajectory[1].valid);
    assert!(episodes(&summary.dir)[0].success);
}

#[test]
fn reask_zero_steps_the_junk() {
    let out = tempfile::tempdir().unwrap();
    let backend = scripted(&[reply("junk", 10, 1), reply("inc", 20, 2)]);
    let (summary, client) = run_llm(
        out.path(),
        &strict(2, 2),
        &llm_spec(&[("reask", "0")]),
        Arc::new(backend),
        &quick(0),
    );
    let row = &episodes(&summary.dir)[0];
    assert!(row.success);
    assert_eq!(row.steps, 4);
    assert_eq!(client.stats().requests, 4);
    let trajectory = steps(&summary.dir, "strict", 0);
    let actions: Vec<(String, bool)> = trajectory
        .iter()
        .map(|s| (s.action.summary(10), s.valid))
        .collect();
    assert_eq!(
        actions,
        [
            ("junk".to_string(), false),
            ("inc".to_string(), true),
            ("junk".to_string(), false),
            ("inc".to_string(), true),
        ]
    );
    assert!(trajectory.iter().all(|s| s.reasks.is_empty()));
}

/// Episode rows with the fields that differ between shards and runs blanked, sorted.
fn comparable(rows: Vec<EpisodeRow>) -> Vec<EpisodeRow> {
    let mut rows: Vec<EpisodeRow> = rows
        .into_iter()
        .map(|mut r| {
            r.duration_ms = 0;
            r.usage.latency_ms = 0;
            r.config_hash.clear();
            r
        })
        .collect();
    rows.sort_by(|a, b| (&a.scenario, a.epoch).cmp(&(&b.scenario, b.epoch)));
    rows
}

/// A report's groups and overall summaries without the wall-clock metrics.
fn timeless(
    r: &escapade_run::Report,
) -> (
    Vec<escapade_run::report::Group>,
    Vec<(String, usize, usize)>,
) {
    let keep = |k: &String| !matches!(k.as_str(), "duration_ms" | "latency_ms" | "step_latency_ms");
    let mut groups = r.groups.clone();
    for g in &mut groups {
        g.metrics.retain(|k, _| keep(k));
    }
    let overall = r
        .overall
        .iter()
        .map(|(k, w)| {
            let metrics: Vec<String> = w
                .metrics
                .iter()
                .filter(|(k, _)| keep(k))
                .map(|(k, s)| format!("{k}={}±{}", s.mean, s.se))
                .collect();
            (format!("{k}: {}", metrics.join(" ")), w.n, w.errors)
        })
        .collect();
    (groups, overall)
}

#[test]
fn shards_are_disjoint_cover_the_run_and_report_like_it() {
    // no slack in the budget: the random agent both wins and loses
    let mut tight = small_suite();
    for s in &mut tight {
        s.budget = Some(s.target);
    }
    let suite = labelled("counter@1", &tight);
    let whole_spec = RunSpec {
        epochs: 3,
        seed: 3,
        concurrency: 2,
        ..spec("random")
    };
    let tmp = tempfile::tempdir().unwrap();
    let whole = run_in(&tmp.path().join("whole"), &suite, &whole_spec).unwrap();
    assert_eq!(whole.total, 15);
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut union = Vec::new();
    let mut seen = BTreeSet::new();
    for i in 1..=3 {
        let shard_spec = RunSpec {
            shard: Some(format!("{i}/3").parse().unwrap()),
            ..whole_spec.clone()
        };
        let part = run_in(&tmp.path().join(format!("shard{i}")), &suite, &shard_spec).unwrap();
        assert_eq!(part.total, 5, "15 episodes over 3 shards");
        let rows = episodes(&part.dir);
        assert_eq!(rows.len(), part.total);
        for r in &rows {
            assert!(
                seen.insert((r.scenario.clone(), r.epoch)),
                "{} epoch {} is in two shards",
                r.scenario,
                r.epoch
            );
        }
        union.extend(rows);
        dirs.push(part.dir);
    }
    let whole_rows = episodes(&whole.dir);
    assert_eq!(comparable(union), comparable(whole_rows.clone()));
    // equal reports mean something only if the rows differ
    assert!(whole_rows.iter().any(|r| r.success) && whole_rows.iter().any(|r| !r.success));

    let merged = report(&dirs, &[]).unwrap();
    let unsharded = report(std::slice::from_ref(&whole.dir), &[]).unwrap();
    assert!(merged.warnings.is_empty(), "{:?}", merged.warnings);
    assert_eq!(merged.runs.len(), 1, "the shards are one run");
    assert_eq!(merged.runs[0].base_hash, unsharded.runs[0].base_hash);
    assert_eq!(merged.runs[0].base_hash, whole.config_hash);
    assert_eq!(timeless(&merged), timeless(&unsharded));
    // two shards alone are a partial run, with a warning
    let partial = report(&dirs[..2], &[]).unwrap();
    assert_eq!(partial.episodes(), 10);
    assert!(
        partial.warnings.iter().any(|w| w.contains("3/3 missing")),
        "{:?}",
        partial.warnings
    );
}

/// Counts the backend calls in progress and the most ever at once.
struct Gauge {
    inner: ScriptedBackend,
    now: AtomicUsize,
    most: AtomicUsize,
}

impl Backend for Gauge {
    fn name(&self) -> String {
        self.inner.name()
    }

    // what `#[async_trait]` expands to (the crate is not a dependency here)
    fn chat<'a, 'b, 'c>(
        &'a self,
        request: &'b ChatRequest,
    ) -> Pin<Box<dyn Future<Output = Result<ChatResponse, LlmError>> + Send + 'c>>
    where
        'a: 'c,
        'b: 'c,
        Self: 'c,
    {
        Box::pin(async move {
            let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            let reply = self.inner.chat(request).await;
            self.now.fetch_sub(1, Ordering::SeqCst);
            reply
        })
    }
}

#[test]
fn two_hundred_fifty_six_episodes_in_flight() {
    let gauge = Arc::new(Gauge {
        inner: scripted(&[json!({"text": "inc", "delay_ms": 20})]),
        now: AtomicUsize::new(0),
        most: AtomicUsize::new(0),
    });
    let options = ClientOptions {
        concurrency: 256,
        ..quick(0)
    };
    let spec = RunSpec {
        epochs: 4,
        concurrency: 256,
        ..llm_spec(&[])
    };
    let out = tempfile::tempdir().unwrap();
    let (summary, client) = run_llm(
        out.path(),
        &labelled("counter@1", &counters(64)),
        &spec,
        gauge.clone(),
        &options,
    );
    assert_eq!((summary.played, summary.errors), (256, 0));
    let rows = episodes(&summary.dir);
    assert_eq!(once_each(&rows).len(), 256);
    assert!(rows.iter().all(|r| r.success && r.error.is_none()));
    assert_eq!(client.stats().failures, 0);
    assert_eq!(gauge.now.load(Ordering::SeqCst), 0);
    // far more than one client's default limit of 16 waited on the model together
    let most = gauge.most.load(Ordering::SeqCst);
    assert!(most > 16, "at most {most} requests were in flight");
}

/// `escapade compare` of two model runs lists the settings their requests differed in
/// (from `run.toml`'s `[sent]`): a difference is read against what was changed.
#[test]
fn a_comparison_names_the_settings_the_runs_differ_in() {
    let out = tempfile::tempdir().unwrap();
    let suite = labelled("counter@1", &counters(6));
    let dirs: Vec<PathBuf> = [("0", "a"), ("0.7", "b")]
        .iter()
        .map(|(t, sub)| {
            let spec = llm_spec(&[("temperature", t)]);
            let backend = Arc::new(scripted(&[json!({"text": "inc"})]));
            run_llm(&out.path().join(sub), &suite, &spec, backend, &quick(0))
                .0
                .dir
        })
        .collect();
    let runs: Vec<escapade_run::report::Run> = dirs
        .iter()
        .map(|d| {
            escapade_run::report::read_runs(std::slice::from_ref(d))
                .unwrap()
                .runs
                .remove(0)
        })
        .collect();
    let c = escapade_run::paired::compare(&runs[0], &runs[1], &[]);
    let differ: Vec<(&str, &str, &str)> = c
        .settings
        .iter()
        .map(|d| (d.setting.as_str(), d.a.as_str(), d.b.as_str()))
        .collect();
    assert_eq!(differ, vec![("agent temperature", "0", "0.7")]);
    let md = escapade_run::paired::markdown(&c);
    assert!(md.contains("| agent temperature | 0 | 0.7 |"), "{md}");
    // the same settings: nothing listed
    let c = escapade_run::paired::compare(&runs[0], &runs[0], &[]);
    assert!(c.settings.is_empty(), "{:?}", c.settings);
    assert!(!escapade_run::paired::markdown(&c).contains("differ in these settings"));
}
