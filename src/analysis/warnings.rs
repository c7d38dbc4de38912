//! Warnings that say when a figure may not mean what it seems: the page cache answered instead
//! of the storage, the runs disagreed, the workers did not start together.

use crate::result::{TestResult, Warning};
use crate::stats::NOISY_CV;
use crate::units::format_size;
use crate::workload::TestKind;
use std::collections::BTreeMap;

/// Workers that start further apart than this share of a run did not run together.
const SKEW_LIMIT: f64 = 0.05;
/// A test this much faster than the server's own disk did not wait for that disk.
const BEYOND_THE_DISK: f64 = 1.2;

/// How the runs met the page cache.
#[derive(Debug, Clone)]
pub struct CacheContext {
    /// The client's memory, bytes.
    pub ram: u64,
    pub direct: bool,
    pub drop_caches: bool,
    pub fsync: bool,
    /// A network target: its caches are the server's, which this client cannot see.
    pub remote: bool,
    /// The target's filesystem when it keeps files in RAM (tmpfs, ramfs): then every figure
    /// measures memory, whatever the flags.
    pub memory_filesystem: Option<String>,
}

impl CacheContext {
    /// True when `test` over `working_set` bytes may be served by the page cache rather than
    /// the storage: reads of a set that fits in RAM without dropping caches, writes that fit in
    /// RAM and are not flushed within the timing.
    pub fn taints(&self, test: TestKind, working_set: u64) -> bool {
        if self.direct || test.is_cache_test() || working_set > self.ram {
            return false;
        }
        if test.writes() {
            !self.fsync
        } else {
            !self.drop_caches
        }
    }
}

/// All warnings about a set of results, cache warnings grouped by test.
pub fn warnings(tests: &[TestResult], cache: CacheContext) -> Vec<Warning> {
    let mut found = Vec::new();
    let mut tainted: BTreeMap<TestKind, u64> = BTreeMap::new();
    let mut noisy: BTreeMap<TestKind, Vec<(f64, &TestResult)>> = BTreeMap::new();
    for result in tests {
        let key = &result.key;
        let working_set = key.file_size * key.workers as u64;
        // (metadata tests have no working set of data; their caches are the directory's)
        if !key.test.is_metadata() && cache.taints(key.test, working_set) {
            let largest = tainted.entry(key.test).or_default();
            *largest = (*largest).max(working_set);
        }
        if let Some(summary) = result.summary.as_ref().filter(|s| s.is_noisy()) {
            noisy
                .entry(key.test)
                .or_default()
                .push((summary.cv, result));
        }
        let worst_skew = result
            .runs
            .iter()
            .filter(|run| run.seconds > 0.0)
            .map(|run| run.start_skew_s / run.seconds)
            .fold(0.0, f64::max);
        if worst_skew > SKEW_LIMIT {
            found.push(Warning {
                kind: "start_skew".into(),
                test: Some(key.test),
                message: format!(
                    "{}: workers started up to {:.0} % of a run apart, so they did not all run \
                     together; the aggregate understates concurrent throughput",
                    key.test,
                    worst_skew * 100.0
                ),
            });
        }
    }
    found.extend(
        noisy
            .into_iter()
            .map(|(test, cells)| noisy_warning(test, &cells)),
    );
    if cache.remote {
        if let Some(&largest) = tainted.values().max() {
            found.push(Warning {
                kind: "cache".into(),
                test: None,
                message: format!(
                    "the server may answer from its page cache when the working set ({}) fits in \
                     its RAM; compare the working set with the server's RAM, or use one larger",
                    format_size(largest)
                ),
            });
        }
        return found;
    }
    if let Some(fs_type) = &cache.memory_filesystem {
        found.push(Warning {
            kind: "cache".into(),
            test: None,
            message: format!(
                "the target is on {fs_type}, which keeps files in RAM: every figure here measures \
                 memory, not storage"
            ),
        });
        return found;
    }
    for (test, working_set) in tainted {
        let remedy = if test.writes() {
            "--fsync or --direct"
        } else {
            "--direct or --drop-caches"
        };
        found.push(Warning {
            kind: "cache".into(),
            test: Some(test),
            message: format!(
                "{test}: the working set ({}) fits in this client's RAM ({}), so the page cache \
                 may have served it rather than the storage; use {remedy}, or a working set larger \
                 than RAM",
                format_size(working_set),
                format_size(cache.ram)
            ),
        });
    }
    found
}

