//! The paper beside the run: each headline metric and tier of a run next to the paper's
//! own numbers for it, and whether the run reproduces the paper's value.
//!
//! Why: a researcher reads a run against the paper's table. The worlds declare their
//! papers' tables ([`escapade_core::paper::Paper`]); this module picks, for every tier
//! row (and the overall row) of a run, the paper's comparable values of the setting the
//! run played (the suite, the agent and its options: VisEscape's hint suite with the
//! VisEscaper agent is Table 4) and sets them beside the run's mean and its 95 %
//! interval. When the run's model is one the paper evaluated (by the paper's model
//! table, `openai/gpt-4o` → GPT-4o), or the run is a baseline the paper reports (random,
//! human, the oracle's optimum), the report says whether the paper's value lies inside
//! the run's interval and by how much it misses — unless the run departed from the
//! paper's protocol ([`crate::settings::departures`]), which it then names instead of a
//! verdict.

use std::collections::BTreeMap;

use escapade_core::paper::{Paper, PaperValue, RowKind};
use serde::{Deserialize, Serialize};

use crate::report::{Group, Run, RunSet, Stat, WorldSummary, Worlds};

/// One of the paper's numbers shown beside a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// The model or baseline (`GPT-4o`, `Human`).
    pub model: String,
    /// Who that is.
    pub kind: RowKind,
    /// The value, in the run's units (a share for a percentage).
    pub value: f64,
    /// The paper's `±` (standard error or deviation), in the run's units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pm: Option<f64>,
    /// The cell as the paper prints it.
    pub text: String,
    /// Where (`Table 1`).
    pub source: String,
    /// The setting it was measured under.
    pub setting: String,
}

/// Whether a run reproduces the paper's value for its own model or baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The paper's row it is judged against (`GPT-4o`, `Random`).
    pub model: String,
    /// The paper's value.
    pub paper: f64,
    /// Whether the paper's value lies inside the run's 95 % interval; absent when the
    /// run has no interval or departed from the paper's protocol.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inside: Option<bool>,
    /// The run's mean minus the paper's value.
    pub diff: f64,
    /// How far the paper's value lies outside the interval (0 inside it).
    pub miss: f64,
    /// Where the run left the paper's protocol; a verdict is not given then.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub departures: Vec<String>,
    /// The verdict in words (`reproduced`, `not reproduced: 12.3 points below`,
    /// `not the paper's protocol`).
    pub text: String,
}

impl Verdict {
    /// The verdict in a table cell: `inside CI`, how far the run is from the paper's
    /// value when outside (`outside: run +12.3`), `departed`, or `no CI`.
    fn short(&self, metric: &str) -> String {
        let (scale, decimals) = if crate::report::is_percent(metric) {
            (100.0, 1)
        } else {
            (1.0, 2)
        };
        match self.inside {
            _ if !self.departures.is_empty() => "departed".into(),
            Some(true) => "inside CI".into(),
            Some(false) => format!("outside: run {:+.*}", decimals, self.diff * scale),
            None => "no CI".into(),
        }
    }
}

/// One metric of one tier (or the whole suite) of one run, beside the paper.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Beside {
    /// World name.
    pub world: String,
    /// The paper (`AgentEscapeBench`).
    pub paper: String,
    /// Label of the run.
    pub run: String,
    /// The tier; absent for the whole suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<u32>,
    /// How tables name the tier (`all` for the whole suite).
    pub tier: String,
    /// The metric.
    pub metric: String,
    /// The run's mean, standard error, n and 95 % interval.
    pub ours: Stat,
    /// The paper's values for this metric and tier, baselines first.
    pub references: Vec<Reference>,
    /// The verdict against the paper's row for the run's own model or baseline, when the
    /// paper has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
}

/// The paper's row a run is: its model by the paper's model table, or its baseline.
fn who(run: &Run, paper: &Paper) -> Option<(RowKind, Option<String>)> {
    match run.agent.as_str() {
        "random" => Some((RowKind::Random, None)),
        "oracle" => Some((RowKind::Oracle, None)),
        crate::play::HUMAN => Some((RowKind::Human, None)),
        _ => run
            .model
            .as_deref()
            .and_then(|m| paper.model_for(m))
            .map(|name| (RowKind::Model, Some(name.to_string()))),
    }
}

/// Baselines first (people, random, the optimum), then models, each in the paper's
/// order.
fn order(kind: RowKind) -> u8 {
    match kind {
        RowKind::Human => 0,
        RowKind::Random => 1,
        RowKind::Oracle => 2,
        RowKind::Model => 3,
    }
}

