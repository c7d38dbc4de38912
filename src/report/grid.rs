//! The iozone -a picture as text: per test, file sizes down, record sizes across, median MB/s.

use super::table::Table;
use crate::result::TestResult;
use crate::units::{format_size_short, mb_per_s};
use crate::workload::TestKind;
use std::collections::BTreeSet;

/// One grid per test, in the order tests first appear.
pub fn grids(results: &[TestResult]) -> Vec<Table> {
    super::by_test(results, |r| r.key.test)
        .into_iter()
        .map(|(test, cells)| grid(&cells, test))
        .collect()
}

fn grid(cells: &[&TestResult], test: TestKind) -> Table {
    let files: BTreeSet<u64> = cells.iter().map(|r| r.key.file_size).collect();
    let records: BTreeSet<u64> = cells.iter().map(|r| r.key.record_size).collect();
    let headers = std::iter::once("file \\ record".to_string())
        .chain(records.iter().map(|&r| format_size_short(r)))
        .collect();
    let rows = files
        .iter()
        .map(|&file| {
            let mut row = vec![format_size_short(file)];
            row.extend(records.iter().map(|&record| {
                cells
                    .iter()
                    .find(|r| r.key.file_size == file && r.key.record_size == record)
                    .and_then(|r| r.summary.as_ref())
                    .map_or(String::new(), |s| format!("{:.0}", mb_per_s(s.median)))
            }));
            row
        })
        .collect();
    Table {
        caption: format!("{test} · median MB/s by file size (rows) and record size (columns)"),
        key: vec![("test".into(), test.to_string())],
        headers,
        rows,
        notes: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::summarise;
    use crate::result::{Latency, RunRecord, TestKey};

    fn cell(test: TestKind, file_size: u64, record_size: u64, mb: f64) -> TestResult {
        let run = RunRecord {
            n: 1,
            warmup: false,
            bytes: file_size,
            seconds: 1.0,
            ops: 1,
            bytes_per_s: mb * 1e6,
            ops_per_s: 1.0,
            latency_us: Latency::default(),
            outlier: false,
            start_skew_s: 0.0,
            client_cpu_s: 0.0,
            workers: vec![],
        };
        let key = TestKey {
            test,
            file_size,
            record_size,
            workers: 1,
            direct: false,
            entries: None,
        };
        summarise(key, vec![run])
    }

    #[test]
    fn grid_rows_are_files_and_columns_records_with_gaps_where_record_exceeds_file() {
        let results = [
            cell(TestKind::Write, 4096, 4096, 10.0),
            cell(TestKind::Write, 8192, 4096, 20.0),
            cell(TestKind::Write, 8192, 8192, 30.0),
            cell(TestKind::Read, 4096, 4096, 40.0),
        ];
        let tables = grids(&results);
        assert_eq!(tables.len(), 2);
        assert_eq!(tables[0].headers, ["file \\ record", "4K", "8K"]);
        assert_eq!(
            tables[0].rows,
            [vec!["4K", "10", ""], vec!["8K", "20", "30"]]
        );
        assert_eq!(tables[1].rows, [vec!["4K", "40"]]);
    }
}
