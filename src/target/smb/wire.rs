//! SMB2 messages on the wire (MS-SMB2 2.2): the 64-byte header, little-endian fields, and the
//! direct-TCP framing of RFC 1002 style (a zero byte and a 24-bit length before each message).

use std::io;

/// "\xFESMB": an SMB2 message.
pub const PROTOCOL_ID: [u8; 4] = [0xFE, b'S', b'M', b'B'];
pub const HEADER_LEN: usize = 64;

/// Commands (MS-SMB2 2.2.1.2).
pub const NEGOTIATE: u16 = 0x0000;
pub const SESSION_SETUP: u16 = 0x0001;
pub const LOGOFF: u16 = 0x0002;
pub const TREE_CONNECT: u16 = 0x0003;
pub const TREE_DISCONNECT: u16 = 0x0004;
pub const CREATE: u16 = 0x0005;
pub const CLOSE: u16 = 0x0006;
pub const FLUSH: u16 = 0x0007;
pub const READ: u16 = 0x0008;
pub const WRITE: u16 = 0x0009;
pub const QUERY_DIRECTORY: u16 = 0x000E;
pub const OPLOCK_BREAK: u16 = 0x0012;
pub const QUERY_INFO: u16 = 0x0010;
pub const SET_INFO: u16 = 0x0011;

/// Header flags.
pub const FLAG_RESPONSE: u32 = 0x0000_0001;
pub const FLAG_ASYNC: u32 = 0x0000_0002;
pub const FLAG_RELATED: u32 = 0x0000_0004;
pub const FLAG_SIGNED: u32 = 0x0000_0008;

/// Where the signature lies in a header.
pub const SIGNATURE: std::ops::Range<usize> = 48..64;
/// Where NextCommand lies in a header.
pub const NEXT_COMMAND: usize = 20;

/// The dialects this client speaks, oldest first.
pub const DIALECTS: [u16; 5] = [0x0202, 0x0210, 0x0300, 0x0302, 0x0311];

/// "3.1.1" for 0x0311.
pub fn dialect_name(dialect: u16) -> String {
    match dialect {
        0x0202 => "2.0.2".into(),
        0x0210 => "2.1".into(),
        0x0300 => "3.0".into(),
        0x0302 => "3.0.2".into(),
        0x0311 => "3.1.1".into(),
        other => format!("0x{other:04x}"),
    }
}

/// A path or name as SMB carries it: UTF-16LE, backslash-separated.
pub fn utf16(text: &str) -> Vec<u8> {
    text.encode_utf16()
        .map(|c| {
            if c == u16::from(b'/') {
                u16::from(b'\\')
            } else {
                c
            }
        })
        .flat_map(u16::to_le_bytes)
        .collect()
}

/// Appends little-endian fields to a message.
#[derive(Default)]
pub struct Writer {
    pub buf: Vec<u8>,
}

impl Writer {
    pub fn u8(&mut self, value: u8) -> &mut Self {
        self.buf.push(value);
        self
    }

    pub fn u16(&mut self, value: u16) -> &mut Self {
        self.buf.extend_from_slice(&value.to_le_bytes());
        self
    }

    pub fn u32(&mut self, value: u32) -> &mut Self {
        self.buf.extend_from_slice(&value.to_le_bytes());
        self
    }

    pub fn u64(&mut self, value: u64) -> &mut Self {
        self.buf.extend_from_slice(&value.to_le_bytes());
        self
    }

    pub fn bytes(&mut self, data: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(data);
        self
    }

    /// Zero bytes up to a multiple of `align` from the message start.
    pub fn align(&mut self, align: usize) -> &mut Self {
        let len = self.buf.len().next_multiple_of(align);
        self.buf.resize(len, 0);
        self
    }

    /// Overwrites a u16 or u32 written earlier (an offset or count known only later).
    pub fn patch_u16(&mut self, at: usize, value: u16) {
        self.buf[at..at + 2].copy_from_slice(&value.to_le_bytes());
    }

