//! NFSv3 (RFC 1813) and MOUNT v3 procedures the benchmark uses, as calls on a [`Connection`].

use super::rpc::Connection;
use super::xdr::{malformed, Decoder, Encoder};
use std::io;

pub const NFS_PROGRAM: u32 = 100_003;
pub const MOUNT_PROGRAM: u32 = 100_005;
const PORTMAP_PROGRAM: u32 = 100_000;
pub const VERSION: u32 = 3;

pub const READ: u32 = 6;
pub const WRITE: u32 = 7;
const LOOKUP: u32 = 3;
const CREATE: u32 = 8;
const READDIR: u32 = 16;
const MKDIR: u32 = 9;
const REMOVE: u32 = 12;
const RMDIR: u32 = 13;
const FSSTAT: u32 = 18;
const FSINFO: u32 = 19;
const COMMIT: u32 = 21;

/// WRITE's stable_how: the server may keep the data in memory until COMMIT.
pub const UNSTABLE: u32 = 0;

const FATTR_LEN: usize = 84;
const WCC_ATTR_LEN: usize = 24;

/// An NFS status as an io::Error a person can read.
pub fn status_error(status: u32) -> io::Error {
    use io::ErrorKind::*;
    let (kind, text) = match status {
        1 => (PermissionDenied, "not owner"),
        2 => (NotFound, "no such file or directory"),
        5 => (Other, "I/O error on the server"),
        13 => (PermissionDenied, "permission denied"),
        17 => (AlreadyExists, "file exists"),
        20 => (NotADirectory, "not a directory"),
        21 => (IsADirectory, "is a directory"),
        27 => (FileTooLarge, "file too large"),
        28 => (StorageFull, "no space left on the server"),
        30 => (ReadOnlyFilesystem, "read-only export"),
        66 => (DirectoryNotEmpty, "directory not empty"),
        70 => (Other, "stale file handle"),
        _ => (Other, "NFS error"),
    };
    io::Error::new(kind, format!("{text} (NFS status {status})"))
}

fn check(d: &mut Decoder) -> io::Result<u32> {
    d.u32()
}

fn skip_post_op_attr(d: &mut Decoder) -> io::Result<()> {
    if d.bool()? {
        d.skip(FATTR_LEN)?;
    }
    Ok(())
}

pub fn skip_wcc_data(d: &mut Decoder) -> io::Result<()> {
    if d.bool()? {
        d.skip(WCC_ATTR_LEN)?;
    }
    skip_post_op_attr(d)
}

/// Asks the portmapper on `host:111` for a program's TCP port.
pub fn portmap_port(conn: &mut Connection, program: u32, version: u32) -> io::Result<u16> {
    let mut args = Encoder::default();
    args.u32(program).u32(version).u32(6).u32(0);
    let reply = conn.call(PORTMAP_PROGRAM, 2, 3, &args.buf)?;
    let port = Decoder::new(&reply).u32()?;
    if port == 0 || port > u16::MAX as u32 {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            "the portmapper does not know it",
        ));
    }
    Ok(port as u16)
}

/// MOUNT3 MNT: the root file handle of an export.
pub fn mount(conn: &mut Connection, export: &str) -> io::Result<Vec<u8>> {
    let mut args = Encoder::default();
    args.string(export);
    let reply = conn.call(MOUNT_PROGRAM, VERSION, 1, &args.buf)?;
    let mut d = Decoder::new(&reply);
    match d.u32()? {
        0 => Ok(d.opaque()?.to_vec()),
        // servers answer "no access" for exports they do not have, so both read the same
        2 | 13 | 1 => Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "the server does not export {export} to this client (no such export, or no access)"
            ),
        )),
        status => Err(status_error(status)),
    }
}

/// Sizes the server offers (FSINFO).
pub struct Limits {
    pub rtmax: u32,
    pub wtmax: u32,
}

pub fn fsinfo(conn: &mut Connection, root: &[u8]) -> io::Result<Limits> {
    let mut args = Encoder::default();
    args.opaque(root);
    let reply = conn.call(NFS_PROGRAM, VERSION, FSINFO, &args.buf)?;
    let mut d = Decoder::new(&reply);
    let status = check(&mut d)?;
    if status != 0 {
        return Err(status_error(status));
    }
    skip_post_op_attr(&mut d)?;
    let rtmax = d.u32()?;
    d.u32()?;
    d.u32()?;
    let wtmax = d.u32()?;
    Ok(Limits { rtmax, wtmax })
}

/// FSSTAT: (total bytes, bytes available to this user).
pub fn fsstat(conn: &mut Connection, root: &[u8]) -> io::Result<(u64, u64)> {
    let mut args = Encoder::default();
    args.opaque(root);
    let reply = conn.call(NFS_PROGRAM, VERSION, FSSTAT, &args.buf)?;
    let mut d = Decoder::new(&reply);
    let status = check(&mut d)?;
    if status != 0 {
        return Err(status_error(status));
    }
    skip_post_op_attr(&mut d)?;
    let total = d.u64()?;
    d.u64()?; // free
    let available = d.u64()?;
    Ok((total, available))
}

