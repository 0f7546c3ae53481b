//! A paper's results tables, as data a world declares ([`crate::World::paper`]).
//!
//! Why data: a researcher's first question is how a run compares with the paper's own
//! numbers. Each world ships its paper's tables (a JSON file in its crate, checked
//! against the paper's text by a test that finds every number in it), and the report
//! reads them through the contract without knowing any world by name: it sets the
//! paper's rows beside a run's, says whether a run of a model the paper evaluated
//! reproduces its value, and draws them as reference lines. `escapade paper <world>`
//! prints them as held here.
//!
//! A [`Paper`] is written as the paper prints it: each [`Table`] has columns (a metric,
//! a tier, a group such as a puzzle or a room) and rows (a model, the human or random
//! baseline), and each cell is the text printed (`98.3`, `64 ± 4.7`, `-` for a value the
//! paper marks missing, `null` for a column the row does not print). A column or a row
//! may set any of metric, tier, group and setting, so that transposed tables (a row per
//! metric) are written as printed too. [`Paper::values`] flattens the tables into one
//! [`PaperValue`] per number, in the run's units (a percentage as a share).
//!
//! Settings say which runs a table describes ([`Setting`]: the suite, the agent kind
//! and its options, the world options), so a run of VisEscape's hint suite with the
//! VisEscaper agent is set beside Table 4, not Table 2. Models are matched by a
//! documented table of backend ids ([`ModelAlias`]: `openai/gpt-4o` is GPT-4o).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::CoreError;

/// One paper's results, as a world declares them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Paper {
    /// The benchmark's name (`AgentEscapeBench`).
    pub name: String,
    /// The file of the paper's text under the project's `papers/` folder
    /// (`agentescapebench.md`), which the tests read every number from.
    pub file: String,
    /// The metric a capability profile reads for this world (`success`, COMMA's `psr`).
    pub headline: String,
    /// The metrics the tables use: names, definitions and sections.
    pub metrics: Vec<MetricInfo>,
    /// How the paper's model names map to backend model ids.
    #[serde(default)]
    pub models: Vec<ModelAlias>,
    /// The settings the tables were measured under.
    pub settings: Vec<Setting>,
    /// The tables, in the paper's order.
    pub tables: Vec<Table>,
}

/// A metric, for people: what it is called, what it measures, where it is defined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricInfo {
    /// Its key in episode rows and reports (`success`, `sub_problem_resolution`).
    pub key: String,
    /// Its human-readable name (`Success rate (SR)`).
    pub name: String,
    /// One line saying what it measures.
    pub definition: String,
    /// Where the paper defines it (`§3.2, Table 1`).
    pub section: String,
    /// Whether the paper prints it as a percentage (the run's value is a share).
    #[serde(default)]
    pub percent: bool,
    /// Whether lower values are better (steps, mistakes).
    #[serde(default)]
    pub lower_is_better: bool,
}

/// A model as the paper names it, and the backend ids that are that model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelAlias {
    /// The name as the tables print it (`GPT-4o`, `Claude 3.5 Sonnet`).
    pub name: String,
    /// Backend model ids, without the provider or organisation (`gpt-4o`,
    /// `llama-3.2-11b-vision-instruct`); a trailing `*` matches any ending
    /// (`gpt-4o-2024-*`). Matched without case against the last `/`-part of a run's
    /// model.
    pub ids: Vec<String>,
}

impl ModelAlias {
    /// Whether a run's model (`openai/gpt-4o`, or a bare id) is this model.
    pub fn matches(&self, run_model: &str) -> bool {
        // the last part of `provider/org/model`, so a hub path names the same model
        let id = run_model
            .rsplit('/')
            .next()
            .unwrap_or(run_model)
            .trim()
            .to_ascii_lowercase();
        self.ids.iter().any(|pattern| {
            let pattern = pattern.to_ascii_lowercase();
            match pattern.strip_suffix('*') {
                Some(prefix) => id.starts_with(prefix),
                None => id == pattern,
            }
        })
    }
}

