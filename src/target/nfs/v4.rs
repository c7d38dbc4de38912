//! NFSv4.0 (RFC 7530) and v4.1 (RFC 8881) on the wire: a COMPOUND is built with [`Ops`], one
//! method per operation, and its reply read back in the same order with [`Results`]. Sessions,
//! leases and open state live in `state.rs`; this module only encodes and decodes.

use super::v3::status_error as common_status_error;
use super::xdr::{malformed, Decoder, Encoder};
use std::io;

pub const VERSION: u32 = 4;
pub const COMPOUND: u32 = 1;

pub const CLOSE: u32 = 4;
pub const COMMIT: u32 = 5;
pub const CREATE: u32 = 6;
pub const DELEGRETURN: u32 = 8;
pub const GETATTR: u32 = 9;
pub const GETFH: u32 = 10;
pub const LOOKUP: u32 = 15;
pub const OPEN: u32 = 18;
pub const OPEN_CONFIRM: u32 = 20;
pub const PUTFH: u32 = 22;
pub const PUTROOTFH: u32 = 24;
pub const READ: u32 = 25;
pub const READDIR: u32 = 26;
pub const REMOVE: u32 = 28;
pub const RENEW: u32 = 30;
pub const SETCLIENTID: u32 = 35;
pub const SETCLIENTID_CONFIRM: u32 = 36;
pub const WRITE: u32 = 38;
pub const EXCHANGE_ID: u32 = 42;
pub const CREATE_SESSION: u32 = 43;
pub const DESTROY_SESSION: u32 = 44;
pub const SEQUENCE: u32 = 53;
pub const DESTROY_CLIENTID: u32 = 57;
pub const RECLAIM_COMPLETE: u32 = 58;

pub const NFS4ERR_DELAY: u32 = 10008;
pub const NFS4ERR_GRACE: u32 = 10013;
pub const NFS4ERR_COMPLETE_ALREADY: u32 = 10054;

/// Attributes this client reads (bit numbers of the fattr4 bitmap).
pub const ATTR_TYPE: u32 = 1;
pub const ATTR_SIZE: u32 = 4;
pub const ATTR_LEASE_TIME: u32 = 10;
pub const ATTR_MAXREAD: u32 = 30;
pub const ATTR_MAXWRITE: u32 = 31;
pub const ATTR_MODE: u32 = 33;
pub const ATTR_SPACE_AVAIL: u32 = 42;
pub const ATTR_SPACE_TOTAL: u32 = 44;

/// File types (nfs_ftype4).
pub const NF4DIR: u32 = 2;

/// A 16-byte stateid: a sequence number and 12 opaque bytes.
pub type StateId = [u8; 16];
pub type SessionId = [u8; 16];

/// An NFSv4 status as an io::Error a person can read.
pub fn status_error(status: u32) -> io::Error {
    use io::ErrorKind::*;
    let (kind, text) = match status {
        10001 => (Other, "bad file handle"),
        10004 => (Unsupported, "operation not supported by the server"),
        10006 => (Other, "server fault"),
        NFS4ERR_DELAY => (WouldBlock, "the server asks to retry later"),
        10011 => (Other, "the client's lease expired"),
        NFS4ERR_GRACE => (WouldBlock, "the server is in its grace period"),
        10015 => (PermissionDenied, "the file is locked by another open"),
        10021 => (
            Unsupported,
            "the server does not offer this NFSv4 minor version",
        ),
        10022 => (Other, "the server no longer knows this client"),
        10025 => (Other, "bad stateid"),
        10026 => (Other, "bad sequence id"),
        10052 => (Other, "the server no longer knows this session"),
        10063 => (Other, "session slot sequence out of order"),
        10065 => (InvalidInput, "request too big for the session"),
        10066 => (InvalidInput, "reply too big for the session"),
        status if status < 10000 => return common_status_error(status),
        _ => (Other, "NFSv4 error"),
    };
    io::Error::new(kind, format!("{text} (NFS status {status})"))
}

/// The operations of one COMPOUND, each method appending one.
pub struct Ops {
    pub enc: Encoder,
    count: u32,
    count_at: usize,
}

impl Ops {
    /// A compound with no operations yet, after `header` bytes the caller wrote already (the
    /// RPC header on the data path, nothing for a plain call).
    pub fn new(mut enc: Encoder, minor_version: u32) -> Ops {
        enc.string("").u32(minor_version);
        let count_at = enc.buf.len();
        enc.u32(0);
        Ops {
            enc,
            count: 0,
            count_at,
        }
    }

