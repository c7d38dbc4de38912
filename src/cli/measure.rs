//! Wiring of the measuring commands: check the input, set up the work directory and the journal,
//! run the engine, hand the results to the reports.

use super::args::{BigdirArgs, MatrixArgs, MethodArgs, RunArgs};
use super::ftp_baseline;
use super::server_side;
use super::targets;
use super::{Failure, EXIT_INTERRUPTED};
use crate::analysis::advisor::{self, read::smb::SmbConf};
use crate::analysis::verdict;
use crate::analysis::warnings::{self, warnings, CacheContext};
use crate::engine::preflight;
use crate::engine::workdir::WorkDir;
use crate::engine::{self, caches, Cell, EntryKind, MetadataParams, Observer, Plan, Stop};
use crate::monitor::host::HostInfo;
use crate::monitor::sampler::{RunWindow, Sampler};
use crate::report::form::{self, UNITS_LINE};
use crate::report::journal::Journal;
use crate::report::progress::Progress;
use crate::report::{self, bigdir, grid, table};
use crate::result::{Document, RunRecord, TestKey, ToolInfo, SCHEMA};
use crate::target::local::{is_memory_filesystem, LocalEngine};
use crate::target::{IoSettings, OpenMode, Target, TargetInfo};
use crate::units::format_size;
use crate::workload::{AccessParams, TestKind};
use serde_json::json;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

/// The default size of each worker's file.
const DEFAULT_FILE_SIZE: u64 = 1 << 30;

/// How the results are laid out on the terminal.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// One measurement form per test.
    Forms,
    /// One file-size × record-size grid per test.
    Grids,
    /// One table: the metadata rates at each directory size.
    BigDir,
}

pub fn run(args: RunArgs) -> Result<(), Failure> {
    let method = &args.method;
    check_method(method)?;
    check_data_tests(method)?;
    if args.file_size == Some(0) {
        return Err(Failure::bad_input("--file-size must be at least 1 byte."));
    }
    if args.record_size == Some(0) {
        return Err(Failure::bad_input("--record-size must be at least 1 byte."));
    }
    let wanted = args.file_size.unwrap_or(DEFAULT_FILE_SIZE);
    if let Some(record) = args.record_size.filter(|&r| r > wanted) {
        return Err(Failure::bad_input(format!(
            "the record size ({}) is larger than the file size ({}).",
            format_size(record),
            format_size(wanted)
        )));
    }
    // the arguments are checked before the target is reached (which may ask for a password)
    let target = targets::open(args.target.as_deref(), method)?;
    let target = target.as_ref();
    let (tests, unsupported) = supported_tests(target, method)?;
    let smallest = args.record_size.unwrap_or(1 << 20);
    let fit = fit_space(target, method, wanted, args.file_size.is_some(), smallest)?;
    let cells = tests
        .iter()
        .map(|&test| Cell {
            test,
            file_size: fit.file_size,
            record_size: args
                .record_size
                .unwrap_or_else(|| test.default_record_size().min(fit.file_size)),
            entries: None,
        })
        .collect();
    let config = json!({
        "command": "run",
        "file_size": fit.file_size,
        "record_size": args.record_size,
    });
    let plan = plan(method, cells)?;
    session(target, plan, method, config, unsupported, Layout::Forms)
}

pub fn matrix(args: MatrixArgs) -> Result<(), Failure> {
    let method = &args.method;
    check_method(method)?;
    check_data_tests(method)?;
    let (files, records) = (&args.file_sizes.0, &args.record_sizes.0);
    let largest_file = *files.iter().max().expect("a range has at least one size");
    let smallest_record = *records.iter().min().expect("a range has at least one size");
    if smallest_record > largest_file {
        return Err(Failure::bad_input(format!(
            "every record size is larger than every file size ({} > {}).",
            format_size(smallest_record),
            format_size(largest_file)
        )));
    }
    let target = targets::open(args.target.as_deref(), method)?;
    let target = target.as_ref();
    let (tests, unsupported) = supported_tests(target, method)?;
    fit_space(target, method, largest_file, true, smallest_record)?;
    // iozone -a order: for each file size, for each record size, every test
    let mut cells = Vec::new();
    for &file_size in files {
        for &record_size in records.iter().filter(|&&r| r <= file_size) {
            cells.extend(tests.iter().map(|&test| Cell {
                test,
                file_size,
                record_size,
                entries: None,
            }));
        }
    }
    let config = json!({
        "command": "matrix",
        "file_sizes": files,
        "record_sizes": records,
    });
    let plan = plan(method, cells)?;
    session(target, plan, method, config, unsupported, Layout::Grids)
}

