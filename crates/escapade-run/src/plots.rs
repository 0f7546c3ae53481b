//! Plots: the papers' figures, drawn from one or more runs (`escapade report --plots`).
//!
//! Tables give the numbers; these pictures show the shape that the papers use to compare
//! agents, so that a run can be set next to their figures. Every picture compares all the
//! runs given (merged as in [`read_runs`]: shards of a run are one run), one colour per
//! run in the order of [`RunSet::runs`], with a legend:
//!
//! - `success_by_difficulty`: success rate with its 95 % interval over scenarios per
//!   difficulty tier, one bar per run (AgentEscapeBench Tab. 3, MM-Escape's success by
//!   difficulty), and the paper's values as reference lines: people (dashed black) and
//!   the random baseline (dotted grey) across a tier, the run's own model as a dash over
//!   its bar ([`crate::beside`]);
//! - `progress_over_steps`: mean task progress (± 1 SE band) against the step number,
//!   read from the trajectories' `progress` and carried forward after an episode ends
//!   (VisEscape Fig. 6/11); runs without trajectories are left out;
//! - `tool_calls_vs_success` (when rows have a `tool_calls` metric): each episode's tool
//!   calls against its `sub_problem_resolution` (else its success), and each run's mean
//!   tool calls against its success rate (AgentEscapeBench Fig. 4);
//! - for a world that declares a turn curve (COMMA): `success_within_turns`, success had
//!   each episode been cut after k turns (COMMA Fig. 4);
//! - for each breakdown a world declares without a split by tier (COMMA's capabilities):
//!   `success_by_<name>`, success rate per group (COMMA Fig. 6).
//!
//! - `profile` (when the runs cover two worlds or more): each model's headline score
//!   per world normalised between the random baseline (0) and the oracle (1)
//!   ([`crate::profile`]).
//!
//! With several worlds there is one of each per world, the file names prefixed with
//! `<world>-`. The files are deterministic — no timestamps, inputs in canonical order —
//! so the same inputs give the same bytes. PNG text is drawn with the bundled DejaVu Sans
//! (`escapade-render/assets/fonts/`, licence alongside), registered with plotters' `ab_glyph` backend; SVG
//! files name the `sans-serif` family and leave glyphs to the viewer (layout still uses
//! the bundled font's metrics, so SVG and PNG agree).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use escapade_core::metrics::MeanSe;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Deserialize;

use crate::error::{Result, RunError};
use crate::report::{Episode, Report, RunSet, Stat, Worlds, read_runs};
use crate::rundir::TRAJECTORIES;
use crate::suite::file_stem;

/// DejaVu Sans 2.37 (Bitstream Vera licence with the Arev terms, see
/// `escapade-render/assets/fonts/LICENSE-DejaVu.txt`): the one face plots are drawn with.
const FONT: &[u8] = escapade_render::FONT;
/// The family name the font is registered under and plots ask for.
const FAMILY: &str = "sans-serif";
/// Picture size in pixels (SVG user units).
const SIZE: (u32, u32) = (960, 600);
/// One colour per run, in run order (Tableau 10), then again.
const PALETTE: [RGBColor; 10] = [
    RGBColor(78, 121, 167),
    RGBColor(242, 142, 43),
    RGBColor(225, 87, 89),
    RGBColor(118, 183, 178),
    RGBColor(89, 161, 79),
    RGBColor(237, 201, 72),
    RGBColor(176, 122, 161),
    RGBColor(255, 157, 167),
    RGBColor(156, 117, 95),
    RGBColor(186, 176, 172),
];

/// A file format for plots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PlotFormat {
    /// Scalable vector graphics; text as `<text>` elements.
    Svg,
    /// A PNG bitmap; text drawn with the bundled font.
    Png,
}

impl PlotFormat {
    /// The file extension (`svg`, `png`).
    pub fn extension(self) -> &'static str {
        match self {
            PlotFormat::Svg => "svg",
            PlotFormat::Png => "png",
        }
    }
}

impl FromStr for PlotFormat {
    type Err = RunError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "svg" => Ok(PlotFormat::Svg),
            "png" => Ok(PlotFormat::Png),
            _ => Err(RunError::unknown("plot format", s, ["svg", "png"])),
        }
    }
}

/// Reads run directories (as [`crate::report()`] does) and writes the plots into
/// `out_dir` (created if missing), once per format; returns the files written, in order
/// (world, picture, format). No episodes: no files. Warnings met while reading are
/// dropped here; [`read_runs`] and [`write_plots_for`] keep them.
pub fn write_plots(
    dirs: &[PathBuf],
    out_dir: &Path,
    formats: &[PlotFormat],
    worlds: Worlds<'_>,
) -> Result<Vec<PathBuf>> {
    write_plots_for(&read_runs(dirs)?, out_dir, formats, worlds)
}