    fn op(&mut self, opcode: u32) -> &mut Encoder {
        self.count += 1;
        self.enc.u32(opcode)
    }

    /// The finished compound, its operation count filled in.
    pub fn finish(mut self) -> Encoder {
        self.enc.buf[self.count_at..self.count_at + 4].copy_from_slice(&self.count.to_be_bytes());
        self.enc
    }

    pub fn sequence(&mut self, session: &SessionId, seqid: u32, slot: u32, highest_slot: u32) {
        self.op(SEQUENCE);
        self.enc.buf.extend_from_slice(session);
        self.enc.u32(seqid).u32(slot).u32(highest_slot).u32(0);
    }

    pub fn putrootfh(&mut self) {
        self.op(PUTROOTFH);
    }

    pub fn putfh(&mut self, fh: &[u8]) {
        self.op(PUTFH).opaque(fh);
    }

    pub fn lookup(&mut self, name: &str) {
        self.op(LOOKUP).string(name);
    }

    pub fn getfh(&mut self) {
        self.op(GETFH);
    }

    pub fn getattr(&mut self, attrs: &[u32]) {
        self.op(GETATTR);
        bitmap(&mut self.enc, attrs);
    }

    pub fn mkdir(&mut self, name: &str) {
        self.op(CREATE).u32(NF4DIR).string(name);
        fattr_mode(&mut self.enc, None, 0o755);
    }

    pub fn remove(&mut self, name: &str) {
        self.op(REMOVE).string(name);
    }

    /// OPEN `name` in the current directory for reading and writing; `create` makes it (or
    /// empties it) with UNCHECKED4 and size 0. v4.1 ignores `seqid`.
    pub fn open(&mut self, seqid: u32, clientid: u64, owner: &[u8], name: &str, create: bool) {
        // share access BOTH, deny NONE
        self.op(OPEN).u32(seqid).u32(3).u32(0);
        self.enc.u64(clientid).opaque(owner);
        if create {
            self.enc.u32(1).u32(0); // OPEN4_CREATE, UNCHECKED4
            fattr_mode(&mut self.enc, Some(0), 0o644);
        } else {
            self.enc.u32(0); // OPEN4_NOCREATE
        }
        self.enc.u32(0).string(name); // CLAIM_NULL
    }

    pub fn open_confirm(&mut self, stateid: &StateId, seqid: u32) {
        self.op(OPEN_CONFIRM);
        self.enc.buf.extend_from_slice(stateid);
        self.enc.u32(seqid);
    }

    pub fn close(&mut self, seqid: u32, stateid: &StateId) {
        self.op(CLOSE).u32(seqid);
        self.enc.buf.extend_from_slice(stateid);
    }

    pub fn delegreturn(&mut self, stateid: &StateId) {
        self.op(DELEGRETURN);
        self.enc.buf.extend_from_slice(stateid);
    }

    /// READ of `count` bytes at `offset`.
    pub fn read(&mut self, stateid: &StateId, offset: u64, count: u32) {
        self.op(READ);
        self.enc.buf.extend_from_slice(stateid);
        self.enc.u64(offset).u32(count);
    }

    /// WRITE's arguments up to the data's length; the data itself is sent from where it lies.
    pub fn write_header(&mut self, stateid: &StateId, offset: u64, len: u32) {
        self.op(WRITE);
        self.enc.buf.extend_from_slice(stateid);
        self.enc.u64(offset).u32(UNSTABLE4).u32(len);
    }

    /// READDIR from `cookie`, asking for names only.
    pub fn readdir(&mut self, cookie: u64, verifier: &[u8; 8], max_bytes: u32) {
        self.op(READDIR).u64(cookie);
        self.enc.buf.extend_from_slice(verifier);
        self.enc.u32(max_bytes).u32(max_bytes);
        bitmap(&mut self.enc, &[]);
    }

    pub fn commit(&mut self) {
        self.op(COMMIT).u64(0).u32(0);
    }

    pub fn renew(&mut self, clientid: u64) {
        self.op(RENEW).u64(clientid);
    }

    /// SETCLIENTID with a callback address nobody listens on: this client takes no
    /// delegations, so the server has nothing to call back about.
    pub fn setclientid(&mut self, verifier: &[u8; 8], id: &[u8]) {
        self.op(SETCLIENTID);
        self.enc.buf.extend_from_slice(verifier);
        self.enc.opaque(id);
        self.enc
            .u32(0x4000_0000)
            .string("tcp")
            .string("127.0.0.1.0.0")
            .u32(0);
    }

