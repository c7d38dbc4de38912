//! A run against a network target also asks the server host's serve agent (if one answers) for
//! its metrics while the tests run, and measures raw TCP to it afterwards: the numbers the
//! verdict needs to tell the server, the network and the protocol apart.

use super::args::MethodArgs;
use super::baseline::token;
use super::Failure;
use crate::baseline::disk;
use crate::baseline::remote::ServerMetrics;
use crate::baseline::tcp::{self, Settings};
use crate::baseline::wire::DEFAULT_PORT;
use crate::monitor::sampler::Timeline;
use crate::result::{Baseline, RunRecord, Warning};
use crate::target::url::Url;
use crate::target::TargetInfo;
use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Server samples this often.
const INTERVAL: Duration = Duration::from_millis(500);
/// An agent that does not answer this quickly is taken to be absent.
const PATIENCE: Duration = Duration::from_secs(3);
/// The warm-up of a baseline that sizes itself moves this much …
const PROBE: u64 = 16 << 20;
/// … and its counted runs move what the slowest of its kinds moved in this long, at most
/// [`LARGEST`].
const RUN_SECONDS: f64 = 0.5;
const LARGEST: u64 = 8 << 30;

/// The serve agent of a run, once it answered.
pub struct ServerSide {
    settings: Settings,
    metrics: ServerMetrics,
    /// The user gave the baseline's size; else the warm-up finds it.
    sized: bool,
}

/// Finds the agent (`--serve`, else the target's host on the agent's port) and starts its
/// metrics; `Ok(None)` with a warning when none answers or the target is local.
pub fn start(
    info: &TargetInfo,
    method: &MethodArgs,
    origin: Instant,
) -> Result<(Option<ServerSide>, Vec<Warning>), Failure> {
    if info.protocol == "local" || method.serve.as_deref() == Some("none") {
        return Ok((None, Vec::new()));
    }
    let spec = match &method.serve {
        Some(spec) => spec.clone(),
        None => match Url::parse(&info.url) {
            Ok(url) => format!("{}:{DEFAULT_PORT}", url.host),
            Err(_) => return Ok((None, Vec::new())),
        },
    };
    let addr: SocketAddr = spec
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| Failure::bad_input(format!("cannot resolve the serve agent '{spec}'.")))?;
    let settings = Settings {
        addr,
        streams: 1,
        bytes: method.tcp_baseline_size.unwrap_or(PROBE),
        reverse: false,
        token: token(method.token_file.as_deref())?,
        timeout: PATIENCE,
    };
    match ServerMetrics::start(&settings, INTERVAL, origin) {
        Ok(metrics) => {
            let sized = method.tcp_baseline_size.is_some();
            let side = ServerSide {
                settings,
                metrics,
                sized,
            };
            Ok((Some(side), Vec::new()))
        }
        Err(e) => Ok((
            None,
            vec![Warning {
                kind: "no_server_side".into(),
                test: None,
                message: format!(
                    "no serve agent answered at {addr} ({e}): the server's metrics and the raw \
                     TCP baseline are missing; run 'sharebench serve' on the server to have them"
                ),
            }],
        )),
    }
}

impl ServerSide {
    /// Ends the metrics, then measures raw TCP both ways and the server's disk (when the agent
    /// has a directory for it), each with one warm-up and `runs` counted runs. Runs last about
    /// half a second each unless the TCP size was given: a fixed size is a blink on a fast link, where
    /// one scheduling hiccup is the whole measurement, and an age on a slow one.
    /// With no runs asked for, only the metrics come back.
    pub fn finish(self, runs: usize) -> (Timeline, Vec<Baseline>, Vec<Warning>) {
        let timeline = self.metrics.finish();
        let mut baselines = Vec::new();
        let mut warnings = Vec::new();
        if runs == 0 {
            return (timeline, baselines, warnings);
        }
        let missing = |message: String| Warning {
            kind: "no_server_side".into(),
            test: None,
            message,
        };
        let settings = Settings {
            timeout: Duration::from_secs(60),
            ..self.settings.clone()
        };
        for (reverse, direction) in [(false, "upload"), (true, "download")] {
            let settings = Settings {
                reverse,
                ..settings.clone()
            };
            let measured = sized_runs(&settings, self.sized, runs, |s, n, warmup| {
                tcp::measure(s, n, warmup).map(|run| vec![run])
            });
            match measured {
                Ok(mut kinds) => baselines.push(Baseline::of("tcp", direction, kinds.remove(0))),
                Err(e) => warnings.push(missing(format!(
                    "the raw TCP baseline to {} failed: {e}",
                    settings.addr
                ))),
            }
        }
        let disk = Settings {
            bytes: PROBE,
            ..settings.clone()
        };
        match sized_runs(&disk, false, runs, |s, n, warmup| {
            disk::measure(s, n, warmup).map(Vec::from)
        }) {
            Ok(kinds) => baselines.extend(
                ["write", "read"]
                    .into_iter()
                    .zip(kinds)
                    .map(|(direction, runs)| Baseline::of("local_disk", direction, runs)),
            ),
            Err(e) => warnings.push(missing(format!(
                "the server's disk baseline is missing: {e}"
            ))),
        }
        (timeline, baselines, warnings)
    }
}

/// One warm-up of `settings.bytes`, then `runs` counted runs of that size when `fixed`, else of
/// what the warm-up moved in [`RUN_SECONDS`]. `measure` yields one record per baseline kind; the
/// counted runs come back by kind.
fn sized_runs(
    settings: &Settings,
    fixed: bool,
    runs: usize,
    measure: impl Fn(&Settings, usize, bool) -> io::Result<Vec<RunRecord>>,
) -> io::Result<Vec<Vec<RunRecord>>> {
    let warmup = measure(settings, 1, true)?;
    let sized = if fixed {
        settings.clone()
    } else {
        let rate = warmup
            .iter()
            .map(|r| r.bytes_per_s)
            .fold(f64::INFINITY, f64::min);
        Settings {
            bytes: ((rate * RUN_SECONDS) as u64).clamp(PROBE, LARGEST),
            ..settings.clone()
        }
    };
    let mut by_kind = vec![Vec::new(); warmup.len()];
    for n in 1..=runs {
        for (kind, run) in by_kind.iter_mut().zip(measure(&sized, n, false)?) {
            kind.push(run);
        }
    }
    Ok(by_kind)
}
