//! The file requests (MS-SMB2 2.2.13 to 2.2.40): their arguments as bytes, and the fields this
//! client reads from their responses. Offsets count from the start of the SMB2 header.

use super::wire::{utf16, Reader, Writer, HEADER_LEN};
use std::io;

/// A handle on an open file or directory.
pub type FileId = [u8; 16];
/// The file opened by the request before this one in a compound chain.
pub const RELATED_FILE: FileId = [0xFF; 16];

/// Access rights.
pub const READ_DATA: u32 = 0x0000_0001;
pub const WRITE_DATA: u32 = 0x0000_0002;
pub const READ_ATTRIBUTES: u32 = 0x0000_0080;
pub const DELETE: u32 = 0x0001_0000;
pub const SYNCHRONIZE: u32 = 0x0010_0000;
/// Share access: let everyone else read, write and delete.
const SHARE_ALL: u32 = 0x7;
/// Create dispositions.
pub const OPEN: u32 = 1;
pub const CREATE_NEW: u32 = 2;
pub const OVERWRITE_IF: u32 = 5;
/// Create options.
pub const DIRECTORY: u32 = 0x0000_0001;
pub const NON_DIRECTORY: u32 = 0x0000_0040;
/// File attributes.
const ATTRIBUTE_NORMAL: u32 = 0x80;
const ATTRIBUTE_DIRECTORY: u32 = 0x10;

/// What a file open asks to cache on the client (the old "oplocks" experiment).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Caching {
    None,
    /// Read caching: a level II oplock, or a read lease.
    Read,
    /// Read and write caching: an exclusive oplock, or a read-write lease.
    #[value(name = "rw")]
    ReadWrite,
}

impl Caching {
    pub fn name(self) -> &'static str {
        match self {
            Caching::None => "none",
            Caching::Read => "read",
            Caching::ReadWrite => "rw",
        }
    }
}

const OPLOCK_NONE: u8 = 0x00;
const OPLOCK_LEVEL_II: u8 = 0x01;
const OPLOCK_EXCLUSIVE: u8 = 0x08;
const OPLOCK_LEASE: u8 = 0xFF;
const LEASE_READ: u32 = 0x01;
const LEASE_HANDLE: u32 = 0x02;
const LEASE_WRITE: u32 = 0x04;

/// A CREATE request.
pub struct Create<'a> {
    pub path: &'a str,
    pub access: u32,
    pub disposition: u32,
    pub options: u32,
    pub caching: Caching,
    /// The lease key, when caching is asked for on a dialect with leases (2.1 and later).
    pub lease: Option<([u8; 16], u16)>,
}

impl Create<'_> {
    /// Opens `path` with `access`, nothing cached.
    pub fn new(path: &str, access: u32, disposition: u32, options: u32) -> Create<'_> {
        Create {
            path,
            access,
            disposition,
            options,
            caching: Caching::None,
            lease: None,
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let name = utf16(self.path);
        let mut w = Writer::default();
        let oplock = match (self.caching, self.lease) {
            (Caching::None, _) => OPLOCK_NONE,
            (_, Some(_)) => OPLOCK_LEASE,
            (Caching::Read, None) => OPLOCK_LEVEL_II,
            (Caching::ReadWrite, None) => OPLOCK_EXCLUSIVE,
        };
        let attributes = if self.options & DIRECTORY != 0 {
            ATTRIBUTE_DIRECTORY
        } else {
            ATTRIBUTE_NORMAL
        };
        w.u16(57)
            .u8(0)
            .u8(oplock)
            .u32(2) // impersonation
            .u64(0)
            .u64(0)
            .u32(self.access | SYNCHRONIZE)
            .u32(attributes)
            .u32(SHARE_ALL)
            .u32(self.disposition)
            .u32(self.options)
            .u16((HEADER_LEN + 56) as u16)
            .u16(name.len() as u16);
        let contexts_at = w.buf.len();
        w.u32(0).u32(0).bytes(&name);
        if let (Some((key, dialect)), true) = (self.lease, oplock == OPLOCK_LEASE) {
            w.align(8);
            let offset = HEADER_LEN + w.buf.len();
            let state = match self.caching {
                Caching::ReadWrite => LEASE_READ | LEASE_WRITE | LEASE_HANDLE,
                _ => LEASE_READ,
            };
            let start = w.buf.len();
            let data_len = if dialect >= 0x0300 { 52 } else { 32 };
            w.u32(0).u16(16).u16(4).u16(0).u16(24).u32(data_len);
            w.bytes(b"RqLs").u32(0);
            w.bytes(&key).u32(state).u32(0).u64(0);
            if dialect >= 0x0300 {
                w.bytes(&[0; 16]).u16(0).u16(0); // parent lease key, epoch
            }
            let len = w.buf.len() - start;
            w.patch_u32(contexts_at, offset as u32);
            w.patch_u32(contexts_at + 4, len as u32);
        }
        if name.is_empty() && self.lease.is_none() {
            w.u8(0); // the variable part is never empty
        }
        w.buf
    }
}