/// The conditions under which a table's numbers were measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Setting {
    /// Its key, named by tables and columns (`base`, `visescaper-hints`).
    pub key: String,
    /// What it is, in a few words (`BaseAgent, no hints (§4)`).
    pub description: String,
    /// Suite names without their version (`visescape-hints`) whose runs it describes.
    pub suites: Vec<String>,
    /// The agents it describes (any agent when empty); a run matches when one matches.
    #[serde(default)]
    pub agents: Vec<AgentMatch>,
    /// World options a run must have: key → allowed values separated by `|`, where an
    /// empty alternative allows the option to be unset (`"bootstrap": "on|"`).
    #[serde(default)]
    pub world_options: BTreeMap<String, String>,
}

/// An agent kind and the option values that make it the paper's agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentMatch {
    /// The agent kind (`visescaper`).
    pub agent: String,
    /// Option key → allowed values separated by `|`; an empty alternative allows the
    /// option to be unset (`"memory": "on|"`).
    #[serde(default)]
    pub options: BTreeMap<String, String>,
}

/// Whether `value` (or its absence) is one of `allowed` (`on|off|`).
fn allowed(allowed: &str, value: Option<&String>) -> bool {
    allowed
        .split('|')
        .any(|a| value.map_or(a.is_empty(), |v| v.trim() == a))
}

/// What a run is, for matching it with a paper's settings.
#[derive(Debug, Clone, Copy)]
pub struct RunTraits<'a> {
    /// The suite name with its version (`visescape@3`), or `file:…` / `dir:…`.
    pub suite: &'a str,
    /// The agent kind (`llm`, `visescaper`, `random`).
    pub agent: &'a str,
    /// The agent's options.
    pub agent_options: &'a BTreeMap<String, String>,
    /// The world options (`-W`).
    pub world_options: &'a BTreeMap<String, String>,
}

impl Setting {
    /// Whether the run's suite and world options are this setting's (the task is the
    /// same, whatever agent played it).
    pub fn same_task(&self, run: &RunTraits<'_>) -> bool {
        let suite = run.suite.split_once('@').map_or(run.suite, |(s, _)| s);
        self.suites.iter().any(|s| s == suite)
            && self
                .world_options
                .iter()
                .all(|(k, v)| allowed(v, run.world_options.get(k)))
    }

    /// Whether the run's agent is one this setting describes.
    pub fn same_agent(&self, run: &RunTraits<'_>) -> bool {
        self.agents.is_empty()
            || self.agents.iter().any(|a| {
                a.agent == run.agent
                    && a.options
                        .iter()
                        .all(|(k, v)| allowed(v, run.agent_options.get(k)))
            })
    }

    /// The same task played by an agent this setting describes.
    pub fn matches(&self, run: &RunTraits<'_>) -> bool {
        self.same_task(run) && self.same_agent(run)
    }
}

/// Who a row of a table is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowKind {
    /// A model the paper evaluated.
    #[default]
    Model,
    /// People playing under the same conditions.
    Human,
    /// The random baseline.
    Random,
    /// The optimum (the fewest tool calls a room needs, an oracle's score).
    Oracle,
}

/// One table (or figure, where the text quotes its values) of the paper.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Where it is (`Table 1`, `Figure 3 (values quoted in §4.1)`).
    pub source: String,
    /// What it shows, in a few words.
    pub title: String,
    /// The setting of its numbers (a [`Setting::key`]); a column may override it.
    pub setting: String,
    /// Fields every value of the table shares unless a column or row sets them.
    #[serde(default)]
    pub defaults: Fields,
    /// The columns, in order.
    pub columns: Vec<Fields>,
    /// The rows, in order.
    pub rows: Vec<Row>,
}

/// The fields a table, a column or a row can set for its values (a row's win over a
/// column's, a column's over the table's defaults).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Fields {
    /// The model or baseline (a [`ModelAlias::name`], `Human`); a row without one is
    /// named by its label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The metric ([`MetricInfo::key`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// The tier (the run's `difficulty`); absent: over the whole suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<u32>,
    /// A finer cut than the tier (a room, a scene, a variant, a capability): values with
    /// a group are shown, never compared with a run's tier or overall row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The setting, when it is not the table's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setting: Option<String>,
    /// A value the paper derives from others (a drop, an average over tiers, a
    /// difference): shown, never compared.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub derived: bool,
}

impl Fields {
    /// `self`'s fields, each falling back to `under`'s.
    fn over(&self, under: &Fields) -> Fields {
        Fields {
            model: self.model.clone().or_else(|| under.model.clone()),
            metric: self.metric.clone().or_else(|| under.metric.clone()),
            tier: self.tier.or(under.tier),
            group: self.group.clone().or_else(|| under.group.clone()),
            setting: self.setting.clone().or_else(|| under.setting.clone()),
            derived: self.derived || under.derived,
        }
    }
}

