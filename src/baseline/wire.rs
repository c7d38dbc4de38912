//! The serve agent's wire protocol, version 1. Every field is big-endian.
//!
//! ```text
//! client → agent   "SBSV"  version:u16  token_len:u16  token  mode:u8  bytes:u64
//! agent  → client  status:u8  text_len:u16  text            (status 0: go ahead)
//! then, mode 1 (sink):   the client sends `bytes`; the agent answers with bytes:u64 once it
//!                        has read them all, so the client times delivery, not its send buffer
//!       mode 2 (source): the agent sends `bytes`
//!       mode 3 (metrics): every `bytes` milliseconds the agent sends its host's counters as
//!                        rates, len:u32 then a JSON sample, until the client hangs up
//!       mode 4 (disk):   the agent writes `bytes` to its disk directory and reads them back,
//!                        then answers a second reply; status 0 is followed by
//!                        write_ns:u64 read_ns:u64
//! ```
//!
//! A refusal (status 1: token; 2: version; 3: anything else, such as a mode the agent does not
//! know or a disk baseline from an agent given no directory) carries one sentence and the agent
//! closes the connection. A client that does not start with "SBSV" is dropped without a word.

use std::io::{self, Read, Write};

pub const MAGIC: [u8; 4] = *b"SBSV";
pub const VERSION: u16 = 1;
pub const DEFAULT_PORT: u16 = 5202;

/// What the client asks the agent to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The agent reads what the client sends (an upload).
    Sink,
    /// The agent sends to the client (a download).
    Source,
    /// The agent streams its host's metrics.
    Metrics,
    /// The agent measures its local disk.
    Disk,
    /// A mode this version does not know, kept to be refused by number.
    Other(u8),
}

/// The client's opening message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hello {
    pub version: u16,
    pub token: String,
    pub mode: Mode,
    pub bytes: u64,
}

/// Why an agent refused.
pub const REFUSED_TOKEN: u8 = 1;
pub const REFUSED_VERSION: u8 = 2;
pub const REFUSED_OTHER: u8 = 3;

impl Hello {
    pub fn write(&self, to: &mut impl Write) -> io::Result<()> {
        let mut message = MAGIC.to_vec();
        message.extend_from_slice(&self.version.to_be_bytes());
        message.extend_from_slice(&(self.token.len() as u16).to_be_bytes());
        message.extend_from_slice(self.token.as_bytes());
        message.push(match self.mode {
            Mode::Sink => 1,
            Mode::Source => 2,
            Mode::Metrics => 3,
            Mode::Disk => 4,
            Mode::Other(n) => n,
        });
        message.extend_from_slice(&self.bytes.to_be_bytes());
        to.write_all(&message)
    }

    /// Reads a hello; `Ok(None)` when the peer is not a sharebench client at all. A hello of
    /// another version is returned as far as it can be read, for the agent to refuse by name.
    pub fn read(from: &mut impl Read) -> io::Result<Option<Hello>> {
        let mut head = [0u8; 8];
        from.read_exact(&mut head)?;
        if head[..4] != MAGIC {
            return Ok(None);
        }
        let version = u16::from_be_bytes([head[4], head[5]]);
        let mut token = vec![0u8; u16::from_be_bytes([head[6], head[7]]) as usize];
        from.read_exact(&mut token)?;
        let mut tail = [0u8; 9];
        if version == VERSION {
            from.read_exact(&mut tail)?;
        }
        let mode = match tail[0] {
            1 => Mode::Sink,
            2 => Mode::Source,
            3 => Mode::Metrics,
            4 => Mode::Disk,
            n => Mode::Other(n),
        };
        Ok(Some(Hello {
            version,
            token: String::from_utf8_lossy(&token).into_owned(),
            mode,
            bytes: u64::from_be_bytes(tail[1..].try_into().expect("8")),
        }))
    }
}

/// The agent's answer: 0 to go ahead, or a refusal with its sentence.
pub fn write_reply(to: &mut impl Write, status: u8, text: &str) -> io::Result<()> {
    let mut message = vec![status];
    message.extend_from_slice(&(text.len() as u16).to_be_bytes());
    message.extend_from_slice(text.as_bytes());
    to.write_all(&message)
}

pub fn read_reply(from: &mut impl Read) -> io::Result<(u8, String)> {
    let mut head = [0u8; 3];
    from.read_exact(&mut head)?;
    let mut text = vec![0u8; u16::from_be_bytes([head[1], head[2]]) as usize];
    from.read_exact(&mut text)?;
    Ok((head[0], String::from_utf8_lossy(&text).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hello_reads_back_as_written() {
        let hello = Hello {
            version: VERSION,
            token: "t0k".into(),
            mode: Mode::Source,
            bytes: 1 << 40,
        };
        let mut wire = Vec::new();
        hello.write(&mut wire).unwrap();
        assert_eq!(&wire[..4], b"SBSV");
        assert_eq!(Hello::read(&mut wire.as_slice()).unwrap(), Some(hello));
        for mode in [Mode::Sink, Mode::Metrics, Mode::Disk, Mode::Other(9)] {
            let mut wire = Vec::new();
            Hello {
                mode,
                ..Hello::read(&mut &b"SBSV\0\x01\0\0\x01\0\0\0\0\0\0\0\0"[..])
                    .unwrap()
                    .unwrap()
            }
            .write(&mut wire)
            .unwrap();
            assert_eq!(
                Hello::read(&mut wire.as_slice()).unwrap().unwrap().mode,
                mode
            );
        }
        assert_eq!(Hello::read(&mut &b"GET / HTTP/1.1\r\n"[..]).unwrap(), None);
    }

    #[test]
    fn a_later_version_is_read_far_enough_to_be_refused_by_name() {
        let mut wire = MAGIC.to_vec();
        wire.extend_from_slice(&7u16.to_be_bytes());
        wire.extend_from_slice(&0u16.to_be_bytes());
        let hello = Hello::read(&mut wire.as_slice()).unwrap().unwrap();
        assert_eq!(hello.version, 7);
    }

    #[test]
    fn replies_carry_their_sentence() {
        let mut wire = Vec::new();
        write_reply(&mut wire, REFUSED_TOKEN, "wrong token").unwrap();
        assert_eq!(
            read_reply(&mut wire.as_slice()).unwrap(),
            (REFUSED_TOKEN, "wrong token".to_string())
        );
    }
}
