use std::collections::BTreeMap;
use std::path::Path;

use escapade_core::{EpisodeRow, Options, StepRow, World};
use escapade_run::distributed::{Cast, Commit, Driver, Job, Record, Worker, play_job};
use escapade_run::rundir::{EPISODES, MEDIA, TRAJECTORIES};
use escapade_run::{Baseline, Progress, RunError, RunSpec};

use crate::fake::rows;

/// Five COMMA puzzles of different kinds: each step has a picture, and the pair of
/// baselines plays both roles.
fn comma_suite() -> Vec<(String, String)> {
    let world = escapade_comma::CommaWorld;
    (1..=5)
        .map(|d| {
            let json = world
                .generate(d, 40 + u64::from(d), &Options::new())
                .unwrap();
            ("comma-slice".to_string(), json)
        })
        .collect()
}

fn comma_spec(agent: &str) -> RunSpec {
    RunSpec {
        agent: agent.into(),
        epochs: 2,
        seed: 7,
        source: "comma-slice".into(),
        ..Default::default()
    }
}

/// Episode rows by (scenario, epoch), timing fields zeroed.
fn episodes(dir: &Path) -> BTreeMap<(String, u32), EpisodeRow> {
    rows::<EpisodeRow>(&dir.join(EPISODES))
        .into_iter()
        .map(|mut r| {
            r.duration_ms = 0;
            ((r.scenario.clone(), r.epoch), r)
        })
        .collect()
}

/// Every trajectory file of a run, its step rows with timing zeroed.
fn trajectories(dir: &Path) -> BTreeMap<String, Vec<StepRow>> {
    let mut out = BTreeMap::new();
    let root = dir.join(TRAJECTORIES);
    for scenario in std::fs::read_dir(&root).unwrap() {
        let scenario = scenario.unwrap().path();
        for file in std::fs::read_dir(&scenario).unwrap() {
            let file = file.unwrap().path();
            let mut steps: Vec<StepRow> = rows(&file);
            for s in &mut steps {
                s.t_ms = 0;
            }
            let name = file.strip_prefix(&root).unwrap().display().to_string();
            out.insert(name, steps);
        }
    }
    out
}

