//! Is B different from A? Two samples of run rates: the ratio of their means with a 95 %
//! interval, and a significance test — Welch's t-test, or Mann–Whitney's U when runs are few or
//! skewed (the t-test's normal assumption is then not to be trusted).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Which test decided, and what it found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Significance {
    /// "welch-t" or "mann-whitney"
    pub test: &'static str,
    /// t for Welch, U (of B) for Mann–Whitney.
    pub statistic: f64,
    /// Two-sided p-value.
    pub p: f64,
    /// Why this test: "enough runs, not skewed", "fewer than 5 runs", "skewed runs".
    pub why: &'static str,
}

/// Fewer runs than this on a side, and the t-test's normality cannot be judged.
pub const FEW_RUNS: usize = 5;
/// A sample skewness beyond this (either way) is too skewed for the t-test.
pub const SKEWED: f64 = 1.0;

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// Sample variance (n − 1).
fn variance(x: &[f64]) -> f64 {
    let m = mean(x);
    x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (x.len() as f64 - 1.0)
}

/// Adjusted Fisher–Pearson skewness (as spreadsheets' SKEW); 0 below three values.
pub fn skewness(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    if x.len() < 3 {
        return 0.0;
    }
    let m = mean(x);
    let s = variance(x).sqrt();
    if s == 0.0 {
        return 0.0;
    }
    let third: f64 = x.iter().map(|v| ((v - m) / s).powi(3)).sum();
    n / ((n - 1.0) * (n - 2.0)) * third
}

/// Welch's t-test: t, the Welch–Satterthwaite degrees of freedom and the two-sided p-value.
/// None below two values a side; equal constant samples give p = 1.
pub fn welch(a: &[f64], b: &[f64]) -> Option<(f64, f64, f64)> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (va, vb) = (variance(a) / a.len() as f64, variance(b) / b.len() as f64);
    let diff = mean(b) - mean(a);
    if va + vb == 0.0 {
        return Some((
            0.0,
            (a.len() + b.len() - 2) as f64,
            if diff == 0.0 { 1.0 } else { 0.0 },
        ));
    }
    let t = diff / (va + vb).sqrt();
    let df = (va + vb).powi(2)
        / (va.powi(2) / (a.len() as f64 - 1.0) + vb.powi(2) / (b.len() as f64 - 1.0));
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    let p = 2.0 * (1.0 - dist.cdf(t.abs()));
    Some((t, df, p.clamp(0.0, 1.0)))
}

/// Mann–Whitney U of B against A, with its two-sided p-value: exact (the distribution of U
/// counted over all orderings) when there are no ties and both samples are small, otherwise the
/// normal approximation with the tie correction and a continuity correction.
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Option<(f64, f64)> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let (n1, n2) = (a.len(), b.len());
    // ranks of the pooled sample, ties sharing their mean rank
    let mut pooled: Vec<(f64, bool)> = a
        .iter()
        .map(|&v| (v, false))
        .chain(b.iter().map(|&v| (v, true)))
        .collect();
    pooled.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut rank_sum_b = 0.0;
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < pooled.len() {
        let mut j = i;
        while j + 1 < pooled.len() && pooled[j + 1].0 == pooled[i].0 {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        let tied = (j - i + 1) as f64;
        tie_term += tied.powi(3) - tied;
        rank_sum_b += pooled[i..=j].iter().filter(|p| p.1).count() as f64 * rank;
        i = j + 1;
    }
    let u = rank_sum_b - (n2 * (n2 + 1)) as f64 / 2.0;
    let ties = tie_term > 0.0;
    if !ties && n1 <= 20 && n2 <= 20 {
        return Some((u, exact_p(u, n1, n2)));
    }
    let (n1f, n2f) = (n1 as f64, n2 as f64);
    let n = n1f + n2f;
    let mu = n1f * n2f / 2.0;
    let sigma = (n1f * n2f / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)))).sqrt();
    if sigma == 0.0 {
        return Some((u, 1.0));
    }
    let z = ((u - mu).abs() - 0.5).max(0.0) / sigma;
    let normal = Normal::new(0.0, 1.0).ok()?;
    Some((u, (2.0 * (1.0 - normal.cdf(z))).clamp(0.0, 1.0)))
}

/// Two-sided exact p of U with samples of n1 and n2 and no ties: the number of arrangements
/// with each U, counted by the recurrence f(n1, n2, u) = f(n1 − 1, n2, u − n2) + f(n1, n2 − 1, u).
fn exact_p(u: f64, n1: usize, n2: usize) -> f64 {
    let max = n1 * n2;
    // table[i][j][u]: arrangements of i values of A and j of B with U = u
    let mut table = vec![vec![vec![0f64; max + 1]; n2 + 1]; n1 + 1];
    for row in table.iter_mut() {
        row[0][0] = 1.0;
    }
    for cell in table[0].iter_mut() {
        cell[0] = 1.0;
    }
    for i in 1..=n1 {
        for j in 1..=n2 {
            for k in 0..=i * j {
                let with_b_last = table[i][j - 1][k];
                let with_a_last = if k >= j { table[i - 1][j][k - j] } else { 0.0 };
                table[i][j][k] = with_b_last + with_a_last;
            }
        }
    }
    let counts = &table[n1][n2];
    let total: f64 = counts.iter().sum();
    let low = u.min(max as f64 - u).floor() as usize;
    let tail: f64 = counts[..=low].iter().sum::<f64>() / total;
    (2.0 * tail).min(1.0)
}

