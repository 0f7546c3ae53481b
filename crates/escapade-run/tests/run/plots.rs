//! Plots: the files each run set calls for, well-formed, labelled, and byte-identical
//! across calls.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use escapade_core::{EpisodeRow, Usage};
use escapade_run::rundir::{RunConfig, ScenarioRef};
use escapade_run::{PlotFormat, RunDir, write_plots};

/// One episode of `world` at tier `difficulty`, with tool metrics when `tools`.
fn row(world: &str, difficulty: u32, scenario: &str, success: bool, tools: bool) -> EpisodeRow {
    let mut metrics = BTreeMap::new();
    if tools {
        let calls = f64::from(difficulty) * if success { 2.0 } else { 3.0 };
        metrics.insert("tool_calls".to_string(), calls);
        let resolution = if success { 1.0 } else { 0.4 };
        metrics.insert("sub_problem_resolution".to_string(), resolution);
    }
    EpisodeRow {
        format_version: 1,
        suite: "s@1".into(),
        scenario: scenario.into(),
        scenario_hash: "h".into(),
        world: world.into(),
        difficulty,
        epoch: 0,
        seed: 1,
        agent: String::new(),
        config_hash: String::new(),
        success,
        steps: difficulty + 2,
        metrics,
        usage: Usage::default(),
        duration_ms: 1,
        error: None,
        retryable: false,
        rejected: Vec::new(),
        start_steps_to_go: None,
        step_cap: false,
        origin: None,
    }
}

/// A run directory of `agent` with an episode per (world, tier, k), and a trajectory
/// for each whose progress climbs to 1 on success and stalls at 0.5 on failure.
fn run(parent: &Path, agent: &str, worlds: &[&str], tools: bool) -> PathBuf {
    let mut rows = Vec::new();
    for world in worlds {
        for tier in [5u32, 10] {
            for k in 0..4 {
                let success = agent == "oracle" || (k + tier as usize / 5).is_multiple_of(2);
                let id = format!("{world}-d{tier}-{k}");
                rows.push(row(world, tier, &id, success, tools));
            }
        }
    }
    let config = RunConfig {
        suite: "s@1".into(),
        world: worlds[0].into(),
        source: "s@1".into(),
        agent: agent.into(),
        agent_options: BTreeMap::new(),
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
        scenarios: rows
            .iter()
            .map(|r| ScenarioRef {
                id: r.scenario.clone(),
                hash: "h".into(),
            })
            .collect(),
        shard: None,
        fork: None,
    };
    let dir = RunDir::create(parent, &config).unwrap();
    for mut r in rows {
        r.agent = agent.into();
        r.config_hash = dir.config_hash().to_string();
        dir.append_episode(&r).unwrap();
        let path = dir.path().join("trajectories").join(&r.scenario);
        std::fs::create_dir_all(&path).unwrap();
        let last = if r.success { 1.0 } else { 0.5 };
        let lines: String = (1..=r.steps)
            .map(|n| {
                let progress = last * f64::from(n) / f64::from(r.steps);
                let step = serde_json::json!({
                    "format_version": 1, "step": n, "role": "agent", "progress": progress,
                    "valid": true, "terminated": n == r.steps, "truncated": false,
                });
                format!("{step}\n")
            })
            .collect();
        std::fs::write(path.join("0.jsonl"), lines).unwrap();
    }
    dir.path().to_path_buf()
}

fn names(paths: &[PathBuf]) -> Vec<String> {
    paths
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

/// The text of every `<text>` element of an SVG, which must be well-formed XML.
fn svg_texts(path: &Path) -> Vec<String> {
    let svg = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&svg)
        .unwrap_or_else(|e| panic!("{} is not well-formed: {e}", path.display()));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect()
}

/// Width, height and RGB pixels of a PNG, which must decode.
fn png_pixels(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb, "{}", path.display());
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let pixels = buf[..info.buffer_size()]
        .chunks(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (info.width, info.height, pixels)
}

