//! What a world's performance self-check reports (`escapade bench <world>`,
//! [`crate::World::bench`]): rows of figures, each with its unit and, where the issue
//! that asked for it set one, a target.
//!
//! Why a generic report: the binary prints any world's bench (a table, or JSON with
//! `--json`) and fails when a target is missed, without knowing which world measured.
//! The worlds read a clock to fill it; anything else they need to measure comes from the
//! caller in a [`Probe`] (the worlds do no I/O).

use std::fmt;

use serde::Serialize;

/// What a world's bench may ask of the system, given by the caller (`escapade-run`
/// reads `/proc`); the default knows nothing.
#[derive(Debug, Clone, Copy)]
pub struct Probe {
    /// The processor time this process has used so far (every thread), in
    /// milliseconds; `None` where the system does not say.
    pub cpu_ms: fn() -> Option<f64>,
}

impl Default for Probe {
    fn default() -> Self {
        Probe { cpu_ms: || None }
    }
}

/// A timing distribution.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timing {
    /// Samples.
    pub n: usize,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// Largest.
    pub max: f64,
}

impl Timing {
    /// The distribution of `xs` (zeros when there are none).
    pub fn of(mut xs: Vec<f64>) -> Timing {
        xs.sort_by(f64::total_cmp);
        let at = |q: f64| {
            if xs.is_empty() {
                0.0
            } else {
                xs[((xs.len() - 1) as f64 * q).round() as usize]
            }
        };
        Timing {
            n: xs.len(),
            p50: at(0.5),
            p90: at(0.9),
            max: at(1.0),
        }
    }
}

/// One measured figure: a distribution (its median meets the target) or one value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    /// Many samples.
    Timing(Timing),
    /// One measurement (a suite's build time).
    Value(f64),
}

impl Figure {
    /// The number a target applies to: the median, or the value.
    pub fn headline(&self) -> f64 {
        match self {
            Figure::Timing(t) => t.p50,
            Figure::Value(v) => *v,
        }
    }
}

/// One row of a [`BenchReport`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchRow {
    /// What is measured (`view draw + describe`).
    pub name: String,
    /// Its key in JSON (`render_ms`).
    pub key: String,
    /// The unit of the figures (`ms`, `µs`, `s`).
    pub unit: String,
    /// The measurement.
    pub figure: Figure,
    /// The most the headline figure may be, when a target was set.
    pub target: Option<f64>,
    /// The target is met (or there is none).
    pub pass: bool,
}

impl BenchRow {
    /// A row; `pass` follows from `target`.
    pub fn new(name: &str, key: &str, unit: &str, figure: Figure, target: Option<f64>) -> BenchRow {
        let pass = target.is_none_or(|t| figure.headline() <= t);
        BenchRow {
            name: name.into(),
            key: key.into(),
            unit: unit.into(),
            figure,
            target,
            pass,
        }
    }
}

/// A world's bench: a heading, rows of figures, and notes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchReport {
    /// The world measured.
    pub world: String,
    /// What was measured, in one line (`20 rooms of visescape@4`).
    pub title: String,
    /// Whether this was an optimized build (figures of a debug build mean little).
    pub release: bool,
    /// The figures.
    pub rows: Vec<BenchRow>,
    /// Further lines worth printing under the table (processor time, …).
    pub notes: Vec<String>,
    /// Every target met.
    pub pass: bool,
}

impl BenchReport {
    /// A report of `rows`; `release` is the build of the calling crate, and `pass`
    /// follows from the rows.
    pub fn new(world: &str, title: String, release: bool, rows: Vec<BenchRow>) -> BenchReport {
        let pass = rows.iter().all(|r| r.pass);
        BenchReport {
            world: world.into(),
            title,
            release,
            rows,
            notes: Vec::new(),
            pass,
        }
    }

    /// The row with JSON key `key`.
    pub fn row(&self, key: &str) -> Option<&BenchRow> {
        self.rows.iter().find(|r| r.key == key)
    }
}

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} world: {}, {} build",
            self.world,
            self.title,
            if self.release { "release" } else { "DEBUG" }
        )?;
        for r in &self.rows {
            let u = &r.unit;
            match &r.figure {
                Figure::Timing(t) => write!(
                    f,
                    "{:<22} p50 {:>8.2} {u}  p90 {:>8.2} {u}  max {:>8.2} {u}",
                    r.name, t.p50, t.p90, t.max
                )?,
                Figure::Value(v) => write!(f, "{:<22} {v:>8.2} {u}", r.name)?,
            }
            if let Some(target) = r.target {
                let what = if matches!(r.figure, Figure::Timing(_)) {
                    "p50 "
                } else {
                    ""
                };
                let ok = if r.pass { "ok" } else { "MISSED" };
                write!(f, "  (target {what}<= {target} {u}) {ok}")?;
            }
            writeln!(f)?;
        }
        for note in &self.notes {
            writeln!(f, "{note}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timings_take_the_nearest_rank() {
        let t = Timing::of(vec![5.0, 1.0, 3.0, 2.0, 4.0]);
        assert_eq!((t.n, t.p50, t.p90, t.max), (5, 3.0, 5.0, 5.0));
        assert_eq!(Timing::of(Vec::new()).p50, 0.0);
    }

    #[test]
    fn a_missed_target_fails_the_report_and_says_so() {
        let fast = BenchRow::new(
            "step",
            "step_us",
            "µs",
            Figure::Timing(Timing::of(vec![1.0])),
            Some(2.0),
        );
        let slow = BenchRow::new("build", "suite_s", "s", Figure::Value(3.0), Some(2.0));
        let free = BenchRow::new("png", "png_ms", "ms", Figure::Value(9.0), None);
        assert!(fast.pass && !slow.pass && free.pass);
        let report = BenchReport::new("demo", "two rooms".into(), true, vec![fast, slow, free]);
        assert!(!report.pass);
        let table = report.to_string();
        assert!(
            table.starts_with("demo world: two rooms, release build\n"),
            "{table}"
        );
        assert!(table.contains("(target p50 <= 2 µs) ok"), "{table}");
        assert!(table.contains("(target <= 2 s) MISSED"), "{table}");
        assert_eq!(report.row("png_ms").map(|r| r.figure.headline()), Some(9.0));
    }
}