pub fn bigdir(args: BigdirArgs) -> Result<(), Failure> {
    let method = &args.method;
    check_method(method)?;
    // the data tests' default list means "not chosen": then all metadata tests run
    let tests: Vec<TestKind> = if method.tests == TestKind::DEFAULT {
        TestKind::METADATA.to_vec()
    } else {
        method.tests.clone()
    };
    if let Some(data) = tests.iter().find(|t| !t.is_metadata()) {
        return Err(Failure::bad_input(format!(
            "{data} is a data test, for run or matrix; bigdir runs create, stat, list and remove."
        )));
    }
    let data_only = [
        (method.workers > 1, "--workers"),
        (method.direct, "--direct"),
        (method.qd > 1, "--qd"),
        (method.fsync, "--fsync"),
        (method.verify, "--verify"),
        (method.engine != LocalEngine::Psync, "--engine"),
    ];
    if let Some((_, flag)) = data_only.iter().find(|(set, _)| *set) {
        return Err(Failure::bad_input(format!(
            "{flag} applies to data tests; bigdir measures one client's metadata operations."
        )));
    }
    let step = args.step.unwrap_or((args.count / 10).max(1));
    if step > args.count {
        return Err(Failure::bad_input(format!(
            "--step ({step}) is larger than --count ({}).",
            args.count
        )));
    }
    let target = targets::open(args.target.as_deref(), method)?;
    let target = target.as_ref();
    if !target.capabilities().metadata {
        return Err(Failure::bad_input(format!(
            "{} targets cannot create, list and remove directory entries.",
            target.info().protocol
        )));
    }
    let ftp = target.info().protocol == "ftp";
    if ftp && args.kind == EntryKind::Dir && tests.contains(&TestKind::Stat) {
        return Err(Failure::bad_input(
            "FTP cannot stat a directory (SIZE is for files); use --kind file, or --tests \
             create,list,remove.",
        ));
    }
    // the directory grows level by level; every test runs at every level
    let levels = (1..=args.count / step)
        .map(|i| i * step)
        .chain((!args.count.is_multiple_of(step)).then_some(args.count));
    let cells = levels
        .flat_map(|entries| {
            tests.iter().map(move |&test| Cell {
                test,
                file_size: 0,
                record_size: 0,
                entries: Some(entries),
            })
        })
        .collect();
    let config = json!({
        "command": "bigdir",
        "count": args.count,
        "step": step,
        "sample": args.sample,
        "kind": args.kind,
    });
    let mut plan = plan(method, cells)?;
    plan.metadata = MetadataParams {
        step,
        sample: args.sample,
        kind: args.kind,
    };
    session(target, plan, method, config, Vec::new(), Layout::BigDir)
}

/// Run and matrix measure data; the metadata tests belong to bigdir.
fn check_data_tests(method: &MethodArgs) -> Result<(), Failure> {
    match method.tests.iter().find(|t| t.is_metadata()) {
        Some(test) => Err(Failure::bad_input(format!(
            "{test} is a metadata test; run it with sharebench bigdir."
        ))),
        None => Ok(()),
    }
}

/// Checks the settings that need no target.
fn check_method(method: &MethodArgs) -> Result<(), Failure> {
    if method.drop_caches && !caches::can_drop_caches() {
        return Err(Failure::bad_input(
            "--drop-caches needs root, as the kernel only lets root drop the page cache.",
        ));
    }
    Ok(())
}

/// Splits the asked tests into those the target can run and those it cannot.
fn supported_tests(
    target: &dyn Target,
    method: &MethodArgs,
) -> Result<(Vec<TestKind>, Vec<TestKind>), Failure> {
    let random_access = target.capabilities().random_access;
    let (runnable, unsupported): (Vec<TestKind>, Vec<TestKind>) = method
        .tests
        .iter()
        .partition(|test| random_access || !test.needs_random_access());
    if runnable.is_empty() {
        return Err(Failure::bad_input(format!(
            "none of the tests can run on {} targets, which have no random access; try \
             --tests write,read.",
            target.info().protocol
        )));
    }
    Ok((runnable, unsupported))
}

