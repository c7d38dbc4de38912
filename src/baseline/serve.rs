//! `sharebench serve`: the far end of the TCP baseline, run on the server host. Each client
//! connection gets a thread that sinks or sources the bytes it asks for. A token guards it:
//! without one the agent serves only when it listens on loopback alone, and otherwise refuses
//! every client with the reason, so an open port never moves data for strangers.

use super::disk;
use super::wire::{self, Hello, Mode, REFUSED_OTHER, REFUSED_TOKEN, REFUSED_VERSION};
use crate::monitor::sampler::Rater;
use crate::target::credentials::Secret;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Connections served at once; more wait in the listen queue.
const MAX_CLIENTS: usize = 256;
/// Moved per system call.
const CHUNK: usize = 1 << 20;
/// A client silent this long mid-transfer is dropped.
const SILENCE: Duration = Duration::from_secs(60);

pub struct Agent {
    listener: TcpListener,
    token: Option<Secret>,
    /// Where the disk baseline may write, when the agent was given a directory.
    disk: Option<Arc<PathBuf>>,
    clients: Arc<AtomicUsize>,
}

impl Agent {
    pub fn bind(
        addr: SocketAddr,
        token: Option<Secret>,
        disk: Option<PathBuf>,
    ) -> io::Result<Agent> {
        Ok(Agent {
            listener: TcpListener::bind(addr)?,
            token,
            disk: disk.map(Arc::new),
            clients: Arc::new(AtomicUsize::new(0)),
        })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// True when clients will be refused for want of a token.
    pub fn refuses_everyone(&self) -> bool {
        self.token.is_none() && !self.local_addr().is_ok_and(|a| a.ip().is_loopback())
    }

    /// Serves until `stop` is raised (checked between connections).
    pub fn serve(&self, stop: &AtomicBool) -> io::Result<()> {
        self.listener.set_nonblocking(true)?;
        while !stop.load(Ordering::Relaxed) {
            let stream = match self.listener.accept() {
                Ok((stream, _)) => stream,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if self.clients.fetch_add(1, Ordering::AcqRel) >= MAX_CLIENTS {
                self.clients.fetch_sub(1, Ordering::AcqRel);
                continue; // dropped: the client sees the connection close
            }
            let (token, refuse, clients, disk) = (
                self.token.clone(),
                self.refuses_everyone(),
                self.clients.clone(),
                self.disk.clone(),
            );
            std::thread::spawn(move || {
                let _ = serve_one(stream, token.as_ref(), refuse, disk.as_deref());
                clients.fetch_sub(1, Ordering::AcqRel);
            });
        }
        Ok(())
    }
}

fn serve_one(
    mut stream: TcpStream,
    token: Option<&Secret>,
    refuse: bool,
    disk: Option<&PathBuf>,
) -> io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(SILENCE))?;
    stream.set_write_timeout(Some(SILENCE))?;
    let Some(hello) = Hello::read(&mut stream)? else {
        return Ok(());
    };
    if hello.version != wire::VERSION {
        let text = format!(
            "the serve agent speaks protocol version {}, this client {}; run the same \
             sharebench version on both hosts",
            wire::VERSION,
            hello.version
        );
        return wire::write_reply(&mut stream, REFUSED_VERSION, &text);
    }
    if refuse {
        let text = "the serve agent listens beyond loopback without a token and refuses every \
                    client; restart it with --token-file";
        return wire::write_reply(&mut stream, REFUSED_OTHER, text);
    }
    if let Some(token) = token {
        if !same(token.expose().as_bytes(), hello.token.as_bytes()) {
            let text = "the serve agent refused the token; give the one it was started with \
                        (--token-file or SHAREBENCH_TOKEN)";
            return wire::write_reply(&mut stream, REFUSED_TOKEN, text);
        }
    }
    let go_ahead = |stream: &mut TcpStream| wire::write_reply(stream, 0, "");
    match hello.mode {
        Mode::Sink => {
            go_ahead(&mut stream)?;
            let mut buf = vec![0u8; CHUNK];
            let mut left = hello.bytes;
            while left > 0 {
                let n = stream.read(&mut buf[..CHUNK.min(left as usize)])?;
                if n == 0 {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                left -= n as u64;
            }
            stream.write_all(&hello.bytes.to_be_bytes())
        }
        Mode::Source => {
            go_ahead(&mut stream)?;
            let buf = vec![0u8; CHUNK];
            let mut left = hello.bytes;
            while left > 0 {
                let n = CHUNK.min(left as usize);
                stream.write_all(&buf[..n])?;
                left -= n as u64;
            }
            Ok(())
        }
        Mode::Metrics => {
            go_ahead(&mut stream)?;
            stream_metrics(&mut stream, hello.bytes)
        }
        Mode::Disk => match disk {
            Some(dir) => {
                go_ahead(&mut stream)?;
                measure_disk(&mut stream, dir, hello.bytes)
            }
            None => {
                let text = "the serve agent was started without --disk DIR, so it has no disk \
                            to measure";
                wire::write_reply(&mut stream, REFUSED_OTHER, text)
            }
        },
        Mode::Other(n) => {
            let text = format!(
                "the serve agent does not know mode {n}; run the same sharebench version on \
                 both hosts"
            );
            wire::write_reply(&mut stream, REFUSED_OTHER, &text)
        }
    }
}

/// Runs the disk baseline in `dir` and answers with its times, or why it failed.
fn measure_disk(stream: &mut TcpStream, dir: &Path, bytes: u64) -> io::Result<()> {
    match disk::write_then_read(dir, bytes) {
        Ok((wrote, read)) => {
            wire::write_reply(stream, 0, "")?;
            let mut times = (wrote.as_nanos() as u64).to_be_bytes().to_vec();
            times.extend_from_slice(&(read.as_nanos() as u64).to_be_bytes());
            stream.write_all(&times)
        }
        Err(e) => {
            let text = format!("the disk baseline in {} failed: {e}", dir.display());
            wire::write_reply(stream, REFUSED_OTHER, &text)
        }
    }
}

/// Sends a sample of this host's counters every `interval_ms` until the client hangs up.
fn stream_metrics(stream: &mut TcpStream, interval_ms: u64) -> io::Result<()> {
    let interval = Duration::from_millis(interval_ms.clamp(50, 60_000));
    let mut rater = Rater::new();
    loop {
        std::thread::sleep(interval);
        let Some(sample) = rater.sample_now() else {
            continue;
        };
        let json = serde_json::to_vec(&sample).expect("a sample serialises");
        stream.write_all(&(json.len() as u32).to_be_bytes())?;
        stream.write_all(&json)?;
    }
}

/// Compares secrets in time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"ab"));
    }

    #[test]
    fn only_a_loopback_agent_may_go_without_a_token() {
        let local = Agent::bind("127.0.0.1:0".parse().unwrap(), None, None).unwrap();
        assert!(!local.refuses_everyone());
        let open = Agent::bind("0.0.0.0:0".parse().unwrap(), None, None).unwrap();
        assert!(open.refuses_everyone());
        let guarded =
            Agent::bind("0.0.0.0:0".parse().unwrap(), Some(Secret::new("t")), None).unwrap();
        assert!(!guarded.refuses_everyone());
    }
}