    pub fn setclientid_confirm(&mut self, clientid: u64, confirm: &[u8; 8]) {
        self.op(SETCLIENTID_CONFIRM).u64(clientid);
        self.enc.buf.extend_from_slice(confirm);
    }

    pub fn exchange_id(&mut self, verifier: &[u8; 8], id: &[u8]) {
        self.op(EXCHANGE_ID);
        self.enc.buf.extend_from_slice(verifier);
        // owner id, EXCHGID4_FLAG_USE_NON_PNFS, SP4_NONE, no implementation id
        self.enc.opaque(id).u32(0x0001_0000).u32(0).u32(0);
    }

    /// CREATE_SESSION without a back channel (no callbacks, so no delegations).
    pub fn create_session(&mut self, clientid: u64, sequence: u32, fore: &ChannelAttrs) {
        self.op(CREATE_SESSION).u64(clientid).u32(sequence).u32(0);
        fore.encode(&mut self.enc);
        ChannelAttrs {
            max_request: 4096,
            max_response: 4096,
            max_response_cached: 0,
            max_operations: 2,
            max_requests: 1,
        }
        .encode(&mut self.enc);
        self.enc.u32(0x4000_0000).u32(1).u32(0); // callback program, one AUTH_NONE
    }

    pub fn destroy_session(&mut self, session: &SessionId) {
        self.op(DESTROY_SESSION);
        self.enc.buf.extend_from_slice(session);
    }

    pub fn destroy_clientid(&mut self, clientid: u64) {
        self.op(DESTROY_CLIENTID).u64(clientid);
    }

    pub fn reclaim_complete(&mut self) {
        self.op(RECLAIM_COMPLETE).u32(0);
    }
}

/// WRITE's stable_how: the server may keep the data in memory until COMMIT.
const UNSTABLE4: u32 = 0;

fn bitmap(enc: &mut Encoder, attrs: &[u32]) {
    let words = attrs.iter().map(|a| a / 32 + 1).max().unwrap_or(0);
    enc.u32(words);
    for word in 0..words {
        let bits = attrs
            .iter()
            .filter(|a| *a / 32 == word)
            .fold(0u32, |acc, a| acc | 1 << (a % 32));
        enc.u32(bits);
    }
}

/// fattr4 setting the mode, and the size when given (attributes go in bit order).
fn fattr_mode(enc: &mut Encoder, size: Option<u64>, mode: u32) {
    let mut values = Encoder::default();
    let mut attrs = vec![ATTR_MODE];
    if let Some(size) = size {
        attrs.insert(0, ATTR_SIZE);
        values.u64(size);
    }
    values.u32(mode);
    bitmap(enc, &attrs);
    enc.opaque(&values.buf);
}

/// A channel's negotiated limits (channel_attrs4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChannelAttrs {
    pub max_request: u32,
    pub max_response: u32,
    pub max_response_cached: u32,
    pub max_operations: u32,
    pub max_requests: u32,
}

impl ChannelAttrs {
    fn encode(&self, enc: &mut Encoder) {
        enc.u32(0) // header padding
            .u32(self.max_request)
            .u32(self.max_response)
            .u32(self.max_response_cached)
            .u32(self.max_operations)
            .u32(self.max_requests)
            .u32(0); // no RDMA
    }

    fn decode(d: &mut Decoder) -> io::Result<ChannelAttrs> {
        d.u32()?;
        let attrs = ChannelAttrs {
            max_request: d.u32()?,
            max_response: d.u32()?,
            max_response_cached: d.u32()?,
            max_operations: d.u32()?,
            max_requests: d.u32()?,
        };
        for _ in 0..d.u32()? {
            d.u32()?;
        }
        Ok(attrs)
    }
}

/// A COMPOUND reply, read one operation result at a time in the order they were sent.
pub struct Results<'a> {
    d: Decoder<'a>,
    /// The compound's status: that of the first operation that failed.
    pub status: u32,
    left: u32,
}

