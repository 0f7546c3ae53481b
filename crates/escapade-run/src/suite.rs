//! Building and verifying a suite (`escapade suite <name>`).
//!
//! [`build_suite`] asks the world for every scenario of the suite, reads each header,
//! hashes each scenario's exact JSON bytes, and plays the world's oracle on it.
//! [`SuiteBuild`] serializes as the documented `escapade suite <name> --json` shape:
//!
//! ```json
//! {"suite": "agentescape@2",
//!  "scenarios": [{"id", "world", "difficulty", "hash", "oracle": {"solved", "steps"}}],
//!  "stats": {"tiers": [{"difficulty", "count", "solved", "mean_oracle_steps",
//!                       "min_oracle_steps", "max_oracle_steps"}],
//!            "count", "solved", "mean_oracle_steps", "min_oracle_steps",
//!            "max_oracle_steps", "suite_hash",
//!            "paper": [{"name", "ours", "paper", "source"}]}}
//! ```
//!
//! `paper` holds the world's own statistics beside the paper's values (VisEscape's
//! receptacles, items, quizzes, checkpoints and oracle steps per room, …); it is absent
//! for worlds that report none.
//!
//! Oracle step statistics are over the solved scenarios (null when none is solved).
//! `suite_hash` is [`escapade_core::hash::content_hash`] of the list of scenario hashes in
//! suite order. [`write_suite`] writes `<id>.json` per scenario plus the `suite.json`
//! manifest, which [`crate::source`] reads back.

use std::collections::BTreeSet;
use std::path::Path;

use escapade_core::env::SuiteSettings;
use escapade_core::{ScenarioHeader, World, hash};
use serde::{Deserialize, Serialize};

use crate::error::{Result, RunError};
use crate::progress::Progress;

/// Name of the manifest [`write_suite`] writes next to the scenario files.
pub const MANIFEST: &str = "suite.json";

/// A built and verified suite: the manifest plus the scenario texts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteBuild {
    /// Suite name with version.
    pub suite: String,
    /// One entry per scenario, in suite order.
    pub scenarios: Vec<SuiteScenario>,
    /// Per-tier and total statistics.
    pub stats: SuiteStats,
    /// The run settings of the suite's paper (`escapade run DIR` applies them as it does
    /// for the suite's name); absent when the suite declares none.
    #[serde(default, skip_serializing_if = "SuiteSettings::is_empty")]
    pub settings: SuiteSettings,
    /// The scenario JSON texts, in suite order (not part of the manifest).
    #[serde(skip)]
    pub json: Vec<String>,
}

/// One scenario's line in the suite manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteScenario {
    /// Scenario id.
    pub id: String,
    /// World name.
    pub world: String,
    /// Difficulty tier.
    pub difficulty: u32,
    /// SHA-256 of the scenario's JSON bytes.
    pub hash: String,
    /// The oracle's verdict.
    pub oracle: OracleVerdict,
}

/// The oracle's verdict as recorded in the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OracleVerdict {
    /// The oracle escaped.
    pub solved: bool,
    /// The oracle's step count (0 when it could not play).
    pub steps: u32,
    /// Why the oracle could not play, when it could not (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Statistics of a suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteStats {
    /// One entry per difficulty tier, ascending.
    pub tiers: Vec<TierStats>,
    /// Number of scenarios.
    pub count: usize,
    /// Number the oracle solved.
    pub solved: usize,
    /// Mean oracle steps over solved scenarios.
    pub mean_oracle_steps: Option<f64>,
    /// Fewest oracle steps over solved scenarios.
    pub min_oracle_steps: Option<u32>,
    /// Most oracle steps over solved scenarios.
    pub max_oracle_steps: Option<u32>,
    /// Content hash of the list of scenario hashes, in suite order.
    pub suite_hash: String,
    /// The world's own statistics beside the paper's values (absent when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paper: Vec<escapade_core::env::PaperStat>,
}

/// Statistics of one difficulty tier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TierStats {
    /// The tier.
    pub difficulty: u32,
    /// Number of scenarios.
    pub count: usize,
    /// Number the oracle solved.
    pub solved: usize,
    /// Mean oracle steps over solved scenarios.
    pub mean_oracle_steps: Option<f64>,
    /// Fewest oracle steps over solved scenarios.
    pub min_oracle_steps: Option<u32>,
    /// Most oracle steps over solved scenarios.
    pub max_oracle_steps: Option<u32>,
}

impl SuiteBuild {
    /// Whether the oracle solved every scenario.
    pub fn all_solved(&self) -> bool {
        self.stats.solved == self.stats.count
    }

    /// `(id, message)` of every scenario the oracle could not play.
    pub fn oracle_errors(&self) -> Vec<(String, String)> {
        self.scenarios
            .iter()
            .filter_map(|s| s.oracle.error.clone().map(|e| (s.id.clone(), e)))
            .collect()
    }
}

/// Builds every scenario of `suite` with `world`, hashes it and verifies it with the
/// oracle. An oracle that fails on a scenario marks it unsolved (with the error); a
/// scenario whose header cannot be read, or a repeated id, is an `Err`.
pub fn build_suite(world: &dyn World, suite: &str, progress: Progress) -> Result<SuiteBuild> {
    verify(world, suite, world.build_suite(suite)?, progress)
}

