use escapade_core::{EpisodeRow, StepRow, seed};
use escapade_run::rundir::{self, EPISODES, TRAJECTORIES};
use escapade_run::{Baseline, RunError, RunSpec};

use crate::fake::{CounterWorld, labelled, rows, run_in, scenario, small_suite, spec};

/// Episode rows with timing fields zeroed, sorted by (scenario, epoch).
fn normalized(dir: &std::path::Path) -> Vec<EpisodeRow> {
    let mut rows: Vec<EpisodeRow> = rows(&dir.join(EPISODES));
    for r in &mut rows {
        r.duration_ms = 0;
        r.usage.latency_ms = 0;
    }
    rows.sort_by(|a, b| (&a.scenario, a.epoch).cmp(&(&b.scenario, b.epoch)));
    rows
}

fn trajectory(dir: &std::path::Path, id: &str, epoch: u32) -> Vec<StepRow> {
    let mut steps: Vec<StepRow> = rows(
        &dir.join(TRAJECTORIES)
            .join(id)
            .join(format!("{epoch}.jsonl")),
    );
    for s in &mut steps {
        s.t_ms = 0;
    }
    steps
}

#[test]
fn concurrency_does_not_change_results() {
    let suite = labelled("counter@1", &small_suite());
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let one = RunSpec {
        epochs: 3,
        seed: 11,
        concurrency: 1,
        ..spec("random")
    };
    let four = RunSpec {
        concurrency: 4,
        ..one.clone()
    };
    let sa = run_in(a.path(), &suite, &one).unwrap();
    let sb = run_in(b.path(), &suite, &four).unwrap();
    assert_eq!(sa.config_hash, sb.config_hash);
    let (ra, rb) = (normalized(&sa.dir), normalized(&sb.dir));
    assert_eq!(ra.len(), 15);
    assert_eq!(ra, rb);
    // the random agent does not always win, so the comparison is not vacuous
    assert!(ra.iter().any(|r| r.success) && ra.iter().any(|r| r.steps > 3));
    for r in &ra {
        assert_eq!(
            trajectory(&sa.dir, &r.scenario, r.epoch),
            trajectory(&sb.dir, &r.scenario, r.epoch)
        );
    }
    // wall-clock metrics differ between any two runs; every other number must agree
    let timeless = |r: &escapade_run::Report| {
        let mut groups = r.groups.clone();
        for g in &mut groups {
            g.metrics.retain(|k, _| {
                !matches!(k.as_str(), "duration_ms" | "latency_ms" | "step_latency_ms")
            });
        }
        groups
    };
    assert_eq!(timeless(&sa.report), timeless(&sb.report));
}

#[test]
fn episode_seeds_are_derived_from_run_seed_scenario_and_epoch() {
    let out = tempfile::tempdir().unwrap();
    let s = run_in(
        out.path(),
        &labelled("counter@1", &small_suite()),
        &RunSpec {
            epochs: 2,
            seed: 99,
            ..spec("random")
        },
    )
    .unwrap();
    for r in normalized(&s.dir) {
        assert_eq!(r.seed, seed::derive(99, &r.scenario, u64::from(r.epoch)));
    }
}

#[test]
fn an_env_error_ends_the_episode_not_the_run() {
    let mut suite = small_suite();
    suite[1].fail_at = Some(2);
    suite[2].panic_at = Some(1);
    let out = tempfile::tempdir().unwrap();
    let s = run_in(out.path(), &labelled("counter@1", &suite), &spec("oracle")).unwrap();
    assert_eq!((s.played, s.errors), (5, 2));
    let rows = normalized(&s.dir);
    assert_eq!(rows.len(), 5);
    let by_id = |id: &str| rows.iter().find(|r| r.scenario == id).unwrap();
    let failed = by_id("c1");
    assert!(!failed.success);
    let e = failed.error.as_deref().unwrap();
    assert!(e.starts_with("environment failed"), "{e}");
    assert_eq!(trajectory(&s.dir, "c1", 0).len(), 1);
    let panicked = by_id("c2");
    assert_eq!(
        panicked.error.as_deref(),
        Some("environment panicked: counter exploded")
    );
    assert!(!panicked.success);
    for id in ["c0", "c3", "c4"] {
        assert!(by_id(id).success && by_id(id).error.is_none());
    }
    assert_eq!(s.report.errors(), 2);
}

/// Cheap steps run in place on the episode's task (`runner::INLINE_CALL`), not on the
/// blocking pool: a panic there still ends only its episode, and the steps before it
/// stand.
#[test]
fn an_env_panic_after_cheap_steps_ends_only_its_episode() {
    let mut long = scenario("long", 6);
    long.panic_at = Some(4);
    let suite = vec![long, scenario("next", 2)];
    let out = tempfile::tempdir().unwrap();
    let s = run_in(out.path(), &labelled("counter@1", &suite), &spec("oracle")).unwrap();
    assert_eq!((s.played, s.errors), (2, 1));
    let rows = normalized(&s.dir);
    let by_id = |id: &str| rows.iter().find(|r| r.scenario == id).unwrap();
    assert_eq!(
        by_id("long").error.as_deref(),
        Some("environment panicked: counter exploded")
    );
    assert_eq!(trajectory(&s.dir, "long", 0).len(), 3);
    assert!(by_id("next").success && by_id("next").error.is_none());
}