/// One printed row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// What the row starts with in the paper (`Claude-Opus-4.6`, `Steps`): the test finds
    /// the cells after it.
    pub label: String,
    /// Who the row is.
    #[serde(default)]
    pub kind: RowKind,
    /// Fields the row sets for all its cells (its model, when not its label).
    #[serde(default, flatten)]
    pub fields: Fields,
    /// Appended to each cell's setting key: a row measured like its columns but in a
    /// variant of their setting (VisEscape Table 7's caption rows: `-captions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setting_suffix: Option<String>,
    /// The cells, one per column: the text printed (`98.3`, `64 ± 4.7`, `-`), or `null`
    /// where the row prints nothing.
    pub cells: Vec<Option<String>>,
    /// For values quoted in running text rather than a table row: the sentence fragment
    /// that holds them, which the paper must contain word for word.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
}

/// One number of a paper, flattened out of its table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaperValue {
    /// Where it is (`Table 1`).
    pub source: String,
    /// The setting it was measured under ([`Setting::key`]).
    pub setting: String,
    /// The model or baseline (`GPT-4o`, `Human`).
    pub model: String,
    /// Who that is.
    pub kind: RowKind,
    /// The metric.
    pub metric: String,
    /// The tier; absent: over the whole suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<u32>,
    /// A finer cut (a room, a puzzle variant), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Whether the paper derives it from others (never compared with a run).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub derived: bool,
    /// The value in the run's units (a percentage as a share); `None` for a cell the
    /// paper marks `-`.
    pub value: Option<f64>,
    /// The `±` the paper gives with it (its standard error or deviation), in the run's
    /// units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pm: Option<f64>,
    /// The cell as printed (`64 ± 4.7`).
    pub text: String,
}

impl PaperValue {
    /// Whether the value can stand beside a run's row: a measured number, not derived,
    /// and not for a finer cut than a tier.
    pub fn comparable(&self) -> bool {
        self.value.is_some() && !self.derived && self.group.is_none()
    }
}

/// A cell's number and its `±`, as printed; `None` for `-`.
fn parse_cell(text: &str) -> Result<Option<(f64, Option<f64>)>, String> {
    let t = text.trim();
    if t == "-" {
        return Ok(None);
    }
    let number = |s: &str| {
        s.trim()
            .parse::<f64>()
            .map_err(|_| format!("cell `{text}` is not a number, `x ± y` or `-`"))
    };
    match t.split_once('±') {
        Some((v, pm)) => Ok(Some((number(v)?, Some(number(pm)?)))),
        None => Ok(Some((number(t)?, None))),
    }
}

impl Paper {
    /// A world's paper read once from the JSON its crate embeds (`include_str!`), for
    /// [`crate::World::paper`].
    ///
    /// # Panics
    /// When the JSON is not a consistent paper: it is the crate's own file, which its
    /// tests read.
    pub fn embedded(once: &'static std::sync::OnceLock<Paper>, json: &'static str) -> Paper {
        once.get_or_init(|| {
            Paper::from_json(json).expect("the paper's tables are consistent (tests/paper.rs)")
        })
        .clone()
    }

    /// Reads a paper from its JSON and checks it: every row has one cell per column,
    /// every cell is a number, `x ± y` or `-`, every value has a model and a metric the
    /// paper defines, and every setting named exists.
    pub fn from_json(json: &str) -> Result<Paper, CoreError> {
        let paper: Paper = serde_json::from_str(json)
            .map_err(|e| CoreError::world(format!("paper tables: {e}")))?;
        paper.values()?;
        Ok(paper)
    }

    /// The metric's description, when the paper defines it.
    pub fn metric(&self, key: &str) -> Option<&MetricInfo> {
        self.metrics.iter().find(|m| m.key == key)
    }

    /// The setting named `key`.
    pub fn setting(&self, key: &str) -> Option<&Setting> {
        self.settings.iter().find(|s| s.key == key)
    }

    /// The paper's name for a run's model (`openai/gpt-4o` → `GPT-4o`), if it evaluated
    /// it.
    pub fn model_for(&self, run_model: &str) -> Option<&str> {
        self.models
            .iter()
            .find(|m| m.matches(run_model))
            .map(|m| m.name.as_str())
    }