impl<'a> Results<'a> {
    pub fn new(reply: &'a [u8]) -> io::Result<Results<'a>> {
        let mut d = Decoder::new(reply);
        let status = d.u32()?;
        d.opaque()?; // tag
        let left = d.u32()?;
        Ok(Results { d, status, left })
    }

    /// The next operation's result body; its failure as an error.
    pub fn next(&mut self, opcode: u32) -> io::Result<&mut Decoder<'a>> {
        if self.left == 0 {
            return Err(if self.status != 0 {
                status_error(self.status)
            } else {
                malformed()
            });
        }
        self.left -= 1;
        if self.d.u32()? != opcode {
            return Err(malformed());
        }
        match self.d.u32()? {
            0 => Ok(&mut self.d),
            status => Err(status_error(status)),
        }
    }

    pub fn sequence(&mut self) -> io::Result<()> {
        self.next(SEQUENCE)?.skip(16 + 5 * 4)
    }

    pub fn done(&mut self, opcode: u32) -> io::Result<()> {
        self.next(opcode).map(|_| ())
    }

    pub fn getfh(&mut self) -> io::Result<Vec<u8>> {
        Ok(self.next(GETFH)?.opaque()?.to_vec())
    }

    pub fn getattr(&mut self) -> io::Result<Attrs> {
        Attrs::decode(self.next(GETATTR)?)
    }

    /// OPEN's result: the open stateid, whether it must be confirmed (v4.0), and a delegation
    /// stateid when the server granted one anyway.
    pub fn open(&mut self) -> io::Result<(StateId, bool, Option<StateId>)> {
        let d = self.next(OPEN)?;
        let stateid = read_stateid(d)?;
        d.skip(4 + 8 + 8)?; // change_info4
        let confirm = d.u32()? & 2 != 0; // OPEN4_RESULT_CONFIRM
        skip_bitmap(d)?;
        let delegation = match d.u32()? {
            0 => None,
            kind @ (1 | 2) => {
                let deleg = read_stateid(d)?;
                d.u32()?; // recall
                if kind == 2 {
                    d.skip(4 + 8)?; // space limit: by size (u64) or by blocks (2 × u32)
                }
                d.skip(12)?; // ace type, flag, mask
                d.opaque()?; // who
                Some(deleg)
            }
            3 => {
                if matches!(d.u32()?, 1 | 2) {
                    d.u32()?;
                }
                None
            }
            _ => return Err(malformed()),
        };
        Ok((stateid, confirm, delegation))
    }

    pub fn open_confirm(&mut self) -> io::Result<StateId> {
        read_stateid(self.next(OPEN_CONFIRM)?)
    }

    /// READ's result: eof, and where the data lies in `record` (the whole reply record of
    /// which this compound's results are the tail).
    pub fn read(&mut self, record_len: usize) -> io::Result<(std::ops::Range<usize>, bool)> {
        let d = self.next(READ)?;
        let eof = d.bool()?;
        let len = d.u32()? as usize;
        let start = record_len - d.remaining();
        if start + len > record_len {
            return Err(malformed());
        }
        Ok((start..start + len, eof))
    }

    /// READDIR's result: (verifier, entries, last cookie, end of directory).
    pub fn readdir(&mut self) -> io::Result<([u8; 8], u64, Option<u64>, bool)> {
        let d = self.next(READDIR)?;
        let verifier = d.fixed(8)?.try_into().expect("8 bytes");
        let (mut entries, mut last) = (0, None);
        while d.bool()? {
            last = Some(d.u64()?);
            d.opaque()?; // name
            skip_bitmap(d)?;
            d.opaque()?; // attribute values
            entries += 1;
        }
        Ok((verifier, entries, last, d.bool()?))
    }

    pub fn write(&mut self) -> io::Result<u32> {
        self.next(WRITE)?.u32()
    }

    pub fn setclientid(&mut self) -> io::Result<(u64, [u8; 8])> {
        let d = self.next(SETCLIENTID)?;
        let clientid = d.u64()?;
        let confirm = d.fixed(8)?.try_into().expect("8 bytes");
        Ok((clientid, confirm))
    }

    /// EXCHANGE_ID's result: (client id, the sequence its first CREATE_SESSION must use).
    pub fn exchange_id(&mut self) -> io::Result<(u64, u32)> {
        let d = self.next(EXCHANGE_ID)?;
        Ok((d.u64()?, d.u32()?))
    }

    pub fn create_session(&mut self) -> io::Result<(SessionId, ChannelAttrs)> {
        let d = self.next(CREATE_SESSION)?;
        let id = d.fixed(16)?.try_into().expect("16 bytes");
        d.u32()?; // sequence
        d.u32()?; // flags
        Ok((id, ChannelAttrs::decode(d)?))
    }
}