#[test]
fn two_runs_make_three_pictures_in_both_formats() {
    let tmp = tempfile::tempdir().unwrap();
    let random = run(tmp.path(), "random", &["tools"], true);
    let oracle = run(tmp.path(), "oracle", &["tools"], true);
    let out = tmp.path().join("plots");
    let written = write_plots(
        &[random, oracle],
        &out,
        &[PlotFormat::Svg, PlotFormat::Png],
        &[],
    )
    .unwrap();
    assert_eq!(
        names(&written),
        [
            "success_by_difficulty.svg",
            "success_by_difficulty.png",
            "progress_over_steps.svg",
            "progress_over_steps.png",
            "tool_calls_vs_success.svg",
            "tool_calls_vs_success.png",
        ]
    );
    for path in &written {
        assert!(
            path.starts_with(&out) && path.is_file(),
            "{}",
            path.display()
        );
    }
    // every picture names both runs in its legend, and says what it shows
    let titles = [
        "Success rate by difficulty (tools)",
        "Progress over steps (tools)",
        "Tool calls vs success (tools)",
    ];
    for (svg, title) in written.iter().step_by(2).zip(titles) {
        let texts = svg_texts(svg);
        for label in ["random", "oracle", title] {
            assert!(texts.iter().any(|t| t == label), "{label} in {texts:?}");
        }
    }
    // tiers label the success axis
    let texts = svg_texts(&written[0]);
    assert!(texts.iter().any(|t| t == "5") && texts.iter().any(|t| t == "10"));
    // the PNGs decode, and the bars are drawn in each run's colour
    for png in written.iter().skip(1).step_by(2) {
        let (w, h, pixels) = png_pixels(png);
        assert_eq!((w, h), (960, 600));
        assert!(pixels.iter().any(|p| *p != [255, 255, 255]));
    }
    let (_, _, pixels) = png_pixels(&written[1]);
    for colour in [[78, 121, 167], [242, 142, 43]] {
        let n = pixels.iter().filter(|p| **p == colour).count();
        assert!(n > 500, "{colour:?}: {n} pixels");
    }
}

#[test]
fn plots_are_byte_identical_across_calls() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = [
        run(tmp.path(), "random", &["tools"], true),
        run(tmp.path(), "oracle", &["tools"], true),
    ];
    let formats = [PlotFormat::Png, PlotFormat::Svg];
    let a = write_plots(&dirs, &tmp.path().join("a"), &formats, &[]).unwrap();
    let b = write_plots(&dirs, &tmp.path().join("b"), &formats, &[]).unwrap();
    assert_eq!(names(&a), names(&b));
    assert_eq!(a.len(), 6);
    for (x, y) in a.iter().zip(&b) {
        assert!(
            std::fs::read(x).unwrap() == std::fs::read(y).unwrap(),
            "{} differs between calls",
            x.display()
        );
    }
}

#[test]
fn plots_in_memory_are_the_files_write_plots_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = [
        run(tmp.path(), "random", &["tools"], true),
        run(tmp.path(), "oracle", &["tools"], true),
    ];
    let files = write_plots(&dirs, &tmp.path().join("p"), &[PlotFormat::Svg], &[]).unwrap();
    let set = escapade_run::report::read_runs(&dirs).unwrap();
    let svgs = escapade_run::plots::svg_plots(&set, &[]).unwrap();
    assert_eq!(svgs.len(), files.len());
    for ((stem, svg), file) in svgs.iter().zip(&files) {
        assert_eq!(
            file.file_name().unwrap().to_string_lossy(),
            format!("{stem}.svg")
        );
        assert!(
            *svg == std::fs::read_to_string(file).unwrap(),
            "{stem} differs"
        );
    }
}

#[test]
fn several_worlds_get_a_set_each_and_absent_data_no_picture() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run(tmp.path(), "random", &["counter", "vis"], false);
    let out = tmp.path().join("plots");
    let written = write_plots(std::slice::from_ref(&dir), &out, &[PlotFormat::Svg], &[]).unwrap();
    // no tool_calls metric: no scatter
    assert_eq!(
        names(&written),
        [
            "counter-success_by_difficulty.svg",
            "counter-progress_over_steps.svg",
            "vis-success_by_difficulty.svg",
            "vis-progress_over_steps.svg",
        ]
    );
    // a bare episodes.jsonl away from its trajectories: no progress picture
    let bare = tmp.path().join("bare.jsonl");
    std::fs::copy(dir.join("episodes.jsonl"), &bare).unwrap();
    let written = write_plots(&[bare], &tmp.path().join("bare"), &[PlotFormat::Svg], &[]).unwrap();
    assert_eq!(
        names(&written),
        [
            "counter-success_by_difficulty.svg",
            "vis-success_by_difficulty.svg"
        ]
    );
    // no episodes: no files, and no directory made
    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("episodes.jsonl"), "").unwrap();
    let none = tmp.path().join("none");
    let written = write_plots(
        &[empty.path().to_path_buf()],
        &none,
        &[PlotFormat::Png],
        &[],
    )
    .unwrap();
    assert!(written.is_empty() && !none.exists());
}

#[test]
fn plot_formats_parse() {
    assert_eq!("svg".parse::<PlotFormat>().unwrap(), PlotFormat::Svg);
    assert_eq!("png".parse::<PlotFormat>().unwrap(), PlotFormat::Png);
    let e = "pdf".parse::<PlotFormat>().unwrap_err();
    assert!(e.to_string().contains("svg, png"), "{e}");
    assert_eq!(PlotFormat::Png.extension(), "png");
}