    /// Every number of every table, in table, row and column order.
    pub fn values(&self) -> Result<Vec<PaperValue>, CoreError> {
        let bad = |table: &Table, what: String| {
            CoreError::world(format!("{} {}: {what}", self.name, table.source))
        };
        let mut out = Vec::new();
        for table in &self.tables {
            for row in &table.rows {
                if row.cells.len() != table.columns.len() {
                    return Err(bad(
                        table,
                        format!(
                            "row `{}` has {} cells for {} columns",
                            row.label,
                            row.cells.len(),
                            table.columns.len()
                        ),
                    ));
                }
                for (column, cell) in table.columns.iter().zip(&row.cells) {
                    let Some(text) = cell else { continue };
                    let f = row.fields.over(&column.over(&table.defaults));
                    let metric = f.metric.ok_or_else(|| {
                        bad(
                            table,
                            format!("row `{}`: a cell without a metric", row.label),
                        )
                    })?;
                    let info = self.metric(&metric).ok_or_else(|| {
                        bad(table, format!("metric `{metric}` is not among the paper's"))
                    })?;
                    let mut setting = f.setting.unwrap_or_else(|| table.setting.clone());
                    if let Some(suffix) = &row.setting_suffix {
                        setting.push_str(suffix);
                    }
                    if self.setting(&setting).is_none() {
                        return Err(bad(table, format!("no setting `{setting}`")));
                    }
                    let parsed = parse_cell(text)
                        .map_err(|e| bad(table, format!("row `{}`: {e}", row.label)))?;
                    let scale = if info.percent { 0.01 } else { 1.0 };
                    out.push(PaperValue {
                        source: table.source.clone(),
                        setting,
                        model: f.model.unwrap_or_else(|| row.label.clone()),
                        kind: row.kind,
                        metric,
                        tier: f.tier,
                        group: f.group,
                        derived: f.derived,
                        value: parsed.map(|(v, _)| v * scale),
                        pm: parsed.and_then(|(_, pm)| pm).map(|pm| pm * scale),
                        text: text.trim().to_string(),
                    });
                }
            }
        }
        Ok(out)
    }

    /// The paper's comparable values for a run: those of the settings whose task is the
    /// run's and that name its agent, else those of its task that take any agent, else
    /// (a baseline, say) the first setting of its task. Empty when no
    /// setting has the run's task.
    pub fn values_for(&self, run: &RunTraits<'_>) -> Vec<PaperValue> {
        let task: Vec<&Setting> = self.settings.iter().filter(|s| s.same_task(run)).collect();
        // a setting that names the run's agent beats one that takes any agent
        let named: Vec<&Setting> = task
            .iter()
            .copied()
            .filter(|s| !s.agents.is_empty() && s.same_agent(run))
            .collect();
        let agent: Vec<&Setting> = match named.is_empty() {
            false => named,
            true => task
                .iter()
                .copied()
                .filter(|s| s.agents.is_empty())
                .collect(),
        };
        let chosen: Vec<&str> = match (agent.is_empty(), task.first()) {
            (false, _) => agent.iter().map(|s| s.key.as_str()).collect(),
            (true, Some(first)) => vec![first.key.as_str()],
            (true, None) => return Vec::new(),
        };
        let mut seen = std::collections::BTreeSet::new();
        self.values()
            .unwrap_or_default()
            .into_iter()
            .filter(|v| v.comparable() && chosen.contains(&v.setting.as_str()))
            // the first table that gives a (setting, model, metric, tier) wins: a later
            // table repeating it (an ablation's baseline row) adds nothing
            .filter(|v| seen.insert((v.setting.clone(), v.model.clone(), v.metric.clone(), v.tier)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAPER: &str = r#"{
      "name": "Lamps", "file": "lamps.md", "headline": "success",
      "metrics": [
        {"key": "success", "name": "Success rate", "definition": "lit rooms", "section": "§2", "percent": true},
        {"key": "steps", "name": "Steps", "definition": "actions", "section": "§2", "lower_is_better": true}
      ],
      "models": [{"name": "GPT-4o", "ids": ["gpt-4o", "gpt-4o-2024-*"]}],
      "settings": [
        {"key": "plain", "description": "no hints", "suites": ["lamps"]},
        {"key": "hints", "description": "hints", "suites": ["lamps"],
         "agents": [{"agent": "helper", "options": {"hints": "on|"}}]}
      ],
      "tables": [
        {"source": "Table 1", "title": "main", "setting": "plain",
         "columns": [{"metric": "success", "tier": 1}, {"metric": "steps", "tier": 1},
                     {"metric": "success", "derived": true}],
         "rows": [
           {"label": "Human", "kind": "human", "cells": ["98.3", "5", null]},
           {"label": "GPT-4o", "cells": ["64 ± 4.7", "-", "12.0"]}
         ]},
        {"source": "Table 2", "title": "hints", "setting": "hints",
         "columns": [{"metric": "success", "tier": 1}],
         "rows": [{"label": "GPT-4o", "cells": ["90.0"]}]}
      ]
    }"#;

    fn traits<'a>(
        suite: &'a str,
        agent: &'a str,
        options: &'a BTreeMap<String, String>,
    ) -> RunTraits<'a> {
        RunTraits {
            suite,
            agent,
            agent_options: options,
            world_options: options,
        }
    }

