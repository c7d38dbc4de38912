//! NEGOTIATE (MS-SMB2 2.2.3, 2.2.4): the dialect, the server's limits and, on 3.1.1, the
//! pre-authentication hash, cipher and signing algorithm, chosen from what this client offers.

use super::transport::Transport;
use super::wire::{self, malformed, Header, Reader, Writer, HEADER_LEN, NEGOTIATE};
use crate::random;
use std::io;

/// SecurityMode bits.
const SIGNING_ENABLED: u16 = 0x0001;
const SIGNING_REQUIRED: u16 = 0x0002;
/// Client capabilities: large MTU (multi-credit requests), leasing, encryption.
const CAPABILITIES: u32 = 0x0000_0004 | 0x0000_0002 | 0x0000_0040;

/// Negotiate context types (MS-SMB2 2.2.3.1).
const PREAUTH_INTEGRITY: u16 = 0x0001;
const ENCRYPTION: u16 = 0x0002;
const SIGNING: u16 = 0x0008;
const SHA512: u16 = 0x0001;

/// Ciphers, in this client's order of preference: GCM is the fastest on CPUs with carry-less
/// multiply, 128-bit keys the cheapest.
pub const CIPHERS: [u16; 4] = [0x0002, 0x0004, 0x0001, 0x0003];
/// Signing algorithms, by preference: AES-GMAC, AES-CMAC, HMAC-SHA256.
pub const SIGNING_ALGORITHMS: [u16; 3] = [0x0002, 0x0001, 0x0000];

/// What the connection settled on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Negotiated {
    pub dialect: u16,
    pub signing_required: bool,
    pub capabilities: u32,
    pub max_transact: u32,
    pub max_read: u32,
    pub max_write: u32,
    /// The server's SPNEGO token that starts authentication.
    pub security_blob: Vec<u8>,
    /// 3.1.1: the cipher the server chose, if any.
    pub cipher: Option<u16>,
    /// 3.1.1: the signing algorithm the server chose (HMAC-SHA256 or AES-CMAC by dialect
    /// otherwise).
    pub signing_algorithm: Option<u16>,
    /// 3.1.1: the request and response bytes, the start of the pre-authentication hash.
    pub exchanged: Vec<Vec<u8>>,
}

impl Negotiated {
    pub fn name(cipher: u16) -> &'static str {
        match cipher {
            0x0001 => "AES-128-CCM",
            0x0002 => "AES-128-GCM",
            0x0003 => "AES-256-CCM",
            0x0004 => "AES-256-GCM",
            _ => "unknown",
        }
    }
}

/// The NEGOTIATE request offering `dialects`.
pub fn request(dialects: &[u16], client_guid: [u8; 16], salt: [u8; 32]) -> Vec<u8> {
    let mut w = Writer::default();
    Header {
        command: NEGOTIATE,
        credits_wanted: 1,
        ..Header::default()
    }
    .write(&mut w);
    w.u16(36)
        .u16(dialects.len() as u16)
        .u16(SIGNING_ENABLED)
        .u16(0)
        .u32(CAPABILITIES)
        .bytes(&client_guid);
    let contexts_at = w.buf.len();
    w.u32(0).u16(0).u16(0); // context offset and count, or ClientStartTime (zero)
    for &dialect in dialects {
        w.u16(dialect);
    }
    if dialects.contains(&0x0311) {
        w.align(8);
        let offset = w.buf.len() as u32;
        let context = |w: &mut Writer, kind: u16, data: &Writer| {
            w.align(8);
            w.u16(kind)
                .u16(data.buf.len() as u16)
                .u32(0)
                .bytes(&data.buf);
        };
        let mut preauth = Writer::default();
        preauth
            .u16(1)
            .u16(salt.len() as u16)
            .u16(SHA512)
            .bytes(&salt);
        context(&mut w, PREAUTH_INTEGRITY, &preauth);
        let mut ciphers = Writer::default();
        ciphers.u16(CIPHERS.len() as u16);
        CIPHERS.iter().for_each(|&c| {
            ciphers.u16(c);
        });
        context(&mut w, ENCRYPTION, &ciphers);
        let mut signing = Writer::default();
        signing.u16(SIGNING_ALGORITHMS.len() as u16);
        SIGNING_ALGORITHMS.iter().for_each(|&s| {
            signing.u16(s);
        });
        context(&mut w, SIGNING, &signing);
        w.patch_u32(contexts_at, offset);
        w.patch_u16(contexts_at + 4, 3);
    }
    w.buf
}

