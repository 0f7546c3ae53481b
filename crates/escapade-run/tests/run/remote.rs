//! An episode played from outside (`escapade_run::remote`), on the toy counter world:
//! turns, re-asks without a step, the ending, giving up, recording, cancel safety.

use std::sync::Arc;
use std::time::{Duration, Instant};

use escapade_core::{Action, EpisodeRow, StepRow, World};
use escapade_run::PlayOptions;
use escapade_run::remote::{Episode, EpisodeError, GONE, REMOTE, Seen, Spec};
use escapade_run::rundir::{EPISODES, TRAJECTORIES};

use crate::fake::{CounterWorld, rows, scenario};

fn world() -> Arc<dyn World> {
    Arc::new(CounterWorld)
}

fn turn(episode: &Episode) -> &escapade_run::remote::Turn {
    match episode.seen() {
        Seen::Turn(t) => t,
        Seen::Over(e) => panic!("over: {e:?}"),
    }
}

#[test]
fn a_client_escapes_one_action_at_a_time() {
    let mut episode = Episode::start_blocking(Spec::new(world(), scenario("r", 2).json())).unwrap();
    assert!(episode.rules().contains("inc"), "{}", episode.rules());
    assert!(episode.roles().is_empty());
    assert!(turn(&episode).last.is_none());
    assert!(turn(&episode).observation.text.contains("count 0 of 2"));
    episode.act_blocking(Action::text("inc")).unwrap();
    assert_eq!(turn(&episode).progress(), 0.5);
    assert!(turn(&episode).observation.text.contains("count 1 of 2"));
    let Seen::Over(ending) = episode.act_blocking(Action::text("inc")).unwrap() else {
        panic!("not over")
    };
    assert!(ending.success && ending.terminated && !ending.truncated);
    assert_eq!(ending.steps, 2);
    assert_eq!(ending.metrics["progress_rate"], 1.0);
    assert_eq!(ending.error, None);
    assert_eq!(
        episode.act_blocking(Action::text("inc")),
        Err(EpisodeError::Over)
    );
}

#[test]
fn an_unreadable_reply_is_answered_without_a_step() {
    let mut counter = scenario("r", 1);
    counter.reask_limit = Some(2);
    let mut episode = Episode::start_blocking(Spec::new(world(), counter.json())).unwrap();
    let first = turn(&episode).observation.clone();
    episode.act_blocking(Action::text("jump")).unwrap();
    let again = turn(&episode);
    assert!(again.unreadable.as_deref().is_some_and(|w| !w.is_empty()));
    assert_eq!(
        again.observation, first,
        "the observation the reply answered"
    );
    assert!(again.last.is_none(), "no step was taken");
    let Seen::Over(ending) = episode.act_blocking(Action::text("inc")).unwrap() else {
        panic!("not over")
    };
    assert_eq!((ending.success, ending.steps), (true, 1));
}

#[test]
fn past_the_worlds_reask_limit_a_reply_is_stepped_as_run_does() {
    let mut counter = scenario("r", 1);
    counter.reask_limit = Some(2);
    let mut episode = Episode::start_blocking(Spec::new(world(), counter.json())).unwrap();
    for _ in 0..2 {
        episode.act_blocking(Action::text("jump")).unwrap();
        assert!(turn(&episode).unreadable.is_some() && turn(&episode).last.is_none());
    }
    episode.act_blocking(Action::text("jump")).unwrap();
    let t = turn(&episode);
    assert!(t.unreadable.is_none(), "the third is stepped");
    assert!(t.last.as_ref().is_some_and(|s| !s.valid()));
    // a person's seat is re-asked without end
    let mut episode = Episode::start_blocking(Spec {
        options: PlayOptions {
            reasks: escapade_run::Reasks::Unlimited,
            ..Default::default()
        },
        ..Spec::new(world(), counter.json())
    })
    .unwrap();
    for _ in 0..5 {
        episode.act_blocking(Action::text("jump")).unwrap();
        assert!(turn(&episode).unreadable.is_some());
    }
}

