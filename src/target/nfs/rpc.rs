//! ONC RPC (RFC 5531) over TCP with record marking and AUTH_SYS, and the NFS client's
//! retransmission rules: a call not answered within `timeo` is sent again, the wait doubling each
//! time (up to 60 s); `soft` gives up after `retrans` retransmissions, `hard` keeps trying until
//! the run's timeout. Every failure (timeout, reset, refused) reconnects and resends all calls
//! still in flight, so one rule covers a slow server and a dead one.

use super::xdr::{malformed, Decoder, Encoder};
use crate::target::spin;
use std::io;
use std::net::{SocketAddr, TcpStream};
use std::os::fd::AsRawFd;
use std::thread::sleep;
use std::time::{Duration, Instant};

const LAST_FRAGMENT: u32 = 0x8000_0000;
const AUTH_SYS: u32 = 1;
const LONGEST_WAIT: Duration = Duration::from_secs(60);
/// The shortest wait for room to send a call.
const SEND_WAIT: Duration = Duration::from_secs(5);

/// How the client waits and retries (the NFS mount options of the same names).
#[derive(Debug, Clone, Copy)]
pub struct Retry {
    /// Wait before the first retransmission.
    pub timeo: Duration,
    pub retrans: u32,
    pub hard: bool,
    /// How long a hard client keeps trying before the run fails.
    pub hard_limit: Duration,
}

/// AUTH_SYS identity.
#[derive(Debug, Clone, Copy)]
pub struct Identity {
    pub uid: u32,
    pub gid: u32,
}

pub struct Connection {
    addr: SocketAddr,
    stream: Option<TcpStream>,
    retry: Retry,
    identity: Identity,
    next_xid: u32,
    /// Holds the last reply record in its first `record_len` bytes. It only ever grows, so a
    /// READ reply costs neither an allocation nor a zero-fill.
    buffer: Vec<u8>,
    record_len: usize,
    patience: spin::Patience,
}

/// Where a reply's results start in [`Connection::record`].
pub struct Reply {
    pub xid: u32,
    pub results: usize,
}

impl Connection {
    pub fn connect(addr: SocketAddr, retry: Retry, identity: Identity) -> io::Result<Connection> {
        let stream = open_stream(addr, retry.timeo)?;
        Ok(Connection {
            addr,
            stream: Some(stream),
            retry,
            identity,
            next_xid: std::process::id().wrapping_mul(0x9E37_79B9) ^ (addr.port() as u32) << 16,
            buffer: Vec::new(),
            record_len: 0,
            patience: spin::Patience::default(),
        })
    }

    /// Retries as a soft mount with one short wait, for clean-up calls that must not hang on
    /// a dead server.
    pub fn fail_fast(&mut self) {
        self.retry = Retry {
            timeo: self.retry.timeo.min(Duration::from_secs(1)),
            retrans: 0,
            hard: false,
            hard_limit: Duration::ZERO,
        };
    }

    pub fn set_retry(&mut self, retry: Retry) {
        self.retry = retry;
    }

    /// The last reply record.
    pub fn record(&self) -> &[u8] {
        &self.buffer[..self.record_len]
    }

    pub fn new_xid(&mut self) -> u32 {
        self.next_xid = self.next_xid.wrapping_add(1);
        self.next_xid
    }

    /// Starts a call: space for the record mark, then the RPC header; arguments follow.
    pub fn begin(
        &self,
        encoder: &mut Encoder,
        xid: u32,
        program: u32,
        version: u32,
        procedure: u32,
    ) {
        encoder.buf.clear();
        encoder.u32(0); // record mark, set by send()
        encoder
            .u32(xid)
            .u32(0)
            .u32(2)
            .u32(program)
            .u32(version)
            .u32(procedure);
        let mut credential = Encoder::default();
        credential
            .u32(0)
            .string("sharebench")
            .u32(self.identity.uid)
            .u32(self.identity.gid)
            .u32(0);
        encoder.u32(AUTH_SYS).opaque(&credential.buf);
        encoder.u32(0).u32(0); // verifier: AUTH_NONE
    }

    /// Sends a call begun with [`begin`](Self::begin), followed by `data` (a WRITE's payload,
    /// sent from where it lies) and its padding. A broken connection is not an error here: the
    /// next receive finds it, reconnects and resends.
    pub fn send(&mut self, call: &mut Encoder, data: &[u8]) {
        let pad = super::xdr::padding(data.len());
        let length = (call.buf.len() - 4 + data.len() + pad) as u32;
        call.buf[..4].copy_from_slice(&(length | LAST_FRAGMENT).to_be_bytes());
        let Some(stream) = &mut self.stream else {
            return;
        };
        let (fd, wait) = (stream.as_raw_fd(), self.retry.timeo.max(SEND_WAIT));
        let sent = spin::write_all(stream, fd, &call.buf, wait)
            .and_then(|()| spin::write_all(stream, fd, data, wait))
            .and_then(|()| spin::write_all(stream, fd, &[0u8; 3][..pad], wait));
        if sent.is_err() {
            self.stream = None;
        }
    }

