//! A/B comparison of two result documents: cells matched by test, file size, record size,
//! workers and I/O mode; for each the ratio B/A with its 95 % interval, a significance test on
//! the recorded runs and a plain verdict; then the grid's summary and its "sweet spot" — where
//! one side wins significantly.

use crate::result::{Document, TestKey, TestResult};
use crate::stats::compare::{ratio_interval, significance, Significance};
use crate::units::format_size;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Faster,
    Slower,
    NoSignificantDifference,
    /// Fewer than two counted runs on a side: nothing can be said.
    TooFewRuns,
}

impl Verdict {
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Faster => "B faster",
            Verdict::Slower => "B slower",
            Verdict::NoSignificantDifference => "no significant difference",
            Verdict::TooFewRuns => "too few runs",
        }
    }
}

/// One side of a cell: its counted, non-outlier runs' rates.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    pub n: usize,
    pub mean: f64,
    pub rates: Vec<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    #[serde(flatten)]
    pub key: TestKey,
    /// bytes/s or ops/s
    pub unit: String,
    pub a: Side,
    pub b: Side,
    pub ratio: f64,
    pub ratio_ci95: Option<[f64; 2]>,
    pub significance: Option<Significance>,
    pub verdict: Verdict,
}

impl Cell {
    /// "write 1 GiB × 1 MiB, 1 worker" (with the entries of a metadata test).
    pub fn name(&self) -> String {
        describe(&self.key)
    }
}

