//! The raw TCP baseline: what the network (and both hosts' TCP stacks) can carry between this
//! client and a serve agent, one stream or several at once, measured the same way as the file
//! tests. A protocol far below it is the protocol's (or its server's) doing.

use super::wire::{self, Hello, Mode};
use crate::monitor::cpu;
use crate::result::{Latency, RunRecord, WorkerRecord};
use crate::target::credentials::Secret;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Barrier;
use std::time::{Duration, Instant};

/// Moved per system call. With iperf3's 128 KiB the baseline reached 0.96 of iperf3 on
/// loopback, with 1 MiB 1.06: fewer calls, the same bytes.
const CHUNK: usize = 1 << 20;

/// One baseline's settings.
#[derive(Debug, Clone)]
pub struct Settings {
    pub addr: SocketAddr,
    pub streams: usize,
    /// Bytes each stream moves in one run.
    pub bytes: u64,
    /// Download (the agent sends) instead of upload.
    pub reverse: bool,
    pub token: Option<Secret>,
    pub timeout: Duration,
}

/// Connects a stream for `mode` and has the agent accept it; the error is the agent's sentence
/// or why it could not be reached.
pub fn open(settings: &Settings, mode: Mode) -> io::Result<TcpStream> {
    let addr = settings.addr;
    let mut stream = TcpStream::connect_timeout(&addr, settings.timeout).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot reach a serve agent at {addr}: {e}; start 'sharebench serve' there"),
        )
    })?;
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(settings.timeout))?;
    stream.set_write_timeout(Some(settings.timeout))?;
    Hello {
        version: wire::VERSION,
        token: settings
            .token
            .as_ref()
            .map(|t| t.expose().to_string())
            .unwrap_or_default(),
        mode,
        bytes: settings.bytes,
    }
    .write(&mut stream)?;
    let (status, text) = wire::read_reply(&mut stream).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("{addr} did not answer as a sharebench serve agent ({e})"),
        )
    })?;
    match status {
        0 => Ok(stream),
        wire::REFUSED_TOKEN => Err(io::Error::new(io::ErrorKind::PermissionDenied, text)),
        _ => Err(io::Error::other(text)),
    }
}

/// The timed transfer of one stream; returns when the last byte is delivered.
fn transfer(stream: &mut TcpStream, settings: &Settings) -> io::Result<()> {
    let mut buf = vec![0x5Au8; CHUNK];
    let mut left = settings.bytes;
    if settings.reverse {
        while left > 0 {
            let n = stream.read(&mut buf[..CHUNK.min(left as usize)])?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the serve agent closed the stream early",
                ));
            }
            left -= n as u64;
        }
        return Ok(());
    }
    while left > 0 {
        let n = CHUNK.min(left as usize);
        stream.write_all(&buf[..n])?;
        left -= n as u64;
    }
    let mut received = [0u8; 8];
    stream.read_exact(&mut received)?;
    if u64::from_be_bytes(received) != settings.bytes {
        return Err(io::Error::other(
            "the serve agent received a different amount",
        ));
    }
    Ok(())
}

/// One run: every stream connected first, then all started together; the run lasts from the
/// first start to the last delivery.
pub fn measure(settings: &Settings, n: usize, warmup: bool) -> io::Result<RunRecord> {
    let mut streams = (0..settings.streams)
        .map(|_| {
            let mode = if settings.reverse {
                Mode::Source
            } else {
                Mode::Sink
            };
            open(settings, mode)
        })
        .collect::<io::Result<Vec<_>>>()?;
    let barrier = Barrier::new(streams.len());
    let cpu_before = cpu::process_seconds();
    let outcomes: Vec<io::Result<(Instant, Instant)>> = std::thread::scope(|scope| {
        let threads: Vec<_> = streams
            .iter_mut()
            .map(|stream| {
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    let started = Instant::now();
                    transfer(stream, settings)?;
                    Ok((started, Instant::now()))
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().expect("a baseline stream panicked"))
            .collect()
    });
    let client_cpu_s = cpu::process_seconds() - cpu_before;
    let times = outcomes.into_iter().collect::<io::Result<Vec<_>>>()?;
    let first = times.iter().map(|t| t.0).min().expect("streams");
    let last_start = times.iter().map(|t| t.0).max().expect("streams");
    let last = times.iter().map(|t| t.1).max().expect("streams");
    let seconds = (last - first).as_secs_f64().max(1e-9);
    let bytes = settings.bytes * settings.streams as u64;
    Ok(RunRecord {
        n,
        warmup,
        bytes,
        seconds,
        ops: settings.streams as u64,
        bytes_per_s: bytes as f64 / seconds,
        ops_per_s: 0.0,
        latency_us: Latency::default(),
        outlier: false,
        start_skew_s: (last_start - first).as_secs_f64(),
        client_cpu_s,
        workers: times
            .iter()
            .enumerate()
            .map(|(worker, (start, end))| {
                let seconds = (*end - *start).as_secs_f64().max(1e-9);
                WorkerRecord {
                    worker,
                    bytes: settings.bytes,
                    ops: 1,
                    seconds,
                    bytes_per_s: settings.bytes as f64 / seconds,
                }
            })
            .collect(),
    })
}
