//! Statistics for reports: intervals that say what is real, and paired comparisons.
//!
//! Why these: an episode is one draw of a scenario, and scenarios differ far more than
//! epochs of one scenario do, so every interval here resamples *scenarios* (a cluster
//! bootstrap): the epochs of a scenario travel together and are never counted as
//! independent draws. Two runs of one suite are compared on the scenarios both played,
//! scenario by scenario — McNemar's exact test for a yes/no outcome, a paired bootstrap
//! for a number — which removes the scenario-to-scenario spread that an unpaired
//! comparison would carry.
//!
//! Everything is deterministic: the resamples come from a ChaCha generator seeded by the
//! caller ([`seed_for`] makes one from a label), so the same inputs give the same bytes.
//! The numbers are checked against scipy and statsmodels on fixed data
//! (`tests/run/stats.rs`).
//!
//! - [`bootstrap_ci`]: percentile interval of a mean, resampling clusters (scipy's
//!   `bootstrap(method="percentile")`, numpy's linear percentile);
//! - [`pass_at_k`] and [`pass_hat_k`]: the unbiased estimators of "at least one of k
//!   tries succeeds" (Chen et al. 2021) and "all k tries succeed" (τ-bench's pass^k);
//! - [`mcnemar_exact`]: the two-sided exact (binomial) McNemar test, for one epoch a
//!   scenario;
//! - [`mcnemar_clustered`]: Durkalski's McNemar test for clustered pairs, for several
//!   epochs a scenario (the epochs of one scenario are not independent pairs);
//! - [`paired_bootstrap`]: the mean difference of paired values, its percentile interval
//!   and a two-sided bootstrap p-value.

use escapade_core::seed;
use rand::Rng as _;

/// Resamples drawn for an interval or a paired test.
pub const RESAMPLES: usize = 2000;

/// The confidence level of every interval (95 %).
pub const LEVEL: f64 = 0.95;

/// A confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
}

impl Interval {
    /// Whether `x` lies inside the interval (bounds included).
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
}

/// A seed for the resamples of one statistic, from a label naming it (world, tier,
/// metric): the same statistic gets the same resamples in every report.
pub fn seed_for(label: &str) -> u64 {
    seed::derive(0, label, 0)
}

/// The `q`-th quantile (0 ≤ q ≤ 1) of sorted values, interpolated linearly between the
/// two nearest ranks (numpy's default `linear` method).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let below = pos.floor() as usize;
    let above = pos.ceil() as usize;
    let frac = pos - below as f64;
    sorted[below] + (sorted[above] - sorted[below]) * frac
}

/// The percentile interval at [`LEVEL`] of `stats` (sorted in place).
fn percentile(stats: &mut [f64]) -> Interval {
    stats.sort_by(f64::total_cmp);
    let alpha = (1.0 - LEVEL) / 2.0;
    Interval {
        lo: quantile(stats, alpha),
        hi: quantile(stats, 1.0 - alpha),
    }
}

/// The 95 % percentile bootstrap interval of the mean of all values, resampling the
/// clusters (a scenario's epochs) with replacement `resamples` times: each resample's
/// statistic is the mean of the values of the clusters drawn. `None` with fewer than
/// two non-empty clusters: one scenario, however many epochs, says nothing about the
/// next scenario, and a single value shows no interval.
pub fn bootstrap_ci(clusters: &[Vec<f64>], resamples: usize, seed: u64) -> Option<Interval> {
    let sums: Vec<(f64, f64)> = clusters
        .iter()
        .filter(|c| !c.is_empty())
        .map(|c| (c.iter().sum::<f64>(), c.len() as f64))
        .collect();
    let n = sums.len();
    if n < 2 || resamples == 0 {
        return None;
    }
    let mut rng = seed::rng(seed);
    let mut stats = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        let (mut total, mut count) = (0.0, 0.0);
        for _ in 0..n {
            let (s, c) = sums[rng.random_range(0..n)];
            total += s;
            count += c;
        }
        stats.push(total / count);
    }
    Some(percentile(&mut stats))
}

/// `C(n, k)` as a float (exact for the sizes a report meets; 0 when `k > n`).
fn choose(n: u64, k: u64) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// The unbiased estimate of pass@k for one scenario tried `n` times with `c` successes:
/// the chance that at least one of `k` tries drawn without replacement succeeds,
/// `1 - C(n-c, k) / C(n, k)` (Chen et al. 2021). `None` when `k` is 0 or above `n`.
pub fn pass_at_k(n: u64, c: u64, k: u64) -> Option<f64> {
    (k >= 1 && k <= n && c <= n).then(|| 1.0 - choose(n - c, k) / choose(n, k))
}