    /// Waits for the next reply. On a timeout or a broken connection it reconnects, calls
    /// `resend` to send every call still in flight again, and waits longer, until the retry
    /// rules give up.
    pub fn receive(&mut self, resend: &mut dyn FnMut(&mut Connection)) -> io::Result<Reply> {
        let mut wait = self.retry.timeo;
        let mut retransmissions = 0;
        let waiting_since = Instant::now();
        loop {
            let failure = match self.read_record(wait) {
                Ok(()) => return self.parse_reply(),
                Err(e) => e,
            };
            if !self.retry.hard && retransmissions >= self.retry.retrans {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "the NFS server at {} did not answer ({failure}); soft: gave up after {} \
                         retransmissions",
                        self.addr, retransmissions
                    ),
                ));
            }
            if self.retry.hard && waiting_since.elapsed() >= self.retry.hard_limit {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "the NFS server at {} did not answer for {} s ({failure}); hard: kept \
                         trying until the timeout",
                        self.addr,
                        self.retry.hard_limit.as_secs()
                    ),
                ));
            }
            if failure.kind() != io::ErrorKind::WouldBlock
                && failure.kind() != io::ErrorKind::TimedOut
            {
                // refused or reset at once: wait as a timeout would have, so retries keep time
                sleep(wait);
            }
            retransmissions += 1;
            wait = (wait * 2).min(LONGEST_WAIT);
            self.stream = open_stream(self.addr, wait).ok();
            if self.stream.is_some() {
                resend(self);
            }
        }
    }

    /// Reads one whole record (all fragments) into `self.record`.
    fn read_record(&mut self, wait: Duration) -> io::Result<()> {
        let stream = self
            .stream
            .as_mut()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "not connected"))?;
        let fd = stream.as_raw_fd();
        self.record_len = 0;
        let (buffer, record_len, patience) =
            (&mut self.buffer, &mut self.record_len, &mut self.patience);
        let outcome = (|| loop {
            let mut mark = [0u8; 4];
            spin::read_exact(stream, fd, &mut mark, wait, patience)?;
            let mark = u32::from_be_bytes(mark);
            let start = *record_len;
            let end = start + (mark & !LAST_FRAGMENT) as usize;
            if buffer.len() < end {
                buffer.resize(end, 0);
            }
            spin::read_exact(stream, fd, &mut buffer[start..end], wait, patience)?;
            *record_len = end;
            if mark & LAST_FRAGMENT != 0 {
                return Ok(());
            }
        })();
        if outcome.is_err() {
            // a record cut short leaves the stream out of step: start over on a new connection
            self.stream = None;
        }
        outcome
    }

    fn parse_reply(&self) -> io::Result<Reply> {
        let mut d = Decoder::new(self.record());
        let xid = d.u32()?;
        if d.u32()? != 1 {
            return Err(malformed());
        }
        if d.u32()? != 0 {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "the server refused the call's credentials (AUTH_SYS)",
            ));
        }
        d.u32()?; // verifier flavor
        d.opaque()?;
        match d.u32()? {
            0 => {}
            1 => {
                return Err(io::Error::other(
                    "the server does not offer this RPC program",
                ))
            }
            2 => {
                return Err(io::Error::other(
                    "the server does not offer this protocol version",
                ))
            }
            3 => return Err(io::Error::other("the server does not know this procedure")),
            _ => return Err(io::Error::other("the server could not decode the call")),
        }
        Ok(Reply {
            xid,
            results: self.record_len - d.remaining(),
        })
    }

    /// A single call and its reply's results (for metadata, never on the data path).
    pub fn call(
        &mut self,
        program: u32,
        version: u32,
        procedure: u32,
        args: &[u8],
    ) -> io::Result<Vec<u8>> {
        let xid = self.new_xid();
        let mut call = Encoder::default();
        self.begin(&mut call, xid, program, version, procedure);
        call.buf.extend_from_slice(args);
        self.send(&mut call, &[]);
        loop {
            let reply = self.receive(&mut |c| c.send(&mut call, &[]))?;
            if reply.xid == xid {
                return Ok(self.record()[reply.results..].to_vec());
            }
        }
    }
}

/// A connection whose calls and replies move without sleeping between packets (see spin.rs).
fn open_stream(addr: SocketAddr, wait: Duration) -> io::Result<TcpStream> {
    let stream = TcpStream::connect_timeout(&addr, wait)?;
    stream.set_nodelay(true)?;
    stream.set_nonblocking(true)?;
    Ok(stream)
}
