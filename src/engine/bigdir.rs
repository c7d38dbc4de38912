//! One run of a metadata test in the big directory, at the directory size its cell names. The
//! directory is grown or shrunk to that size untimed; a run changes it only for a moment
//! (create adds `step` entries and takes them away again, remove the other way round), so every
//! run of a cell meets the same directory.

use super::recorder::Recorder;
use super::workdir::{BigDir, WorkDir};
use super::{caches, Cell, Plan, RunError};
use crate::monitor::cpu;
use crate::result::{RunRecord, WorkerRecord};
use crate::target::{Op, OpSink, Target};
use crate::workload::order::mix;
use crate::workload::TestKind;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What a metadata operation is recorded as: no bytes, one operation.
const NO_DATA: Op = Op {
    offset: 0,
    len: 0,
    write: false,
};

/// Measures run `n` of metadata `cell`. `Ok(None)` means `stop` was raised.
pub(super) fn measure(
    target: &dyn Target,
    plan: &Plan,
    cell: &Cell,
    workdir: &mut WorkDir,
    n: usize,
    warmup: bool,
    stop: &AtomicBool,
) -> Result<Option<RunRecord>, RunError> {
    let entries = cell
        .entries
        .expect("a metadata cell names its directory size");
    let failed = |doing: String| move |source| RunError { doing, source };
    let dir = workdir
        .big_dir(plan.metadata.kind)
        .map_err(failed("creating the big directory".into()))?;
    resize(target, dir, entries, stop).map_err(failed(format!(
        "filling the big directory to {entries} entries"
    )))?;
    if stop.load(Ordering::Relaxed) {
        return Ok(None);
    }
    if plan.drop_caches {
        caches::drop_page_cache().map_err(failed("dropping the caches".into()))?;
    }
    let mut recorder = Recorder::new();
    let (started, cpu_before) = (Instant::now(), cpu::process_seconds());
    let timed = timed(target, plan, cell.test, dir, n, &mut recorder, stop);
    let seconds = started.elapsed().as_secs_f64();
    let client_cpu_s = cpu::process_seconds() - cpu_before;
    timed.map_err(failed(format!(
        "{} run {n} in a directory of {entries}",
        cell.test
    )))?;
    if stop.load(Ordering::Relaxed) {
        return Ok(None);
    }
    // put the directory back as it was, untimed
    resize(target, dir, entries, stop).map_err(failed(format!(
        "restoring the big directory to {entries} entries"
    )))?;
    let mut record = record(&recorder, seconds, n, warmup);
    record.client_cpu_s = client_cpu_s;
    Ok(Some(record))
}

/// Adds or takes entries until the directory holds `entries`.
fn resize(
    target: &dyn Target,
    dir: &mut BigDir,
    entries: u64,
    stop: &AtomicBool,
) -> io::Result<()> {
    while dir.population < entries && !stop.load(Ordering::Relaxed) {
        dir.add(target)?;
    }
    while dir.population > entries && !stop.load(Ordering::Relaxed) {
        dir.take(target)?;
    }
    Ok(())
}

/// The timed operations of one run, each recorded with its latency.
fn timed(
    target: &dyn Target,
    plan: &Plan,
    test: TestKind,
    dir: &mut BigDir,
    n: usize,
    recorder: &mut Recorder,
    stop: &AtomicBool,
) -> io::Result<()> {
    let step = plan.metadata.step;
    let timed_op = |recorder: &mut Recorder, work: &mut dyn FnMut() -> io::Result<()>| {
        let issued = Instant::now();
        work()?;
        recorder.completed(&NO_DATA, issued.elapsed().as_nanos() as u64);
        Ok::<(), io::Error>(())
    };
    match test {
        TestKind::Create => {
            for _ in 0..step {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                timed_op(recorder, &mut || dir.add(target))?;
            }
        }
        TestKind::Remove => {
            for _ in 0..step.min(dir.population) {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                timed_op(recorder, &mut || dir.take(target))?;
            }
        }
        TestKind::Stat => {
            let population = dir.population;
            for i in 0..plan.metadata.sample.min(population) {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                // a different random entry each time, a different sequence each run
                let index = mix((n as u64) << 40 ^ i) % population;
                let path = dir.entry(index);
                timed_op(recorder, &mut || match target.file_size(&path)? {
                    Some(_) => Ok(()),
                    None => Err(io::Error::new(
                        io::ErrorKind::NotFound,
                        format!("{path} vanished from the big directory"),
                    )),
                })?;
            }
        }
        TestKind::List => {
            let mut listed = 0;
            timed_op(recorder, &mut || {
                listed = target.list_dir(&dir.path)?;
                Ok(())
            })?;
            if listed != dir.population {
                return Err(io::Error::other(format!(
                    "the listing returned {listed} entries of {}",
                    dir.population
                )));
            }
            // a listing is counted by the entries it returned
            recorder.ops = listed;
        }
        data => unreachable!("{data} is not a metadata test"),
    }
    Ok(())
}

