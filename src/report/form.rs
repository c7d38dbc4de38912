//! The measurement form: every run of a test with its bytes, seconds and rates, then the
//! average and the deviation, the way admins have recorded benchmarks for decades.

use super::table::Table;
use crate::result::{Baseline, Document, RunRecord, TestResult};
use crate::stats::outliers::median;
use crate::stats::summary::Summary;
use crate::units::{format_size, mb_per_s, mbit_per_s};

/// The line that names the units the forms use.
pub const UNITS_LINE: &str =
    "MB/s = 10^6 bytes/s · Mb/s = 10^6 bits/s · KiB, MiB, GiB = 2^10, 2^20, 2^30 bytes";

/// What a test ran on, for the caption.
pub fn caption(result: &TestResult) -> String {
    let key = &result.key;
    let workers = match key.workers {
        1 => "1 worker".to_string(),
        n => format!("{n} workers"),
    };
    let mut caption = format!(
        "{} · file {} · record {} · {workers} · {}",
        key.test,
        format_size(key.file_size),
        format_size(key.record_size),
        if key.direct { "direct" } else { "buffered" }
    );
    if result.cache_test {
        caption.push_str(" · cache test");
    }
    caption
}

/// The form of one test. `link_bits` (bits/s) adds a "% link" column.
pub fn form(result: &TestResult, link_bits: Option<f64>, notes: Vec<String>) -> Table {
    let key = &result.key;
    let (headers, rows) = runs_and_summary(&result.runs, result.summary.as_ref(), link_bits, true);
    let mut notes = notes;
    if let Some(line) = per_worker(result) {
        notes.insert(0, line);
    }
    Table {
        caption: caption(result),
        key: vec![
            ("test".into(), key.test.to_string()),
            ("file_size".into(), key.file_size.to_string()),
            ("record_size".into(), key.record_size.to_string()),
            ("workers".into(), key.workers.to_string()),
            ("direct".into(), key.direct.to_string()),
        ],
        headers,
        rows,
        notes,
    }
}

/// What a reader must know beside a test's form: it measures the cache by design, or the
/// cache may have served it.
pub fn notes(result: &TestResult, document: &Document) -> Vec<String> {
    let mut notes = Vec::new();
    if result.cache_test {
        notes.push("cache test: measures the page cache by design".to_string());
    }
    let tainted = document
        .warnings
        .iter()
        .any(|w| w.kind == "cache" && w.test == Some(result.key.test));
    if tainted {
        notes.push("cache: the page cache may have served this test (see warnings)".into());
    }
    notes
}

/// What a baseline of a run measured.
pub fn baseline_caption(baseline: &Baseline) -> String {
    match (baseline.kind.as_str(), baseline.direction.as_str()) {
        ("tcp", "upload") => "raw TCP to the server's serve agent".into(),
        ("tcp", "download") => "raw TCP from the server's serve agent".into(),
        ("local_disk", "write") => {
            "the server's disk, written with fsync by its serve agent".into()
        }
        ("local_disk", "read") => "the server's disk, read back uncached by its serve agent".into(),
        ("ftp", direction) => format!("FTP {direction} (--ftp-baseline), the judged test's sizes"),
        (kind, direction) => format!("{} {direction}", kind.replace('_', " ")),
    }
}

/// The form of a baseline (raw TCP, …), under `caption`.
pub fn baseline_form(baseline: &Baseline, caption: String, link_bits: Option<f64>) -> Table {
    // a stream has no requests, so no request latency
    let (headers, rows) =
        runs_and_summary(&baseline.runs, baseline.summary.as_ref(), link_bits, false);
    Table {
        caption,
        key: vec![("baseline".into(), baseline.kind.clone())],
        headers,
        rows,
        notes: Vec::new(),
    }
}

