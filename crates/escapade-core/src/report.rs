//! What a world adds to its report beyond the table per tier.
//!
//! Papers cut their results in their own ways: COMMA names its tiers by puzzle, groups
//! them by the capability they test (§3.2) and draws success against the number of
//! turns allowed (Fig. 4); MM-Escape splits each difficulty by whether the exit was in
//! view at the start (Fig. 4). A world declares these cuts as data (through
//! [`crate::World`]), so the runner's report draws them without knowing any world by
//! name, and a fifth benchmark gets its own tables by declaring them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// How tables name a tier: the tier's number and the mean metrics of its episodes in a
/// report's row (empty elsewhere, as in `escapade list`) give its label (`1 (wire)`,
/// `12 (D1+D2, bootstrapped)`).
pub type TierLabel = fn(u32, &BTreeMap<String, f64>) -> String;

/// Everything a world adds to the report of its runs ([`crate::World::report`]): how
/// its tiers are named, its paper's own cuts of the results, its turn curve, and the
/// metrics the terminal shows. The default names tiers by number, adds nothing and
/// shows every metric.
#[derive(Debug, Clone)]
pub struct ReportSpec {
    /// How tables name a tier (by default the number).
    pub tier_label: TierLabel,
    /// The paper's own cuts of the results (COMMA's capabilities, MM-Escape's
    /// exit-in-view split), each drawn as a table and a plot.
    pub breakdowns: Vec<Breakdown>,
    /// Success against the turns allowed (COMMA Fig. 4); `None` for worlds whose paper
    /// has no such figure.
    pub turn_curve: Option<TurnCurve>,
    /// The metrics the terminal report shows, in order: the paper's headline columns
    /// (`escapade report --wide`, `report.md`, CSV and JSON keep all). Empty: every
    /// metric, cut to the terminal's width.
    pub key_metrics: &'static [&'static str],
}

impl Default for ReportSpec {
    fn default() -> Self {
        ReportSpec {
            tier_label: |difficulty, _| difficulty.to_string(),
            breakdowns: Vec::new(),
            turn_curve: None,
            key_metrics: &[],
        }
    }
}

impl ReportSpec {
    /// The label of tier `difficulty` (see [`TierLabel`]).
    pub fn tier(&self, difficulty: u32, means: &BTreeMap<String, f64>) -> String {
        (self.tier_label)(difficulty, means)
    }
}

/// A table of the report that groups a world's episodes in a way of its paper's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Breakdown {
    /// Its key in the JSON report and in plot file names (`capabilities`, `exit_view`).
    pub name: String,
    /// Its heading, with the paper's reference (`per capability (COMMA §3.2)`).
    pub title: String,
    /// The heading of the column that names a group (`capability`, `exit in view`).
    pub column: String,
    /// How episodes fall into groups.
    pub by: Grouping,
    /// Whether each group is also split by tier (a row per tier and group).
    pub per_tier: bool,
    /// The metrics each group shows, in column order.
    pub metrics: Vec<String>,
}

/// How a [`Breakdown`] puts episodes into groups.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grouping {
    /// By the value of one of the episode's metrics: `(value, label)` pairs; an episode
    /// without the metric, or with another value, is in no group.
    Metric {
        /// The metric (`exit_visible_at_start`).
        metric: String,
        /// Each value that makes a group, and the group's label (`(1.0, "yes")`).
        values: Vec<(f64, String)>,
    },
    /// By tier: each group's label and the tiers it takes; a tier may be in several
    /// groups (a COMMA puzzle tests several capabilities).
    Tiers(Vec<(String, Vec<u32>)>),
}

impl Grouping {
    /// The labels of the groups an episode of tier `difficulty` with metric value
    /// `metric(name)` falls in.
    pub fn groups_of(&self, difficulty: u32, metric: impl Fn(&str) -> Option<f64>) -> Vec<&str> {
        match self {
            Grouping::Metric {
                metric: name,
                values,
            } => metric(name)
                .and_then(|v| values.iter().find(|(x, _)| (x - v).abs() < 1e-9))
                .map(|(_, label)| vec![label.as_str()])
                .unwrap_or_default(),
            Grouping::Tiers(groups) => groups
                .iter()
                .filter(|(_, tiers)| tiers.contains(&difficulty))
                .map(|(label, _)| label.as_str())
                .collect(),
        }
    }
}

/// Success against the number of turns an episode was allowed (COMMA Fig. 4): the share
/// of episodes solved within their first `k` turns, `k = 1..=max`, read from the
/// trajectories.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnCurve {
    /// The role whose steps are turns in a multi-role world (`solver`); `None` counts
    /// every step.
    pub role: Option<String>,
    /// The longest horizon drawn (the protocol's turn limit).
    pub max: u32,
    /// The heading (`success within k solver turns (COMMA Fig. 4)`).
    pub title: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_report_names_tiers_by_number_and_adds_nothing() {
        let r = ReportSpec::default();
        assert_eq!(r.tier(7, &BTreeMap::new()), "7");
        assert!(r.breakdowns.is_empty() && r.turn_curve.is_none());
        assert!(r.key_metrics.is_empty(), "every metric by default");
    }

    #[test]
    fn episodes_fall_in_groups_by_metric_or_by_tier() {
        let by_view = Grouping::Metric {
            metric: "exit_visible_at_start".into(),
            values: vec![(1.0, "yes".into()), (0.0, "no".into())],
        };
        let seen = |v: f64| move |m: &str| (m == "exit_visible_at_start").then_some(v);
        assert_eq!(by_view.groups_of(3, seen(1.0)), vec!["yes"]);
        assert_eq!(by_view.groups_of(3, seen(0.0)), vec!["no"]);
        assert!(by_view.groups_of(3, seen(0.5)).is_empty());
        assert!(by_view.groups_of(3, |_| None).is_empty());
        let by_tier = Grouping::Tiers(vec![
            ("memory".into(), vec![5, 7]),
            ("reasoning".into(), vec![4, 5]),
        ]);
        assert_eq!(by_tier.groups_of(5, |_| None), vec!["memory", "reasoning"]);
        assert!(by_tier.groups_of(1, |_| None).is_empty());
    }
}