fn describe(key: &TestKey) -> String {
    let workers = if key.workers == 1 {
        "1 worker".to_string()
    } else {
        format!("{} workers", key.workers)
    };
    let mode = if key.direct { ", direct" } else { "" };
    match key.entries {
        Some(entries) => format!("{} at {entries} entries, {workers}", key.test),
        None => format!(
            "{} {} × {}, {workers}{mode}",
            key.test,
            format_size(key.file_size),
            format_size(key.record_size)
        ),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Geometric mean of every cell's ratio B/A.
    pub geometric_mean: Option<f64>,
    pub faster: usize,
    pub slower: usize,
    pub no_difference: usize,
    pub too_few_runs: usize,
    /// Where one side wins significantly, in words.
    pub sweet_spot: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub alpha: f64,
    pub cells: Vec<Cell>,
    /// What could not be compared, one sentence each.
    pub unmatched: Vec<String>,
    pub summary: Summary,
}

/// The counted runs' rates, outliers left out, in the summary's unit.
fn rates(result: &TestResult) -> Vec<f64> {
    let ops = result.summary.as_ref().is_some_and(|s| s.unit == "ops/s");
    result
        .runs
        .iter()
        .filter(|r| !r.warmup && !r.outlier)
        .map(|r| if ops { r.ops_per_s } else { r.bytes_per_s })
        .collect()
}

fn side(rates: Vec<f64>) -> Side {
    let mean = if rates.is_empty() {
        0.0
    } else {
        rates.iter().sum::<f64>() / rates.len() as f64
    };
    Side {
        n: rates.len(),
        mean,
        rates,
    }
}

pub fn compare(a: &Document, b: &Document, alpha: f64) -> Comparison {
    let mut cells = Vec::new();
    let mut unmatched = Vec::new();
    for ta in &a.tests {
        let Some(tb) = b.tests.iter().find(|t| t.key == ta.key) else {
            unmatched.push(format!("only in A: {}", describe(&ta.key)));
            continue;
        };
        let unit = |t: &TestResult| t.summary.as_ref().map(|s| s.unit.clone());
        if unit(ta) != unit(tb) {
            unmatched.push(format!(
                "{}: A is in {}, B in {}",
                describe(&ta.key),
                unit(ta).unwrap_or_else(|| "no unit".into()),
                unit(tb).unwrap_or_else(|| "no unit".into())
            ));
            continue;
        }
        cells.push(cell(ta, tb, alpha));
    }
    for tb in &b.tests {
        if !a.tests.iter().any(|t| t.key == tb.key) {
            unmatched.push(format!("only in B: {}", describe(&tb.key)));
        }
    }
    let summary = summarise(&cells);
    Comparison {
        alpha,
        cells,
        unmatched,
        summary,
    }
}

fn cell(ta: &TestResult, tb: &TestResult, alpha: f64) -> Cell {
    let (a, b) = (side(rates(ta)), side(rates(tb)));
    let interval = ratio_interval(&a.rates, &b.rates);
    let ratio = match interval {
        Some((r, _)) => r,
        None if a.mean > 0.0 => b.mean / a.mean,
        None => f64::NAN,
    };
    let test = if a.n >= 2 && b.n >= 2 {
        significance(&a.rates, &b.rates)
    } else {
        None
    };
    let verdict = match &test {
        None => Verdict::TooFewRuns,
        Some(s) if s.p < alpha && b.mean > a.mean => Verdict::Faster,
        Some(s) if s.p < alpha && b.mean < a.mean => Verdict::Slower,
        Some(_) => Verdict::NoSignificantDifference,
    };
    Cell {
        key: ta.key.clone(),
        unit: ta
            .summary
            .as_ref()
            .map_or("bytes/s".into(), |s| s.unit.clone()),
        a,
        b,
        ratio,
        ratio_ci95: interval.map(|(_, ci)| ci),
        significance: test,
        verdict,
    }
}

fn summarise(cells: &[Cell]) -> Summary {
    let ratios: Vec<f64> = cells
        .iter()
        .map(|c| c.ratio)
        .filter(|r| r.is_finite() && *r > 0.0)
        .collect();
    let geometric_mean = (!ratios.is_empty())
        .then(|| (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp());
    let count = |v: Verdict| cells.iter().filter(|c| c.verdict == v).count();
    let mut sweet_spot = Vec::new();
    sweet_spot.extend(spot(cells, "records", |k| k.record_size));
    sweet_spot.extend(spot(cells, "files", |k| k.file_size));
    Summary {
        geometric_mean,
        faster: count(Verdict::Faster),
        slower: count(Verdict::Slower),
        no_difference: count(Verdict::NoSignificantDifference),
        too_few_runs: count(Verdict::TooFewRuns),
        sweet_spot,
    }
}

/// Along one size axis: the ranges of sizes where every significant cell favours the same side
/// ("B faster with records 64 KiB – 16 MiB"). Nothing when the axis has one size.
fn spot(cells: &[Cell], axis: &str, size: impl Fn(&TestKey) -> u64) -> Vec<String> {
    let mut sizes: Vec<u64> = cells.iter().map(|c| size(&c.key)).collect();
    sizes.sort_unstable();
    sizes.dedup();
    if sizes.len() < 2 {
        return Vec::new();
    }
    // per size: Some(true) B wins, Some(false) A wins, None mixed or nothing significant
    let winners: Vec<Option<bool>> = sizes
        .iter()
        .map(|&s| {
            let here: Vec<Verdict> = cells
                .iter()
                .filter(|c| size(&c.key) == s)
                .map(|c| c.verdict)
                .filter(|v| matches!(v, Verdict::Faster | Verdict::Slower))
                .collect();
            match here.first() {
                Some(first) if here.iter().all(|v| v == first) => Some(*first == Verdict::Faster),
                _ => None,
            }
        })
        .collect();
    let mut said = Vec::new();
    let mut i = 0;
    while i < sizes.len() {
        let Some(winner) = winners[i] else {
            i += 1;
            continue;
        };
        let mut j = i;
        while j + 1 < sizes.len() && winners[j + 1] == Some(winner) {
            j += 1;
        }
        let range = if i == j {
            format_size(sizes[i])
        } else {
            format!("{} – {}", format_size(sizes[i]), format_size(sizes[j]))
        };
        let side = if winner { "B" } else { "A" };
        said.push(format!("{side} faster with {axis} of {range}"));
        i = j + 1;
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{Latency, RunRecord};
    use crate::stats::Summary as RunSummary;
    use crate::workload::TestKind;

    fn run(n: usize, rate: f64) -> RunRecord {
        RunRecord {
            n,
            warmup: false,
            bytes: 1,
            seconds: 1.0,
            ops: 1,
            bytes_per_s: rate,
            ops_per_s: rate / 1000.0,
            latency_us: Latency::default(),
            outlier: false,
            start_skew_s: 0.0,
            client_cpu_s: 0.0,
            workers: Vec::new(),
        }
    }

    fn result(test: TestKind, record: u64, rates: &[f64]) -> TestResult {
        TestResult {
            key: TestKey {
                test,
                file_size: 1 << 30,
                record_size: record,
                workers: 1,
                direct: false,
                entries: None,
            },
            cache_test: false,
            runs: rates
                .iter()
                .enumerate()
                .map(|(i, &r)| run(i + 1, r))
                .collect(),
            summary: RunSummary::of(rates, "bytes/s"),
        }
    }

    fn document(tests: Vec<TestResult>) -> Document {
        let mut document: Document = serde_json::from_value(serde_json::json!({
            "schema": "sharebench/1", "run_id": "x", "status": "complete", "started": "",
            "finished": "", "tool": {"name": "sharebench", "version": "0", "git_rev": ""},
            "host": {"hostname": "h", "cpus": 1, "ram": 1, "kernel": "k", "nics": []}, "target": {"url": "/", "protocol": "local", "parameters": {}},
            "config": {}, "tests": [], "baselines": [], "metrics": {}, "warnings": [],
            "verdict": null
        }))
        .unwrap();
        document.tests = tests;
        document
    }

    const SLOW: [f64; 5] = [100.0, 101.0, 99.0, 100.5, 99.5];
    const FAST: [f64; 5] = [120.0, 121.0, 119.0, 120.5, 119.5];
    const SAME: [f64; 5] = [100.2, 99.8, 100.9, 99.1, 100.0];

    #[test]
    fn cells_get_ratios_tests_and_verdicts() {
        let a = document(vec![
            result(TestKind::Read, 4096, &FAST),
            result(TestKind::Read, 1 << 20, &SLOW),
            result(TestKind::Write, 1 << 20, &SLOW),
        ]);
        let b = document(vec![
            result(TestKind::Read, 4096, &SLOW),
            result(TestKind::Read, 1 << 20, &FAST),
            result(TestKind::Write, 1 << 20, &SAME),
            result(TestKind::RandomRead, 4096, &SAME),
        ]);
        let c = compare(&a, &b, 0.05);
        let verdicts: Vec<Verdict> = c.cells.iter().map(|c| c.verdict).collect();
        assert_eq!(
            verdicts,
            [
                Verdict::Slower,
                Verdict::Faster,
                Verdict::NoSignificantDifference
            ]
        );
        assert!((c.cells[1].ratio - 1.2).abs() < 1e-9);
        let [lo, hi] = c.cells[1].ratio_ci95.unwrap();
        assert!(lo > 1.0 && hi < 1.25, "{lo} {hi}");
        assert_eq!(c.cells[1].significance.as_ref().unwrap().test, "welch-t");
        assert_eq!(
            c.unmatched,
            ["only in B: random-read 1 GiB × 4 KiB, 1 worker"]
        );
        let g = c.summary.geometric_mean.unwrap();
        let expected = (100.0f64 / 120.0 * 1.2 * (100.0 / 100.0)).powf(1.0 / 3.0);
        assert!((g - expected).abs() < 1e-3, "{g}");
        assert_eq!(
            (c.summary.faster, c.summary.slower, c.summary.no_difference),
            (1, 1, 1)
        );
    }

    #[test]
    fn the_sweet_spot_is_where_one_side_wins() {
        let sizes = [4096u64, 16384, 65536, 1 << 20, 16 << 20];
        let a = document(
            sizes
                .iter()
                .enumerate()
                .map(|(i, &s)| result(TestKind::Read, s, if i < 2 { &FAST } else { &SLOW }))
                .collect(),
        );
        let b = document(
            sizes
                .iter()
                .enumerate()
                .map(|(i, &s)| result(TestKind::Read, s, if i < 2 { &SLOW } else { &FAST }))
                .collect(),
        );
        let c = compare(&a, &b, 0.05);
        assert_eq!(
            c.summary.sweet_spot,
            [
                "A faster with records of 4 KiB – 16 KiB",
                "B faster with records of 64 KiB – 16 MiB"
            ]
        );
    }

    #[test]
    fn one_run_a_side_says_too_few() {
        let a = document(vec![result(TestKind::Read, 4096, &SLOW[..1])]);
        let b = document(vec![result(TestKind::Read, 4096, &FAST[..1])]);
        let c = compare(&a, &b, 0.05);
        assert_eq!(c.cells[0].verdict, Verdict::TooFewRuns);
        assert!((c.cells[0].ratio - 1.2).abs() < 1e-9);
    }
}