/// The verdict of `ours` against the paper's `value` (see the module docs).
fn verdict(ours: &Stat, reference: &Reference, departures: &[String], percent: bool) -> Verdict {
    let scale = if percent { 100.0 } else { 1.0 };
    let unit = if percent { " points" } else { "" };
    let diff = ours.mean - reference.value;
    let base = Verdict {
        model: reference.model.clone(),
        paper: reference.value,
        inside: None,
        diff,
        miss: 0.0,
        departures: departures.to_vec(),
        text: String::new(),
    };
    if !departures.is_empty() {
        return Verdict {
            text: "not the paper's protocol".into(),
            ..base
        };
    }
    let Some(ci) = ours.interval() else {
        return Verdict {
            text: format!("no interval from {} episode(s)", ours.n),
            ..base
        };
    };
    if ci.contains(reference.value) {
        return Verdict {
            inside: Some(true),
            text: "reproduced (inside the 95% CI)".into(),
            ..base
        };
    }
    let (miss, side) = if reference.value > ci.hi {
        (reference.value - ci.hi, "below")
    } else {
        (ci.lo - reference.value, "above")
    };
    Verdict {
        inside: Some(false),
        miss,
        text: format!(
            "not reproduced: the run is {:.1}{unit} {side} (CI misses it by {:.1})",
            diff.abs() * scale,
            miss * scale
        ),
        ..base
    }
}

/// The paper beside every run of `set`: for each world with a paper, each run's tier
/// rows and overall row, for each of the world's key metrics (every metric when it
/// declares none) that the paper gives at that tier.
pub fn beside(
    set: &RunSet,
    worlds: Worlds<'_>,
    groups: &[Group],
    overall: &indexmap::IndexMap<String, WorldSummary>,
) -> Vec<Beside> {
    let mut out = Vec::new();
    let mut papers: BTreeMap<&str, Option<(Paper, Vec<String>)>> = BTreeMap::new();
    for run in &set.runs {
        let run_worlds: std::collections::BTreeSet<&str> =
            run.episodes.iter().map(|e| e.row.world.as_str()).collect();
        for world in run_worlds {
            let entry = papers.entry(world).or_insert_with(|| {
                let w = worlds.iter().find(|w| w.name() == world)?;
                let keys = crate::report::key_metrics_of(*w);
                w.paper().map(|p| (p, keys))
            });
            let Some((paper, keys)) = entry else { continue };
            let values = paper.values_for(&run.traits());
            if values.is_empty() {
                continue;
            }
            let me = who(run, paper);
            let rows = groups
                .iter()
                .filter(|g| g.world == world && g.run == run.label)
                .map(|g| (Some(g.difficulty), g.label.clone(), &g.metrics))
                .chain(
                    overall
                        .values()
                        .filter(|s| s.world == world && s.run == run.label)
                        .map(|s| (None, "all".to_string(), &s.metrics)),
                );
            for (difficulty, tier, metrics) in rows {
                let names: Vec<&String> = if keys.is_empty() {
                    metrics.keys().collect()
                } else {
                    keys.iter().filter(|k| metrics.contains_key(*k)).collect()
                };
                for name in names {
                    let mut references: Vec<Reference> = values
                        .iter()
                        .filter(|v| &v.metric == name && v.tier == difficulty)
                        .filter_map(reference)
                        .collect();
                    if references.is_empty() {
                        continue;
                    }
                    references.sort_by_key(|r| order(r.kind));
                    let ours = metrics[name];
                    let percent = paper.metric(name).is_some_and(|m| m.percent);
                    let mine = me.as_ref().and_then(|(kind, model)| {
                        references.iter().find(|r| {
                            r.kind == *kind
                                && (model.is_none() || model.as_deref() == Some(r.model.as_str()))
                        })
                    });
                    let verdict = mine.map(|r| verdict(&ours, r, &run.departures, percent));
                    out.push(Beside {
                        world: world.to_string(),
                        paper: paper.name.clone(),
                        run: run.label.clone(),
                        difficulty,
                        tier: tier.clone(),
                        metric: name.clone(),
                        ours,
                        references,
                        verdict,
                    });
                }
            }
        }
    }
    out
}

fn reference(v: &PaperValue) -> Option<Reference> {
    Some(Reference {
        model: v.model.clone(),
        kind: v.kind,
        value: v.value?,
        pm: v.pm,
        text: v.text.clone(),
        source: v.source.clone(),
        setting: v.setting.clone(),
    })
}