/// The unbiased estimate of pass^k for one scenario tried `n` times with `c` successes:
/// the chance that all of `k` tries drawn without replacement succeed,
/// `C(c, k) / C(n, k)` (τ-bench). `None` when `k` is 0 or above `n`.
pub fn pass_hat_k(n: u64, c: u64, k: u64) -> Option<f64> {
    (k >= 1 && k <= n && c <= n).then(|| choose(c, k) / choose(n, k))
}

/// The two-sided exact McNemar test on the discordant pairs: `b` scenarios the first run
/// solved and the second did not, `c` the other way round. Under the null each
/// discordant pair falls either way with probability ½, so the p-value is twice the
/// smaller binomial tail, at most 1 (1 when there is no discordant pair).
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let low = b.min(c);
    // P(X <= low) for X ~ Binomial(n, 1/2), summed in logs to stay finite for large n
    let ln_half = n as f64 * 0.5f64.ln();
    let mut tail = 0.0;
    let mut ln_choose = 0.0; // ln C(n, 0)
    for i in 0..=low {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_choose + ln_half).exp();
    }
    (2.0 * tail).min(1.0)
}

/// The smallest p-value [`mcnemar_exact`] can give with `n` discordant pairs (all of them
/// one way): below 0.05 only from 6 pairs on.
pub fn mcnemar_floor(n: u64) -> f64 {
    mcnemar_exact(n, 0)
}

/// McNemar's test for clustered matched pairs (Durkalski, Palesch, Lipsitz and Rust,
/// "Analysis of clustered matched-pair data", Statistics in Medicine 22, 2003): `pairs`
/// holds, for each scenario, the episodes the first run solved and the second did not
/// (`b_k`) and the other way round (`c_k`). The statistic
/// `(Σ (b_k − c_k))² / Σ (b_k − c_k)²` is referred to a chi-square with one degree of
/// freedom, so a scenario's epochs weigh as one correlated cluster, not as independent
/// pairs (which would make the exact test's p too small when epochs agree with each
/// other). With one pair a scenario it is the asymptotic McNemar statistic
/// `(b − c)² / (b + c)`. The p-value is 1 when no scenario leans either way.
pub fn mcnemar_clustered(pairs: &[(u64, u64)]) -> f64 {
    let d = |&(b, c): &(u64, u64)| b as f64 - c as f64;
    let sum: f64 = pairs.iter().map(d).sum();
    let squares: f64 = pairs.iter().map(|p| d(p) * d(p)).sum();
    if squares == 0.0 {
        return 1.0;
    }
    let x2 = sum * sum / squares;
    // P(chi-square(1) > x2) = P(|Z| > sqrt(x2)) = erfc(sqrt(x2 / 2))
    libm::erfc((x2 / 2.0).sqrt()).min(1.0)
}

/// A paired comparison of one number between two runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedDiff {
    /// Mean of the differences (first minus second).
    pub diff: f64,
    /// Its 95 % percentile bootstrap interval (`None` with fewer than two pairs).
    pub interval: Option<Interval>,
    /// Two-sided bootstrap p-value of "no difference" (1 with fewer than two pairs).
    pub p: f64,
}

