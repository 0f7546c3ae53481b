use std::io::Write;

use escapade_core::{EpisodeRow, StepRow};
use escapade_run::rundir::{EPISODES, TRAJECTORIES};
use escapade_run::{RunError, RunSpec};

use crate::fake::{labelled, rows, run_in, small_suite, spec};

#[test]
fn resuming_a_finished_run_plays_nothing() {
    let out = tempfile::tempdir().unwrap();
    let suite = labelled("counter@1", &small_suite());
    let first = run_in(out.path(), &suite, &spec("oracle")).unwrap();
    let again = run_in(&first.dir, &suite, &spec("oracle")).unwrap();
    assert!(again.resumed);
    assert_eq!(again.dir, first.dir);
    assert_eq!((again.played, again.skipped), (0, 5));
    assert_eq!(rows::<EpisodeRow>(&first.dir.join(EPISODES)).len(), 5);
}

#[test]
fn resume_skips_finished_episodes_and_reruns_unfinished_ones() {
    let out = tempfile::tempdir().unwrap();
    let suite = labelled("counter@1", &small_suite());
    let spec = RunSpec {
        epochs: 2,
        ..spec("random")
    };
    let full = run_in(out.path(), &suite, &spec).unwrap();
    let all: Vec<EpisodeRow> = rows(&full.dir.join(EPISODES));

    // simulate a killed run: 4 finished rows, a torn fifth, a half-written trajectory
    let text = std::fs::read_to_string(full.dir.join(EPISODES)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let torn = &lines[4][..lines[4].len() / 2];
    std::fs::write(
        full.dir.join(EPISODES),
        format!("{}\n{torn}", lines[..4].join("\n")),
    )
    .unwrap();
    let victim = &all[4];
    let traj = full
        .dir
        .join(TRAJECTORIES)
        .join(&victim.scenario)
        .join(format!("{}.jsonl", victim.epoch));
    let complete = std::fs::read_to_string(&traj).unwrap();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&traj)
        .unwrap()
        .write_all(b"{\"half a row")
        .unwrap();

    let resumed = run_in(
        &full.dir,
        &suite,
        &RunSpec {
            concurrency: 3,
            ..spec.clone()
        },
    )
    .unwrap();
    assert_eq!((resumed.skipped, resumed.played), (4, 6));
    assert!(
        resumed
            .warnings
            .iter()
            .any(|w| w.contains("malformed last line")),
        "{:?}",
        resumed.warnings
    );
    // every line parses again, and each episode appears once
    let mut after: Vec<EpisodeRow> = rows(&full.dir.join(EPISODES));
    assert_eq!(after.len(), 10);
    let mut before = all.clone();
    for r in after.iter_mut().chain(before.iter_mut()) {
        r.duration_ms = 0;
    }
    after.sort_by(|a, b| (&a.scenario, a.epoch).cmp(&(&b.scenario, b.epoch)));
    before.sort_by(|a, b| (&a.scenario, a.epoch).cmp(&(&b.scenario, b.epoch)));
    assert_eq!(after, before, "a rerun episode gives the same row");
    // the unfinished episode's trajectory was restarted, not appended to
    let steps: Vec<StepRow> = rows(&traj);
    assert_eq!(steps.len(), complete.lines().count());
}

#[test]
fn resume_refuses_a_different_config() {
    let out = tempfile::tempdir().unwrap();
    let suite = labelled("counter@1", &small_suite());
    let first = run_in(out.path(), &suite, &spec("oracle")).unwrap();
    let other = RunSpec {
        epochs: 2,
        seed: 5,
        ..spec("oracle")
    };
    let err = run_in(&first.dir, &suite, &other).unwrap_err();
    assert!(matches!(err, RunError::ConfigMismatch { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("epochs") && message.contains("seed"),
        "{message}"
    );
    assert!(message.contains(&first.config_hash), "{message}");
    let err = run_in(&first.dir, &suite, &spec("random")).unwrap_err();
    assert!(err.to_string().contains("agent"), "{err}");
    // a changed scenario changes the hash too
    let mut changed = small_suite();
    changed[0].target = 9;
    let err = run_in(
        &first.dir,
        &labelled("counter@1", &changed),
        &spec("oracle"),
    )
    .unwrap_err();
    assert!(err.to_string().contains("scenarios"), "{err}");
    // nothing was appended by the refused runs
    assert_eq!(rows::<EpisodeRow>(&first.dir.join(EPISODES)).len(), 5);
}

#[test]
fn a_malformed_middle_line_is_an_error() {
    let out = tempfile::tempdir().unwrap();
    let suite = labelled("counter@1", &small_suite());
    let first = run_in(out.path(), &suite, &spec("oracle")).unwrap();
    let text = std::fs::read_to_string(first.dir.join(EPISODES)).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(1, "not json");
    std::fs::write(first.dir.join(EPISODES), lines.join("\n") + "\n").unwrap();
    let err = run_in(&first.dir, &suite, &spec("oracle")).unwrap_err();
    assert!(matches!(err, RunError::BadRow { line: 2, .. }), "{err}");
}

#[test]
fn a_stopped_run_writes_its_summary_and_resume_plays_the_rest() {
    let out = tempfile::tempdir().unwrap();
    let world = crate::fake::CounterWorld;
    let suite = labelled("counter@1", &small_suite());
    let stop = escapade_run::Stop::new();
    stop.request();
    let agents = escapade_run::Baseline::new(&world, "oracle").unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let stopped = runtime
        .block_on(escapade_run::run_async_until(
            &world,
            &suite,
            &spec("oracle"),
            &agents,
            out.path(),
            escapade_run::Progress::quiet(),
            &stop,
        ))
        .unwrap();
    assert_eq!((stopped.played, stopped.unplayed), (0, 5));
    assert!(stopped.dir.join("summary.json").is_file());
    let resumed = run_in(&stopped.dir, &suite, &spec("oracle")).unwrap();
    assert_eq!(
        (resumed.played, resumed.skipped, resumed.unplayed),
        (5, 0, 0)
    );
    assert_eq!(rows::<EpisodeRow>(&stopped.dir.join(EPISODES)).len(), 5);
}

#[test]
fn a_finished_episode_has_its_whole_trajectory_on_disk() {
    // A baseline plays its steps in a burst, so its rows wait in the trajectory buffer;
    // the episode's row is appended only after they reach the file.
    let out = tempfile::tempdir().unwrap();
    let suite = labelled("counter@1", &small_suite());
    let spec = RunSpec {
        epochs: 3,
        concurrency: 2,
        ..spec("random")
    };
    let run = run_in(out.path(), &suite, &spec).unwrap();
    let episodes: Vec<EpisodeRow> = rows(&run.dir.join(EPISODES));
    assert_eq!(episodes.len(), 15);
    for e in &episodes {
        let path = run
            .dir
            .join(TRAJECTORIES)
            .join(&e.scenario)
            .join(format!("{}.jsonl", e.epoch));
        let steps: Vec<StepRow> = rows(&path);
        assert_eq!(steps.len() as u32, e.steps, "{}", path.display());
        let numbers: Vec<u32> = steps.iter().map(|s| s.step).collect();
        assert_eq!(numbers, (1..=e.steps).collect::<Vec<_>>());
    }
}
