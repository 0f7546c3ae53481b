//! Metric primitives: mean ± standard error, and rates.
//!
//! Reports print every metric as mean ± standard error of the mean over episodes
//! (sample standard deviation with n − 1, divided by √n), the convention of the papers'
//! tables. Undefined values (NaN) are skipped, never averaged.

use serde::{Deserialize, Serialize};

/// A mean with its standard error over `n` finite samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeanSe {
    /// Arithmetic mean (0 when `n == 0`).
    pub mean: f64,
    /// Standard error of the mean (0 when `n < 2`).
    pub se: f64,
    /// Number of finite samples used.
    pub n: usize,
}

impl MeanSe {
    /// Mean and standard error of the finite values in `xs`.
    pub fn of(xs: &[f64]) -> Self {
        let finite: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
        let n = finite.len();
        if n == 0 {
            return MeanSe {
                mean: 0.0,
                se: 0.0,
                n: 0,
            };
        }
        let mean = finite.iter().sum::<f64>() / n as f64;
        let se = if n < 2 {
            0.0
        } else {
            let var = finite.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
            (var / n as f64).sqrt()
        };
        MeanSe { mean, se, n }
    }
}

/// `part / whole`, or `None` when `whole` is zero.
pub fn rate(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_standard_error() {
        let m = MeanSe::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(m.mean, 5.0);
        // sample sd = sqrt(32/7); se = sd / sqrt(8)
        assert!((m.se - (32.0f64 / 7.0).sqrt() / 8f64.sqrt()).abs() < 1e-12);
        assert_eq!(m.n, 8);
    }

    #[test]
    fn skips_nan_and_handles_empty() {
        let m = MeanSe::of(&[f64::NAN, 1.0]);
        assert_eq!((m.mean, m.se, m.n), (1.0, 0.0, 1));
        assert_eq!(MeanSe::of(&[]).n, 0);
        assert_eq!(rate(1, 0), None);
        assert_eq!(rate(1, 4), Some(0.25));
    }
}