/// Picks the test for these samples and runs it.
pub fn significance(a: &[f64], b: &[f64]) -> Option<Significance> {
    let few = a.len() < FEW_RUNS || b.len() < FEW_RUNS;
    let skewed = skewness(a).abs() > SKEWED || skewness(b).abs() > SKEWED;
    if few || skewed {
        let (u, p) = mann_whitney(a, b)?;
        return Some(Significance {
            test: "mann-whitney",
            statistic: u,
            p,
            why: if few {
                "fewer than 5 runs"
            } else {
                "skewed runs"
            },
        });
    }
    let (t, _, p) = welch(a, b)?;
    Some(Significance {
        test: "welch-t",
        statistic: t,
        p,
        why: "enough runs, not skewed",
    })
}

/// mean(B) / mean(A) with its 95 % interval: the delta method on the log of the ratio, with
/// Welch–Satterthwaite degrees of freedom. None when a side has fewer than two runs or a mean
/// is not positive.
pub fn ratio_interval(a: &[f64], b: &[f64]) -> Option<(f64, [f64; 2])> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (ma, mb) = (mean(a), mean(b));
    if ma <= 0.0 || mb <= 0.0 {
        return None;
    }
    let ratio = mb / ma;
    // relative variances of each mean
    let ra = variance(a) / a.len() as f64 / ma.powi(2);
    let rb = variance(b) / b.len() as f64 / mb.powi(2);
    let se = (ra + rb).sqrt();
    if se == 0.0 {
        return Some((ratio, [ratio, ratio]));
    }
    let df = (ra + rb).powi(2)
        / (ra.powi(2) / (a.len() as f64 - 1.0) + rb.powi(2) / (b.len() as f64 - 1.0));
    let t = StudentsT::new(0.0, 1.0, df).ok()?.inverse_cdf(0.975);
    Some((ratio, [ratio * (-t * se).exp(), ratio * (t * se).exp()]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance * b.abs().max(1e-12)
    }

    // Reference values from SciPy 1.17.1, computed outside this code:
    //   scipy.stats.ttest_ind(b, a, equal_var=False)
    //   scipy.stats.mannwhitneyu(b, a, alternative='two-sided', method=…)
    //   scipy.stats.skew(x, bias=False)
    const A: [f64; 6] = [101.2, 98.7, 100.4, 99.9, 102.3, 97.8];
    const B: [f64; 6] = [104.9, 106.2, 103.1, 105.5, 107.0, 104.4];

    #[test]
    fn welch_matches_scipy() {
        let (t, df, p) = welch(&A, &B).unwrap();
        assert!(close(t, 5.877_605_727_639_845, 1e-9), "t {t}");
        assert!(close(df, 9.711_136_686_542_936, 1e-9), "df {df}");
        assert!(close(p, 0.000_174_803_252_797_470_2, 1e-6), "p {p}");
    }

    #[test]
    fn mann_whitney_exact_and_approximate_match_scipy() {
        let (u, p) = mann_whitney(&A, &B).unwrap();
        assert_eq!(u, 36.0);
        assert!(close(p, 0.002_164_502_164_502_164_6, 1e-9), "exact p {p}");
        let (u, p) = mann_whitney(&[1.0, 2.0, 3.0], &[2.5, 4.0, 5.0]).unwrap();
        assert_eq!(u, 8.0);
        assert!(close(p, 0.2, 1e-9), "exact p {p}");
        // ties: the normal approximation with tie and continuity corrections
        let (u, p) = mann_whitney(&[1.0, 2.0, 2.0, 3.0, 4.0], &[2.0, 3.0, 5.0, 6.0, 6.0]).unwrap();
        assert_eq!(u, 20.5);
        assert!(close(p, 0.110_492_024_055_668_02, 1e-9), "asymptotic p {p}");
    }

    #[test]
    fn skewness_matches_scipy() {
        let x = [1.0, 1.1, 1.2, 1.0, 3.5];
        assert!(
            close(skewness(&x), 2.204_011_192_672_74, 1e-9),
            "{}",
            skewness(&x)
        );
        assert_eq!(skewness(&[5.0, 5.0, 5.0]), 0.0);
    }

    #[test]
    fn the_test_is_chosen_by_runs_and_shape() {
        assert_eq!(significance(&A, &B).unwrap().test, "welch-t");
        let few = significance(&A[..3], &B[..3]).unwrap();
        assert_eq!((few.test, few.why), ("mann-whitney", "fewer than 5 runs"));
        let skewed = [100.0, 101.0, 100.5, 99.5, 100.2, 160.0];
        let s = significance(&skewed, &B).unwrap();
        assert_eq!((s.test, s.why), ("mann-whitney", "skewed runs"));
    }

    #[test]
    fn ratio_interval_brackets_the_ratio_and_narrows_with_steadier_runs() {
        let (ratio, [lo, hi]) = ratio_interval(&A, &B).unwrap();
        assert!(close(ratio, 105.183_333_333_333_33 / 100.05, 1e-12));
        assert!(lo < ratio && ratio < hi);
        // the same delta-method formula evaluated with NumPy and SciPy's t quantile
        assert!(close(lo, 1.031_325_811_166_914_6, 1e-9), "{lo}");
        assert!(close(hi, 1.071_676_695_177_089, 1e-9), "{hi}");
        let steady_b: Vec<f64> = B.iter().map(|v| 105.0 + (v - 105.0) / 10.0).collect();
        let steady_a: Vec<f64> = A.iter().map(|v| 100.0 + (v - 100.0) / 10.0).collect();
        let (_, [lo2, hi2]) = ratio_interval(&steady_a, &steady_b).unwrap();
        assert!(hi2 - lo2 < (hi - lo) / 5.0);
        assert!(ratio_interval(&[1.0], &B).is_none());
    }
}
