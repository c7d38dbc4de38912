//! `sharebench baseline tcp` and `sharebench serve`: arguments to the baseline room and back.

use super::args::{BaselineCommand, ServeArgs, TcpArgs};
use super::measure::{install_stop_signals, new_run_id, now};
use super::{Failure, EXIT_INTERRUPTED};
use crate::baseline::serve::Agent;
use crate::baseline::tcp::{self, Settings};
use crate::baseline::wire::DEFAULT_PORT;
use crate::monitor::host::HostInfo;
use crate::report::form::{baseline_form, UNITS_LINE};
use crate::report::journal::Journal;
use crate::result::{Baseline, Document, ToolInfo, SCHEMA};
use crate::stats::summary::summarise_runs;
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
    let agent = Agent::bind(args.listen, token)
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
        token: token(args.token_file.as_deref())?,
        timeout: Duration::from_secs(args.timeout),
    };
    let stop = install_stop_signals()?;
    let run_id = new_run_id();
    let started = now();
    let journal_path = match (&args.journal, &args.json) {
        (Some(path), _) => path.clone(),
        (None, Some(json)) => json.with_extension("journal.jsonl"),
        (None, None) => PathBuf::from(format!("sharebench-{run_id}.jsonl")),
    };
    // the first run shows a wrong address or token before anything is journaled
    let mut runs = Vec::new();
    let mut journal: Option<Journal> = None;
    let mut failure = None;
    for i in 0..args.warmup + args.runs as usize {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let warmup = i < args.warmup;
        let n = if warmup { i + 1 } else { i - args.warmup + 1 };
        match tcp::measure(&settings, n, warmup) {
            Ok(run) => {
                if journal.is_none() {
                    journal = Some(Journal::open(&journal_path).map_err(|e| {
                        Failure::bad_input(format!(
                            "cannot write the journal {}: {e}.",
                            journal_path.display()
                        ))
                    })?);
                }
                if let Some(journal) = journal.as_mut() {
                    let _ = journal.append(&json!({"kind": "run", "baseline": "tcp", "run": run}));
                }
                if !warmup {
                    runs.push(run);
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
    let summary = summarise_runs(&mut runs, "bytes/s", |r| r.bytes_per_s);
    let kept = runs.len();
    let status = match (&failure, stop.load(Ordering::Relaxed)) {
        (Some(_), _) => "failed",
        (None, true) => "interrupted",
        (None, false) => "complete",
    };
    let mut parameters = BTreeMap::new();
    parameters.insert("streams".into(), settings.streams.to_string());
    parameters.insert("bytes_per_stream".into(), settings.bytes.to_string());
    let direction = if settings.reverse {
        "download"
    } else {
        "upload"
    };
    parameters.insert("direction".into(), direction.into());
    let document = Document {
        schema: SCHEMA.into(),
        run_id,
        status: status.into(),
        error: failure.clone(),
        started,
        finished: now(),
        tool: ToolInfo::current(),
        host: HostInfo::current(),
        target: TargetInfo {
            url: format!("tcp://{addr}"),
            protocol: "tcp".into(),
            parameters,
        },
        config: json!({
            "streams": settings.streams, "size": settings.bytes, "reverse": settings.reverse,
            "warmup": args.warmup, "runs": args.runs, "timeout": args.timeout,
        }),
        tests: Vec::new(),
        baselines: vec![Baseline {
            kind: "tcp".into(),
            runs,
            summary,
        }],
        metrics: Default::default(),
        warnings: Vec::new(),
        verdict: None,
    };
    if let Some(journal) = journal.as_mut() {
        let _ = journal.append(&json!({"kind": "end", "status": status, "error": failure}));
    }
    let caption = format!(
        "raw TCP {direction} to {addr} · {} stream(s) × {} per run",
        settings.streams,
        format_size(settings.bytes)
    );
    println!(
        "sharebench {} · run {} · {}\nmethod: {} warm-up + {} counted run(s)\n{UNITS_LINE}\n\n{}",
        document.tool.version,
        document.run_id,
        document.started,
        args.warmup,
        args.runs,
        baseline_form(&document.baselines[0], caption, None).terminal()
    );
    if let Some(path) = &args.json {
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