/// Writes the plots of runs already read with [`read_runs`] (so that a report and its
/// plots read the inputs once). See [`write_plots`].
pub fn write_plots_for(
    set: &RunSet,
    out_dir: &Path,
    formats: &[PlotFormat],
    worlds: Worlds<'_>,
) -> Result<Vec<PathBuf>> {
    let mut seen = BTreeSet::new();
    let formats: Vec<PlotFormat> = formats
        .iter()
        .copied()
        .filter(|f| seen.insert(*f))
        .collect();
    let figures = figures(set, worlds);
    if figures.is_empty() || formats.is_empty() {
        return Ok(Vec::new());
    }
    std::fs::create_dir_all(out_dir).map_err(|e| RunError::io("cannot create", out_dir, e))?;
    register_font();
    let mut written = Vec::new();
    for (stem, figure) in &figures {
        for format in &formats {
            let path = out_dir.join(format!("{stem}.{}", format.extension()));
            render(figure, *format, &path)?;
            written.push(path);
        }
    }
    Ok(written)
}

/// Registers the bundled font with plotters, once per process.
fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // an invalid font would show up as a drawing error naming the plot file
        let _ = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT);
    });
}

/// The runs of one world: label, colour and episodes of each run that played it.
struct Series<'a> {
    label: &'a str,
    color: RGBColor,
    episodes: Vec<&'a Episode>,
}

/// A mean and its standard error, in percent.
type MeanPct = (f64, f64);

/// A bar: the mean and the ends of its error bar (the 95 % interval), in percent; no
/// error bar when the ends are the mean.
type Bar = (f64, f64, f64);

/// A paper's value drawn over a group of bars: people and the random baseline across
/// the group, a run's own model over its bar.
#[derive(Debug, Clone, PartialEq)]
struct Mark {
    /// The value in percent.
    value: f64,
    /// Who: `None` across the group (a baseline), else the run's index among the bars.
    run: Option<usize>,
    /// People (a dashed black line) or the random baseline (a dotted grey one).
    human: bool,
}

/// One run's share of a picture: its legend entry and its data.
struct Part<T> {
    label: String,
    color: RGBColor,
    data: T,
}

impl<T> Part<T> {
    fn legend(&self) -> (&str, RGBColor) {
        (&self.label, self.color)
    }
}

/// A run's episodes in the scatter, and its mean.
struct Scatter {
    /// Each episode's `(tool calls, y %)`.
    dots: Vec<(f64, f64)>,
    /// `(mean tool calls, success rate %)`.
    mean: (f64, f64),
}

/// A picture, with its data computed.
enum Figure {
    /// Bars per group (difficulty tier, capability), one per run.
    Success {
        title: String,
        /// The x axis' name.
        x_desc: String,
        /// The groups' labels, in order.
        groups: Vec<String>,
        /// Per run, per group: the bar when the run has episodes there.
        bars: Vec<Part<Vec<Option<Bar>>>>,
        /// Per group: the paper's values drawn over it.
        marks: Vec<Vec<Mark>>,
        /// What the error bars and marks are, under the title.
        note: Option<String>,
    },
    /// Normalised headline scores per world, one bar per model (the capability profile).
    Profile {
        /// The worlds, with their headline metrics.
        groups: Vec<String>,
        /// Per model, per world: the normalised score when the model played the world.
        bars: Vec<Part<Vec<Option<f64>>>>,
    },
    /// Lines with an SE band over consecutive integers (steps, turns).
    Progress {
        title: String,
        /// The axes' names.
        x_desc: &'static str,
        y_desc: &'static str,
        /// The first x (0 for steps, 1 for turns) and the last.
        first: u32,
        last: u32,
        /// Per run: `(mean %, se %)` at x = first..=last.
        lines: Vec<Part<Vec<MeanPct>>>,
    },
    ToolCalls {
        title: String,
        note: String,
        x_max: f64,
        points: Vec<Part<Scatter>>,
    },
}