fn media(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join(MEDIA))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Plays every pending job of `driver`, in the reverse order, through bytes (as a worker
/// on another machine returns them).
fn play_all(world: &dyn World, agents: &Baseline, jobs: &[Job]) -> Vec<Record> {
    jobs.iter()
        .rev()
        .map(|job| {
            let job = Job::from_json(&job.to_json()).unwrap();
            let record = play_job(world, agents, &job).unwrap();
            Record::from_bytes(&record.to_bytes()).unwrap()
        })
        .collect()
}

#[test]
fn a_run_played_by_workers_equals_a_single_process_run() {
    let world = escapade_comma::CommaWorld;
    let suite = comma_suite();
    let spec = comma_spec("random");
    let agents = Baseline::new(&world, "random").unwrap();
    let single_out = tempfile::tempdir().unwrap();
    let single = escapade_run::run(
        &world,
        &suite,
        &spec,
        &agents,
        single_out.path(),
        Progress::quiet(),
    )
    .unwrap();

    let out = tempfile::tempdir().unwrap();
    let mut driver = Driver::open(&world, &suite, &spec, out.path()).unwrap();
    assert_eq!(driver.config_hash(), single.config_hash);
    let jobs: Vec<Job> = driver.pending().into_iter().cloned().collect();
    assert_eq!(jobs.len(), 10);
    let records = play_all(&world, &agents, &jobs);
    for record in &records {
        assert_eq!(driver.commit(record).unwrap(), Commit::Recorded);
    }
    // a retried task's second record of a finished episode writes nothing
    for record in &records {
        assert_eq!(driver.commit(record).unwrap(), Commit::Duplicate);
    }
    assert!(driver.pending().is_empty());
    let summary = driver.finish(&world).unwrap();
    assert_eq!(
        (summary.total, summary.played, summary.unplayed),
        (10, 10, 0)
    );

    let lines = std::fs::read_to_string(summary.dir.join(EPISODES)).unwrap();
    assert_eq!(lines.lines().count(), 10, "each episode recorded once");
    assert_eq!(episodes(&summary.dir), episodes(&single.dir));
    assert_eq!(trajectories(&summary.dir), trajectories(&single.dir));
    assert!(!media(&single.dir).is_empty(), "comma steps have pictures");
    assert_eq!(media(&summary.dir), media(&single.dir));
    // the report is made from those rows (timings aside, the same)
    assert_eq!(summary.report.groups.len(), single.report.groups.len());
    for (a, b) in summary.report.groups.iter().zip(&single.report.groups) {
        assert_eq!(a.metrics["success"].mean, b.metrics["success"].mean);
        assert_eq!(a.metrics["steps"].mean, b.metrics["steps"].mean);
    }
    assert!(summary.dir.join("summary.json").is_file());
    assert!(summary.dir.join("report.md").is_file());
}

/// Every picture address a trajectory's step rows name.
fn named_pictures(trajectory: &[u8]) -> Vec<String> {
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    match (k.as_str(), v) {
                        ("images", serde_json::Value::Array(items)) => {
                            out.extend(items.iter().filter_map(|i| i.as_str().map(String::from)))
                        }
                        _ => walk(v, out),
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for line in trajectory.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        walk(&serde_json::from_slice(line).unwrap(), &mut out);
    }
    out
}

#[test]
fn one_worker_plays_every_job_as_play_job_does_and_each_record_holds_its_pictures() {
    let world = escapade_comma::CommaWorld;
    let suite = comma_suite();
    let spec = comma_spec("oracle");
    let agents = Baseline::new(&world, "oracle").unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut driver = Driver::open(&world, &suite, &spec, out.path()).unwrap();
    let cast = Cast::from_json(&driver.cast().to_json()).unwrap();
    assert_eq!(&cast, driver.cast());
    assert_eq!(
        (
            cast.world.as_str(),
            cast.roles.as_slice(),
            cast.players.agent.as_str()
        ),
        (
            "comma",
            &["solver".to_string(), "expert".to_string()][..],
            "oracle"
        )
    );
    let jobs: Vec<Job> = driver.pending().into_iter().cloned().collect();
    let mut worker = Worker::new(&world, &cast).unwrap();
    assert_eq!(worker.agent(), "oracle");
    // the same scenario twice in a row (epochs 0 and 1 show the same pictures): the
    // scratch directory the worker reuses must not keep the second record from holding them
    for job in &jobs {
        let record = worker.play(job).unwrap();
        let alone = play_job(&world, &agents, job).unwrap();
        let mut row = record.row.clone();
        row.duration_ms = alone.row.duration_ms;
        assert_eq!(row, alone.row);
        assert_eq!(record.media, alone.media);
        let held: Vec<&str> = record.media.iter().map(|i| i.sha256.as_str()).collect();
        let named = named_pictures(&record.trajectory);
        assert!(!named.is_empty());
        for sha in &named {
            assert!(held.contains(&sha.as_str()), "{sha} is named but not sent");
        }
        assert_eq!(driver.commit(&record).unwrap(), Commit::Recorded);
    }
    let summary = driver.finish(&world).unwrap();
    assert_eq!((summary.played, summary.unplayed), (10, 0));

    // a cast of another world is refused
    let vis = escapade_vis::VisWorld::default();
    let e = Worker::new(&vis, &cast).unwrap_err().to_string();
    assert!(e.contains("the cast is of world `comma`"), "{e}");
    assert!(Cast::from_json("{}").is_err());
}

#[test]
fn a_distributed_run_resumes_where_it_stopped_and_the_runner_resumes_it_too() {
    let world = escapade_comma::CommaWorld;
    let suite = comma_suite();
    let spec = comma_spec("oracle");
    let agents = Baseline::new(&world, "oracle").unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut driver = Driver::open(&world, &suite, &spec, out.path()).unwrap();
    let jobs: Vec<Job> = driver.pending().into_iter().cloned().collect();
    // the driver stops after three records
    for record in play_all(&world, &agents, &jobs[..3]) {
        driver.commit(&record).unwrap();
    }
    let first = driver.finish(&world).unwrap();
    assert_eq!((first.played, first.unplayed), (3, 7));

    // a second driver on the same directory hands out the seven left
    let mut again = Driver::open(&world, &suite, &spec, &first.dir).unwrap();
    let left: Vec<Job> = again.pending().into_iter().cloned().collect();
    assert_eq!(left.len(), 7);
    assert_eq!(left[..], jobs[3..]);
    for record in play_all(&world, &agents, &left[..4]) {
        again.commit(&record).unwrap();
    }
    drop(again);

    // and `escapade resume` (the runner) plays the last three
    let resumed = escapade_run::run(
        &world,
        &suite,
        &spec,
        &agents,
        &first.dir,
        Progress::quiet(),
    )
    .unwrap();
    assert_eq!((resumed.skipped, resumed.played), (7, 3));
    let rows = episodes(&first.dir);
    assert_eq!(rows.len(), 10);
    assert!(
        rows.values().all(|r| r.success),
        "the oracle solves every puzzle"
    );
}

#[test]
fn a_record_of_another_run_or_episode_is_refused_and_writes_nothing() {
    let world = escapade_comma::CommaWorld;
    let suite = comma_suite();
    let agents = Baseline::new(&world, "random").unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut driver = Driver::open(&world, &suite, &comma_spec("random"), out.path()).unwrap();
    let job = driver.pending()[0].clone();
    let good = play_job(&world, &agents, &job).unwrap();

    let mut other = good.clone();
    other.row.config_hash = "0000".into();
    let mut stranger = good.clone();
    stranger.row.epoch = 9;
    let mut torn = good.clone();
    torn.trajectory.pop();
    for bad in [other, stranger, torn] {
        let err = driver.commit(&bad).unwrap_err();
        assert!(matches!(err, RunError::BadRecord { .. }), "{err}");
    }
    let bytes = good.to_bytes();
    for cut in [0, 10, bytes.len() / 2, bytes.len() - 1] {
        let err = Record::from_bytes(&bytes[..cut]).unwrap_err();
        assert!(matches!(err, RunError::BadRecord { .. }), "{err}");
    }
    assert!(rows::<EpisodeRow>(&driver.path().join(EPISODES)).is_empty());
    assert_eq!(driver.commit(&good).unwrap(), Commit::Recorded);

    // a job of another world is refused by the worker
    let counter = crate::fake::CounterWorld;
    let err = play_job(&counter, &Baseline::new(&counter, "random").unwrap(), &job).unwrap_err();
    assert!(err.to_string().contains("world `comma`"), "{err}");
}