/// The best model's reference (highest, or lowest for a metric where lower is better).
/// The first of equals wins (the paper's order).
pub fn best(references: &[Reference], lower_is_better: bool) -> Option<&Reference> {
    references.iter().filter(|r| r.kind == RowKind::Model).fold(
        None,
        |best: Option<&Reference>, r| match best {
            Some(b) if (r.value < b.value) != lower_is_better || r.value == b.value => Some(b),
            _ => Some(r),
        },
    )
}

/// A value in a metric's display units: ×100 with one decimal for a percentage, else two
/// decimals (as the report's tables show it).
fn show(metric: &str, x: f64) -> String {
    if crate::report::is_percent(metric) {
        format!("{:.1}", x * 100.0)
    } else {
        format!("{x:.2}")
    }
}

/// A reference as `value` (`± pm` when the paper gives one).
fn show_ref(metric: &str, r: &Reference) -> String {
    match r.pm {
        Some(pm) => format!("{} ± {}", show(metric, r.value), show(metric, pm)),
        None => show(metric, r.value),
    }
}

/// The Markdown table of one world's rows beside its paper (empty when there are none),
/// and a note per run that departed from the protocol. Metrics go by their key (the
/// report's "Metrics" list names them), so the table fits a terminal.
pub fn markdown(rows: &[&Beside], paper: Option<&Paper>, several: bool) -> String {
    let Some(first) = rows.first() else {
        return String::new();
    };
    // tier by tier (the whole suite last), runs side by side within a tier
    let mut rows = rows.to_vec();
    rows.sort_by_key(|b| b.difficulty.map_or(u64::MAX, u64::from));
    let kinds = |k: RowKind| {
        rows.iter()
            .any(|b| b.references.iter().any(|r| r.kind == k))
    };
    let extra: Vec<(RowKind, &str)> = [
        (RowKind::Human, "human"),
        (RowKind::Random, "random"),
        (RowKind::Oracle, "optimum"),
    ]
    .into_iter()
    .filter(|(k, _)| kinds(*k))
    .collect();
    let escape = |s: &str| s.replace('|', "\\|");
    let mut out = format!(
        "\n### {} beside the paper ({})\n\n| tier | metric |",
        first.world, first.paper
    );
    let mut rule = String::from("|:---|:---|");
    if several {
        out.push_str(" run |");
        rule.push_str(":---|");
    }
    out.push_str(" run [95% CI] | paper, same model | verdict |");
    rule.push_str("---:|---:|:---|");
    for (_, name) in &extra {
        out.push_str(&format!(" {name} |"));
        rule.push_str("---:|");
    }
    out.push_str(" best model in paper | n |\n");
    rule.push_str(":---|---:|\n");
    out.push_str(&rule);
    for b in &rows {
        let percent = crate::report::is_percent(&b.metric);
        let unit = if percent { " (%)" } else { "" };
        let (scale, decimals) = if percent { (100.0, 1) } else { (1.0, 2) };
        // the paper's name for the metric (`Success rate (SR)`), its key otherwise
        let name = paper
            .and_then(|p| p.metric(&b.metric))
            .map_or(b.metric.as_str(), |m| m.name.as_str());
        out.push_str(&format!("| {} | {}{unit} |", escape(&b.tier), escape(name)));
        if several {
            out.push_str(&format!(" {} |", escape(&b.run)));
        }
        out.push_str(&format!(" {} |", b.ours.show_interval(scale, decimals)));
        match &b.verdict {
            Some(v) => {
                let mine = b
                    .references
                    .iter()
                    .find(|r| r.model == v.model)
                    .map_or_else(String::new, |r| show_ref(&b.metric, r));
                out.push_str(&format!(
                    " {} {mine} | {} |",
                    escape(&v.model),
                    v.short(&b.metric)
                ));
            }
            None => out.push_str(" – | – |"),
        }
        for (kind, _) in &extra {
            let cell = b
                .references
                .iter()
                .find(|r| r.kind == *kind)
                .map_or_else(|| "–".to_string(), |r| show_ref(&b.metric, r));
            out.push_str(&format!(" {cell} |"));
        }
        let lower = paper
            .and_then(|p| p.metric(&b.metric))
            .is_some_and(|m| m.lower_is_better);
        match best(&b.references, lower) {
            Some(r) => out.push_str(&format!(
                " {} {} |",
                escape(&r.model),
                show_ref(&b.metric, r)
            )),
            None => out.push_str(" – |"),
        }
        out.push_str(&format!(" {} |\n", b.ours.n));
    }
    let mut departed: Vec<(&str, &[String])> = Vec::new();
    for b in &rows {
        if let Some(v) = &b.verdict
            && !v.departures.is_empty()
            && !departed.iter().any(|(r, _)| *r == b.run)
        {
            departed.push((&b.run, &v.departures));
        }
    }
    for (run, d) in departed {
        out.push_str(&format!(
            "\n{} departed from the paper's protocol ({}), so no verdict is given.\n",
            escape(run),
            d.join(", ")
        ));
    }
    out
}