fn fit_space(
    target: &dyn Target,
    method: &MethodArgs,
    file_size: u64,
    chosen: bool,
    smallest: u64,
) -> Result<preflight::Fit, Failure> {
    let space = target
        .space()
        .map_err(|e| Failure::bad_input(format!("cannot read the free space: {e}.")))?;
    let fit = preflight::fit(space, method.workers as usize, file_size, chosen, smallest)
        .map_err(|refusal| Failure::bad_input(format!("{refusal}.")))?;
    if let Some(from) = fit.reduced_from {
        eprintln!(
            "sharebench: file size reduced from {} to {} so that 5 % of the target's space stays \
             free (on tmpfs or ramfs, of this machine's memory); choose one with --file-size.",
            format_size(from),
            format_size(fit.file_size)
        );
    }
    Ok(fit)
}

fn plan(method: &MethodArgs, cells: Vec<Cell>) -> Result<Plan, Failure> {
    if method.direct {
        if let Some(cell) = cells.iter().find(|c| c.record_size % 512 != 0) {
            return Err(Failure::bad_input(format!(
                "with --direct the record size must be a multiple of 512 bytes ({} is not).",
                cell.record_size
            )));
        }
    }
    Ok(Plan {
        cells,
        warmup: method.warmup,
        runs: method.runs as usize,
        workers: method.workers as usize,
        direct: method.direct,
        queue_depth: method.qd as usize,
        fsync: method.fsync,
        drop_caches: method.drop_caches,
        verify: method.verify,
        params: AccessParams {
            stride: method.stride,
            read_pct: method.read_pct,
        },
        metadata: MetadataParams::default(),
    })
}

/// Hands each run to the journal and the progress bar.
struct Recording<'a> {
    journal: &'a mut Journal,
    progress: &'a Progress,
    runs: usize,
    warmup: usize,
    /// The metrics timelines' origin, and where each run lies on them.
    origin: Instant,
    windows: Vec<RunWindow>,
}

impl Observer for Recording<'_> {
    fn run_starting(&mut self, cell: &Cell, n: usize, warmup: bool) {
        let (kind, of) = if warmup {
            ("warm-up", self.warmup)
        } else {
            ("run", self.runs)
        };
        let place = match cell.entries {
            Some(entries) => format!("in a directory of {entries}"),
            None => format!(
                "{} file, {} records",
                format_size(cell.file_size),
                format_size(cell.record_size)
            ),
        };
        self.progress
            .starting(format!("{} {place}, {kind} {n}/{of}", cell.test));
    }

    fn run_finished(&mut self, key: &TestKey, run: &RunRecord) -> io::Result<()> {
        let to_s = self.origin.elapsed().as_secs_f64();
        self.windows.push(RunWindow {
            key: key.clone(),
            n: run.n,
            warmup: run.warmup,
            from_s: (to_s - run.seconds).max(0.0),
            to_s,
        });
        self.progress.finished_one();
        self.journal.append_run(key, run)
    }
}

/// Counted runs of each baseline a run measures after its tests (after one warm-up).
const BASELINE_RUNS: usize = 3;

/// How often the client's counters are sampled during a run.
const METRICS_INTERVAL: std::time::Duration = std::time::Duration::from_millis(500);