/// LOOKUP: the handle and size of `name` in directory `dir`.
pub fn lookup(conn: &mut Connection, dir: &[u8], name: &str) -> io::Result<(Vec<u8>, u64)> {
    let mut args = Encoder::default();
    args.opaque(dir).string(name);
    let reply = conn.call(NFS_PROGRAM, VERSION, LOOKUP, &args.buf)?;
    let mut d = Decoder::new(&reply);
    let status = check(&mut d)?;
    if status != 0 {
        return Err(status_error(status));
    }
    let handle = d.opaque()?.to_vec();
    let size = if d.bool()? {
        d.skip(20)?; // type, mode, nlink, uid, gid
        d.u64()?
    } else {
        0
    };
    Ok((handle, size))
}

fn created_handle(
    reply: &[u8],
    conn: &mut Connection,
    dir: &[u8],
    name: &str,
) -> io::Result<Vec<u8>> {
    let mut d = Decoder::new(reply);
    let status = check(&mut d)?;
    if status != 0 {
        return Err(status_error(status));
    }
    if d.bool()? {
        return Ok(d.opaque()?.to_vec());
    }
    // the server may leave the handle out; ask for it
    lookup(conn, dir, name).map(|(handle, _)| handle)
}

/// CREATE (UNCHECKED, size 0): a new empty file, or an existing one emptied.
pub fn create(conn: &mut Connection, dir: &[u8], name: &str) -> io::Result<Vec<u8>> {
    let mut args = Encoder::default();
    args.opaque(dir).string(name).u32(0);
    // sattr3: mode 0644, no uid/gid, size 0, times unchanged
    args.u32(1)
        .u32(0o644)
        .u32(0)
        .u32(0)
        .u32(1)
        .u64(0)
        .u32(0)
        .u32(0);
    let reply = conn.call(NFS_PROGRAM, VERSION, CREATE, &args.buf)?;
    created_handle(&reply, conn, dir, name)
}

pub fn mkdir(conn: &mut Connection, dir: &[u8], name: &str) -> io::Result<Vec<u8>> {
    let mut args = Encoder::default();
    args.opaque(dir).string(name);
    args.u32(1).u32(0o755).u32(0).u32(0).u32(0).u32(0).u32(0);
    let reply = conn.call(NFS_PROGRAM, VERSION, MKDIR, &args.buf)?;
    created_handle(&reply, conn, dir, name)
}

fn remove_entry(conn: &mut Connection, procedure: u32, dir: &[u8], name: &str) -> io::Result<()> {
    let mut args = Encoder::default();
    args.opaque(dir).string(name);
    let reply = conn.call(NFS_PROGRAM, VERSION, procedure, &args.buf)?;
    match Decoder::new(&reply).u32()? {
        0 => Ok(()),
        status => Err(status_error(status)),
    }
}

pub fn remove(conn: &mut Connection, dir: &[u8], name: &str) -> io::Result<()> {
    remove_entry(conn, REMOVE, dir, name)
}

pub fn rmdir(conn: &mut Connection, dir: &[u8], name: &str) -> io::Result<()> {
    remove_entry(conn, RMDIR, dir, name)
}

/// READDIR until the end: the number of entries, "." and ".." not counted.
pub fn count_entries(conn: &mut Connection, dir: &[u8]) -> io::Result<u64> {
    let (mut cookie, mut verifier, mut count) = (0u64, [0u8; 8], 0u64);
    loop {
        let mut args = Encoder::default();
        args.opaque(dir).u64(cookie);
        args.buf.extend_from_slice(&verifier);
        args.u32(READDIR_BYTES);
        let reply = conn.call(NFS_PROGRAM, VERSION, READDIR, &args.buf)?;
        let mut d = Decoder::new(&reply);
        let status = check(&mut d)?;
        if status != 0 {
            return Err(status_error(status));
        }
        skip_post_op_attr(&mut d)?;
        verifier.copy_from_slice(d.fixed(8)?);
        while d.bool()? {
            d.u64()?; // fileid
            let name = d.opaque()?;
            cookie = d.u64()?;
            if name != b"." && name != b".." {
                count += 1;
            }
        }
        if d.bool()? {
            return Ok(count);
        }
    }
}

/// Bytes of directory entries asked for per READDIR (what the Linux client asks with its
/// default dtsize).
pub const READDIR_BYTES: u32 = 32 * 1024;

/// COMMIT the whole file: unstable writes become durable.
pub fn commit(conn: &mut Connection, file: &[u8]) -> io::Result<()> {
    let mut args = Encoder::default();
    args.opaque(file).u64(0).u32(0);
    let reply = conn.call(NFS_PROGRAM, VERSION, COMMIT, &args.buf)?;
    match Decoder::new(&reply).u32()? {
        0 => Ok(()),
        status => Err(status_error(status)),
    }
}

/// Decodes a READ reply: (data range in `record`, eof).
pub fn read_result(record: &[u8], results: usize) -> io::Result<(std::ops::Range<usize>, bool)> {
    let mut d = Decoder::new(&record[results..]);
    let status = check(&mut d)?;
    if status != 0 {
        return Err(status_error(status));
    }
    skip_post_op_attr(&mut d)?;
    d.u32()?; // count
    let eof = d.bool()?;
    let len = d.u32()? as usize;
    let start = record.len() - d.remaining();
    if start + len > record.len() {
        return Err(malformed());
    }
    Ok((start..start + len, eof))
}

/// Decodes a WRITE reply: bytes written.
pub fn write_result(record: &[u8], results: usize) -> io::Result<u32> {
    let mut d = Decoder::new(&record[results..]);
    let status = check(&mut d)?;
    if status != 0 {
        return Err(status_error(status));
    }
    skip_wcc_data(&mut d)?;
    d.u32()
}
