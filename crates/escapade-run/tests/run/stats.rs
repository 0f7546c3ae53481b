//! The report's statistics against a reference computation on fixed data: scipy's
//! percentile bootstrap, statsmodels' exact McNemar test, the clustered McNemar test's
//! statistic with scipy's chi-square tail, pass@k from exact binomial
//! coefficients (the project's Python environment; skipped with a note without it,
//! failed under CI).

use std::process::Command;

use escapade_run::stats::{
    bootstrap_ci, mcnemar_clustered, mcnemar_exact, paired_bootstrap, pass_at_k, pass_hat_k,
};
use serde_json::{Value, json};

/// The reference side: reads the fixed data as JSON on standard input, prints JSON.
const REFERENCE: &str = r#"
import json, sys
from math import comb
import numpy as np
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar

d = json.load(sys.stdin)
out = {}
x = np.array(d["values"])
ci = stats.bootstrap((x,), np.mean, n_resamples=100000, method="percentile",
                     confidence_level=0.95, random_state=1).confidence_interval
out["plain"] = [ci.low, ci.high]
a, b = np.array(d["a"]), np.array(d["b"])
ci = stats.bootstrap((a, b), lambda p, q, axis=-1: np.mean(p - q, axis=axis), paired=True,
                     n_resamples=100000, method="percentile", random_state=2).confidence_interval
out["paired"] = [ci.low, ci.high]
# scipy has no cluster bootstrap: resample whole clusters with numpy, the same definition
rng = np.random.default_rng(3)
clusters = [np.array(c) for c in d["clusters"]]
sums = np.array([c.sum() for c in clusters]); counts = np.array([len(c) for c in clusters])
idx = rng.integers(0, len(clusters), size=(100000, len(clusters)))
means = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
out["clusters"] = [float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))]
out["mcnemar"] = [mcnemar([[5, b_], [c_, 7]], exact=True).pvalue for b_, c_ in d["discordant"]]
# Durkalski et al. (2003): clustered McNemar, its statistic written out, scipy's chi-square tail
def clustered(pairs):
    d = np.array([b_ - c_ for b_, c_ in pairs], dtype=float)
    return 1.0 if (d * d).sum() == 0 else float(stats.chi2.sf(d.sum() ** 2 / (d * d).sum(), 1))
out["clustered"] = [clustered(p) for p in d["clustered"]]
out["pass_at"] = [1 - comb(n - c, k) / comb(n, k) for n, c, k in d["passes"]]
out["pass_hat"] = [comb(c, k) / comb(n, k) for n, c, k in d["passes"]]
print(json.dumps(out))
"#;