    #[test]
    fn tables_flatten_to_values_in_the_runs_units() {
        let paper = Paper::from_json(PAPER).unwrap();
        let values = paper.values().unwrap();
        assert_eq!(values.len(), 6);
        let gpt = &values[2];
        assert_eq!((gpt.model.as_str(), gpt.tier), ("GPT-4o", Some(1)));
        assert!((gpt.value.unwrap() - 0.64).abs() < 1e-12);
        assert!((gpt.pm.unwrap() - 0.047).abs() < 1e-12);
        assert_eq!(values[3].value, None, "a dash is no value");
        assert!(values[4].derived && !values[4].comparable());
        assert_eq!(values[1].value, Some(5.0), "steps are not a percentage");
        assert_eq!(values[0].kind, RowKind::Human);
    }

    #[test]
    fn models_match_backend_ids_without_provider_or_case() {
        let paper = Paper::from_json(PAPER).unwrap();
        assert_eq!(paper.model_for("openai/gpt-4o"), Some("GPT-4o"));
        assert_eq!(paper.model_for("openai/GPT-4o-2024-08-06"), Some("GPT-4o"));
        assert_eq!(paper.model_for("gpt-4o"), Some("GPT-4o"));
        assert_eq!(paper.model_for("openai/gpt-4o-mini"), None);
    }

    #[test]
    fn runs_get_the_values_of_their_setting() {
        let paper = Paper::from_json(PAPER).unwrap();
        let none = BTreeMap::new();
        // a plain agent: Table 1's comparable values
        let plain = paper.values_for(&traits("lamps@2", "llm", &none));
        assert!(plain.iter().all(|v| v.setting == "plain"));
        assert_eq!(plain.len(), 3, "{plain:?}");
        // the hint agent: Table 2
        let hints = paper.values_for(&traits("lamps@2", "helper", &none));
        assert_eq!(hints.len(), 1);
        assert_eq!(hints[0].source, "Table 2");
        let off = BTreeMap::from([("hints".to_string(), "off".to_string())]);
        assert_eq!(
            paper.values_for(&traits("lamps@2", "helper", &off))[0].source,
            "Table 1"
        );
        // another suite: nothing
        assert!(
            paper
                .values_for(&traits("other@1", "llm", &none))
                .is_empty()
        );
    }

    #[test]
    fn inconsistent_tables_are_refused_with_a_reason() {
        let short = PAPER.replace(r#"["98.3", "5", null]"#, r#"["98.3", "5"]"#);
        let e = Paper::from_json(&short).unwrap_err().to_string();
        assert!(e.contains("2 cells for 3 columns"), "{e}");
        let word = PAPER.replace(r#""98.3""#, r#""n/a""#);
        let e = Paper::from_json(&word).unwrap_err().to_string();
        assert!(e.contains("not a number"), "{e}");
        let metric = PAPER.replace(r#"{"metric": "steps", "tier": 1}"#, r#"{"metric": "gc"}"#);
        let e = Paper::from_json(&metric).unwrap_err().to_string();
        assert!(e.contains("metric `gc`"), "{e}");
        let setting = PAPER.replace(r#""setting": "hints","#, r#""setting": "nope","#);
        assert!(Paper::from_json(&setting).is_err());
    }
}
