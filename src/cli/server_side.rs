//! A run against a network target also asks the server host's serve agent (if one answers) for
//! its metrics while the tests run, and measures raw TCP to it afterwards: the numbers the
//! verdict needs to tell the server, the network and the protocol apart.

use super::args::MethodArgs;
use super::baseline::token;
use super::Failure;
use crate::baseline::remote::ServerMetrics;
use crate::baseline::tcp::{self, Settings};
use crate::baseline::wire::DEFAULT_PORT;
use crate::monitor::sampler::Timeline;
use crate::result::{Baseline, Warning};
use crate::stats::summary::summarise_runs;
use crate::target::url::Url;
use crate::target::TargetInfo;
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Server samples this often.
const INTERVAL: Duration = Duration::from_millis(500);
/// An agent that does not answer this quickly is taken to be absent.
const PATIENCE: Duration = Duration::from_secs(3);
/// The warm-up of a raw TCP baseline sized by itself moves this much …
const PROBE: u64 = 16 << 20;
/// … and its counted runs move what it moved in this long, at most [`LARGEST`].
const RUN_SECONDS: f64 = 1.0;
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
    /// Ends the metrics, then measures raw TCP both ways: one warm-up and `runs` counted runs,
    /// which last about a second each unless the size was given (a fixed size is a blink on a
    /// fast link, where one scheduling hiccup is the whole measurement, and an age on a slow one).
    pub fn finish(self, runs: usize) -> (Timeline, Vec<Baseline>, Vec<Warning>) {
        let timeline = self.metrics.finish();
        let mut baselines = Vec::new();
        let mut warnings = Vec::new();
        for reverse in [false, true] {
            let settings = Settings {
                reverse,
                timeout: Duration::from_secs(30),
                ..self.settings.clone()
            };
            let measured = tcp::measure(&settings, 1, true).and_then(|warmup| {
                let settings = if self.sized {
                    settings.clone()
                } else {
                    let bytes = (warmup.bytes_per_s * RUN_SECONDS) as u64;
                    Settings {
                        bytes: bytes.clamp(PROBE, LARGEST),
                        ..settings.clone()
                    }
                };
                std::iter::once(Ok(warmup))
                    .chain((1..=runs).map(|n| tcp::measure(&settings, n, false)))
                    .collect::<Result<Vec<_>, _>>()
            });
            match measured {
                Ok(all) => {
                    let mut counted: Vec<_> = all.into_iter().filter(|r| !r.warmup).collect();
                    let summary = summarise_runs(&mut counted, "bytes/s", |r| r.bytes_per_s);
                    baselines.push(Baseline {
                        kind: if reverse {
                            "tcp_download"
                        } else {
                            "tcp_upload"
                        }
                        .into(),
                        runs: counted,
                        summary,
                    });
                }
                Err(e) => warnings.push(Warning {
                    kind: "no_server_side".into(),
                    test: None,
                    message: format!("the raw TCP baseline to {} failed: {e}", settings.addr),
                }),
            }
        }
        (timeline, baselines, warnings)
    }
}