/// Verifies scenarios that are already made (a directory of them, an import) as
/// [`build_suite`] verifies a suite's: hashes, the oracle on each, statistics.
pub fn verify(
    world: &dyn World,
    suite: &str,
    texts: Vec<String>,
    progress: Progress,
) -> Result<SuiteBuild> {
    let bar = progress.bar(texts.len() as u64, &format!("verifying {suite}"));
    let mut seen = BTreeSet::new();
    let mut scenarios = Vec::with_capacity(texts.len());
    for json in &texts {
        let header = ScenarioHeader::parse(json)?;
        if !seen.insert(header.id.clone()) {
            bar.finish_and_clear();
            return Err(RunError::DuplicateScenario(header.id));
        }
        let oracle = match world.oracle(json) {
            Ok(r) => OracleVerdict {
                solved: r.solved,
                steps: r.steps,
                error: None,
            },
            Err(e) => OracleVerdict {
                solved: false,
                steps: 0,
                error: Some(e.to_string()),
            },
        };
        scenarios.push(SuiteScenario {
            id: header.id,
            world: header.world,
            difficulty: header.difficulty,
            hash: hash::sha256_hex(json.as_bytes()),
            oracle,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    let mut stats = stats(&scenarios);
    stats.paper = world.paper_stats(suite, &texts)?;
    let settings = world
        .suites()
        .into_iter()
        .find(|s| s.name == suite)
        .map(|s| s.settings)
        .unwrap_or_default();
    Ok(SuiteBuild {
        suite: suite.to_string(),
        scenarios,
        stats,
        settings,
        json: texts,
    })
}

/// Computes tier and total statistics of manifest entries.
pub fn stats(scenarios: &[SuiteScenario]) -> SuiteStats {
    let tiers: BTreeSet<u32> = scenarios.iter().map(|s| s.difficulty).collect();
    let tiers = tiers
        .into_iter()
        .map(|d| {
            let of: Vec<&SuiteScenario> = scenarios.iter().filter(|s| s.difficulty == d).collect();
            let (solved, mean, min, max) = oracle_stats(&of);
            TierStats {
                difficulty: d,
                count: of.len(),
                solved,
                mean_oracle_steps: mean,
                min_oracle_steps: min,
                max_oracle_steps: max,
            }
        })
        .collect();
    let all: Vec<&SuiteScenario> = scenarios.iter().collect();
    let (solved, mean, min, max) = oracle_stats(&all);
    let hashes: Vec<&str> = scenarios.iter().map(|s| s.hash.as_str()).collect();
    SuiteStats {
        tiers,
        count: scenarios.len(),
        solved,
        mean_oracle_steps: mean,
        min_oracle_steps: min,
        max_oracle_steps: max,
        suite_hash: hash::content_hash(&hashes),
        paper: Vec::new(),
    }
}

type OracleStats = (usize, Option<f64>, Option<u32>, Option<u32>);

fn oracle_stats(of: &[&SuiteScenario]) -> OracleStats {
    let steps: Vec<u32> = of
        .iter()
        .filter(|s| s.oracle.solved)
        .map(|s| s.oracle.steps)
        .collect();
    let mean = (!steps.is_empty())
        .then(|| steps.iter().map(|&s| f64::from(s)).sum::<f64>() / steps.len() as f64);
    (
        steps.len(),
        mean,
        steps.iter().copied().min(),
        steps.iter().copied().max(),
    )
}

/// A file name for a scenario id: characters outside `[A-Za-z0-9._@-]` become `_`, and a
/// name starting with `.` gets a `_` in front, so an id never escapes its directory.
pub fn file_stem(id: &str) -> String {
    let mut s: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '@' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        s.insert(0, '_');
    }
    s
}

/// Writes each scenario as `<dir>/<id>.json` (its exact bytes) and the manifest as
/// `<dir>/suite.json`, creating `dir` if needed.
pub fn write_suite(build: &SuiteBuild, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| RunError::io("cannot create", dir, e))?;
    for (entry, json) in build.scenarios.iter().zip(&build.json) {
        let path = dir.join(format!("{}.json", file_stem(&entry.id)));
        std::fs::write(&path, json).map_err(|e| RunError::io("cannot write", &path, e))?;
    }
    let path = dir.join(MANIFEST);
    let mut text = serde_json::to_string_pretty(build).expect("a manifest always serializes");
    text.push('\n');
    std::fs::write(&path, text).map_err(|e| RunError::io("cannot write", &path, e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, d: u32, solved: bool, steps: u32) -> SuiteScenario {
        SuiteScenario {
            id: id.into(),
            world: "w".into(),
            difficulty: d,
            hash: hash::sha256_hex(id.as_bytes()),
            oracle: OracleVerdict {
                solved,
                steps,
                error: None,
            },
        }
    }

    #[test]
    fn stats_per_tier_over_solved_scenarios() {
        let s = stats(&[
            entry("a", 5, true, 4),
            entry("b", 10, true, 9),
            entry("c", 5, true, 6),
            entry("d", 5, false, 100),
        ]);
        assert_eq!(s.count, 4);
        assert_eq!(s.solved, 3);
        assert_eq!(s.tiers.len(), 2);
        let t5 = &s.tiers[0];
        assert_eq!((t5.difficulty, t5.count, t5.solved), (5, 3, 2));
        assert_eq!(t5.mean_oracle_steps, Some(5.0));
        assert_eq!(
            (t5.min_oracle_steps, t5.max_oracle_steps),
            (Some(4), Some(6))
        );
        assert_eq!(s.max_oracle_steps, Some(9));
    }

    #[test]
    fn suite_hash_depends_on_order() {
        let a = stats(&[entry("a", 1, true, 1), entry("b", 1, true, 1)]);
        let b = stats(&[entry("b", 1, true, 1), entry("a", 1, true, 1)]);
        assert_ne!(a.suite_hash, b.suite_hash);
    }

    #[test]
    fn file_stems_stay_in_their_directory() {
        assert_eq!(file_stem("tools-d10-s7"), "tools-d10-s7");
        assert_eq!(file_stem("../x/y"), "_.._x_y");
        assert_eq!(file_stem(""), "_");
    }
}
