use escapade_core::{Action, EpisodeRow, StepRow};
use escapade_run::rundir::{EPISODES, TRAJECTORIES};
use escapade_run::{PlayOptions, play_terminal};

use crate::fake::{CounterWorld, rows, scenario};

fn play(input: &[u8], options: &PlayOptions) -> (escapade_run::play::PlayResult, String) {
    let pictures = tempfile::tempdir().unwrap();
    let options = PlayOptions {
        images: pictures.path().join("pictures"),
        ..options.clone()
    };
    play_in(input, &options)
}

fn play_in(input: &[u8], options: &PlayOptions) -> (escapade_run::play::PlayResult, String) {
    let mut reader = input;
    let mut out = Vec::new();
    let result = play_terminal(
        &CounterWorld,
        &scenario("p", 2).json(),
        options,
        &mut reader,
        &mut out,
    )
    .unwrap();
    (result, String::from_utf8(out).unwrap())
}

#[test]
fn pictures_are_written_where_a_person_can_open_them() {
    let dir = tempfile::tempdir().unwrap();
    let pictures = dir.path().join("pictures");
    let options = PlayOptions {
        images: pictures.clone(),
        ..Default::default()
    };
    let (_, out) = play_in(b"inc\ninc\n", &options);
    let current = std::fs::read(pictures.join("current.png")).unwrap();
    // the view in front of the player when the episode ended: the second observation's
    let files = std::fs::read_dir(&pictures).unwrap().count();
    assert_eq!(files, 3, "two pictures by hash and current.png");
    assert!(
        out.contains(&pictures.join("current.png").display().to_string()),
        "{out}"
    );
    assert_eq!(current, vec![0x89, b'P', 1]);
}

#[test]
fn a_person_escapes_with_typed_actions() {
    let (r, out) = play(b"inc\n:help\n\n  \ninc\r\n", &PlayOptions::default());
    assert!(r.played.outcome.success);
    assert_eq!(r.played.outcome.steps, 2);
    assert!(!r.quit && !r.end_of_input);
    assert_eq!(out.matches("Send inc or dec.").count(), 2, "{out}");
    assert!(out.contains("count 0 of 2"), "{out}");
    assert!(out.contains("up. count 2 of 2"), "{out}");
    assert!(out.contains("episode over: escaped after 2 steps"), "{out}");
    assert!(out.contains("progress_rate: 1"), "{out}");
}

#[test]
fn quit_and_end_of_input_end_cleanly() {
    let (r, out) = play(b"inc\n:quit\ninc\n", &PlayOptions::default());
    assert!(r.quit && !r.played.outcome.success);
    assert_eq!(r.played.outcome.steps, 1);
    assert!(out.contains("gave up"), "{out}");
    let (r, out) = play(b"", &PlayOptions::default());
    assert!(r.end_of_input);
    assert_eq!(r.played.outcome.steps, 0);
    assert!(out.contains("input ended"), "{out}");
}

#[test]
fn a_recorded_play_is_a_run_directory_of_agent_human() {
    let dir = tempfile::tempdir().unwrap();
    let options = PlayOptions {
        record: Some(dir.path().to_path_buf()),
        suite: "file:p".into(),
        ..Default::default()
    };
    let (r, _) = play(b"\xff\xfe\ninc\ninc\n", &options);
    let run = r.dir.unwrap();
    assert!(
        run.file_name()
            .unwrap()
            .to_string_lossy()
            .contains("-file_p-human-")
    );
    let episodes: Vec<EpisodeRow> = rows(&run.join(EPISODES));
    assert_eq!(episodes.len(), 1);
    assert_eq!(episodes[0].agent, "human");
    assert!(episodes[0].success);
    assert_eq!(episodes[0].steps, 3);
    let steps: Vec<StepRow> = rows(&run.join(TRAJECTORIES).join("p").join("0.jsonl"));
    assert_eq!(steps.len(), 3);
    assert_eq!(
        steps[0].action,
        Action::Bytes {
            bytes: vec![0xff, 0xfe]
        }
    );
    assert!(!steps[0].valid);
    assert!(run.join("summary.json").is_file() && run.join("report.md").is_file());
}