#[test]
fn an_agent_error_ends_the_episode_with_its_message() {
    let out = tempfile::tempdir().unwrap();
    let suite = vec![scenario("long", 5)];
    let s = run_in(out.path(), &labelled("x", &suite), &spec("broken")).unwrap();
    let rows = normalized(&s.dir);
    let e = rows[0].error.as_deref().unwrap();
    assert!(e.contains("model went away"), "{e}");
    assert!(!rows[0].success);
    assert_eq!(rows[0].steps, 1);
}

#[test]
fn an_agent_panic_keeps_the_metrics_of_the_steps_taken() {
    let out = tempfile::tempdir().unwrap();
    let suite = vec![scenario("long", 6)];
    let s = run_in(out.path(), &labelled("x", &suite), &spec("panicky")).unwrap();
    let rows = normalized(&s.dir);
    assert_eq!(
        rows[0].error.as_deref(),
        Some("agent failed: panicked: the agent tripped")
    );
    assert_eq!(rows[0].steps, 2);
    assert_eq!(rows[0].metrics["progress_rate"], 2.0 / 6.0);
    assert!(!rows[0].retryable);
}

#[test]
fn a_turn_that_fails_after_a_reask_keeps_its_rejected_replies() {
    let out = tempfile::tempdir().unwrap();
    let mut long = scenario("long", 6);
    long.reask_limit = Some(3);
    let s = run_in(out.path(), &labelled("x", &[long]), &spec("stammer")).unwrap();
    let rows = normalized(&s.dir);
    assert!(
        rows[0]
            .error
            .as_deref()
            .unwrap()
            .contains("model went away")
    );
    assert_eq!(rows[0].steps, 1);
    assert_eq!(trajectory(&s.dir, "long", 0).len(), 1);
    let rejected = &rows[0].rejected;
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert_eq!(rejected[0].action, escapade_core::Action::text("junk"));
    assert!(rejected[0].error.contains("send inc or dec"));
}

#[test]
fn the_step_cap_ends_a_runaway_episode_as_a_step_cap_not_an_error() {
    let mut s = scenario("runaway", 5);
    s.budget = Some(1_000_000);
    let out = tempfile::tempdir().unwrap();
    let spec = RunSpec {
        max_steps: 7,
        ..spec("down")
    };
    let summary = run_in(out.path(), &labelled("x", &[s]), &spec).unwrap();
    let rows = normalized(&summary.dir);
    assert_eq!(rows[0].error, None, "reaching --max-steps is no error");
    assert!(rows[0].step_cap && !rows[0].success);
    assert_eq!(rows[0].steps, 7);
    assert_eq!((summary.errors, summary.step_capped), (0, 1));
    assert_eq!(trajectory(&summary.dir, "runaway", 0).len(), 7);
    let md = summary.report.render(escapade_run::Format::Markdown);
    assert!(md.contains("Episodes with errors: 0 of 1."), "{md}");
    assert!(
        md.contains("Episodes ended by the step cap (--max-steps): 1 of 1."),
        "{md}"
    );
}

#[test]
fn a_world_truncation_is_not_an_error() {
    let out = tempfile::tempdir().unwrap();
    let s = run_in(
        out.path(),
        &labelled("x", &[scenario("t", 2)]),
        &spec("down"),
    )
    .unwrap();
    let rows = normalized(&s.dir);
    assert_eq!(
        (rows[0].success, rows[0].steps, rows[0].error.clone()),
        (false, 10, None)
    );
    assert!(trajectory(&s.dir, "t", 0).last().unwrap().truncated);
}

#[test]
fn limit_plays_the_first_scenarios_in_suite_order() {
    let out = tempfile::tempdir().unwrap();
    let s = run_in(
        out.path(),
        &labelled("counter@1", &small_suite()),
        &RunSpec {
            limit: Some(2),
            ..spec("oracle")
        },
    )
    .unwrap();
    let ids: Vec<String> = normalized(&s.dir).into_iter().map(|r| r.scenario).collect();
    assert_eq!(ids, ["c0", "c1"]);
    let toml = rundir::read_run_toml(&s.dir).unwrap();
    assert_eq!(toml.config.limit, Some(2));
    assert_eq!(toml.config.scenarios.len(), 2);
}

#[test]
fn bad_settings_and_names_are_refused() {
    let out = tempfile::tempdir().unwrap();
    let suite = labelled("counter@1", &small_suite());
    let zero = RunSpec {
        epochs: 0,
        ..spec("oracle")
    };
    assert!(matches!(
        run_in(out.path(), &suite, &zero),
        Err(RunError::Invalid { setting, .. }) if setting == "epochs"
    ));
    let none = RunSpec {
        limit: Some(0),
        ..spec("oracle")
    };
    assert!(matches!(
        run_in(out.path(), &suite, &none),
        Err(RunError::NoScenarios)
    ));
    let err = Baseline::new(&CounterWorld, "genius")
        .unwrap_err()
        .to_string();
    assert!(err.contains("genius") && err.contains("oracle"), "{err}");
    let mut dup = small_suite();
    dup[1].id = "c0".into();
    assert!(matches!(
        run_in(out.path(), &labelled("x", &dup), &spec("oracle")),
        Err(RunError::DuplicateScenario { id }) if id == "c0"
    ));
    // distinct ids whose trajectory directories would collide
    let mut clash = small_suite();
    clash[0].id = "Room 1".into();
    clash[1].id = "room_1".into();
    let err = run_in(out.path(), &labelled("x", &clash), &spec("oracle"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("share the trajectory directory"), "{err}");
    let mut alien = small_suite();
    alien[0].world = "tools".into();
    assert!(matches!(
        run_in(out.path(), &labelled("x", &alien), &spec("oracle")),
        Err(RunError::MixedWorlds { .. })
    ));
    // nothing was written for refused runs
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}
