//! Whole SMB2 messages over one TCP connection (direct TCP, port 445), moved without sleeping
//! between packets (see `target/spin.rs`).

use super::wire::{frame, framed_len};
use crate::target::spin;
use std::io::{self, IoSlice};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::time::Duration;

pub struct Transport {
    stream: TcpStream,
    fd: RawFd,
    timeout: Duration,
    /// Holds the last message received in its first `len` bytes. It only ever grows, so a READ
    /// response costs neither an allocation nor a zero-fill.
    buffer: Vec<u8>,
    len: usize,
    patience: spin::Patience,
}

impl Transport {
    /// Connects with TCP_NODELAY: a request must leave at once, not wait for an ACK. `timeout`
    /// bounds the connect and any silence while a message is expected.
    pub fn connect(addr: SocketAddr, timeout: Duration) -> io::Result<Transport> {
        let stream = TcpStream::connect_timeout(&addr, timeout).map_err(|e| {
            let reason = match e.kind() {
                io::ErrorKind::ConnectionRefused => "nothing listens there".to_string(),
                io::ErrorKind::TimedOut => format!("no answer within {} s", timeout.as_secs()),
                _ => e.to_string(),
            };
            io::Error::new(e.kind(), format!("cannot connect to {addr}: {reason}"))
        })?;
        stream.set_nodelay(true)?;
        stream.set_nonblocking(true)?;
        Ok(Transport {
            fd: stream.as_raw_fd(),
            stream,
            timeout,
            buffer: Vec::new(),
            len: 0,
            patience: spin::Patience::default(),
        })
    }

    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Sends one message made of `pieces` (header and arguments, then data where it lies),
    /// behind its frame header, in as few system calls as the socket allows.
    pub fn send(&mut self, pieces: &[&[u8]]) -> io::Result<()> {
        let len = pieces.iter().map(|p| p.len()).sum();
        let frame = frame(len)?;
        let mut slices: Vec<IoSlice> = Vec::with_capacity(pieces.len() + 1);
        slices.push(IoSlice::new(&frame));
        slices.extend(pieces.iter().map(|p| IoSlice::new(p)));
        spin::write_all_vectored(&mut self.stream, self.fd, &mut slices, self.timeout)
    }

    /// Receives the next message; [`message`](Self::message) holds it until the next call.
    pub fn receive(&mut self) -> io::Result<()> {
        let mut header = [0u8; 4];
        spin::read_exact(
            &mut self.stream,
            self.fd,
            &mut header,
            self.timeout,
            &mut self.patience,
        )?;
        self.len = framed_len(header)?;
        if self.buffer.len() < self.len {
            self.buffer.resize(self.len, 0);
        }
        spin::read_exact(
            &mut self.stream,
            self.fd,
            &mut self.buffer[..self.len],
            self.timeout,
            &mut self.patience,
        )
    }

    pub fn message(&self) -> &[u8] {
        &self.buffer[..self.len]
    }

    pub fn message_mut(&mut self) -> &mut [u8] {
        &mut self.buffer[..self.len]
    }
}