/// Measures a validated plan and reports it; the work directory is the first thing written.
fn session(
    target: &dyn Target,
    plan: Plan,
    method: &MethodArgs,
    mut config: serde_json::Value,
    unsupported: Vec<TestKind>,
    layout: Layout,
) -> Result<(), Failure> {
    let info = target.info();
    let ftp_baseline = ftp_baseline::prepare(method)?;
    let advice = advise_smb_conf(method)?;
    let stop = install_stop_signals()?;
    let run_id = new_run_id();
    let started = now();
    let mut workdir = WorkDir::create(target, &run_id, method.keep).map_err(|e| {
        Failure::bad_input(format!(
            "cannot create the work directory in {}: {e}.",
            info.url
        ))
    })?;
    if plan.direct {
        probe_direct(target, &mut workdir)?;
    }
    let journal_path = journal_path(method, &run_id);
    let mut journal = Journal::open(&journal_path).map_err(|e| {
        Failure::bad_input(format!(
            "cannot open the journal {}: {e}.",
            journal_path.display()
        ))
    })?;

    fill_config(&mut config, method, &plan, &run_id, &journal_path);
    let host = HostInfo::current();
    journal
        .append(&json!({
            "kind": "start", "schema": SCHEMA, "run_id": run_id, "started": started,
            "tool": ToolInfo::current(), "host": host, "target": info, "config": config,
        }))
        .map_err(|e| Failure::failed(format!("cannot write the journal: {e}.")))?;

    let progress = Progress::new(plan.total_runs());
    let origin = Instant::now();
    let (server_side, mut server_warnings) = server_side::start(&info, method, origin)?;
    let sampler = Sampler::start(METRICS_INTERVAL, origin);
    let mut recording = Recording {
        journal: &mut journal,
        progress: &progress,
        runs: plan.runs,
        warmup: plan.warmup,
        origin,
        windows: Vec::new(),
    };
    let measured = engine::execute(target, &plan, &mut workdir, &mut recording, &stop);
    let windows = recording.windows;
    let client_metrics = sampler.finish();
    let (mut server_metrics, mut baselines) = (None, Vec::new());
    if let Some(server_side) = server_side {
        // an interrupted or failed run ends now, with what it measured
        let runs = if measured.stop.is_none() {
            progress
                .starting("baselines: raw TCP and the server's disk, by its serve agent".into());
            BASELINE_RUNS
        } else {
            0
        };
        let (timeline, measured, warnings) = server_side.finish(runs);
        server_metrics = Some(timeline);
        baselines = measured;
        server_warnings.extend(warnings);
    }
    let judged = verdict::judged_test(&measured.tests);
    if let (Some(ftp), Some(judged), None) = (&ftp_baseline, judged, &measured.stop) {
        progress.starting("FTP baseline".into());
        match ftp.measure(&run_id, &judged.key, BASELINE_RUNS, &stop) {
            Ok(measured) => baselines.extend(measured),
            Err(warning) => server_warnings.push(warning),
        }
    }
    progress.clear();
    let baseline = |kind: &str, direction: &str| {
        let baseline = baselines
            .iter()
            .find(|b| b.kind == kind && b.direction == direction)?;
        baseline.summary.as_ref().map(|s| s.median)
    };
    server_warnings.extend(warnings::beyond_the_servers_disk(
        &measured.tests,
        baseline("local_disk", "write"),
        baseline("local_disk", "read"),
    ));
    let verdict = judged.map(|test| {
        let judged = RunWindow::counted(&windows, &test.key);
        verdict::judge(&verdict::Evidence {
            test: test.key.test.name(),
            rate: test.summary.as_ref().map_or(0.0, |s| s.median),
            writes: test.key.test.writes(),
            protocol: &info.protocol,
            workers: test.key.workers,
            tcp_upload: baseline("tcp", "upload"),
            tcp_download: baseline("tcp", "download"),
            disk_write: baseline("local_disk", "write"),
            disk_read: baseline("local_disk", "read"),
            ftp_upload: baseline("ftp", "upload"),
            ftp_download: baseline("ftp", "download"),
            client: Some(&client_metrics),
            server: server_metrics.as_ref(),
            windows: &judged,
        })
    });
    let mut metrics = BTreeMap::new();
    let timeline = |t| serde_json::to_value(t).expect("a timeline serialises");
    metrics.insert("client".to_string(), timeline(client_metrics));
    if let Some(server) = server_metrics {
        metrics.insert("server".to_string(), timeline(server));
    }
    metrics.insert(
        "runs".to_string(),
        serde_json::to_value(&windows).expect("run windows serialise"),
    );
    let cleanup = if workdir.kept() {
        progress.say(&format!(
            "sharebench: benchmark files kept in {}/{}",
            info.url.trim_end_matches('/'),
            workdir.name()
        ));
        Ok(())
    } else {
        workdir.remove()
    };

    let (status, error) = match &measured.stop {
        None => ("complete", None),
        Some(Stop::Interrupted) => ("interrupted", None),
        Some(Stop::Failed(e)) => ("failed", Some(e.to_string())),
    };
    let cache = CacheContext {
        ram: host.ram,
        direct: plan.direct,
        drop_caches: plan.drop_caches,
        fsync: plan.fsync,
        remote: info.protocol != "local",
        memory_filesystem: info
            .parameters
            .get("filesystem")
            .filter(|fs| is_memory_filesystem(fs))
            .cloned(),
    };
    let document = Document {
        schema: SCHEMA.into(),
        run_id,
        status: status.into(),
        error: error.clone(),
        started,
        finished: now(),
        tool: ToolInfo::current(),
        host,
        target: info.clone(),
        config,
        warnings: warnings::unsupported(&unsupported, &info.protocol)
            .into_iter()
            .chain(warnings(&measured.tests, cache))
            .chain(server_warnings)
            .collect(),
        tests: measured.tests,
        baselines,
        metrics,
        verdict: verdict.map(|v| serde_json::to_value(v).expect("a verdict serialises")),
        sizing: None,
        advice,
    };
    let ended = journal.append(&json!({
        "kind": "end", "status": status, "error": error, "finished": document.finished,
    }));

    print!("{}", terminal_report(&document, method, layout));
    let written = write_outputs(&document, method, layout);

    let kept = format!(
        "{} finished run(s) are kept in {}",
        document.tests.iter().map(|t| t.runs.len()).sum::<usize>(),
        journal.path().display()
    );
    match measured.stop {
        Some(Stop::Interrupted) => Err(Failure {
            code: EXIT_INTERRUPTED,
            message: format!("interrupted; {kept}."),
        }),
        Some(Stop::Failed(e)) => Err(Failure::failed(format!("{e}; {kept}."))),
        None => {
            ended.map_err(|e| Failure::failed(format!("cannot write the journal: {e}.")))?;
            written?;
            cleanup.map_err(|e| {
                Failure::failed(format!(
                    "the benchmark files could not all be removed from {}/{}: {e}.",
                    info.url.trim_end_matches('/'),
                    workdir.name()
                ))
            })
        }
    }
}

