//! Whole SMB2 messages over one TCP connection (direct TCP, port 445).

use super::wire::{frame, framed_len};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

pub struct Transport {
    stream: TcpStream,
}

impl Transport {
    /// Connects with TCP_NODELAY: a request must leave at once, not wait for an ACK.
    pub fn connect(addr: SocketAddr, timeout: Duration) -> io::Result<Transport> {
        let stream = TcpStream::connect_timeout(&addr, timeout)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(timeout))?;
        stream.set_write_timeout(Some(timeout))?;
        Ok(Transport { stream })
    }

    /// Sends one message, its frame header and body in one write.
    pub fn send(&mut self, message: &[u8]) -> io::Result<()> {
        let mut framed = Vec::with_capacity(4 + message.len());
        framed.extend_from_slice(&frame(message.len())?);
        framed.extend_from_slice(message);
        self.stream.write_all(&framed)
    }

    /// Receives the next message into `buf` (resized to fit).
    pub fn receive(&mut self, buf: &mut Vec<u8>) -> io::Result<()> {
        let mut header = [0u8; 4];
        self.stream.read_exact(&mut header)?;
        buf.resize(framed_len(header)?, 0);
        self.stream.read_exact(buf)
    }
}