/// Every picture to draw, with its file stem, in output order.
fn figures(set: &RunSet, worlds_given: Worlds<'_>) -> Vec<(String, Figure)> {
    let worlds: BTreeSet<&str> = set
        .runs
        .iter()
        .flat_map(|r| r.episodes.iter().map(|e| e.row.world.as_str()))
        .collect();
    let mut out = Vec::new();
    // the worlds' own figures read the report's turn curves and breakdowns
    let report = Report::from_runs(set, worlds_given).with_usual_extras(set, worlds_given);
    for world in &worlds {
        let series: Vec<Series> = set
            .runs
            .iter()
            .enumerate()
            .map(|(k, run)| Series {
                label: &run.label,
                color: PALETTE[k % PALETTE.len()],
                episodes: run
                    .episodes
                    .iter()
                    .filter(|e| e.row.world == *world)
                    .collect(),
            })
            .filter(|s| !s.episodes.is_empty())
            .collect();
        let prefix = if worlds.len() > 1 {
            format!("{}-", file_stem(world))
        } else {
            String::new()
        };
        let stem = |name: &str| format!("{prefix}{name}");
        out.push((
            stem("success_by_difficulty"),
            success(world, &series, &report),
        ));
        if let Some(f) = progress(world, &series) {
            out.push((stem("progress_over_steps"), f));
        }
        if let Some(f) = tool_calls(world, &series) {
            out.push((stem("tool_calls_vs_success"), f));
        }
        if let Some(f) = within_turns(world, &series, &report) {
            out.push((stem("success_within_turns"), f));
        }
        for (name, f) in by_group(world, &series, &report) {
            out.push((stem(&format!("success_by_{name}")), f));
        }
    }
    if let Some(f) = profile(&report) {
        out.push(("profile".to_string(), f));
    }
    out
}

fn success(world: &str, series: &[Series], report: &Report) -> Figure {
    let tiers: Vec<u32> = series
        .iter()
        .flat_map(|s| s.episodes.iter().map(|e| e.row.difficulty))
        .collect::<BTreeSet<u32>>()
        .into_iter()
        .collect();
    let bars = series
        .iter()
        .map(|s| {
            let values = tiers
                .iter()
                .map(|&tier| {
                    // by scenario, for an interval that resamples scenarios
                    let mut by: std::collections::BTreeMap<&str, Vec<f64>> = Default::default();
                    for e in s.episodes.iter().filter(|e| e.row.difficulty == tier) {
                        by.entry(e.row.scenario.as_str())
                            .or_default()
                            .push(if e.row.success { 1.0 } else { 0.0 });
                    }
                    (!by.is_empty()).then(|| {
                        let clusters: Vec<Vec<f64>> = by.into_values().collect();
                        let st = Stat::of_clusters(&clusters, &format!("{world}/{tier}/success"));
                        bar(&st)
                    })
                })
                .collect();
            Part {
                label: s.label.to_string(),
                color: s.color,
                data: values,
            }
        })
        .collect();
    let marks: Vec<Vec<Mark>> =
        tiers
            .iter()
            .map(|&tier| {
                let mut marks = Vec::new();
                for b in report.paper.iter().filter(|b| {
                    b.world == world && b.metric == "success" && b.difficulty == Some(tier)
                }) {
                    for r in &b.references {
                        let human = r.kind == escapade_core::paper::RowKind::Human;
                        if human || r.kind == escapade_core::paper::RowKind::Random {
                            let m = Mark {
                                value: r.value * 100.0,
                                run: None,
                                human,
                            };
                            if !marks.contains(&m) {
                                marks.push(m);
                            }
                        }
                    }
                    if let Some(v) = &b.verdict
                        && let Some(k) = series.iter().position(|s| s.label == b.run)
                    {
                        marks.push(Mark {
                            value: v.paper * 100.0,
                            run: Some(k),
                            human: false,
                        });
                    }
                }
                marks
            })
            .collect();
    let note = marks.iter().any(|m| !m.is_empty()).then(|| {
        "bars: 95% CI over scenarios; paper: people dashed black, random dotted grey, the run's own model a \
         dash over its bar"
            .to_string()
    });
    Figure::Success {
        title: format!("Success rate by difficulty ({world})"),
        x_desc: "difficulty".into(),
        groups: tiers.iter().map(u32::to_string).collect(),
        bars,
        marks,
        note: note.or_else(|| Some("bars: 95% CI over scenarios".into())),
    }
}

/// A bar of a success rate: its mean and interval in percent (the mean alone, without
/// an interval).
fn bar(st: &Stat) -> Bar {
    let m = st.mean * 100.0;
    (
        m,
        st.lo.map_or(m, |x| x * 100.0),
        st.hi.map_or(m, |x| x * 100.0),
    )
}

/// The profile's normalised scores, one bar per model (the random and oracle runs that
/// anchor them are the 0 and 1 lines).
fn profile(report: &Report) -> Option<Figure> {
    let p = report.profile.as_ref()?;
    let mut models: Vec<&str> = Vec::new();
    for c in &p.cells {
        if c.normalised.is_some()
            && c.model != "random"
            && c.model != "oracle"
            && !models.contains(&c.model.as_str())
        {
            models.push(&c.model);
        }
    }
    if models.is_empty() {
        return None;
    }
    let bars = models
        .iter()
        .enumerate()
        .map(|(k, m)| Part {
            label: m.to_string(),
            color: PALETTE[k % PALETTE.len()],
            data: p
                .worlds
                .iter()
                .map(|w| {
                    p.cells
                        .iter()
                        .find(|c| c.model == *m && &c.world == w)
                        .and_then(|c| c.normalised)
                })
                .collect(),
        })
        .collect();
    Some(Figure::Profile {
        groups: p
            .worlds
            .iter()
            .map(|w| format!("{w} ({})", p.metrics[w]))
            .collect(),
        bars,
    })
}

