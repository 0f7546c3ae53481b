//! The viewer's server side: listing a folder of 1000-episode runs (the runs page), and
//! rendering a 300-step episode page. `cargo bench -p escapade-web`.
//!
//! The runs are made from a real baseline run (vis, oracle, one room): its `run.toml`
//! and rows, its episode row repeated to 1000 rows per run (scenario ids made distinct)
//! and its trajectory's steps repeated to 300 (renumbered).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, header};
use criterion::{Criterion, criterion_group, criterion_main};
use escapade_core::{EpisodeRow, StepRow, World};
use escapade_run::{Baseline, Progress, RunSpec};
use escapade_web::auth::Access;
use escapade_web::server::{Site, router};
use http_body_util::BodyExt;
use tower::ServiceExt;

const RUNS: usize = 10;
const EPISODES: usize = 1000;
const STEPS: u32 = 300;

fn real_run(out: &Path) -> PathBuf {
    let world = escapade_vis::VisWorld::new();
    let suite = world.suites()[0].name.clone();
    let json = world.build_suite(&suite).unwrap().remove(0);
    escapade_run::run(
        &world,
        &[(suite, json)],
        &RunSpec {
            agent: "oracle".into(),
            ..Default::default()
        },
        &Baseline::new(&world, "oracle").unwrap(),
        out,
        Progress::quiet(),
    )
    .unwrap()
    .dir
}

/// `RUNS` copies of `template`, each with `EPISODES` rows; the first also holds a
/// `STEPS`-step trajectory for scenario `long`.
fn folder(template: &Path, out: &Path) {
    let row: EpisodeRow = serde_json::from_str(
        std::fs::read_to_string(template.join("episodes.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let steps: Vec<StepRow> =
        std::fs::read_to_string(template.join("trajectories/vis-r01/0.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    for r in 0..RUNS {
        let dir = out.join(format!("run-{r:02}"));
        std::fs::create_dir_all(dir.join("media")).unwrap();
        std::fs::copy(template.join("run.toml"), dir.join("run.toml")).unwrap();
        let mut lines = String::new();
        for k in 0..EPISODES {
            let mut row = row.clone();
            row.scenario = format!("s{k:04}");
            row.success = k % 3 != 0;
            lines.push_str(&serde_json::to_string(&row).unwrap());
            lines.push('\n');
        }
        std::fs::write(dir.join("episodes.jsonl"), lines).unwrap();
        if r == 0 {
            for m in std::fs::read_dir(template.join("media")).unwrap() {
                let m = m.unwrap();
                std::fs::copy(m.path(), dir.join("media").join(m.file_name())).unwrap();
            }
            let traj = dir.join("trajectories/long");
            std::fs::create_dir_all(&traj).unwrap();
            let mut lines = String::new();
            for n in 0..STEPS {
                let mut step = steps[n as usize % steps.len()].clone();
                step.step = n + 1;
                lines.push_str(&serde_json::to_string(&step).unwrap());
                lines.push('\n');
            }
            std::fs::write(traj.join("0.jsonl"), lines).unwrap();
        }
    }
}

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let template = real_run(&tmp.path().join("template"));
    let served = tmp.path().join("served");
    folder(&template, &served);
    let worlds: escapade_web::server::Worlds = Arc::new(vec![
        Box::new(escapade_vis::VisWorld::new()) as Box<dyn World>,
    ]);
    let mut site = Site::new(
        &escapade_web::ViewOptions {
            dirs: vec![served.clone()],
            ..Default::default()
        },
        worlds,
    )
    .unwrap();
    site.access = Access::Loopback;
    let app = router(Arc::new(site));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let get = |uri: String| {
        let app = app.clone();
        rt.block_on(async move {
            let res = app
                .oneshot(
                    Request::get(uri)
                        .header(header::HOST, "127.0.0.1")
                        .body(Body::empty())
                        .unwrap(),
                )
                .await
                .unwrap();
            assert!(res.status().is_success(), "{}", res.status());
            res.into_body().collect().await.unwrap().to_bytes().len()
        })
    };
    // a first visit reads every run's files
    let found = escapade_web::folders::Folders::new(std::slice::from_ref(&served))
        .unwrap()
        .list();
    c.bench_function(
        &format!("runs listing, first visit ({RUNS} runs x {EPISODES} episodes)"),
        |b| {
            b.iter(|| {
                found
                    .iter()
                    .map(|f| escapade_web::view::runs::run_line(&f.id, &f.path).done)
                    .sum::<usize>()
            })
        },
    );
    let bytes = get("/".into());
    eprintln!("runs page: {RUNS} runs of {EPISODES} episodes, {bytes} bytes");
    c.bench_function(
        &format!(
            "runs page, runs unchanged since the last visit ({RUNS} runs x {EPISODES} episodes)"
        ),
        |b| b.iter(|| get("/".into())),
    );
    let episode = "/episode?run=0%2Frun-00&scenario=long&epoch=0".to_string();
    let bytes = get(episode.clone());
    eprintln!("episode page: {STEPS} steps, {bytes} bytes");
    c.bench_function(&format!("episode page ({STEPS} steps)"), |b| {
        b.iter(|| get(episode.clone()))
    });
    c.bench_function(&format!("run page ({EPISODES} episodes)"), |b| {
        b.iter(|| get("/run?id=0%2Frun-00".into()))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