/// The advisor's findings on `--advise-smb-conf`, as the result document holds them.
fn advise_smb_conf(method: &MethodArgs) -> Result<Vec<serde_json::Value>, Failure> {
    let Some(path) = &method.advise_smb_conf else {
        return Ok(Vec::new());
    };
    let text = std::fs::read(path)
        .map_err(|e| Failure::bad_input(format!("--advise-smb-conf {}: {e}.", path.display())))?;
    let conf = SmbConf::parse(&path.display().to_string(), &String::from_utf8_lossy(&text));
    let inputs = advisor::Inputs {
        samba: Some(conf),
        ..advisor::Inputs::default()
    };
    Ok(advisor::advise(&inputs)
        .findings
        .iter()
        .map(|f| serde_json::to_value(f).expect("a finding serialises"))
        .collect())
}

/// Opens a first benchmark file with O_DIRECT, so a filesystem without it (tmpfs) is bad input
/// found before anything is measured or journaled.
fn probe_direct(target: &dyn Target, workdir: &mut WorkDir) -> Result<(), Failure> {
    let io = IoSettings {
        max_io: 4096,
        queue_depth: 1,
        direct: true,
        verify: false,
    };
    match target.open(&workdir.worker_file(0), OpenMode::Create, io) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::Unsupported => Err(Failure::bad_input(format!(
            "{} is on a filesystem that does not support --direct (O_DIRECT).",
            target.info().url
        ))),
        Err(e) => Err(Failure::bad_input(format!(
            "cannot create a benchmark file in {}: {e}.",
            target.info().url
        ))),
    }
}

/// Adds the settings every measuring command shares, with defaults filled in.
fn fill_config(
    config: &mut serde_json::Value,
    method: &MethodArgs,
    plan: &Plan,
    run_id: &str,
    journal: &Path,
) {
    let shared = json!({
        "run_id": run_id,
        "tests": method.tests,
        "workers": plan.workers,
        "direct": plan.direct,
        "engine": method.engine,
        "queue_depth": plan.queue_depth,
        "fsync": plan.fsync,
        "warmup": plan.warmup,
        "runs": plan.runs,
        "drop_caches": plan.drop_caches,
        "verify": plan.verify,
        "keep": method.keep,
        "stride": plan.params.stride,
        "read_pct": plan.params.read_pct,
        "link_speed_bits": method.link_speed,
        "journal": journal,
        "cells": plan.cells.iter().map(|c| json!({
            "test": c.test, "file_size": c.file_size, "record_size": c.record_size,
        })).collect::<Vec<_>>(),
    });
    if let (Some(config), serde_json::Value::Object(shared)) = (config.as_object_mut(), shared) {
        config.extend(shared);
    }
}