/// A column's heading in `escapade paper`: its metric, tier, group, model and setting
/// (when not the table's), as far as the column sets them.
fn heading(table: &escapade_core::paper::Table, column: &escapade_core::paper::Fields) -> String {
    let d = &table.defaults;
    let mut parts = Vec::new();
    if let Some(m) = column.metric.as_ref().or(d.metric.as_ref()) {
        parts.push(m.clone());
    }
    if let Some(t) = column.tier.or(d.tier) {
        parts.push(format!("tier {t}"));
    }
    if let Some(g) = column.group.as_ref().or(d.group.as_ref()) {
        parts.push(g.clone());
    }
    if let Some(m) = &column.model {
        parts.push(m.clone());
    }
    if let Some(s) = column.setting.as_ref().filter(|s| **s != table.setting) {
        parts.push(format!("[{s}]"));
    }
    if column.derived {
        parts.push("derived".into());
    }
    if parts.is_empty() {
        "all".into()
    } else {
        parts.join(", ")
    }
}

/// A paper's tables as escapade holds them (`escapade paper <world>`): the settings, the
/// metrics, the model table, then each table with its cells as printed.
pub fn paper_markdown(paper: &Paper) -> String {
    let escape = |s: &str| s.replace('|', "\\|");
    let mut out = format!(
        "# {} (papers/{})\n\nThe capability profile reads `{}`.\n\n## Settings\n\n",
        paper.name, paper.file, paper.headline
    );
    for s in &paper.settings {
        out.push_str(&format!(
            "- `{}`: {} (suites: {})\n",
            s.key,
            s.description,
            s.suites.join(", ")
        ));
    }
    out.push_str("\n## Metrics\n\n");
    for m in &paper.metrics {
        let unit = if m.percent { ", printed in %" } else { "" };
        let better = if m.lower_is_better {
            ", lower is better"
        } else {
            ""
        };
        out.push_str(&format!(
            "- `{}`: {}: {} ({}{unit}{better})\n",
            m.key, m.name, m.definition, m.section
        ));
    }
    out.push_str(&models_markdown(paper));
    for t in &paper.tables {
        out.push_str(&format!(
            "\n## {}: {} (setting `{}`)\n\n| row |",
            t.source,
            escape(&t.title),
            t.setting
        ));
        for c in &t.columns {
            out.push_str(&format!(" {} |", escape(&heading(t, c))));
        }
        out.push_str("\n|:---|");
        out.push_str(&"---:|".repeat(t.columns.len()));
        out.push('\n');
        for r in &t.rows {
            let mut label = escape(&r.label);
            let mut notes: Vec<String> = Vec::new();
            if let Some(m) = r.fields.model.as_ref().filter(|m| **m != r.label) {
                notes.push(m.clone());
            }
            if r.kind != RowKind::Model {
                notes.push(format!("{:?}", r.kind).to_lowercase());
            }
            for x in [
                &r.fields.metric,
                &r.fields.group,
                &r.fields.setting,
                &r.setting_suffix,
            ]
            .into_iter()
            .flatten()
            {
                notes.push(x.clone());
            }
            if !notes.is_empty() {
                label.push_str(&format!(" ({})", escape(&notes.join(", "))));
            }
            out.push_str(&format!("| {label} |"));
            for c in &r.cells {
                out.push_str(&format!(" {} |", c.as_deref().unwrap_or("")));
            }
            out.push('\n');
            if let Some(q) = &r.quote {
                out.push_str(&format!("\nQuoted: \"{}\"\n\n", escape(q)));
            }
        }
    }
    out
}

/// The paper's model names and the backend model ids that are them, as a Markdown table
/// (`docs/papers.md` holds each world's).
pub fn models_markdown(paper: &Paper) -> String {
    let mut out = format!(
        "\n## Models of {}\n\n| in the paper | backend model ids (`provider/` and organisation left out, `*`: any ending) |\n|:---|:---|\n",
        paper.name
    );
    for m in &paper.models {
        let ids: Vec<String> = m.ids.iter().map(|i| format!("`{i}`")).collect();
        out.push_str(&format!("| {} | {} |\n", m.name, ids.join(", ")));
    }
    out
}