/// One step row, as much of it as the progress plot needs.
#[derive(Deserialize)]
struct StepProgress {
    step: u32,
    progress: f64,
}

/// `(step, progress)` of an episode's trajectory, in file order; `None` when the episode
/// has no trajectory file. Unreadable lines (a torn last line) are skipped.
fn trajectory(e: &Episode) -> Option<Vec<(u32, f64)>> {
    let dir = e.dir.as_ref()?;
    let path = dir
        .join(TRAJECTORIES)
        .join(file_stem(&e.row.scenario))
        .join(format!("{}.jsonl", e.row.epoch));
    let text = std::fs::read_to_string(path).ok()?;
    Some(
        text.lines()
            .filter_map(|l| serde_json::from_str::<StepProgress>(l).ok())
            .filter(|s| s.progress.is_finite())
            .map(|s| (s.step, s.progress.clamp(0.0, 1.0)))
            .collect(),
    )
}

fn progress(world: &str, series: &[Series]) -> Option<Figure> {
    let read: Vec<Vec<Vec<(u32, f64)>>> = series
        .iter()
        .map(|s| s.episodes.iter().filter_map(|e| trajectory(e)).collect())
        .collect();
    let max_step = read
        .iter()
        .flatten()
        .flat_map(|t| t.iter().map(|(step, _)| *step))
        .max()?;
    let lines = series
        .iter()
        .zip(&read)
        .filter(|(_, trajectories)| !trajectories.is_empty())
        .map(|(s, trajectories)| {
            // progress at step n: that of the last row at or before n (0 before any row)
            let mut at: Vec<Vec<f64>> = vec![Vec::new(); max_step as usize + 1];
            for t in trajectories {
                let mut rows = t.iter().peekable();
                let mut current = 0.0;
                for (n, values) in at.iter_mut().enumerate() {
                    while let Some((_, p)) = rows.next_if(|(step, _)| *step as usize <= n) {
                        current = *p;
                    }
                    values.push(current);
                }
            }
            let curve = at
                .iter()
                .map(|xs| {
                    let m = MeanSe::of(xs);
                    (m.mean * 100.0, m.se * 100.0)
                })
                .collect();
            Part {
                label: s.label.to_string(),
                color: s.color,
                data: curve,
            }
        })
        .collect();
    Some(Figure::Progress {
        title: format!("Progress over steps ({world})"),
        x_desc: "step",
        y_desc: "mean progress (%)",
        first: 0,
        last: max_step.max(1),
        lines,
    })
}

/// COMMA Fig. 4: success had the episodes been cut after k solver turns, one line per
/// run (from [`Report::per_turn`]).
fn within_turns(world: &str, series: &[Series], report: &Report) -> Option<Figure> {
    let lines: Vec<Part<Vec<MeanPct>>> = series
        .iter()
        .filter_map(|s| {
            let curve = report
                .per_turn
                .iter()
                .find(|c| c.world == world && c.run == s.label)?;
            Some(Part {
                label: s.label.to_string(),
                color: s.color,
                data: curve
                    .success
                    .iter()
                    .map(|st| (st.mean * 100.0, st.se * 100.0))
                    .collect(),
            })
        })
        .collect();
    let curve = report.per_turn.iter().find(|c| c.world == world)?;
    (!lines.is_empty()).then(|| Figure::Progress {
        title: format!("{} ({world})", capitalized(&curve.title)),
        x_desc: "turns allowed",
        y_desc: "success rate (%)",
        first: 1,
        last: curve.success.len() as u32,
        lines,
    })
}

/// Success rate per group of each breakdown the world declares without a split by tier
/// (COMMA Fig. 6: per capability, §3.2), one bar per run; `(name, figure)`.
fn by_group(world: &str, series: &[Series], report: &Report) -> Vec<(String, Figure)> {
    let mut out = Vec::new();
    for t in report.breakdowns.iter().filter(|t| t.world == world) {
        if t.rows.iter().any(|r| r.difficulty.is_some())
            || !t.metrics.iter().any(|m| m == "success")
        {
            continue;
        }
        let mut groups: Vec<&str> = Vec::new();
        for r in &t.rows {
            if !groups.contains(&r.group.as_str()) {
                groups.push(&r.group);
            }
        }
        let bars = series
            .iter()
            .map(|s| Part {
                label: s.label.to_string(),
                color: s.color,
                data: groups
                    .iter()
                    .map(|g| {
                        let row = t.rows.iter().find(|r| r.group == *g && r.run == s.label)?;
                        row.metrics.get("success").map(bar)
                    })
                    .collect(),
            })
            .collect();
        out.push((
            t.name.clone(),
            Figure::Success {
                title: format!("Success rate {} ({world})", t.title),
                x_desc: t.column.clone(),
                groups: groups.iter().map(|g| g.to_string()).collect(),
                marks: vec![Vec::new(); groups.len()],
                bars,
                note: Some("bars: 95% CI over scenarios".into()),
            },
        ));
    }
    out
}