/// The mean of the paired differences `a[i] - b[i]`, its 95 % percentile bootstrap
/// interval (resampling pairs), and a two-sided p-value from the same resamples, with
/// the resampled means shifted to the null: the share of resamples whose distance from
/// the observed mean is at least the observed mean's distance from 0, counted as
/// `(1 + hits) / (1 + resamples)` so that it is never 0.
///
/// # Panics
/// When `a` and `b` differ in length (a caller pairs them first).
pub fn paired_bootstrap(a: &[f64], b: &[f64], resamples: usize, seed: u64) -> PairedDiff {
    assert_eq!(a.len(), b.len(), "paired values come in pairs");
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let n = d.len();
    if n == 0 {
        return PairedDiff {
            diff: 0.0,
            interval: None,
            p: 1.0,
        };
    }
    let mean = d.iter().sum::<f64>() / n as f64;
    if n < 2 || resamples == 0 {
        return PairedDiff {
            diff: mean,
            interval: None,
            p: 1.0,
        };
    }
    let mut rng = seed::rng(seed);
    let mut stats = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        let total: f64 = (0..n).map(|_| d[rng.random_range(0..n)]).sum();
        stats.push(total / n as f64);
    }
    // a tolerance, so that a difference of exactly zero (every pair equal) is not
    // "significant" through rounding
    let eps = 1e-12;
    let hits = stats
        .iter()
        .filter(|s| (*s - mean).abs() >= mean.abs() - eps)
        .count();
    let p = ((1 + hits) as f64 / (1 + resamples) as f64).min(1.0);
    PairedDiff {
        diff: mean,
        interval: Some(percentile(&mut stats)),
        p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_like_numpy() {
        let xs = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&xs, 0.0), 1.0);
        assert_eq!(quantile(&xs, 1.0), 4.0);
        // numpy.percentile([1,2,3,4], 25) == 1.75
        assert!((quantile(&xs, 0.25) - 1.75).abs() < 1e-12);
    }

    #[test]
    fn one_cluster_or_one_value_has_no_interval() {
        assert_eq!(bootstrap_ci(&[vec![1.0, 0.0, 1.0]], 100, 1), None);
        assert_eq!(bootstrap_ci(&[vec![1.0], vec![]], 100, 1), None);
        let ci = bootstrap_ci(&[vec![1.0], vec![0.0]], 100, 1).unwrap();
        assert!(ci.lo <= 0.5 && ci.hi >= 0.5, "{ci:?}");
    }

    #[test]
    fn intervals_are_deterministic_and_bracket_the_mean() {
        let clusters: Vec<Vec<f64>> = (0..30).map(|i| vec![f64::from(i % 3 == 0)]).collect();
        let a = bootstrap_ci(&clusters, 500, 7).unwrap();
        assert_eq!(a, bootstrap_ci(&clusters, 500, 7).unwrap());
        assert!(a.lo < 10.0 / 30.0 && 10.0 / 30.0 < a.hi, "{a:?}");
        // constant data: a point
        let same = bootstrap_ci(&[vec![2.0], vec![2.0, 2.0]], 50, 0).unwrap();
        assert_eq!((same.lo, same.hi), (2.0, 2.0));
    }

    #[test]
    fn pass_at_k_and_pass_hat_k_at_their_edges() {
        assert_eq!(pass_at_k(5, 0, 3), Some(0.0));
        assert_eq!(pass_at_k(5, 5, 1), Some(1.0));
        assert!((pass_at_k(3, 1, 1).unwrap() - 1.0 / 3.0).abs() < 1e-12);
        // 1 - C(2,2)/C(4,2) = 1 - 1/6
        assert!((pass_at_k(4, 2, 2).unwrap() - 5.0 / 6.0).abs() < 1e-12);
        // C(2,2)/C(4,2) = 1/6
        assert!((pass_hat_k(4, 2, 2).unwrap() - 1.0 / 6.0).abs() < 1e-12);
        assert_eq!(pass_hat_k(3, 3, 3), Some(1.0));
        assert_eq!(pass_at_k(3, 1, 4), None);
        assert_eq!(pass_hat_k(3, 1, 0), None);
    }

    #[test]
    fn mcnemar_exact_small_cases() {
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        // all five one way: 2 / 32
        assert!((mcnemar_exact(5, 0) - 0.0625).abs() < 1e-12);
        assert!((mcnemar_floor(6) - 0.03125).abs() < 1e-12);
        assert_eq!(mcnemar_exact(3, 3), 1.0);
        assert_eq!(mcnemar_exact(1, 4), mcnemar_exact(4, 1));
    }

    #[test]
    fn clustered_mcnemar_weighs_a_scenarios_epochs_as_one() {
        assert_eq!(mcnemar_clustered(&[]), 1.0);
        assert_eq!(mcnemar_clustered(&[(1, 1), (2, 2)]), 1.0);
        // one pair a scenario: the asymptotic McNemar statistic (b - c)^2 / (b + c)
        let single: Vec<(u64, u64)> = [(1, 0); 9].into_iter().chain([(0, 1); 3]).collect();
        let x2: f64 = 36.0 / 12.0;
        assert!((mcnemar_clustered(&single) - libm::erfc((x2 / 2.0).sqrt())).abs() < 1e-15);
        // the same 12 disagreements as three epochs of four scenarios that always agree
        // with themselves: one cluster's worth of evidence each, a larger p
        let clustered = [(3, 0), (3, 0), (3, 0), (0, 3)];
        assert!(mcnemar_clustered(&clustered) > mcnemar_clustered(&single));
        assert!(mcnemar_clustered(&[(3, 0), (2, 1), (4, 0), (1, 0), (2, 0), (3, 0)]) < 0.05);
    }

    #[test]
    fn paired_bootstrap_sees_a_shift_and_not_its_absence() {
        let a: Vec<f64> = (0..40).map(|i| f64::from(i % 7) + 3.0).collect();
        let b: Vec<f64> = (0..40).map(|i| f64::from(i % 7)).collect();
        let shifted = paired_bootstrap(&a, &b, 1000, 3);
        assert!((shifted.diff - 3.0).abs() < 1e-12);
        assert!(shifted.p < 0.01, "{shifted:?}");
        let none = paired_bootstrap(&a, &a, 1000, 3);
        assert_eq!(none.diff, 0.0);
        assert_eq!(none.p, 1.0);
        let one = paired_bootstrap(&[1.0], &[0.0], 1000, 3);
        assert_eq!((one.diff, one.interval, one.p), (1.0, None, 1.0));
    }
}
