//! The big-directory table: each metadata test's rate at each directory size, and how far it
//! fell from the smallest size to the largest, which is the question the test answers.

use super::table::Table;
use crate::result::TestResult;
use crate::workload::TestKind;
use std::collections::BTreeSet;

/// A rate this much lower at the largest size than at the smallest is called out.
const SLOWDOWN_NOTED: f64 = 1.5;

pub fn table(results: &[TestResult]) -> Table {
    let tests: Vec<TestKind> = TestKind::METADATA
        .into_iter()
        .filter(|t| results.iter().any(|r| r.key.test == *t))
        .collect();
    let sizes: BTreeSet<u64> = results.iter().filter_map(|r| r.key.entries).collect();
    let median = |test: TestKind, entries: u64| {
        results
            .iter()
            .find(|r| r.key.test == test && r.key.entries == Some(entries))
            .and_then(|r| r.summary.as_ref())
    };
    let mut headers = vec!["entries".to_string()];
    headers.extend(tests.iter().map(|t| match t {
        TestKind::List => "list entries/s".to_string(),
        other => format!("{other} ops/s"),
    }));
    let rows = sizes
        .iter()
        .map(|&entries| {
            let mut row = vec![entries.to_string()];
            row.extend(tests.iter().map(|&test| match median(test, entries) {
                Some(s) => format!("{:.0} ±{:.0} %", s.median, s.cv * 100.0),
                None => "–".into(),
            }));
            row
        })
        .collect();
    let mut notes =
        vec!["each cell: the median of the counted runs ± their coefficient of variation".into()];
    if let (Some(&smallest), Some(&largest)) = (sizes.first(), sizes.last()) {
        for &test in &tests {
            if let (Some(small), Some(large)) = (median(test, smallest), median(test, largest)) {
                if large.median > 0.0 && small.median / large.median >= SLOWDOWN_NOTED {
                    notes.push(format!(
                        "{test} is {:.1}× slower with {largest} entries than with {smallest}",
                        small.median / large.median
                    ));
                }
            }
        }
    }
    Table {
        caption: "bigdir · metadata rates by directory size · 1 worker".into(),
        key: vec![("table".into(), "bigdir".into())],
        headers,
        rows,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::summarise;
    use crate::result::{Latency, RunRecord, TestKey};

    fn result(test: TestKind, entries: u64, rates: &[f64]) -> TestResult {
        let runs = rates
            .iter()
            .enumerate()
            .map(|(n, &rate)| RunRecord {
                n: n + 1,
                warmup: false,
                bytes: 0,
                seconds: 1.0,
                ops: rate as u64,
                bytes_per_s: 0.0,
                ops_per_s: rate,
                latency_us: Latency::default(),
                outlier: false,
                start_skew_s: 0.0,
                client_cpu_s: 0.0,
                workers: Vec::new(),
            })
            .collect();
        let key = TestKey {
            test,
            file_size: 0,
            record_size: 0,
            workers: 1,
            direct: false,
            entries: Some(entries),
        };
        summarise(key, runs)
    }

    #[test]
    fn rows_are_sizes_and_a_slowdown_is_called_out() {
        let results = [
            result(TestKind::Create, 100, &[900.0, 1000.0, 1100.0]),
            result(TestKind::Stat, 100, &[500.0, 500.0, 500.0]),
            result(TestKind::Create, 1000, &[250.0, 250.0, 250.0]),
            result(TestKind::Stat, 1000, &[450.0, 450.0, 450.0]),
        ];
        let table = table(&results);
        assert_eq!(table.headers, ["entries", "create ops/s", "stat ops/s"]);
        assert_eq!(table.rows[0], ["100", "1000 ±10 %", "500 ±0 %"]);
        assert_eq!(table.rows[1][0], "1000");
        assert!(table
            .notes
            .iter()
            .any(|n| n == "create is 4.0× slower with 1000 entries than with 100"));
        assert!(
            !table.notes.iter().any(|n| n.starts_with("stat")),
            "a 10 % drop is not called out"
        );
    }
}