    pub fn patch_u32(&mut self, at: usize, value: u32) {
        self.buf[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }
}

/// The fields of a request header this client sets.
#[derive(Debug, Clone, Copy, Default)]
pub struct Header {
    pub command: u16,
    pub credit_charge: u16,
    pub credits_wanted: u16,
    pub flags: u32,
    pub message_id: u64,
    pub tree_id: u32,
    pub session_id: u64,
}

impl Header {
    /// A message's first 64 bytes (the signature left zero).
    pub fn write(&self, w: &mut Writer) {
        w.bytes(&PROTOCOL_ID)
            .u16(HEADER_LEN as u16)
            .u16(self.credit_charge)
            .u32(0) // channel sequence / status
            .u16(self.command)
            .u16(self.credits_wanted)
            .u32(self.flags)
            .u32(0) // next command
            .u64(self.message_id)
            .u32(0) // process id (reserved)
            .u32(self.tree_id)
            .u64(self.session_id)
            .bytes(&[0; 16]);
    }
}

/// A response header's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResponseHeader {
    pub status: u32,
    pub command: u16,
    pub credits_granted: u16,
    pub flags: u32,
    /// Bytes from this header to the next message of a compound, or 0 for the last.
    pub next_command: u32,
    pub message_id: u64,
    /// Sync messages: the tree; async ones (interim STATUS_PENDING) carry an async id here.
    pub tree_id: u32,
    pub session_id: u64,
}

/// Reads little-endian fields at fixed offsets of a message, every read bounds-checked.
pub struct Reader<'a> {
    pub data: &'a [u8],
}

pub fn malformed() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "the SMB server sent a malformed message",
    )
}

impl<'a> Reader<'a> {
    pub fn bytes(&self, at: usize, len: usize) -> io::Result<&'a [u8]> {
        at.checked_add(len)
            .and_then(|end| self.data.get(at..end))
            .ok_or_else(malformed)
    }

    pub fn u8(&self, at: usize) -> io::Result<u8> {
        Ok(self.bytes(at, 1)?[0])
    }

    pub fn u16(&self, at: usize) -> io::Result<u16> {
        Ok(u16::from_le_bytes(
            self.bytes(at, 2)?.try_into().expect("2"),
        ))
    }

    pub fn u32(&self, at: usize) -> io::Result<u32> {
        Ok(u32::from_le_bytes(
            self.bytes(at, 4)?.try_into().expect("4"),
        ))
    }

    pub fn u64(&self, at: usize) -> io::Result<u64> {
        Ok(u64::from_le_bytes(
            self.bytes(at, 8)?.try_into().expect("8"),
        ))
    }

    pub fn header(&self) -> io::Result<ResponseHeader> {
        if self.bytes(0, 4)? != PROTOCOL_ID || self.u16(4)? != HEADER_LEN as u16 {
            return Err(malformed());
        }
        Ok(ResponseHeader {
            status: self.u32(8)?,
            command: self.u16(12)?,
            credits_granted: self.u16(14)?,
            flags: self.u32(16)?,
            next_command: self.u32(20)?,
            message_id: self.u64(24)?,
            tree_id: self.u32(36)?,
            session_id: self.u64(40)?,
        })
    }
}

/// The 4-byte direct-TCP frame header for a message of `len` bytes.
pub fn frame(len: usize) -> io::Result<[u8; 4]> {
    if len >= 1 << 24 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "an SMB message is limited to 16 MiB",
        ));
    }
    let mut frame = (len as u32).to_be_bytes();
    frame[0] = 0;
    Ok(frame)
}

/// The length of the message a frame header announces.
pub fn framed_len(frame: [u8; 4]) -> io::Result<usize> {
    if frame[0] != 0 {
        return Err(malformed());
    }
    Ok(u32::from_be_bytes(frame) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_reads_back_as_written() {
        let mut w = Writer::default();
        Header {
            command: NEGOTIATE,
            credits_wanted: 31,
            message_id: 7,
            session_id: 0x1122_3344_5566_7788,
            ..Header::default()
        }
        .write(&mut w);
        assert_eq!(w.buf.len(), HEADER_LEN);
        let header = Reader { data: &w.buf }.header().unwrap();
        assert_eq!(header.credits_granted, 31);
        assert_eq!(header.message_id, 7);
        assert_eq!(header.session_id, 0x1122_3344_5566_7788);
        assert!(Reader { data: &w.buf[..40] }.header().is_err());
    }

    #[test]
    fn frames_carry_24_bit_lengths() {
        assert_eq!(frame(0x01_0203).unwrap(), [0, 1, 2, 3]);
        assert_eq!(framed_len([0, 1, 2, 3]).unwrap(), 0x01_0203);
        assert!(frame(1 << 24).is_err());
        assert!(
            framed_len([0x85, 0, 0, 0]).is_err(),
            "a NetBIOS keep-alive is not a message"
        );
    }
}