/// `text` with its first letter upper-case.
fn capitalized(text: &str) -> String {
    let mut c = text.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn tool_calls(world: &str, series: &[Series]) -> Option<Figure> {
    let has = |name: &str| {
        series
            .iter()
            .any(|s| s.episodes.iter().any(|e| e.row.metrics.contains_key(name)))
    };
    if !has("tool_calls") {
        return None;
    }
    let resolution = has("sub_problem_resolution");
    let mut x_max: f64 = 1.0;
    let points = series
        .iter()
        .filter_map(|s| {
            let mut dots = Vec::new();
            let mut successes = Vec::new();
            for e in &s.episodes {
                let Some(&calls) = e.row.metrics.get("tool_calls") else {
                    continue;
                };
                if !calls.is_finite() {
                    continue;
                }
                let success = if e.row.success { 100.0 } else { 0.0 };
                let y = if resolution {
                    e.row
                        .metrics
                        .get("sub_problem_resolution")
                        .filter(|v| v.is_finite())
                        .map_or(success, |v| v.clamp(0.0, 1.0) * 100.0)
                } else {
                    success
                };
                x_max = x_max.max(calls);
                dots.push((calls, y));
                successes.push(success);
            }
            if dots.is_empty() {
                return None;
            }
            let calls: Vec<f64> = dots.iter().map(|(x, _)| *x).collect();
            let mean = (MeanSe::of(&calls).mean, MeanSe::of(&successes).mean);
            Some(Part {
                label: s.label.to_string(),
                color: s.color,
                data: Scatter { dots, mean },
            })
        })
        .collect();
    let note = if resolution {
        "dots: episodes (y: sub-problem resolution) · large markers: run means (y: success rate)"
    } else {
        "dots: episodes (y: success) · large markers: run means (y: success rate)"
    };
    Some(Figure::ToolCalls {
        title: format!("Tool calls vs success ({world})"),
        note: note.to_string(),
        x_max,
        points,
    })
}

/// Draws `figure` as SVG text.
fn render_svg(figure: &Figure) -> std::result::Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        draw(&root, figure).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// The plots of runs already read with [`read_runs`], drawn as SVG in memory: `(file
/// stem, SVG text)` in the order [`write_plots_for`] writes them. For a viewer that shows
/// them inline and must not write into run directories.
pub fn svg_plots(set: &RunSet, worlds: Worlds<'_>) -> Result<Vec<(String, String)>> {
    let figures = figures(set, worlds);
    if !figures.is_empty() {
        register_font();
    }
    figures
        .into_iter()
        .map(|(stem, figure)| {
            render_svg(&figure)
                .map(|svg| (stem.clone(), svg))
                .map_err(|message| RunError::Plot {
                    path: PathBuf::from(format!("{stem}.svg")),
                    message,
                })
        })
        .collect()
}

/// Draws `figure` into `path` in `format`.
fn render(figure: &Figure, format: PlotFormat, path: &Path) -> Result<()> {
    let fail = |e: String| RunError::Plot {
        path: path.to_path_buf(),
        message: e,
    };
    match format {
        PlotFormat::Svg => {
            let svg = render_svg(figure).map_err(fail)?;
            std::fs::write(path, svg).map_err(|e| RunError::io("cannot write", path, e))
        }
        PlotFormat::Png => {
            let root = BitMapBackend::new(path, SIZE).into_drawing_area();
            draw(&root, figure).map_err(|e| fail(e.to_string()))?;
            root.present().map_err(|e| fail(e.to_string()))
        }
    }
}

type Drawn<T, DB> = std::result::Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn font(size: u32) -> TextStyle<'static> {
    (FAMILY, size).into_font().color(&BLACK)
}

/// How a legend entry shows its series.
#[derive(Clone, Copy)]
enum Swatch {
    Bar,
    Line,
    Dot,
}

