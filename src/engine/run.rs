//! One run of one cell: untimed set-up, a barrier so every worker starts at once, the timed
//! pass, and the figures of each worker and of the whole.

use super::recorder::Recorder;
use super::workdir::WorkDir;
use super::{caches, Cell, Plan, RunError};
use crate::monitor::cpu;
use crate::result::{RunRecord, WorkerRecord};
use crate::target::{Discard, Handle, IoSettings, OpenMode, Target};
use crate::workload::order::mix;
use crate::workload::TestKind;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::thread;
use std::time::Instant;

/// Largest request used to fill a file before the tests that read or rewrite it.
const FILL_RECORD: u64 = 1 << 20;

struct WorkerOutcome {
    started: Instant,
    ended: Instant,
    recorder: Recorder,
}

/// Measures run `n` of `cell`. `Ok(None)` means `stop` was raised and the partial run is dropped.
pub(super) fn measure(
    target: &dyn Target,
    plan: &Plan,
    cell: &Cell,
    workdir: &mut WorkDir,
    n: usize,
    warmup: bool,
    stop: &AtomicBool,
) -> Result<Option<RunRecord>, RunError> {
    let mut handles = Vec::with_capacity(plan.workers);
    for worker in 0..plan.workers {
        let path = workdir.worker_file(worker);
        let handle = set_up(target, plan, cell, &path, stop).map_err(|source| RunError {
            doing: format!("preparing {path} for {}", cell.test),
            source,
        })?;
        handles.push(handle);
    }
    if stop.load(Ordering::Relaxed) {
        return Ok(None);
    }
    if plan.drop_caches && !cell.test.is_cache_test() {
        caches::drop_page_cache().map_err(|source| RunError {
            doing: "dropping the page cache".into(),
            source,
        })?;
    }

    let cpu_before = cpu::process_seconds();
    let barrier = Barrier::new(plan.workers);
    let outcomes: Vec<io::Result<WorkerOutcome>> = thread::scope(|scope| {
        let threads: Vec<_> = handles
            .into_iter()
            .enumerate()
            .map(|(worker, mut handle)| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let seed = mix((n as u64) << 32 ^ (worker as u64) << 1 ^ warmup as u64);
                    let mut ops =
                        cell.test
                            .ops(cell.file_size, cell.record_size, plan.params, seed);
                    let outcome =
                        timed_pass(handle.as_mut(), &mut ops, plan, cell.test, barrier, stop);
                    if outcome.is_err() {
                        // the other workers stop early; the run is lost anyway
                        stop.store(true, Ordering::Relaxed);
                    }
                    outcome
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|thread| thread.join().expect("a benchmark worker panicked"))
            .collect()
    });

    let mut finished = Vec::with_capacity(outcomes.len());
    for (worker, outcome) in outcomes.into_iter().enumerate() {
        finished.push(outcome.map_err(|source| RunError {
            doing: format!("{} run {n} on worker {worker}'s file", cell.test),
            source,
        })?);
    }
    let client_cpu_s = cpu::process_seconds() - cpu_before;
    if stop.load(Ordering::Relaxed) {
        return Ok(None);
    }
    let mut record = aggregate(&finished, n, warmup);
    record.client_cpu_s = client_cpu_s;
    Ok(Some(record))
}

/// The timed part of one worker's run; the flush of a writing test is timed only with --fsync.
fn timed_pass(
    handle: &mut dyn Handle,
    ops: &mut dyn Iterator<Item = crate::target::Op>,
    plan: &Plan,
    test: TestKind,
    barrier: &Barrier,
    stop: &AtomicBool,
) -> io::Result<WorkerOutcome> {
    let mut recorder = Recorder::new();
    barrier.wait();
    let started = Instant::now();
    handle.execute(ops, &mut recorder, stop)?;
    if plan.fsync && test.writes() {
        handle.flush()?;
    }
    let ended = Instant::now();
    if test.writes() && !plan.fsync {
        // Untimed: without it, this run's dirty pages would be written back during the next.
        handle.flush()?;
    }
    Ok(WorkerOutcome {
        started,
        ended,
        recorder,
    })
}

/// Opens worker file `path` in the state the test expects, all untimed.
fn set_up(
    target: &dyn Target,
    plan: &Plan,
    cell: &Cell,
    path: &str,
    stop: &AtomicBool,
) -> io::Result<Box<dyn Handle>> {
    let io = IoSettings {
        max_io: cell.record_size as usize,
        queue_depth: plan.queue_depth,
        direct: plan.direct,
        verify: plan.verify,
    };
    if !cell.test.needs_file() {
        // "write" measures a new file: its allocation is part of the cost
        match target.remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        return target.open(path, OpenMode::Create, io);
    }
    if target.file_size(path)? != Some(cell.file_size) || plan.verify {
        // a verified read must find the layout its own record size writes
        let record = if plan.verify {
            cell.record_size
        } else {
            fill_record(cell.file_size)
        };
        fill(target, path, cell.file_size, record, io, stop)?;
    }
    let mut handle = target.open(path, OpenMode::Existing, io)?;
    if cell.test == TestKind::Reread {
        // reread measures a file that was just read: read it once, untimed
        let mut pass = TestKind::Read.ops(cell.file_size, cell.record_size, plan.params, 0);
        handle.execute(&mut pass, &mut Discard, stop)?;
    }
    Ok(handle)
}

/// The largest power of two up to 1 MiB that divides `size`, so a fill writes every byte.
fn fill_record(size: u64) -> u64 {
    FILL_RECORD.min(1 << size.trailing_zeros().min(63))
}

/// Writes a whole file of `size` bytes in `record`-byte requests and makes it durable, so later
/// tests start from disk.
fn fill(
    target: &dyn Target,
    path: &str,
    size: u64,
    record: u64,
    io: IoSettings,
    stop: &AtomicBool,
) -> io::Result<()> {
    let io = IoSettings {
        max_io: record as usize,
        verify: false,
        ..io
    };
    let mut handle = target.open(path, OpenMode::Create, io)?;
    let mut ops = TestKind::Write.ops(size, record, Default::default(), 0);
    handle.execute(&mut ops, &mut Discard, stop)?;
    handle.flush()
}

fn aggregate(finished: &[WorkerOutcome], n: usize, warmup: bool) -> RunRecord {
    let first_start = finished.iter().map(|w| w.started).min().expect("workers");
    let last_start = finished.iter().map(|w| w.started).max().expect("workers");
    let last_end = finished.iter().map(|w| w.ended).max().expect("workers");
    let seconds = (last_end - first_start).as_secs_f64();
    let mut total = Recorder::new();
    let workers = finished
        .iter()
        .enumerate()
        .map(|(worker, outcome)| {
            total.merge(&outcome.recorder);
            let seconds = (outcome.ended - outcome.started).as_secs_f64();
            WorkerRecord {
                worker,
                bytes: outcome.recorder.bytes,
                ops: outcome.recorder.ops,
                seconds,
                bytes_per_s: rate(outcome.recorder.bytes, seconds),
            }
        })
        .collect();
    RunRecord {
        n,
        warmup,
        bytes: total.bytes,
        seconds,
        ops: total.ops,
        bytes_per_s: rate(total.bytes, seconds),
        ops_per_s: rate(total.ops, seconds),
        latency_us: total.latency(),
        outlier: false,
        start_skew_s: (last_start - first_start).as_secs_f64(),
        client_cpu_s: 0.0,
        workers,
    }
}

fn rate(amount: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        amount as f64 / seconds
    } else {
        0.0
    }
}