/// Fixed, uneven data: a skewed spread of 40 values, paired values with a shift, and
/// scenarios with one to four epochs.
fn data() -> Value {
    let values: Vec<f64> = (0..40u32)
        .map(|i| f64::from((i * 37) % 23) + if i % 7 == 0 { 30.0 } else { 0.0 })
        .collect();
    let a: Vec<f64> = (0..30u32).map(|i| f64::from((i * 13) % 17) + 2.5).collect();
    let b: Vec<f64> = (0..30u32).map(|i| f64::from((i * 11) % 19)).collect();
    let clusters: Vec<Vec<f64>> = (0..25u32)
        .map(|i| {
            (0..=(i % 4))
                .map(|e| f64::from((i * 7 + e * 3) % 10) / 10.0)
                .collect()
        })
        .collect();
    json!({
        "values": values, "a": a, "b": b, "clusters": clusters,
        "discordant": [[0, 0], [5, 0], [3, 9], [12, 4], [40, 21], [1, 1], [0, 7]],
        "passes": [[5, 0, 3], [5, 5, 1], [10, 3, 2], [10, 3, 5], [7, 6, 4], [3, 1, 3]],
        "clustered": [
            [], [[1, 1], [0, 0]], [[3, 0], [3, 0], [3, 0], [0, 3]],
            [[3, 0], [2, 1], [4, 0], [1, 0], [2, 0], [3, 0]],
            [[1, 0], [0, 1], [2, 0], [1, 1], [3, 1], [0, 2], [1, 0], [2, 0], [4, 0], [0, 0]],
            [[40, 3], [1, 0]],
        ],
    })
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn close(what: &str, ours: f64, theirs: f64, tol: f64) {
    assert!(
        (ours - theirs).abs() <= tol,
        "{what}: ours {ours}, reference {theirs} (tolerance {tol})"
    );
}

#[test]
fn intervals_and_tests_match_scipy_and_statsmodels() {
    let Some(python) = escapade_testkit::venv::python(
        "numpy, scipy, statsmodels",
        "the statistics' reference check",
    ) else {
        return;
    };
    let data = data();
    let mut child = Command::new(python)
        .args(["-c", REFERENCE])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    serde_json::to_writer(child.stdin.take().unwrap(), &data).unwrap();
    let done = child.wait_with_output().unwrap();
    assert!(done.status.success(), "the reference failed");
    let reference: Value = serde_json::from_slice(&done.stdout).unwrap();

    // Monte Carlo error of a 2.5 % quantile with 100,000 (theirs) and 40,000 (ours)
    // resamples is a few thousandths of the spread; the tolerances are a few times it
    let values = floats(&data["values"]);
    let spread = {
        let m = values.iter().sum::<f64>() / values.len() as f64;
        (values.iter().map(|x| (x - m).powi(2)).sum::<f64>() / values.len() as f64).sqrt()
    };
    let singles: Vec<Vec<f64>> = values.iter().map(|x| vec![*x]).collect();
    let ours = bootstrap_ci(&singles, 40_000, 11).unwrap();
    let theirs = floats(&reference["plain"]);
    let tol = 0.02 * spread;
    close("plain lo", ours.lo, theirs[0], tol);
    close("plain hi", ours.hi, theirs[1], tol);

    let (a, b) = (floats(&data["a"]), floats(&data["b"]));
    let ours = paired_bootstrap(&a, &b, 40_000, 12);
    let theirs = floats(&reference["paired"]);
    let interval = ours.interval.unwrap();
    close("paired lo", interval.lo, theirs[0], 0.1);
    close("paired hi", interval.hi, theirs[1], 0.1);
    let mean_diff = a.iter().zip(&b).map(|(x, y)| x - y).sum::<f64>() / a.len() as f64;
    close("paired mean", ours.diff, mean_diff, 1e-12);

    let clusters: Vec<Vec<f64>> = data["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(floats)
        .collect();
    let ours = bootstrap_ci(&clusters, 40_000, 13).unwrap();
    let theirs = floats(&reference["clusters"]);
    close("clusters lo", ours.lo, theirs[0], 0.01);
    close("clusters hi", ours.hi, theirs[1], 0.01);

    for (pair, p) in data["discordant"]
        .as_array()
        .unwrap()
        .iter()
        .zip(floats(&reference["mcnemar"]))
    {
        let (x, y) = (pair[0].as_u64().unwrap(), pair[1].as_u64().unwrap());
        close(&format!("mcnemar {x}/{y}"), mcnemar_exact(x, y), p, 1e-10);
    }
    for (clusters, p) in data["clustered"]
        .as_array()
        .unwrap()
        .iter()
        .zip(floats(&reference["clustered"]))
    {
        let pairs: Vec<(u64, u64)> = clusters
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c[0].as_u64().unwrap(), c[1].as_u64().unwrap()))
            .collect();
        close(
            &format!("clustered {pairs:?}"),
            mcnemar_clustered(&pairs),
            p,
            1e-12,
        );
    }
    let passes = data["passes"].as_array().unwrap();
    for ((t, at), hat) in passes
        .iter()
        .zip(floats(&reference["pass_at"]))
        .zip(floats(&reference["pass_hat"]))
    {
        let (n, c, k) = (
            t[0].as_u64().unwrap(),
            t[1].as_u64().unwrap(),
            t[2].as_u64().unwrap(),
        );
        close(
            &format!("pass@{k} {n}/{c}"),
            pass_at_k(n, c, k).unwrap(),
            at,
            1e-12,
        );
        close(
            &format!("pass^{k} {n}/{c}"),
            pass_hat_k(n, c, k).unwrap(),
            hat,
            1e-12,
        );
    }
}
