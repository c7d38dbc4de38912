//! Odd runs, found by a robust rule: a run is an outlier when it lies more than
//! [`MAD_LIMIT`] scaled median absolute deviations from the median.
//!
//! The median and MAD are not dragged by the outlier itself, unlike mean and standard deviation,
//! so one stalled run among five is caught where a 2-sigma rule would miss it. The MAD is scaled
//! by 1.4826 so that it estimates the standard deviation of normally distributed runs.
//!
//! Two guards keep the rule from discarding good runs: with fewer than [`MIN_RUNS`] runs the MAD is
//! only the gap between the two closest runs, so nothing is flagged; and a run within
//! [`RELATIVE_FLOOR`] of the median is never odd, however steady the others were.

/// How many scaled MADs from the median make a run odd.
pub const MAD_LIMIT: f64 = 3.0;

/// Consistency constant: 1 / Φ⁻¹(3/4).
const MAD_SCALE: f64 = 1.4826;

/// Fewer runs than this cannot tell an odd run from a normal one.
pub const MIN_RUNS: usize = 4;

/// A run this close to the median (as a share of it) is never an outlier.
pub const RELATIVE_FLOOR: f64 = 0.05;

/// The median of `values` (the mean of the middle two for an even count). Empty gives NaN.
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// One flag per value: true where the value is an outlier.
///
/// When the MAD is zero (most runs identical), any run more than the floor from the median is odd.
pub fn flag_outliers(values: &[f64]) -> Vec<bool> {
    if values.len() < MIN_RUNS {
        return vec![false; values.len()];
    }
    let center = median(values);
    let deviations: Vec<f64> = values.iter().map(|v| (v - center).abs()).collect();
    let limit = (MAD_LIMIT * MAD_SCALE * median(&deviations)).max(RELATIVE_FLOOR * center.abs());
    deviations
        .iter()
        .map(|&deviation| deviation > limit)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn a_stalled_run_is_flagged() {
        // median 100, deviations 0,1,1,0,60 -> MAD 1 -> limit 3 * 1.4826 = 4.45
        let flags = flag_outliers(&[100.0, 101.0, 99.0, 100.0, 40.0]);
        assert_eq!(flags, vec![false, false, false, false, true]);
    }

    #[test]
    fn runs_inside_the_limit_are_kept() {
        // median 100, MAD 2 -> limit 8.9; 108 is 8 away and stays, 109 is 9 away and goes
        assert_eq!(
            flag_outliers(&[98.0, 100.0, 102.0, 108.0, 100.0]),
            vec![false; 5]
        );
        assert_eq!(
            flag_outliers(&[98.0, 100.0, 102.0, 109.0, 100.0]),
            vec![false, false, false, true, false]
        );
    }

    #[test]
    fn zero_mad_flags_any_difference() {
        assert_eq!(
            flag_outliers(&[5.0, 5.0, 5.0, 7.0]),
            vec![false, false, false, true]
        );
    }

    #[test]
    fn too_few_runs_flag_nothing() {
        assert_eq!(flag_outliers(&[1.0, 100.0]), vec![false, false]);
        // three runs: the MAD is the closest gap, 3.9, which would flag a run 10 % off
        assert_eq!(flag_outliers(&[940.1, 944.0, 845.2]), vec![false; 3]);
    }

    #[test]
    fn steady_runs_keep_a_run_within_five_percent() {
        // MAD 0.5 would put the limit at 2.2, but 4 % from the median is not odd
        assert_eq!(
            flag_outliers(&[100.0, 100.5, 99.5, 100.0, 96.0]),
            vec![false; 5]
        );
        assert_eq!(
            flag_outliers(&[100.0, 100.5, 99.5, 100.0, 94.0]),
            vec![false, false, false, false, true]
        );
    }
}
