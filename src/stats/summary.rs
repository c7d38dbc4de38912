//! The statistics of one test's runs: what the measurement form and the result document show.

use super::outliers::{flag_outliers, median};
use crate::result::RunRecord;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The summary of `runs` by `rate` (bytes/s or ops/s, named by `unit`), with the runs it
/// finds to be outliers flagged.
pub fn summarise_runs(
    runs: &mut [RunRecord],
    unit: &str,
    rate: impl Fn(&RunRecord) -> f64,
) -> Option<Summary> {
    let rates: Vec<f64> = runs.iter().map(rate).collect();
    let summary = Summary::of(&rates, unit);
    if let Some(summary) = &summary {
        for &i in &summary.outliers {
            runs[i].outlier = true;
        }
    }
    summary
}

/// A coefficient of variation above this means the runs disagree too much to trust one figure.
pub const NOISY_CV: f64 = 0.10;

/// Summary of a set of run rates. `unit` names what the values are (bytes/s or ops/s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub unit: String,
    pub n: usize,
    pub mean: f64,
    pub median: f64,
    /// Sample standard deviation (n − 1 in the denominator); 0 for a single run.
    pub stddev: f64,
    /// stddev / mean.
    pub cv: f64,
    /// 95 % confidence interval of the mean, Student t with n − 1 degrees of freedom;
    /// `None` with fewer than two runs.
    pub ci95: Option<[f64; 2]>,
    pub min: f64,
    pub max: f64,
    /// Mean of the runs not flagged as outliers.
    pub valid_mean: f64,
    /// Indices (0-based, in run order) of the runs flagged as outliers.
    pub outliers: Vec<usize>,
}

impl Summary {
    /// Summarises `values`; `None` when there is nothing to summarise.
    pub fn of(values: &[f64], unit: &str) -> Option<Summary> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        let mean = values.iter().sum::<f64>() / n as f64;
        let stddev = if n > 1 {
            let squares: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
            (squares / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let ci95 = (n > 1).then(|| {
            let half = t_quantile_975(n - 1) * stddev / (n as f64).sqrt();
            [mean - half, mean + half]
        });
        let flags = flag_outliers(values);
        let valid: Vec<f64> = values
            .iter()
            .zip(&flags)
            .filter(|(_, &odd)| !odd)
            .map(|(&v, _)| v)
            .collect();
        Some(Summary {
            unit: unit.to_string(),
            n,
            mean,
            median: median(values),
            stddev,
            cv: if mean != 0.0 { stddev / mean } else { 0.0 },
            ci95,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            valid_mean: valid.iter().sum::<f64>() / valid.len() as f64,
            outliers: flags
                .iter()
                .enumerate()
                .filter(|(_, &odd)| odd)
                .map(|(i, _)| i)
                .collect(),
        })
    }

    /// True when the runs vary more than [`NOISY_CV`].
    pub fn is_noisy(&self) -> bool {
        self.cv > NOISY_CV
    }
}

/// The 97.5th percentile of Student's t with `df` degrees of freedom (two-sided 95 %).
fn t_quantile_975(df: usize) -> f64 {
    StudentsT::new(0.0, 1.0, df as f64)
        .expect("degrees of freedom are positive")
        .inverse_cdf(0.975)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn t_quantiles_match_the_printed_table() {
        // Student t table, two-sided 95 %: df 1 12.706, 2 4.303, 4 2.776, 9 2.262, 30 2.042
        for (df, expected) in [(1, 12.706), (2, 4.303), (4, 2.776), (9, 2.262), (30, 2.042)] {
            assert!(close(t_quantile_975(df), expected, 5e-4), "df {df}");
        }
    }

    #[test]
    fn summary_of_five_runs_matches_hand_computation() {
        // values 10, 12, 14, 16, 18: mean 14, squares 16+4+0+4+16 = 40, var 40/4 = 10,
        // sd sqrt(10) = 3.16228, cv 0.225877, ci half = 2.776445 * 3.16228 / sqrt(5) = 3.92648
        let s = Summary::of(&[12.0, 10.0, 18.0, 14.0, 16.0], "bytes/s").unwrap();
        assert_eq!(s.n, 5);
        assert_eq!(s.mean, 14.0);
        assert_eq!(s.median, 14.0);
        assert!(close(s.stddev, 3.162_278, 1e-6));
        assert!(close(s.cv, 0.225_877, 1e-6));
        let [low, high] = s.ci95.unwrap();
        assert!(close(low, 14.0 - 3.926_48, 1e-4), "{low}");
        assert!(close(high, 14.0 + 3.926_48, 1e-4), "{high}");
        assert_eq!((s.min, s.max), (10.0, 18.0));
        assert!(s.outliers.is_empty());
        assert_eq!(s.valid_mean, 14.0);
        assert!(s.is_noisy());
    }

    #[test]
    fn outliers_leave_the_valid_mean() {
        let s = Summary::of(&[100.0, 101.0, 99.0, 100.0, 40.0], "bytes/s").unwrap();
        assert_eq!(s.outliers, vec![4]);
        assert_eq!(s.valid_mean, 100.0);
        assert_eq!(s.mean, 88.0);
    }

    #[test]
    fn one_run_has_no_interval() {
        let s = Summary::of(&[5.0], "ops/s").unwrap();
        assert_eq!(s.stddev, 0.0);
        assert_eq!(s.ci95, None);
        assert!(!s.is_noisy());
        assert!(Summary::of(&[], "ops/s").is_none());
    }
}