fn record(recorder: &Recorder, seconds: f64, n: usize, warmup: bool) -> RunRecord {
    let ops_per_s = if seconds > 0.0 {
        recorder.ops as f64 / seconds
    } else {
        0.0
    };
    RunRecord {
        n,
        warmup,
        bytes: 0,
        seconds,
        ops: recorder.ops,
        bytes_per_s: 0.0,
        ops_per_s,
        latency_us: recorder.latency(),
        outlier: false,
        start_skew_s: 0.0,
        client_cpu_s: 0.0,
        workers: vec![WorkerRecord {
            worker: 0,
            bytes: 0,
            ops: recorder.ops,
            seconds,
            bytes_per_s: 0.0,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{EntryKind, MetadataParams};
    use crate::target::local::{LocalEngine, LocalTarget};
    use crate::workload::AccessParams;

    fn plan(kind: EntryKind) -> Plan {
        Plan {
            cells: Vec::new(),
            warmup: 0,
            runs: 1,
            workers: 1,
            direct: false,
            queue_depth: 1,
            fsync: false,
            drop_caches: false,
            verify: false,
            params: AccessParams::default(),
            metadata: MetadataParams {
                step: 7,
                sample: 5,
                kind,
            },
        }
    }

    fn cell(test: TestKind, entries: u64) -> Cell {
        Cell {
            test,
            file_size: 0,
            record_size: 0,
            entries: Some(entries),
        }
    }

    #[test]
    fn every_test_counts_its_operations_and_leaves_the_directory_as_it_found_it() {
        for kind in [EntryKind::File, EntryKind::Dir] {
            let root = tempfile::tempdir().unwrap();
            let target = LocalTarget::new(root.path(), LocalEngine::Psync).unwrap();
            let mut workdir = WorkDir::create(&target, "t", false).unwrap();
            let plan = plan(kind);
            let stop = AtomicBool::new(false);
            let bigdir = root.path().join(".sharebench-t/bigdir");
            for (test, ops) in [
                (TestKind::Create, 7),
                (TestKind::Stat, 5),
                (TestKind::List, 20),
                (TestKind::Remove, 7),
            ] {
                let run = measure(
                    &target,
                    &plan,
                    &cell(test, 20),
                    &mut workdir,
                    1,
                    false,
                    &stop,
                )
                .unwrap()
                .unwrap();
                assert_eq!(run.ops, ops, "{kind:?} {test}");
                assert!(run.ops_per_s > 0.0);
                assert_eq!(std::fs::read_dir(&bigdir).unwrap().count(), 20, "{test}");
            }
            let is_dir = std::fs::metadata(bigdir.join(match kind {
                EntryKind::File => "f00000019",
                EntryKind::Dir => "d00000019",
            }))
            .unwrap()
            .is_dir();
            assert_eq!(is_dir, kind == EntryKind::Dir);
            workdir.remove().unwrap();
            assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0);
        }
    }

    #[test]
    fn a_listing_that_misses_or_adds_entries_fails_the_run() {
        let root = tempfile::tempdir().unwrap();
        let target = LocalTarget::new(root.path(), LocalEngine::Psync).unwrap();
        let mut workdir = WorkDir::create(&target, "t", false).unwrap();
        let plan = plan(EntryKind::File);
        let stop = AtomicBool::new(false);
        measure(
            &target,
            &plan,
            &cell(TestKind::Stat, 3),
            &mut workdir,
            1,
            false,
            &stop,
        )
        .unwrap();
        let stray = root.path().join(".sharebench-t/bigdir/stray");
        std::fs::write(&stray, b"").unwrap();
        let error = measure(
            &target,
            &plan,
            &cell(TestKind::List, 3),
            &mut workdir,
            1,
            false,
            &stop,
        )
        .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("the listing returned 4 entries of 3"),
            "{error}"
        );
        std::fs::remove_file(stray).unwrap();
    }
}