/// A form's columns, and its rows: every run, then the summary.
fn runs_and_summary(
    runs: &[RunRecord],
    summary: Option<&Summary>,
    link_bits: Option<f64>,
    latency: bool,
) -> (Vec<String>, Vec<Vec<String>>) {
    let mut headers = vec!["run", "bytes", "seconds", "MB/s", "Mb/s"];
    if link_bits.is_some() {
        headers.push("% link");
    }
    if latency {
        headers.push("p99 µs");
    }
    let rates = |bytes_per_s: f64| {
        let mut cells = vec![
            format!("{:.1}", mb_per_s(bytes_per_s)),
            format!("{:.1}", mbit_per_s(bytes_per_s)),
        ];
        if let Some(link) = link_bits {
            cells.push(format!("{:.1}", bytes_per_s * 8.0 / link * 100.0));
        }
        cells
    };

    let mut rows = Vec::new();
    for run in runs {
        let mut row = vec![
            run.n.to_string(),
            run.bytes.to_string(),
            format!("{:.4}", run.seconds),
        ];
        row.extend(rates(run.bytes_per_s));
        if latency {
            row.push(format!("{:.1}", run.latency_us.p99));
        }
        if run.outlier {
            row.push("outlier".into());
        }
        rows.push(row);
    }
    if let Some(s) = summary {
        let summary_row = |label: &str, value: f64, remark: String| {
            let mut row = vec![label.to_string(), String::new(), String::new()];
            row.extend(rates(value));
            if latency {
                row.push(String::new());
            }
            if !remark.is_empty() {
                row.push(remark);
            }
            row
        };
        let ci = s.ci95.map_or(String::new(), |[low, high]| {
            format!("95 % CI {:.1} – {:.1} MB/s", mb_per_s(low), mb_per_s(high))
        });
        rows.push(summary_row("average", s.mean, ci));
        rows.push(summary_row(
            "deviation",
            s.stddev,
            format!("CV {:.1} %", s.cv * 100.0),
        ));
        rows.push(summary_row(
            "median",
            s.median,
            format!(
                "min {:.1} · max {:.1} MB/s",
                mb_per_s(s.min),
                mb_per_s(s.max)
            ),
        ));
        if !s.outliers.is_empty() {
            let remark = format!("without {} outlier run(s)", s.outliers.len());
            rows.push(summary_row("valid mean", s.valid_mean, remark));
        }
    }
    (headers.into_iter().map(String::from).collect(), rows)
}

/// The cells of one test in one table, a row per cell with every counted run's MB/s and the
/// summary: the forms of a grid too large for a form per cell (a full iozone matrix has 1638).
pub fn condensed(results: &[&TestResult]) -> Table {
    let runs = results
        .iter()
        .map(|r| r.runs.iter().filter(|run| !run.warmup).count())
        .max()
        .unwrap_or(0);
    let mut headers: Vec<String> = ["file", "record", "workers"].map(String::from).to_vec();
    headers.extend((1..=runs).map(|n| format!("run {n}")));
    headers.extend(["average", "deviation", "CV %", "95 % CI", "median"].map(String::from));
    let mb = |rate: f64| format!("{:.1}", mb_per_s(rate));
    let rows = results
        .iter()
        .map(|result| {
            let key = &result.key;
            let mut row = vec![
                format_size(key.file_size),
                format_size(key.record_size),
                key.workers.to_string(),
            ];
            let counted: Vec<&RunRecord> = result.runs.iter().filter(|r| !r.warmup).collect();
            row.extend((0..runs).map(|i| match counted.get(i) {
                Some(run) if run.outlier => format!("{}*", mb(run.bytes_per_s)),
                Some(run) => mb(run.bytes_per_s),
                None => String::new(),
            }));
            match &result.summary {
                Some(s) => row.extend([
                    mb(s.mean),
                    mb(s.stddev),
                    format!("{:.1}", s.cv * 100.0),
                    s.ci95
                        .map_or(String::new(), |[lo, hi]| format!("{} – {}", mb(lo), mb(hi))),
                    mb(s.median),
                ]),
                None => row.extend(std::iter::repeat_n(String::new(), 5)),
            }
            row
        })
        .collect();
    let test = results
        .first()
        .map_or(String::new(), |r| r.key.test.to_string());
    Table {
        caption: format!("{test} · MB/s of every counted run, one row per cell"),
        key: vec![("test".into(), test)],
        headers,
        rows,
        notes: vec!["* an outlier, left out of the valid mean".into()],
    }
}