fn read_stateid(d: &mut Decoder) -> io::Result<StateId> {
    Ok(d.fixed(16)?.try_into().expect("16 bytes"))
}

fn skip_bitmap(d: &mut Decoder) -> io::Result<()> {
    for _ in 0..d.u32()? {
        d.u32()?;
    }
    Ok(())
}

/// The attributes this client asks for; absent ones stay `None`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Attrs {
    pub kind: Option<u32>,
    pub size: Option<u64>,
    pub lease_time: Option<u32>,
    pub max_read: Option<u64>,
    pub max_write: Option<u64>,
    pub space_avail: Option<u64>,
    pub space_total: Option<u64>,
}

impl Attrs {
    fn decode(d: &mut Decoder) -> io::Result<Attrs> {
        let mut set = Vec::new();
        for word in 0..d.u32()? {
            let bits = d.u32()?;
            set.extend(
                (0..32)
                    .filter(|b| bits & 1 << b != 0)
                    .map(|b| word * 32 + b),
            );
        }
        let values = d.opaque()?;
        let mut v = Decoder::new(values);
        let mut attrs = Attrs::default();
        // values come in bit order; every bit this client asks for has a known size
        for attr in set {
            match attr {
                ATTR_TYPE => attrs.kind = Some(v.u32()?),
                ATTR_SIZE => attrs.size = Some(v.u64()?),
                ATTR_LEASE_TIME => attrs.lease_time = Some(v.u32()?),
                ATTR_MAXREAD => attrs.max_read = Some(v.u64()?),
                ATTR_MAXWRITE => attrs.max_write = Some(v.u64()?),
                ATTR_SPACE_AVAIL => attrs.space_avail = Some(v.u64()?),
                43 => {
                    v.u64()?; // space_free
                }
                ATTR_SPACE_TOTAL => attrs.space_total = Some(v.u64()?),
                _ => return Err(malformed()),
            }
        }
        Ok(attrs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitmaps_put_each_attribute_in_its_word() {
        let mut enc = Encoder::default();
        bitmap(&mut enc, &[ATTR_SIZE, ATTR_SPACE_TOTAL, ATTR_TYPE]);
        let mut d = Decoder::new(&enc.buf);
        assert_eq!(d.u32().unwrap(), 2);
        assert_eq!(d.u32().unwrap(), 1 << 4 | 1 << 1);
        assert_eq!(d.u32().unwrap(), 1 << 12);
    }

    #[test]
    fn attributes_are_read_in_bit_order() {
        let mut reply = Encoder::default();
        reply.u32(0).string("").u32(1).u32(GETATTR).u32(0);
        bitmap(&mut reply, &[ATTR_SIZE, ATTR_TYPE, ATTR_SPACE_AVAIL]);
        let mut values = Encoder::default();
        values.u32(NF4DIR).u64(4096).u64(1 << 40);
        reply.opaque(&values.buf);
        let attrs = Results::new(&reply.buf).unwrap().getattr().unwrap();
        assert_eq!(attrs.kind, Some(NF4DIR));
        assert_eq!(attrs.size, Some(4096));
        assert_eq!(attrs.space_avail, Some(1 << 40));
        assert_eq!(attrs.max_read, None);
    }

    #[test]
    fn a_failed_operation_ends_the_results_with_its_status() {
        let mut reply = Encoder::default();
        reply.u32(2).string("").u32(2);
        reply.u32(PUTROOTFH).u32(0).u32(LOOKUP).u32(2);
        let mut results = Results::new(&reply.buf).unwrap();
        results.done(PUTROOTFH).unwrap();
        let error = results.done(LOOKUP).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        // a reply cut short after the failure reports the compound's status, not garbage
        assert_eq!(
            results.done(GETFH).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    #[test]
    fn ops_count_is_filled_in() {
        let mut ops = Ops::new(Encoder::default(), 1);
        ops.putrootfh();
        ops.lookup("data");
        ops.getfh();
        let enc = ops.finish();
        let mut d = Decoder::new(&enc.buf);
        d.opaque().unwrap();
        assert_eq!(d.u32().unwrap(), 1, "minor version");
        assert_eq!(d.u32().unwrap(), 3, "operations");
        assert_eq!(d.u32().unwrap(), PUTROOTFH);
    }
}