/// White background, title, optional note, and a legend row (wrapped) naming each run;
/// returns the area left for the chart.
fn frame<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    note: Option<&str>,
    legend: &[(&str, RGBColor)],
    swatch: Swatch,
) -> Drawn<DrawingArea<DB, Shift>, DB> {
    root.fill(&WHITE)?;
    let area = root.margin(10, 4, 4, 12).titled(title, font(24))?;
    let area = match note {
        Some(note) => {
            let (top, rest) = area.split_vertically(24);
            top.draw(&Text::new(
                note.to_string(),
                (20, 2),
                font(14).color(&RGBColor(90, 90, 90)),
            ))?;
            rest
        }
        None => area,
    };
    // lay the entries out left to right, wrapping at the right edge
    let (width, _) = area.dim_in_pixel();
    let style = font(15);
    let (mut x, mut row) = (20i32, 0i32);
    let mut placed = Vec::with_capacity(legend.len());
    for (label, color) in legend {
        let (w, _) = area.estimate_text_size(label, &style)?;
        let need = 22 + w as i32 + 24;
        if x > 20 && x + need > width as i32 - 20 {
            x = 20;
            row += 1;
        }
        placed.push((x, row, *label, *color));
        x += need;
    }
    let (legend_area, chart) = area.split_vertically((row + 1) * 24 + 8);
    for (x, row, label, color) in placed {
        let y = row * 24 + 12;
        match swatch {
            Swatch::Bar => legend_area.draw(&Rectangle::new(
                [(x, y - 6), (x + 14, y + 6)],
                color.filled(),
            ))?,
            Swatch::Line => legend_area.draw(&PathElement::new(
                vec![(x, y), (x + 16, y)],
                color.stroke_width(3),
            ))?,
            Swatch::Dot => legend_area.draw(&Circle::new((x + 7, y), 6, color.filled()))?,
        }
        legend_area.draw(&Text::new(
            label.to_string(),
            (x + 22, y),
            style.pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(chart)
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, figure: &Figure) -> Drawn<(), DB> {
    match figure {
        Figure::Success {
            title,
            x_desc,
            groups,
            bars,
            marks,
            note,
        } => {
            let legend: Vec<(&str, RGBColor)> = bars.iter().map(Part::legend).collect();
            let area = frame(root, title, note.as_deref(), &legend, Swatch::Bar)?;
            let k = groups.len();
            let mut chart = ChartBuilder::on(&area)
                .margin(12)
                .x_label_area_size(48)
                .y_label_area_size(64)
                // headroom above 100 for the value labels
                .build_cartesian_2d(-0.5f64..k as f64 - 0.5, 0f64..108f64)?;
            // tiers are categories: their labels go under the bar groups, drawn by hand
            // (plotters' key-point axes cannot be formatted)
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(0)
                .y_labels(6)
                .x_desc(x_desc.as_str())
                .y_desc("success rate (%)")
                .y_label_formatter(&|y| format!("{y:.0}"))
                .label_style(font(14))
                .axis_desc_style(font(16))
                .light_line_style(WHITE)
                .bold_line_style(RGBColor(225, 225, 225))
                .draw()?;
            let width = 0.8 / bars.len().max(1) as f64;
            let offset = |j: usize| -0.4 + width * (j as f64 + 0.5);
            for (
                j,
                Part {
                    color,
                    data: values,
                    ..
                },
            ) in bars.iter().enumerate()
            {
                let present: Vec<(f64, Bar)> = values
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| v.map(|b| (i as f64 + offset(j), b)))
                    .collect();
                chart.draw_series(present.iter().map(|&(x, (m, _, _))| {
                    Rectangle::new(
                        [(x - width * 0.42, 0.0), (x + width * 0.42, m)],
                        color.filled(),
                    )
                }))?;
                let cap = width * 0.15;
                chart.draw_series(present.iter().filter(|(_, (_, lo, hi))| hi > lo).flat_map(
                    |&(x, (_, lo, hi))| {
                        let style = BLACK.stroke_width(1);
                        [
                            PathElement::new(vec![(x, lo), (x, hi)], style),
                            PathElement::new(vec![(x - cap, lo), (x + cap, lo)], style),
                            PathElement::new(vec![(x - cap, hi), (x + cap, hi)], style),
                        ]
                    },
                ))?;
                // the value over each bar, so that 0 % reads differently from "not played"
                let above = font(12).pos(Pos::new(HPos::Center, VPos::Bottom));
                chart.draw_series(present.iter().map(|&(x, (m, _, hi))| {
                    Text::new(format!("{m:.0}"), (x, hi.min(100.0)), above.clone())
                }))?;
            }
            // the paper's values: baselines across the group, a run's model over its bar
            for (i, group) in marks.iter().enumerate() {
                for mark in group {
                    let (from, to, style) = match mark.run {
                        None => {
                            let grey = if mark.human {
                                BLACK
                            } else {
                                RGBColor(120, 120, 120)
                            };
                            (i as f64 - 0.45, i as f64 + 0.45, grey.stroke_width(2))
                        }
                        Some(j) => {
                            let x = i as f64 + offset(j);
                            (x - width * 0.5, x + width * 0.5, BLACK.stroke_width(4))
                        }
                    };
                    let dashes = if mark.run.is_some() {
                        1
                    } else if mark.human {
                        8
                    } else {
                        16
                    };
                    let step = (to - from) / dashes as f64;
                    chart.draw_series((0..dashes).filter(|d| d % 2 == 0 || dashes == 1).map(
                        |d| {
                            let a = from + step * d as f64;
                            PathElement::new(vec![(a, mark.value), (a + step, mark.value)], style)
                        },
                    ))?;
                }
            }
            let style = font(14).pos(Pos::new(HPos::Center, VPos::Top));
            for (i, group) in groups.iter().enumerate() {
                let (x, y) = chart.backend_coord(&(i as f64, 0.0));
                root.draw(&Text::new(group.clone(), (x, y + 8), style.clone()))?;
            }
            Ok(())
        }
        Figure::Profile { groups, bars } => {
            let legend: Vec<(&str, RGBColor)> = bars.iter().map(Part::legend).collect();
            let note = "each world's headline metric: 0 = the random baseline, 1 = the oracle (on the scenarios played)";
            let area = frame(
                root,
                "Capability profile across the benchmarks",
                Some(note),
                &legend,
                Swatch::Bar,
            )?;
            let k = groups.len();
            let low = bars
                .iter()
                .flat_map(|b| b.data.iter().flatten())
                .fold(0.0f64, |a, &b| a.min(b))
                .max(-1.0);
            let mut chart = ChartBuilder::on(&area)
                .margin(12)
                .x_label_area_size(48)
                .y_label_area_size(64)
                .build_cartesian_2d(-0.5f64..k as f64 - 0.5, (low - 0.1)..1.15f64)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(0)
                .y_labels(6)
                .x_desc("world (headline metric)")
                .y_desc("normalised score")
                .y_label_formatter(&|y| format!("{y:.1}"))
                .label_style(font(14))
                .axis_desc_style(font(16))
                .light_line_style(WHITE)
                .bold_line_style(RGBColor(225, 225, 225))
                .draw()?;
            for (y, label) in [(0.0, "random"), (1.0, "oracle")] {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(-0.5, y), (k as f64 - 0.5, y)],
                    RGBColor(120, 120, 120).stroke_width(1),
                )))?;
                chart.draw_series(std::iter::once(Text::new(
                    label,
                    (-0.48, y),
                    font(12).pos(Pos::new(HPos::Left, VPos::Bottom)),
                )))?;
            }
            let width = 0.8 / bars.len().max(1) as f64;
            for (j, Part { color, data, .. }) in bars.iter().enumerate() {
                let x0 = -0.4 + width * (j as f64 + 0.5);
                let present: Vec<(f64, f64)> = data
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| v.map(|v| (i as f64 + x0, v)))
                    .collect();
                chart.draw_series(present.iter().map(|&(x, v)| {
                    Rectangle::new(
                        [(x - width * 0.42, 0.0), (x + width * 0.42, v)],
                        color.filled(),
                    )
                }))?;
                let above = font(12).pos(Pos::new(HPos::Center, VPos::Bottom));
                chart.draw_series(
                    present.iter().map(|&(x, v)| {
                        Text::new(format!("{v:.2}"), (x, v.max(0.0)), above.clone())
                    }),
                )?;
            }
            let style = font(14).pos(Pos::new(HPos::Center, VPos::Top));
            for (i, group) in groups.iter().enumerate() {
                let (x, y) = chart.backend_coord(&(i as f64, low - 0.1));
                root.draw(&Text::new(group.clone(), (x, y + 8), style.clone()))?;
            }
            Ok(())
        }
        Figure::Progress {
            title,
            x_desc,
            y_desc,
            first,
            last,
            lines,
        } => {
            let at = |n: usize| *first + n as u32;
            let legend: Vec<(&str, RGBColor)> = lines.iter().map(Part::legend).collect();
            let area = frame(root, title, None, &legend, Swatch::Line)?;
            let mut chart = ChartBuilder::on(&area)
                .margin(12)
                .x_label_area_size(48)
                .y_label_area_size(64)
                .build_cartesian_2d(*first..*last, 0f64..100f64)?;
            chart
                .configure_mesh()
                .y_labels(6)
                .x_desc(*x_desc)
                .y_desc(*y_desc)
                .y_label_formatter(&|y| format!("{y:.0}"))
                .label_style(font(14))
                .axis_desc_style(font(16))
                .light_line_style(WHITE)
                .bold_line_style(RGBColor(225, 225, 225))
                .draw()?;
            for Part {
                color, data: curve, ..
            } in lines
            {
                let upper = curve
                    .iter()
                    .enumerate()
                    .map(|(n, (m, se))| (at(n), (m + se).min(100.0)));
                let lower = curve
                    .iter()
                    .enumerate()
                    .rev()
                    .map(|(n, (m, se))| (at(n), (m - se).max(0.0)));
                chart.draw_series(std::iter::once(Polygon::new(
                    upper.chain(lower).collect::<Vec<_>>(),
                    color.mix(0.18).filled(),
                )))?;
            }
            for Part {
                color, data: curve, ..
            } in lines
            {
                chart.draw_series(LineSeries::new(
                    curve.iter().enumerate().map(|(n, (m, _))| (at(n), *m)),
                    color.stroke_width(2),
                ))?;
            }
            Ok(())
        }
        Figure::ToolCalls {
            title,
            note,
            x_max,
            points,
        } => {
            let legend: Vec<(&str, RGBColor)> = points.iter().map(Part::legend).collect();
            let area = frame(root, title, Some(note), &legend, Swatch::Dot)?;
            let mut chart = ChartBuilder::on(&area)
                .margin(12)
                .x_label_area_size(48)
                .y_label_area_size(64)
                // room below 0 and above 100, so markers there are not cut in half
                .build_cartesian_2d(0f64..(x_max * 1.05).ceil(), -4f64..105f64)?;
            chart
                .configure_mesh()
                .y_labels(6)
                .x_desc("tool calls")
                .y_desc("success / sub-problem resolution (%)")
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_label_formatter(&|y| format!("{y:.0}"))
                .label_style(font(14))
                .axis_desc_style(font(16))
                .light_line_style(WHITE)
                .bold_line_style(RGBColor(225, 225, 225))
                .draw()?;
            for Part { color, data, .. } in points {
                chart.draw_series(
                    data.dots
                        .iter()
                        .map(|&p| Circle::new(p, 3, color.mix(0.55).filled())),
                )?;
            }
            for Part {
                label, color, data, ..
            } in points
            {
                let mean = data.mean;
                chart.draw_series([
                    Circle::new(mean, 9, BLACK.filled()),
                    Circle::new(mean, 7, color.filled()),
                ])?;
                chart.draw_series(std::iter::once(
                    EmptyElement::at(mean) + Text::new(label.clone(), (12, -8), font(14)),
                ))?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn episode(dir: &Path, scenario: &str, steps: &[(u32, f64)]) -> Episode {
        let row: escapade_core::EpisodeRow = serde_json::from_value(serde_json::json!({
            "format_version": 1, "suite": "s@1", "scenario": scenario, "scenario_hash": "h",
            "world": "w", "difficulty": 1, "epoch": 0, "seed": 0, "agent": "a",
            "config_hash": "c", "success": false, "steps": steps.len(), "metrics": {},
            "usage": {"input": 0, "output": 0, "cached": 0, "cost_usd": 0.0, "latency_ms": 0},
            "duration_ms": 0, "error": null
        }))
        .unwrap();
        let path = dir.join(TRAJECTORIES).join(scenario);
        std::fs::create_dir_all(&path).unwrap();
        let mut text: String = steps
            .iter()
            .map(|(step, progress)| format!("{{\"step\":{step},\"progress\":{progress}}}\n"))
            .collect();
        text.push_str("{\"step\":9,\"prog"); // a torn last line is skipped
        std::fs::write(path.join("0.jsonl"), text).unwrap();
        Episode {
            row,
            dir: Some(dir.to_path_buf()),
        }
    }

    #[test]
    fn progress_is_carried_forward_after_an_episode_ends() {
        let tmp = tempfile::tempdir().unwrap();
        let short = episode(tmp.path(), "a", &[(1, 0.5), (2, 1.0)]);
        let long = episode(tmp.path(), "b", &[(1, 0.0), (2, 0.25), (3, 0.5), (4, 0.5)]);
        let series = [Series {
            label: "run",
            color: PALETTE[0],
            episodes: vec![&short, &long],
        }];
        let Some(Figure::Progress { last, lines, .. }) = progress("w", &series) else {
            panic!("a progress figure");
        };
        assert_eq!(last, 4);
        let means: Vec<f64> = lines[0].data.iter().map(|(m, _)| *m).collect();
        assert_eq!(means, [0.0, 25.0, 62.5, 75.0, 75.0]);
        // without trajectories there is nothing to draw
        let bare = Episode {
            dir: None,
            ..short.clone()
        };
        let series = [Series {
            label: "run",
            color: PALETTE[0],
            episodes: vec![&bare],
        }];
        assert!(progress("w", &series).is_none());
    }

    #[test]
    fn the_bundled_font_measures_text() {
        register_font();
        // plotters measures text with the registered font, and fails without one
        let (w, h) = FontDesc::new(FontFamily::Name(FAMILY), 12.0, FontStyle::Normal)
            .box_size("Tool calls")
            .unwrap();
        assert!(w > 40 && h > 5, "{w}×{h}");
    }
}
