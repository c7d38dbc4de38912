//! How a plan is run: warm-up and counted runs of every cell, each run's workers started
//! together, every finished run handed to the observer at once (the journal writes it before the
//! next run starts). Measuring never prints.

mod bigdir;
pub mod caches;
pub mod preflight;
pub mod recorder;
mod run;
pub mod workdir;

use crate::result::{RunRecord, TestKey, TestResult};
use crate::stats::summary::summarise_runs;
use crate::target::Target;
use crate::workload::{AccessParams, TestKind};
use std::fmt;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use workdir::WorkDir;

/// One test at one file size and record size, or (metadata tests) at one directory size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    pub test: TestKind,
    pub file_size: u64,
    pub record_size: u64,
    /// Entries in the big directory when a metadata test runs.
    pub entries: Option<u64>,
}

/// Everything the engine needs to know, validated by the caller.
#[derive(Debug, Clone)]
pub struct Plan {
    pub cells: Vec<Cell>,
    pub warmup: usize,
    pub runs: usize,
    pub workers: usize,
    pub direct: bool,
    pub queue_depth: usize,
    /// Count flush (fsync) in the timing of writing tests, like iozone -e.
    pub fsync: bool,
    pub drop_caches: bool,
    /// Check every block read against what was written (and fill files with the test's own
    /// record size so the layouts match).
    pub verify: bool,
    pub params: AccessParams,
    pub metadata: MetadataParams,
}

/// What the metadata tests do at each directory size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct MetadataParams {
    /// Entries created or removed per run.
    pub step: u64,
    /// Entries looked up per stat run.
    pub sample: u64,
    pub kind: EntryKind,
}

impl Default for MetadataParams {
    fn default() -> Self {
        MetadataParams {
            step: 500,
            sample: 500,
            kind: EntryKind::File,
        }
    }
}

/// What the big directory holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// Empty files.
    File,
    /// Empty directories.
    Dir,
}

impl Plan {
    /// Warm-up plus counted runs over all cells: the length of the progress bar.
    pub fn total_runs(&self) -> usize {
        self.cells.len() * (self.warmup + self.runs)
    }

    fn key(&self, cell: &Cell) -> TestKey {
        TestKey {
            test: cell.test,
            file_size: cell.file_size,
            record_size: cell.record_size,
            workers: self.workers,
            direct: self.direct,
            entries: cell.entries,
        }
    }
}

/// Hears about runs as they happen.
pub trait Observer {
    /// A run is about to start (`n` counts from 1 within warm-up or counted runs).
    fn run_starting(&mut self, cell: &Cell, n: usize, warmup: bool);
    /// A run has finished; an error here (the journal cannot be written) stops the plan.
    fn run_finished(&mut self, key: &TestKey, run: &RunRecord) -> io::Result<()>;
}

/// Why a plan ended before its last run.
#[derive(Debug)]
pub enum Stop {
    /// SIGINT or SIGTERM.
    Interrupted,
    Failed(RunError),
}

/// A failure with what the engine was doing when it happened.
#[derive(Debug)]
pub struct RunError {
    pub doing: String,
    pub source: io::Error,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.doing, self.source)
    }
}

impl std::error::Error for RunError {}

/// What a plan measured, complete or not.
pub struct Measured {
    pub tests: Vec<TestResult>,
    pub stop: Option<Stop>,
}

/// Runs `plan` on `target` inside `workdir`. `stop` is polled between and during runs.
pub fn execute(
    target: &dyn Target,
    plan: &Plan,
    workdir: &mut WorkDir,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Measured {
    let mut tests = Vec::new();
    for cell in &plan.cells {
        let key = plan.key(cell);
        let mut runs = Vec::new();
        let schedule = (1..=plan.warmup)
            .map(|n| (n, true))
            .chain((1..=plan.runs).map(|n| (n, false)));
        for (n, warmup) in schedule {
            observer.run_starting(cell, n, warmup);
            let outcome = if cell.test.is_metadata() {
                bigdir::measure(target, plan, cell, workdir, n, warmup, stop)
            } else {
                run::measure(target, plan, cell, workdir, n, warmup, stop)
            };
            let record = match outcome {
                Ok(Some(record)) => record,
                Ok(None) => return finish(tests, key, runs, Some(Stop::Interrupted)),
                Err(e) => return finish(tests, key, runs, Some(Stop::Failed(e))),
            };
            if let Err(e) = observer.run_finished(&key, &record) {
                let e = RunError {
                    doing: "writing the journal".into(),
                    source: e,
                };
                return finish(tests, key, runs, Some(Stop::Failed(e)));
            }
            if !warmup {
                runs.push(record);
            }
            if stop.load(Ordering::Relaxed) {
                return finish(tests, key, runs, Some(Stop::Interrupted));
            }
        }
        tests.push(summarise(key, runs));
    }
    Measured { tests, stop: None }
}

/// Keeps the counted runs of the cell that was cut short, if it has any.
fn finish(
    mut tests: Vec<TestResult>,
    key: TestKey,
    runs: Vec<RunRecord>,
    stop: Option<Stop>,
) -> Measured {
    if !runs.is_empty() {
        tests.push(summarise(key, runs));
    }
    Measured { tests, stop }
}

/// Summarises the counted runs of one cell and flags their outliers.
pub fn summarise(key: TestKey, mut runs: Vec<RunRecord>) -> TestResult {
    // metadata tests count operations, data tests bytes
    let summary = if key.test.is_metadata() {
        summarise_runs(&mut runs, "ops/s", |run| run.ops_per_s)
    } else {
        summarise_runs(&mut runs, "bytes/s", |run| run.bytes_per_s)
    };
    TestResult {
        cache_test: key.test.is_cache_test(),
        key,
        runs,
        summary,
    }
}