/// Reads a NEGOTIATE response.
pub fn response(message: &[u8]) -> io::Result<Negotiated> {
    let r = Reader { data: message };
    let header = r.header()?;
    if header.command != NEGOTIATE {
        return Err(malformed());
    }
    match header.status {
        0 => {}
        0xC000_00BB => {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "the SMB server speaks none of the dialects offered",
            ))
        }
        status => {
            return Err(io::Error::other(format!(
                "the SMB server refused to negotiate (status 0x{status:08x})"
            )))
        }
    }
    let body = HEADER_LEN;
    if r.u16(body)? != 65 {
        return Err(malformed());
    }
    let dialect = r.u16(body + 4)?;
    let blob_offset = r.u16(body + 56)? as usize;
    let blob_len = r.u16(body + 58)? as usize;
    let mut negotiated = Negotiated {
        dialect,
        signing_required: r.u16(body + 2)? & SIGNING_REQUIRED != 0,
        capabilities: r.u32(body + 24)?,
        max_transact: r.u32(body + 28)?,
        max_read: r.u32(body + 32)?,
        max_write: r.u32(body + 36)?,
        security_blob: r.bytes(blob_offset, blob_len)?.to_vec(),
        cipher: None,
        signing_algorithm: None,
        exchanged: Vec::new(),
    };
    if dialect == 0x0311 {
        let count = r.u16(body + 6)? as usize;
        let mut at = r.u32(body + 60)? as usize;
        for _ in 0..count {
            at = at.next_multiple_of(8);
            let kind = r.u16(at)?;
            let len = r.u16(at + 2)? as usize;
            let data = Reader {
                data: r.bytes(at + 8, len)?,
            };
            match kind {
                ENCRYPTION if data.u16(0)? == 1 => {
                    negotiated.cipher = Some(data.u16(2)?).filter(|&c| c != 0)
                }
                SIGNING if data.u16(0)? == 1 => negotiated.signing_algorithm = Some(data.u16(2)?),
                _ => {}
            }
            at += 8 + len;
        }
    }
    Ok(negotiated)
}

/// Negotiates on a new connection, offering `dialects`.
pub fn negotiate(transport: &mut Transport, dialects: &[u16]) -> io::Result<Negotiated> {
    let sent = request(dialects, random::bytes()?, random::bytes()?);
    transport.send(&[&sent])?;
    transport.receive()?;
    let received = transport.message().to_vec();
    let mut negotiated = response(&received)?;
    if !dialects.contains(&negotiated.dialect) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "the SMB server chose dialect {}, which was not offered",
                wire::dialect_name(negotiated.dialect)
            ),
        ));
    }
    if negotiated.dialect == 0x0311 {
        negotiated.exchanged = vec![sent, received];
    }
    Ok(negotiated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_311_request_carries_its_contexts_at_8_byte_boundaries() {
        let message = request(&wire::DIALECTS, [1; 16], [2; 32]);
        let r = Reader { data: &message };
        let body = HEADER_LEN;
        assert_eq!(r.u16(body).unwrap(), 36);
        assert_eq!(r.u16(body + 2).unwrap(), 5, "dialect count");
        assert_eq!(r.u16(body + 36 + 8).unwrap(), 0x0311, "the last dialect");
        let offset = r.u32(body + 28).unwrap() as usize;
        assert_eq!(offset % 8, 0);
        assert_eq!(r.u16(body + 32).unwrap(), 3, "context count");
        assert_eq!(r.u16(offset).unwrap(), PREAUTH_INTEGRITY);
        assert_eq!(r.u16(offset + 2).unwrap(), 38, "1 hash, 32-byte salt");
        assert_eq!(r.bytes(offset + 8 + 6, 32).unwrap(), [2; 32]);
        // contexts follow one another 8-byte aligned
        let second = (offset + 8 + 38).next_multiple_of(8);
        assert_eq!(r.u16(second).unwrap(), ENCRYPTION);
    }

    #[test]
    fn an_older_request_has_no_contexts() {
        let message = request(&[0x0202, 0x0210], [1; 16], [2; 32]);
        let r = Reader { data: &message };
        assert_eq!(message.len(), HEADER_LEN + 36 + 4);
        assert_eq!(r.u32(HEADER_LEN + 28).unwrap(), 0);
    }
}
