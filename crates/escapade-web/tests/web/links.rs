//! Symbolic links and special files inside a served run, over loopback: every file the
//! viewer reads of a run (`run.toml`, `episodes.jsonl`, a trajectory, a picture, and
//! what the report and the live streams read) must be a regular file whose real path
//! lies inside the run's directory. A link that leads out of it is refused in every
//! route, a FIFO is refused without waiting on it, and a link that stays inside the run
//! still works.

use std::path::{Path, PathBuf};

use escapade_web::auth::Access;

use crate::support;
use crate::wire::{Reply, Wire};

const MARKER: &str = "OUTSIDE-MARKER-7f3a";

/// Copies the directory `from` to `to`, recursively (files only, no links).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().map(|e| e.unwrap()) {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Replaces `path` with a symbolic link to `target`.
fn link(target: &Path, path: &Path) {
    if path.is_dir() {
        std::fs::remove_dir_all(path).unwrap();
    } else {
        std::fs::remove_file(path).unwrap();
    }
    std::os::unix::fs::symlink(target, path).unwrap();
}

/// Replaces `path` with a named pipe nobody writes to.
fn fifo(path: &Path) {
    std::fs::remove_file(path).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo");
    assert!(made.success());
}

/// `text` with `from` replaced by `to`, which must occur in it.
fn marked(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` is not in the file");
    text.replace(from, to)
}

fn enc(s: &str) -> String {
    serde_urlencoded::to_string([("x", s)]).unwrap()[2..].to_string()
}

/// A refusal: a 4xx page, holding neither the marker nor `secret` (a picture's bytes).
fn refused(r: &Reply, secret: &[u8], what: &str) {
    assert!(
        (400..500).contains(&r.status),
        "{what}: answered {} {}",
        r.status,
        r.text()
    );
    assert!(
        !r.text().contains(MARKER),
        "{what}: shows what lies outside"
    );
    assert!(
        !r.body.windows(secret.len()).any(|w| w == secret),
        "{what}: serves the picture from outside"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_out_of_a_run_are_refused_in_every_route() {
    let tmp = tempfile::tempdir().unwrap();
    let (served, outside) = (tmp.path().join("served"), tmp.path().join("outside"));
    std::fs::create_dir_all(&outside).unwrap();
    let made = {
        let served = served.clone();
        tokio::task::spawn_blocking(move || support::baseline_run("vis", "oracle", 1, &served))
            .await
            .unwrap()
    };
    // one copy of the run per case, so each breaks in one place only
    let cases = [
        "media-file",
        "media-dir",
        "trajectory-file",
        "trajectory-dir",
        "episodes",
        "run-toml",
        "fifo",
        "inside",
    ];
    let run: std::collections::BTreeMap<&str, PathBuf> = cases
        .iter()
        .map(|c| {
            let dir = served.join(c);
            copy_dir(&made, &dir);
            (*c, dir)
        })
        .collect();
    std::fs::remove_dir_all(&made).unwrap();
    let id = |c: &str| enc(&format!("0/{c}"));
    // what lies outside: a picture, a trajectory, episodes and a run.toml, all marked
    let sha = std::fs::read_dir(run["inside"].join("media"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name()
        .to_string_lossy()
        .trim_end_matches(".png")
        .to_string();
    let secret = format!("\u{89}PNG {MARKER} a picture from outside").into_bytes();
    std::fs::write(outside.join("secret.png"), &secret).unwrap();
    std::fs::create_dir_all(outside.join("media")).unwrap();
    std::fs::write(outside.join("media").join(format!("{sha}.png")), &secret).unwrap();
    let traj_dir = std::fs::read_dir(run["inside"].join("trajectories"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let stem = traj_dir.file_name().unwrap().to_string_lossy().into_owned();
    let trajectory = std::fs::read_to_string(traj_dir.join("0.jsonl")).unwrap();
    let scenario = serde_json::from_str::<serde_json::Value>(
        std::fs::read_to_string(run["inside"].join("episodes.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap()["scenario"]
        .as_str()
        .unwrap()
        .to_string();
    let outside_traj = marked(
        &trajectory,
        "\"feedback\":\"",
        &format!("\"feedback\":\"{MARKER} "),
    );
    std::fs::write(outside.join("trajectory.jsonl"), &outside_traj).unwrap();
    std::fs::create_dir_all(outside.join("trajdir")).unwrap();
    std::fs::write(outside.join("trajdir/0.jsonl"), &outside_traj).unwrap();
    let episodes = std::fs::read_to_string(run["inside"].join("episodes.jsonl")).unwrap();
    std::fs::write(
        outside.join("episodes.jsonl"),
        marked(
            &episodes,
            "\"error\":null",
            &format!("\"error\":\"{MARKER}\""),
        ),
    )
    .unwrap();
    let toml = std::fs::read_to_string(run["inside"].join("run.toml")).unwrap();
    std::fs::write(
        outside.join("run.toml"),
        marked(
            &toml,
            "agent = \"oracle\"",
            &format!("agent = \"{MARKER}\""),
        ),
    )
    .unwrap();
    // each case's link
    let media = |c: &str| run[c].join("media").join(format!("{sha}.png"));
    link(&outside.join("secret.png"), &media("media-file"));
    link(&outside.join("media"), &run["media-dir"].join("media"));
    link(
        &outside.join("trajectory.jsonl"),
        &run["trajectory-file"]
            .join("trajectories")
            .join(&stem)
            .join("0.jsonl"),
    );
    link(
        &outside.join("trajdir"),
        &run["trajectory-dir"].join("trajectories").join(&stem),
    );
    link(
        &outside.join("episodes.jsonl"),
        &run["episodes"].join("episodes.jsonl"),
    );
    link(&outside.join("run.toml"), &run["run-toml"].join("run.toml"));
    fifo(&media("fifo"));
    fifo(&run["fifo"].join("trajectories").join(&stem).join("0.jsonl"));
    // a link that stays inside the run: still served
    let kept = run["inside"].join("kept");
    std::fs::create_dir_all(&kept).unwrap();
    std::fs::rename(media("inside"), kept.join("p.png")).unwrap();
    std::os::unix::fs::symlink("../kept/p.png", media("inside")).unwrap();

    let wire = Wire::serve(support::site(
        std::slice::from_ref(&served),
        Access::Loopback,
    ))
    .await;
    let picture = |c: &str| format!("/media?run={}&sha={sha}", id(c));
    let episode = |c: &str| format!("/episode?run={}&scenario={}&epoch=0", id(c), enc(&scenario));
    // the link inside the run, and an untouched trajectory, work
    let r = wire.get(&picture("inside")).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.content_type.starts_with("image/png"));
    let r = wire.get(&episode("inside")).await;
    assert_eq!(r.status, 200, "{}", r.text());
    // pictures
    for c in ["media-file", "media-dir", "fifo"] {
        refused(
            &wire.get(&picture(c)).await,
            &secret,
            &format!("{c}: /media"),
        );
    }
    // trajectories: the episode, side by side, the report (which reads them)
    for c in ["trajectory-file", "trajectory-dir", "fifo"] {
        refused(
            &wire.get(&episode(c)).await,
            &secret,
            &format!("{c}: /episode"),
        );
        let compare = format!(
            "/compare?a={}&b={}&scenario={}&epoch=0",
            id("inside"),
            id(c),
            enc(&scenario)
        );
        refused(
            &wire.get(&compare).await,
            &secret,
            &format!("{c}: /compare"),
        );
        let report = format!("/report?run={}", id(c));
        refused(&wire.get(&report).await, &secret, &format!("{c}: /report"));
    }
    // episodes: the run, its live stream, the report, the episode pages
    for path in [
        format!("/run?id={}", id("episodes")),
        format!("/events?run={}", id("episodes")),
        format!("/report?run={}", id("episodes")),
        episode("episodes"),
        picture("episodes"),
    ] {
        refused(
            &wire.get(&path).await,
            &secret,
            &format!("episodes: {path}"),
        );
    }
    // run.toml: not a run at all
    for path in [
        format!("/run?id={}", id("run-toml")),
        format!("/report?run={}", id("run-toml")),
        episode("run-toml"),
    ] {
        refused(
            &wire.get(&path).await,
            &secret,
            &format!("run.toml: {path}"),
        );
    }
    // the runs list and its live stream show nothing from outside, and list the sound runs
    let runs = wire.get("/").await;
    assert_eq!(runs.status, 200);
    assert!(
        !runs.text().contains(MARKER),
        "the runs list shows what lies outside"
    );
    assert!(
        runs.unescaped().contains("data-run=\"0/inside\""),
        "{}",
        runs.text()
    );
    let live = wire.get("/events/runs").await;
    assert!(!live.text().contains(MARKER), "{}", live.text());
    // a report of sound runs still works
    let r = wire.get(&format!("/report?run={}", id("inside"))).await;
    assert_eq!(r.status, 200, "{}", r.text());
}
