//! `sharebench baseline tcp` and `sharebench serve`: arguments to the baseline room and back.

use super::args::{BaselineCommand, BaselineMethod, DiskArgs, ServeArgs, TcpArgs};
use super::measure::{install_stop_signals, new_run_id, now};
use super::{Failure, EXIT_INTERRUPTED};
use crate::baseline::disk;
use crate::baseline::serve::Agent;
use crate::baseline::tcp::{self, Settings};
use crate::baseline::wire::DEFAULT_PORT;
use crate::monitor::host::HostInfo;
use crate::report::form::{baseline_form, UNITS_LINE};
use crate::report::journal::Journal;
use crate::result::{Baseline, Document, RunRecord, ToolInfo, SCHEMA};
use crate::target::credentials::{self, Secret};
use crate::target::TargetInfo;
use crate::units::format_size;
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

pub const TOKEN_ENV: &str = "SHAREBENCH_TOKEN";

pub fn run(command: BaselineCommand) -> Result<(), Failure> {
    match command {
        BaselineCommand::Tcp(args) => tcp_baseline(args),
        BaselineCommand::Disk(args) => disk_baseline(args),
    }
}

/// The token from a file (kept private), or from the environment.
pub(super) fn token(file: Option<&Path>) -> Result<Option<Secret>, Failure> {
    match file {
        Some(file) => credentials::read_secret_file(file, "token file")
            .map(Some)
            .map_err(|e| Failure::bad_input(format!("{e}."))),
        None => Ok(std::env::var(TOKEN_ENV).ok().map(Secret::new)),
    }
}

pub fn serve(args: ServeArgs) -> Result<(), Failure> {
    let token = token(args.token_file.as_deref())?;
    if let Some(dir) = &args.disk {
        if !dir.is_dir() {
            return Err(Failure::bad_input(format!(
                "--disk {} is not a directory.",
                dir.display()
            )));
        }
    }
    let agent = Agent::bind(args.listen, token, args.disk)
        .map_err(|e| Failure::bad_input(format!("cannot listen on {}: {e}.", args.listen)))?;
    let addr = agent
        .local_addr()
        .map_err(|e| Failure::failed(format!("cannot read the listening address: {e}.")))?;
    println!("sharebench serve: listening on {addr}");
    let _ = std::io::stdout().flush();
    if agent.refuses_everyone() {
        eprintln!(
            "sharebench serve: no token and not on loopback alone, so every client will be \
             refused; give --token-file"
        );
    }
    let stop = install_stop_signals()?;
    agent
        .serve(&stop)
        .map_err(|e| Failure::failed(format!("the agent stopped: {e}.")))
}

fn tcp_baseline(args: TcpArgs) -> Result<(), Failure> {
    let addr = resolve(&args.target)?;
    let settings = Settings {
        addr,
        streams: args.streams as usize,
        bytes: args.size,
        reverse: args.reverse,
        token: token(args.method.token_file.as_deref())?,
        timeout: Duration::from_secs(args.method.timeout),
    };
    let direction = if settings.reverse {
        "download"
    } else {
        "upload"
    };
    let mut parameters = BTreeMap::new();
    parameters.insert("streams".into(), settings.streams.to_string());
    parameters.insert("bytes_per_stream".into(), settings.bytes.to_string());
    parameters.insert("direction".into(), direction.into());
    let measured = Measured {
        target: TargetInfo {
            url: format!("tcp://{addr}"),
            protocol: "tcp".into(),
            parameters,
        },
        config: json!({
            "streams": settings.streams, "size": settings.bytes, "reverse": settings.reverse,
        }),
        kinds: vec![(
            "tcp",
            direction,
            format!(
                "raw TCP {direction} to {addr} · {} stream(s) × {} per run",
                settings.streams,
                format_size(settings.bytes)
            ),
        )],
    };
    measure_baseline(&args.method, measured, |n, warmup| {
        tcp::measure(&settings, n, warmup).map(|run| vec![run])
    })
}

fn disk_baseline(args: DiskArgs) -> Result<(), Failure> {
    let addr = resolve(&args.target)?;
    let settings = Settings {
        addr,
        streams: 1,
        bytes: args.size,
        reverse: false,
        token: token(args.method.token_file.as_deref())?,
        timeout: Duration::from_secs(args.method.timeout),
    };
    let mut parameters = BTreeMap::new();
    parameters.insert("bytes".into(), settings.bytes.to_string());
    let caption = |what: &str| {
        format!(
            "the server's disk, {what} by the serve agent at {addr} · {} per run",
            format_size(settings.bytes)
        )
    };
    let measured = Measured {
        target: TargetInfo {
            url: format!("disk://{addr}"),
            protocol: "disk".into(),
            parameters,
        },
        config: json!({ "size": settings.bytes }),
        kinds: vec![
            ("local_disk", "write", caption("written with fsync")),
            ("local_disk", "read", caption("read back uncached")),
        ],
    };
    measure_baseline(&args.method, measured, |n, warmup| {
        disk::measure(&settings, n, warmup).map(Vec::from)
    })
}