/// With several workers: the slowest, median and fastest worker, each by its median over runs,
/// so one straggler behind a good aggregate shows.
fn per_worker(result: &TestResult) -> Option<String> {
    if result.key.workers < 2 || result.runs.is_empty() {
        return None;
    }
    let mut rates: Vec<f64> = (0..result.key.workers)
        .map(|worker| {
            let runs: Vec<f64> = result
                .runs
                .iter()
                .filter_map(|run| run.workers.get(worker).map(|w| w.bytes_per_s))
                .collect();
            median(&runs)
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    Some(format!(
        "per worker (median of runs): slowest {:.1} · median {:.1} · fastest {:.1} MB/s",
        mb_per_s(rates[0]),
        mb_per_s(median(&rates)),
        mb_per_s(rates[rates.len() - 1])
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::summarise;
    use crate::result::{Latency, RunRecord, TestKey};
    use crate::workload::TestKind;

    fn run(n: usize, mb: f64) -> RunRecord {
        RunRecord {
            n,
            warmup: false,
            bytes: 100_000_000,
            seconds: 100.0 / mb,
            ops: 100,
            bytes_per_s: mb * 1e6,
            ops_per_s: mb,
            latency_us: Latency {
                mean: 1.0,
                p50: 1.0,
                p90: 2.0,
                p99: 3.0,
                p99_9: 4.0,
                max: 5.0,
            },
            outlier: false,
            start_skew_s: 0.0,
            client_cpu_s: 0.0,
            workers: vec![],
        }
    }

    /// Four runs near 100 MB/s and one at 40, an outlier.
    fn five_runs() -> Vec<RunRecord> {
        vec![
            run(1, 100.0),
            run(2, 101.0),
            run(3, 99.0),
            run(4, 100.0),
            run(5, 40.0),
        ]
    }

    #[test]
    fn the_form_shows_runs_average_deviation_and_outliers() {
        let key = TestKey {
            test: TestKind::Read,
            file_size: 1 << 30,
            record_size: 1 << 20,
            workers: 1,
            direct: false,
            entries: None,
        };
        let result = summarise(key, five_runs());
        let table = form(&result, Some(1e9), vec![]);
        assert_eq!(
            table.caption,
            "read · file 1 GiB · record 1 MiB · 1 worker · buffered"
        );
        assert_eq!(
            table.headers,
            ["run", "bytes", "seconds", "MB/s", "Mb/s", "% link", "p99 µs"]
        );
        assert_eq!(
            table.rows[0],
            ["1", "100000000", "1.0000", "100.0", "800.0", "80.0", "3.0"]
        );
        assert_eq!(table.rows[4].last().unwrap(), "outlier");
        assert_eq!(table.rows[5][0], "average");
        assert_eq!(table.rows[5][3], "88.0");
        assert_eq!(table.rows[6][0], "deviation");
        assert_eq!(table.rows[8][..4], ["valid mean", "", "", "100.0"]);
        assert!(
            table.notes.is_empty(),
            "one worker needs no per-worker line"
        );
    }

    #[test]
    fn a_condensed_form_has_a_row_per_cell_with_every_counted_run() {
        let key = |record_size| TestKey {
            test: TestKind::Read,
            file_size: 1 << 30,
            record_size,
            workers: 1,
            direct: false,
            entries: None,
        };
        let a = summarise(key(4096), five_runs());
        let b = summarise(key(1 << 20), vec![run(1, 200.0), run(2, 200.0)]);
        let table = condensed(&[&a, &b]);
        assert_eq!(
            table.caption,
            "read · MB/s of every counted run, one row per cell"
        );
        assert_eq!(table.headers.len(), 3 + 5 + 5, "five counted runs at most");
        assert_eq!(
            table.rows[0][..9],
            ["1 GiB", "4 KiB", "1", "100.0", "101.0", "99.0", "100.0", "40.0*", "88.0"]
        );
        assert_eq!(table.rows[1][3..9], ["200.0", "200.0", "", "", "", "200.0"]);
        assert_eq!(table.rows[1][12], "200.0", "the median");
    }

    #[test]
    fn several_workers_show_slowest_median_and_fastest() {
        use crate::result::WorkerRecord;
        let key = TestKey {
            test: TestKind::Write,
            file_size: 1 << 20,
            record_size: 1 << 20,
            workers: 3,
            direct: false,
            entries: None,
        };
        let with_workers = |n: usize, mbs: [f64; 3]| {
            let mut record = run(n, mbs.iter().sum());
            record.workers = mbs
                .iter()
                .enumerate()
                .map(|(worker, mb)| WorkerRecord {
                    worker,
                    bytes: 1,
                    ops: 1,
                    seconds: 1.0,
                    bytes_per_s: mb * 1e6,
                })
                .collect();
            record
        };
        // worker medians over the three runs: 10, 20, 35
        let result = summarise(
            key,
            vec![
                with_workers(1, [10.0, 20.0, 30.0]),
                with_workers(2, [9.0, 21.0, 35.0]),
                with_workers(3, [11.0, 19.0, 40.0]),
            ],
        );
        let table = form(&result, None, vec!["x".into()]);
        assert_eq!(
            table.notes,
            [
                "per worker (median of runs): slowest 10.0 · median 20.0 · fastest 35.0 MB/s",
                "x"
            ]
        );
    }
}