#[test]
fn the_step_cap_truncates() {
    let options = PlayOptions {
        max_steps: 3,
        ..Default::default()
    };
    let mut episode = Episode::start_blocking(Spec {
        options,
        ..Spec::new(world(), scenario("r", 9).json())
    })
    .unwrap();
    for _ in 0..3 {
        episode.act_blocking(Action::text("dec")).unwrap();
    }
    let Seen::Over(ending) = episode.seen() else {
        panic!("not over")
    };
    assert!(ending.truncated && !ending.terminated && !ending.success);
    assert_eq!(ending.steps, 3);
}

#[test]
fn a_scenario_of_another_world_is_refused_at_start() {
    let err =
        Episode::start_blocking(Spec::new(world(), "{\"world\":\"vis\"}".into())).unwrap_err();
    assert!(!err.to_string().is_empty());
    let err = Episode::start_blocking(Spec {
        options: PlayOptions {
            role: Some("expert".into()),
            ..Default::default()
        },
        ..Spec::new(world(), scenario("r", 1).json())
    })
    .unwrap_err();
    assert!(err.to_string().contains("role"), "{err}");
}

fn recorded(dir: &std::path::Path) -> (EpisodeRow, Vec<StepRow>) {
    let runs: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let run = &runs[0];
    assert!(
        run.file_name()
            .unwrap()
            .to_string_lossy()
            .contains("-remote-"),
        "{run:?}"
    );
    let mut episodes: Vec<EpisodeRow> = rows(&run.join(EPISODES));
    assert_eq!(episodes.len(), 1);
    let steps = rows(&run.join(TRAJECTORIES).join("r").join("0.jsonl"));
    (episodes.remove(0), steps)
}

/// An episode recorded under `dir`, one `inc` into a target of 3.
fn one_step_recorded(dir: &std::path::Path) -> Episode {
    let options = PlayOptions {
        record: Some(dir.to_path_buf()),
        suite: "file:r".into(),
        ..Default::default()
    };
    let mut episode = Episode::start_blocking(Spec {
        options,
        ..Spec::new(world(), scenario("r", 3).json())
    })
    .unwrap();
    episode.act_blocking(Action::text("inc")).unwrap();
    episode
}

#[test]
fn giving_up_ends_and_records_the_episode() {
    let dir = tempfile::tempdir().unwrap();
    let ending = one_step_recorded(dir.path()).give_up_blocking();
    assert!(
        ending.error.as_deref().is_some_and(|e| e.contains(GONE)),
        "{ending:?}"
    );
    assert!(!ending.success && !ending.truncated && !ending.terminated);
    let (row, steps) = recorded(dir.path());
    assert_eq!(row.agent, REMOTE);
    assert_eq!(row.steps, 1);
    assert!(
        row.error.as_deref().is_some_and(|e| e.contains(GONE)),
        "{row:?}"
    );
    assert_eq!(steps.len(), 1);
    let run = ending.dir.expect("recorded");
    assert_eq!(run.parent(), Some(dir.path()));
}

#[test]
fn a_dropped_episode_is_still_recorded() {
    let dir = tempfile::tempdir().unwrap();
    drop(one_step_recorded(dir.path()));
    // the thread records on its own; wait for the row
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let done = std::fs::read_dir(dir.path()).unwrap().any(|r| {
            std::fs::metadata(r.unwrap().path().join(EPISODES)).is_ok_and(|m| m.len() > 0)
        });
        if done || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let (row, _) = recorded(dir.path());
    assert!(
        row.error.as_deref().is_some_and(|e| e.contains(GONE)),
        "{row:?}"
    );
}

#[test]
fn an_act_dropped_mid_step_is_collected_by_the_next() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut episode = Episode::start(Spec::new(world(), scenario("r", 3).json()))
            .await
            .unwrap();
        // a client that goes away before the answer: the future is dropped at once
        {
            let act = episode.act(Action::text("inc"));
            let _ = tokio::time::timeout(Duration::ZERO, act).await;
        }
        // the step still happened; the next action is applied after it
        episode.act(Action::text("inc")).await.unwrap();
        let t = turn(&episode);
        assert!(
            t.observation.text.contains("count 2 of 3"),
            "{}",
            t.observation.text
        );
        let ending = episode.give_up().await;
        assert_eq!(ending.steps, 2);
    });
}