/// What a CREATE answered.
pub struct Created {
    pub file_id: FileId,
    pub end_of_file: u64,
    /// The caching granted: "none", "level2", "exclusive", "batch" or the lease state "RWH".
    pub caching: String,
}

pub fn created(message: &[u8]) -> io::Result<Created> {
    let r = Reader { data: message };
    let body = HEADER_LEN;
    let oplock = r.u8(body + 2)?;
    let mut caching = match oplock {
        OPLOCK_NONE => "none".to_string(),
        OPLOCK_LEVEL_II => "level2".into(),
        OPLOCK_EXCLUSIVE => "exclusive".into(),
        0x09 => "batch".into(),
        _ => "lease".into(),
    };
    if oplock == OPLOCK_LEASE {
        let (offset, len) = (r.u32(body + 80)? as usize, r.u32(body + 84)? as usize);
        let contexts = Reader {
            data: r.bytes(offset, len)?,
        };
        // the lease state follows the 16-byte key in the first (the lease) context's data
        let data_at = contexts.u16(10)? as usize;
        let state = contexts.u32(data_at + 16)?;
        caching = [(LEASE_READ, 'R'), (LEASE_WRITE, 'W'), (LEASE_HANDLE, 'H')]
            .iter()
            .filter(|(bit, _)| state & bit != 0)
            .map(|&(_, c)| c)
            .collect();
    }
    Ok(Created {
        file_id: r.bytes(body + 64, 16)?.try_into().expect("16"),
        end_of_file: r.u64(body + 48)?,
        caching,
    })
}

pub fn close(file: &FileId) -> Vec<u8> {
    let mut w = Writer::default();
    w.u16(24).u16(0).u32(0).bytes(file);
    w.buf
}

pub fn flush(file: &FileId) -> Vec<u8> {
    let mut w = Writer::default();
    w.u16(24).u16(0).u32(0).bytes(file);
    w.buf
}

/// READ of `len` bytes at `offset` into `w` (cleared first).
pub fn read(w: &mut Writer, file: &FileId, offset: u64, len: u32) {
    w.buf.clear();
    w.u16(49)
        .u8(0x50) // ask for the data right after the response's fixed part
        .u8(0)
        .u32(len)
        .u64(offset)
        .bytes(file)
        .u32(0) // minimum count
        .u32(0) // channel
        .u32(0)
        .u16(0)
        .u16(0)
        .u8(0);
}

/// Where a READ response's data lies in its message.
pub fn read_data(message: &[u8]) -> io::Result<std::ops::Range<usize>> {
    let r = Reader { data: message };
    let offset = r.u8(HEADER_LEN + 2)? as usize;
    let len = r.u32(HEADER_LEN + 4)? as usize;
    r.bytes(offset, len)?;
    Ok(offset..offset + len)
}

/// WRITE of `len` bytes at `offset` (the data follows these arguments), into `w`.
pub fn write(w: &mut Writer, file: &FileId, offset: u64, len: u32) {
    w.buf.clear();
    w.u16(49)
        .u16((HEADER_LEN + 48) as u16)
        .u32(len)
        .u64(offset)
        .bytes(file)
        .u32(0) // channel
        .u32(0)
        .u16(0)
        .u16(0)
        .u32(0);
}

/// How many bytes a WRITE response says were written.
pub fn written(message: &[u8]) -> io::Result<u32> {
    Reader { data: message }.u32(HEADER_LEN + 4)
}

/// QUERY_DIRECTORY entries this client asks for: FileIdBothDirectoryInformation, as Windows
/// Explorer and the Linux client's `ls` fetch them.
const ID_BOTH_DIRECTORY_INFORMATION: u8 = 0x25;
const RESTART_SCANS: u8 = 0x01;

pub fn query_directory(file: &FileId, first: bool, buffer_len: u32) -> Vec<u8> {
    let pattern = utf16("*");
    let mut w = Writer::default();
    w.u16(33)
        .u8(ID_BOTH_DIRECTORY_INFORMATION)
        .u8(if first { RESTART_SCANS } else { 0 })
        .u32(0)
        .bytes(file)
        .u16((HEADER_LEN + 32) as u16)
        .u16(pattern.len() as u16)
        .u32(buffer_len)
        .bytes(&pattern);
    w.buf
}