fn terminal_report(document: &Document, method: &MethodArgs, layout: Layout) -> String {
    let mut out = header(document, method);
    let tables: Vec<table::Table> = match layout {
        Layout::Forms => forms(document, method),
        Layout::Grids => grid::grids(&document.tests),
        Layout::BigDir => vec![bigdir::table(&document.tests)],
    };
    for table in &tables {
        out.push('\n');
        out.push_str(&table.terminal());
    }
    for baseline in &document.baselines {
        let caption = format!("baseline: {}", form::baseline_caption(baseline));
        out.push('\n');
        out.push_str(&form::baseline_form(baseline, caption, method.link_speed).terminal());
    }
    if let Some(verdict) = &document.verdict {
        out.push_str(&format!(
            "\nverdict: {} — {}\n",
            verdict["layer"].as_str().unwrap_or("unknown"),
            verdict["evidence"].as_str().unwrap_or("")
        ));
        for layer in verdict["table"].as_array().into_iter().flatten() {
            let used = layer["utilisation"]
                .as_f64()
                .map_or("   –".to_string(), |u| format!("{:3.0} %", u * 100.0));
            out.push_str(&format!(
                "  {:<12} {used}  {}\n",
                layer["layer"].as_str().unwrap_or(""),
                layer["note"].as_str().unwrap_or("")
            ));
        }
    }
    if !document.advice.is_empty() {
        out.push('\n');
        out.push_str(&report::advice::summary(&document.advice));
    }
    if !document.warnings.is_empty() {
        out.push_str("\nwarnings:\n");
        for warning in &document.warnings {
            out.push_str(&format!("  - {}\n", warning.message));
        }
    }
    out
}

fn header(document: &Document, method: &MethodArgs) -> String {
    let TargetInfo {
        url,
        protocol,
        parameters,
    } = &document.target;
    let mut described: Vec<String> = parameters
        .iter()
        .filter(|(key, _)| key.as_str() != "banner")
        .map(|(key, value)| format!("{key} {value}"))
        .collect();
    if method.qd > 1 {
        described.push(format!("QD {}", method.qd));
    }
    let host = &document.host;
    format!(
        "sharebench {} ({}) · run {} · {}\ntarget {url} ({protocol}: {}) · host {}, {} CPUs, {} \
         RAM, kernel {}\nmethod: {} warm-up + {} counted run(s) per test\n{UNITS_LINE}\n",
        document.tool.version,
        document.tool.git_rev,
        document.run_id,
        document.started,
        described.join(", "),
        host.hostname,
        host.cpus,
        format_size(host.ram),
        host.kernel,
        method.warmup,
        method.runs,
    )
}

/// One form per test, each with its warnings as notes.
fn forms(document: &Document, method: &MethodArgs) -> Vec<table::Table> {
    document
        .tests
        .iter()
        .map(|result| {
            let notes = form::notes(result, document);
            form::form(result, method.link_speed, notes)
        })
        .collect()
}

fn write_outputs(document: &Document, method: &MethodArgs, layout: Layout) -> Result<(), Failure> {
    let write = |path: &Path, text: String| {
        std::fs::write(path, text)
            .map_err(|e| Failure::failed(format!("cannot write {}: {e}.", path.display())))
    };
    if let Some(path) = &method.json {
        let text = serde_json::to_string_pretty(document).expect("the document serialises");
        write(path, text + "\n")?;
    }
    if method.csv.is_some() || method.markdown.is_some() {
        let tables = match layout {
            Layout::BigDir => vec![bigdir::table(&document.tests)],
            Layout::Forms | Layout::Grids => forms(document, method),
        };
        if let Some(path) = &method.csv {
            write(path, table::csv(&tables))?;
        }
        if let Some(path) = &method.markdown {
            let mut text = format!("{UNITS_LINE}\n\n");
            for table in &tables {
                text.push_str(&table.markdown());
                text.push('\n');
            }
            write(path, text)?;
        }
    }
    Ok(())
}

/// The journal goes next to the JSON output, or into the working directory.
fn journal_path(method: &MethodArgs, run_id: &str) -> PathBuf {
    if let Some(path) = &method.journal {
        return path.clone();
    }
    match &method.json {
        Some(json) => json.with_extension("journal.jsonl"),
        None => PathBuf::from(format!("sharebench-{run_id}.jsonl")),
    }
}

/// SIGINT and SIGTERM raise the stop flag; a second one ends the process at once.
pub(super) fn install_stop_signals() -> Result<Arc<AtomicBool>, Failure> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    use signal_hook::flag;
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag still false on the first signal.
        flag::register_conditional_shutdown(signal, EXIT_INTERRUPTED, Arc::clone(&stop))
            .and_then(|_| flag::register(signal, Arc::clone(&stop)))
            .map_err(|e| Failure::failed(format!("cannot install signal handlers: {e}.")))?;
    }
    Ok(stop)
}

/// Eight hex digits from the kernel's random source.
pub(super) fn new_run_id() -> String {
    let bytes: [u8; 4] = crate::random::bytes().unwrap_or_else(|_| {
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        (nanos ^ std::process::id()).to_le_bytes()
    });
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(super) fn now() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}