/// One warning per test for the cells whose runs disagree, naming the worst.
fn noisy_warning(test: TestKind, cells: &[(f64, &TestResult)]) -> Warning {
    let (cv, worst) = cells
        .iter()
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .expect("at least one noisy cell");
    let place = match worst.key.entries {
        Some(entries) => format!("directory of {entries} entries"),
        None => format!(
            "{} file, {} records",
            format_size(worst.key.file_size),
            format_size(worst.key.record_size)
        ),
    };
    let spread = if cells.len() == 1 {
        format!("runs vary by {:.1} % ({place})", cv * 100.0)
    } else {
        format!(
            "runs vary by more than {:.0} % in {} cells, up to {:.1} % ({place})",
            NOISY_CV * 100.0,
            cells.len(),
            cv * 100.0
        )
    };
    Warning {
        kind: "noisy".into(),
        test: Some(test),
        message: format!(
            "{test}: {spread}; a CV above {:.0} % means the machine was busy or the storage \
             unsteady, so compare medians and add runs",
            NOISY_CV * 100.0
        ),
    }
}

/// One warning per test the target cannot run: it is reported, never faked.
pub fn unsupported(tests: &[TestKind], protocol: &str) -> Vec<Warning> {
    tests
        .iter()
        .map(|&test| Warning {
            kind: "unsupported".into(),
            test: Some(test),
            message: format!(
                "{test} is not supported by {protocol} (it needs random access); it was not run"
            ),
        })
        .collect()
}