/// Counts the entries of a QUERY_DIRECTORY response, leaving out "." and "..".
pub fn count_entries(message: &[u8]) -> io::Result<u64> {
    let r = Reader { data: message };
    let offset = r.u16(HEADER_LEN + 2)? as usize;
    let len = r.u32(HEADER_LEN + 4)? as usize;
    let entries = Reader {
        data: r.bytes(offset, len)?,
    };
    let (dot, dotdot) = (utf16("."), utf16(".."));
    let mut at = 0;
    let mut count = 0;
    loop {
        let next = entries.u32(at)? as usize;
        let name_len = entries.u32(at + 60)? as usize;
        let name = entries.bytes(at + 104, name_len)?;
        if name != dot.as_slice() && name != dotdot.as_slice() {
            count += 1;
        }
        if next == 0 {
            return Ok(count);
        }
        at += next;
    }
}

const INFO_FILE: u8 = 1;
const INFO_FILESYSTEM: u8 = 2;
const FS_FULL_SIZE_INFORMATION: u8 = 7;
const DISPOSITION_INFORMATION: u8 = 13;

/// QUERY_INFO for the size of the filesystem behind the share.
pub fn query_space(file: &FileId) -> Vec<u8> {
    let mut w = Writer::default();
    w.u16(41)
        .u8(INFO_FILESYSTEM)
        .u8(FS_FULL_SIZE_INFORMATION)
        .u32(32)
        .u16(0)
        .u16(0)
        .u32(0)
        .u32(0)
        .u32(0)
        .bytes(file)
        .u8(0);
    w.buf
}

/// Total and free bytes from a FileFsFullSizeInformation answer.
pub fn space(message: &[u8]) -> io::Result<(u64, u64)> {
    let r = Reader { data: message };
    let at = r.u16(HEADER_LEN + 2)? as usize;
    let total_units = r.u64(at)?;
    let free_units = r.u64(at + 8)?;
    let unit = r.u32(at + 24)? as u64 * r.u32(at + 28)? as u64;
    Ok((total_units * unit, free_units * unit))
}

fn set_info(file: &FileId, class: u8, data: &[u8]) -> Vec<u8> {
    let mut w = Writer::default();
    w.u16(33)
        .u8(INFO_FILE)
        .u8(class)
        .u32(data.len() as u32)
        .u16((HEADER_LEN + 32) as u16)
        .u16(0)
        .u32(0)
        .bytes(file)
        .bytes(data);
    w.buf
}

/// SET_INFO marking the file for deletion when its last handle closes.
pub fn delete_on_close(file: &FileId) -> Vec<u8> {
    set_info(file, DISPOSITION_INFORMATION, &[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_create_with_a_lease_carries_the_context_aligned_after_the_name() {
        let mut create = Create::new("a/b.dat", READ_DATA, OPEN, NON_DIRECTORY);
        create.caching = Caching::ReadWrite;
        create.lease = Some(([3; 16], 0x0311));
        let body = create.encode();
        let r = Reader { data: &body };
        assert_eq!(r.u16(0).unwrap(), 57);
        assert_eq!(r.u8(3).unwrap(), OPLOCK_LEASE);
        assert_eq!(r.u16(46).unwrap(), 14, "7 UTF-16 units");
        assert_eq!(
            r.bytes(56, 4).unwrap(),
            b"a\0\\\0",
            "slashes become backslashes"
        );
        let contexts = r.u32(48).unwrap() as usize - HEADER_LEN;
        assert_eq!(contexts % 8, 0);
        assert_eq!(r.bytes(contexts + 16, 4).unwrap(), b"RqLs");
        assert_eq!(r.u32(52).unwrap(), 24 + 52, "a v2 lease on 3.x");
        assert_eq!(r.u32(contexts + 24 + 16).unwrap(), 7, "RWH asked");
    }

    #[test]
    fn an_unleased_create_of_the_root_has_a_one_byte_buffer() {
        let body = Create::new("", READ_ATTRIBUTES, OPEN, DIRECTORY).encode();
        assert_eq!(body.len(), 57);
        assert_eq!(Reader { data: &body }.u8(3).unwrap(), OPLOCK_NONE);
    }

    #[test]
    fn directory_pages_are_counted_without_dot_entries() {
        let mut page = Writer::default();
        for (i, name) in [".", "..", "f1", "d2"].iter().enumerate() {
            let start = page.buf.len();
            let name = utf16(name);
            page.u32(0)
                .bytes(&[0; 56])
                .u32(name.len() as u32)
                .bytes(&[0; 40]);
            page.bytes(&name).align(8);
            if i < 3 {
                let next = page.buf.len() - start;
                page.patch_u32(start, next as u32);
            }
        }
        let mut message = vec![0u8; HEADER_LEN];
        let mut w = Writer { buf: message };
        w.u16(9)
            .u16((HEADER_LEN + 8) as u16)
            .u32(page.buf.len() as u32)
            .bytes(&page.buf);
        message = w.buf;
        assert_eq!(count_entries(&message).unwrap(), 2);
        message.truncate(message.len() - 8);
        assert!(count_entries(&message).is_err(), "a cut page is refused");
    }
}