/// What a baseline command measures: its document's target and config, and the baselines one
/// run yields (kind, direction, caption), in the order `measure` returns their records.
struct Measured {
    target: TargetInfo,
    config: serde_json::Value,
    kinds: Vec<(&'static str, &'static str, String)>,
}

/// Warm-up and counted runs of `measure`, journaled as they end, then the forms and the
/// document. The first run shows a wrong address or token before anything is journaled.
fn measure_baseline(
    method: &BaselineMethod,
    measured: Measured,
    mut measure: impl FnMut(usize, bool) -> std::io::Result<Vec<RunRecord>>,
) -> Result<(), Failure> {
    let stop = install_stop_signals()?;
    let run_id = new_run_id();
    let started = now();
    let journal_path = match (&method.journal, &method.json) {
        (Some(path), _) => path.clone(),
        (None, Some(json)) => json.with_extension("journal.jsonl"),
        (None, None) => PathBuf::from(format!("sharebench-{run_id}.jsonl")),
    };
    let mut runs: Vec<Vec<RunRecord>> = vec![Vec::new(); measured.kinds.len()];
    let mut journal: Option<Journal> = None;
    let mut failure = None;
    for i in 0..method.warmup + method.runs as usize {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let warmup = i < method.warmup;
        let n = if warmup { i + 1 } else { i - method.warmup + 1 };
        match measure(n, warmup) {
            Ok(records) => {
                if journal.is_none() {
                    journal = Some(Journal::open(&journal_path).map_err(|e| {
                        Failure::bad_input(format!(
                            "cannot write the journal {}: {e}.",
                            journal_path.display()
                        ))
                    })?);
                }
                for ((kind, direction, _), (run, kept)) in measured
                    .kinds
                    .iter()
                    .zip(records.into_iter().zip(&mut runs))
                {
                    if let Some(journal) = journal.as_mut() {
                        let _ = journal.append(&json!({
                            "kind": "run", "baseline": kind, "direction": direction, "run": run,
                        }));
                    }
                    if !warmup {
                        kept.push(run);
                    }
                }
            }
            Err(e) if journal.is_none() => {
                return Err(Failure::bad_input(format!("{e}.")));
            }
            Err(e) => {
                failure = Some(e.to_string());
                break;
            }
        }
    }
    let kept = runs.iter().map(Vec::len).sum::<usize>();
    let status = match (&failure, stop.load(Ordering::Relaxed)) {
        (Some(_), _) => "failed",
        (None, true) => "interrupted",
        (None, false) => "complete",
    };
    let baselines: Vec<Baseline> = measured
        .kinds
        .iter()
        .zip(runs)
        .map(|((kind, direction, _), runs)| Baseline::of(kind, direction, runs))
        .collect();
    let mut config = measured.config;
    config["warmup"] = method.warmup.into();
    config["runs"] = method.runs.into();
    config["timeout"] = method.timeout.into();
    let document = Document {
        schema: SCHEMA.into(),
        run_id,
        status: status.into(),
        error: failure.clone(),
        started,
        finished: now(),
        tool: ToolInfo::current(),
        host: HostInfo::current(),
        target: measured.target,
        config,
        tests: Vec::new(),
        baselines,
        metrics: Default::default(),
        warnings: Vec::new(),
        verdict: None,
        sizing: None,
        advice: Vec::new(),
    };
    if let Some(journal) = journal.as_mut() {
        let _ = journal.append(&json!({"kind": "end", "status": status, "error": failure}));
    }
    println!(
        "sharebench {} · run {} · {}\nmethod: {} warm-up + {} counted run(s)\n{UNITS_LINE}",
        document.tool.version, document.run_id, document.started, method.warmup, method.runs,
    );
    for (baseline, (_, _, caption)) in document.baselines.iter().zip(measured.kinds) {
        println!("\n{}", baseline_form(baseline, caption, None).terminal());
    }
    if let Some(path) = &method.json {
        let text = serde_json::to_string_pretty(&document).expect("the document serialises");
        std::fs::write(path, text + "\n")
            .map_err(|e| Failure::failed(format!("cannot write {}: {e}.", path.display())))?;
    }
    let kept = format!(
        "{kept} finished run(s) are kept in {}",
        journal_path.display()
    );
    match (failure, status) {
        (Some(e), _) => Err(Failure::failed(format!("{e}; {kept}."))),
        (None, "interrupted") => Err(Failure {
            code: EXIT_INTERRUPTED,
            message: format!("interrupted; {kept}."),
        }),
        _ => Ok(()),
    }
}

/// HOST or HOST:PORT to an address.
fn resolve(target: &str) -> Result<SocketAddr, Failure> {
    let with_port = if target
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
        && !target.ends_with(']')
    {
        target.to_string()
    } else {
        format!("{target}:{DEFAULT_PORT}")
    };
    with_port
        .to_socket_addrs()
        .ok()
        .and_then(|mut addrs| addrs.next())
        .ok_or_else(|| Failure::bad_input(format!("cannot resolve the serve agent '{target}'.")))
}