/// Tests of a network target that ran faster than the server's disk can (its serve agent's
/// baseline, durable writes and uncached reads, bytes/s): that speed came from the server's
/// memory, which no warning about RAM sizes can say as surely.
pub fn beyond_the_servers_disk(
    tests: &[TestResult],
    disk_write: Option<f64>,
    disk_read: Option<f64>,
) -> Vec<Warning> {
    let mut fastest: BTreeMap<TestKind, (f64, f64)> = BTreeMap::new();
    for result in tests.iter().filter(|t| !t.key.test.is_metadata()) {
        let disk = if result.key.test.writes() {
            disk_write
        } else {
            disk_read
        };
        let (Some(disk), Some(summary)) = (disk, &result.summary) else {
            continue;
        };
        if summary.median > disk * BEYOND_THE_DISK {
            let best = fastest.entry(result.key.test).or_insert((0.0, disk));
            if summary.median > best.0 {
                *best = (summary.median, disk);
            }
        }
    }
    fastest
        .into_iter()
        .map(|(test, (rate, disk))| {
            let (what, remedy) = if test.writes() {
                (
                    "durable writes",
                    "the server acknowledged data still in its page cache; use --fsync to count \
                     the flush",
                )
            } else {
                (
                    "uncached reads",
                    "the server answered from its page cache; use a file larger than its RAM to \
                     measure its storage",
                )
            };
            Warning {
                kind: "cache".into(),
                test: Some(test),
                message: format!(
                    "{test} reached {:.1} MB/s, {:.1}× the server disk's own {what} ({:.1} MB/s): \
                     {remedy}",
                    rate / 1e6,
                    rate / disk,
                    disk / 1e6
                ),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::summarise;
    use crate::result::{Latency, RunRecord, TestKey};

    fn result(test: TestKind, file_size: u64, rates: &[f64], skew: f64) -> TestResult {
        let runs = rates
            .iter()
            .enumerate()
            .map(|(i, &rate)| RunRecord {
                n: i + 1,
                warmup: false,
                bytes: file_size,
                seconds: 1.0,
                ops: 1,
                bytes_per_s: rate,
                ops_per_s: 1.0,
                latency_us: Latency::default(),
                outlier: false,
                start_skew_s: skew,
                client_cpu_s: 0.0,
                workers: vec![],
            })
            .collect();
        let key = TestKey {
            test,
            file_size,
            record_size: 4096,
            workers: 1,
            direct: false,
            entries: None,
        };
        summarise(key, runs)
    }

    const GIB: u64 = 1 << 30;

    fn context() -> CacheContext {
        CacheContext {
            ram: 8 * GIB,
            direct: false,
            drop_caches: false,
            fsync: false,
            remote: false,
            memory_filesystem: None,
        }
    }

    #[test]
    fn a_remote_target_gets_one_warning_about_the_server_cache() {
        let tests = [
            result(TestKind::Read, GIB, &[1.0, 1.0, 1.0], 0.0),
            result(TestKind::Write, 2 * GIB, &[1.0, 1.0, 1.0], 0.0),
        ];
        let remote = CacheContext {
            remote: true,
            ..context()
        };
        let found = warnings(&tests, remote);
        assert_eq!(kinds(&found), [("cache", None)]);
        assert!(
            found[0].message.contains("working set (2 GiB)"),
            "{}",
            found[0].message
        );
        assert!(!found[0].message.contains("client"), "{}", found[0].message);
    }

    #[test]
    fn tests_faster_than_the_servers_disk_came_from_its_memory() {
        let tests = [
            result(TestKind::Read, GIB, &[300e6, 300e6, 300e6], 0.0),
            result(TestKind::Read, 2 * GIB, &[450e6, 450e6, 450e6], 0.0),
            result(TestKind::Write, GIB, &[110e6, 110e6, 110e6], 0.0),
            result(TestKind::Rewrite, GIB, &[130e6, 130e6, 130e6], 0.0),
        ];
        let found = beyond_the_servers_disk(&tests, Some(100e6), Some(200e6));
        let messages: Vec<&str> = found.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        let read = found
            .iter()
            .find(|w| w.test == Some(TestKind::Read))
            .unwrap();
        assert!(
            read.message.contains(
                "read reached 450.0 MB/s, 2.2× the server disk's own uncached reads (200.0 MB/s)"
            ),
            "the fastest read is named: {}",
            read.message
        );
        let rewrite = found
            .iter()
            .find(|w| w.test == Some(TestKind::Rewrite))
            .unwrap();
        assert!(rewrite.message.contains("1.3×") && rewrite.message.contains("--fsync"));
        assert!(
            found.iter().all(|w| w.test != Some(TestKind::Write)),
            "1.1× is within the noise"
        );
        assert!(beyond_the_servers_disk(&tests, None, None).is_empty());
    }

    #[test]
    fn a_memory_filesystem_is_named_once_instead_of_per_test_warnings() {
        let tests = [
            result(TestKind::Read, GIB, &[1.0, 1.0, 1.0], 0.0),
            result(TestKind::Write, GIB, &[1.0, 1.0, 1.0], 0.0),
        ];
        let ctx = CacheContext {
            direct: true,
            memory_filesystem: Some("tmpfs".into()),
            ..context()
        };
        let found = warnings(&tests, ctx);
        assert_eq!(kinds(&found), [("cache", None)]);
        assert!(
            found[0].message.contains("on tmpfs"),
            "{}",
            found[0].message
        );
    }

    fn kinds(warnings: &[Warning]) -> Vec<(&str, Option<TestKind>)> {
        warnings.iter().map(|w| (w.kind.as_str(), w.test)).collect()
    }

    #[test]
    fn a_working_set_that_fits_in_ram_is_flagged_once_per_test() {
        let tests = [
            result(TestKind::Read, GIB, &[1.0, 1.0, 1.0], 0.0),
            result(TestKind::Read, 2 * GIB, &[1.0, 1.0, 1.0], 0.0),
            result(TestKind::Read, 16 * GIB, &[1.0, 1.0, 1.0], 0.0),
        ];
        let found = warnings(&tests, context());
        assert_eq!(kinds(&found), [("cache", Some(TestKind::Read))]);
        assert!(found[0].message.contains("(2 GiB)"), "{}", found[0].message);
        assert!(found[0].message.contains("(8 GiB)"), "{}", found[0].message);
    }

    #[test]
    fn direct_io_drop_caches_and_fsync_each_clear_their_kind_of_taint() {
        let ctx = context();
        assert!(ctx.taints(TestKind::Read, GIB));
        assert!(ctx.taints(TestKind::Write, GIB));
        assert!(!ctx.taints(TestKind::Read, 9 * GIB));
        assert!(
            !ctx.taints(TestKind::Reread, GIB),
            "a cache test is meant to hit the cache"
        );
        let direct = CacheContext {
            direct: true,
            ..ctx.clone()
        };
        assert!(!direct.taints(TestKind::Read, GIB) && !direct.taints(TestKind::Write, GIB));
        let dropped = CacheContext {
            drop_caches: true,
            ..ctx.clone()
        };
        assert!(!dropped.taints(TestKind::Read, GIB));
        assert!(dropped.taints(TestKind::Write, GIB));
        let synced = CacheContext { fsync: true, ..ctx };
        assert!(!synced.taints(TestKind::Write, GIB));
        assert!(synced.taints(TestKind::Read, GIB));
    }

    #[test]
    fn noisy_cells_of_one_test_make_one_warning_naming_the_worst() {
        let tests = [
            result(TestKind::Write, 16 * GIB, &[100.0, 130.0, 80.0], 0.0),
            result(TestKind::Write, 32 * GIB, &[100.0, 200.0, 50.0], 0.0),
            result(TestKind::Write, 64 * GIB, &[100.0, 100.0, 100.0], 0.0),
        ];
        let found = warnings(&tests, context());
        assert_eq!(kinds(&found), [("noisy", Some(TestKind::Write))]);
        assert!(
            found[0]
                .message
                .contains("in 2 cells, up to 65.5 % (32 GiB file"),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn noisy_runs_and_skewed_starts_are_flagged() {
        let tests = [
            result(TestKind::Write, 16 * GIB, &[100.0, 130.0, 80.0], 0.0),
            result(TestKind::Read, 16 * GIB, &[100.0, 101.0, 99.0], 0.2),
            result(TestKind::RandomRead, 16 * GIB, &[100.0, 102.0, 98.0], 0.01),
        ];
        assert_eq!(
            kinds(&warnings(&tests, context())),
            [
                ("start_skew", Some(TestKind::Read)),
                ("noisy", Some(TestKind::Write))
            ]
        );
    }
}
