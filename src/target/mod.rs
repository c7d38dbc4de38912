//! Where bytes go. One implementation per protocol behind [`Target`] and [`Handle`]; the engine
//! drives them all the same way and never asks which one it has.
//!
//! Paths given to a target are relative to its root and use `/` separators, so the same workload
//! runs unchanged on a local directory or a share.

pub mod buffer;
pub mod credentials;
pub mod ftp;
pub mod local;
pub mod nfs;
pub mod payload;
pub mod pipeline;
pub mod smb;
pub mod spin;
pub mod url;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::AtomicBool;

/// One request: read or write `len` bytes at `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op {
    pub offset: u64,
    pub len: usize,
    pub write: bool,
}

/// Receives each finished request with its latency (from issue to completion, in nanoseconds).
pub trait OpSink {
    fn completed(&mut self, op: &Op, latency_ns: u64);
}

/// A sink for untimed work (preparing files, priming caches).
pub struct Discard;

impl OpSink for Discard {
    fn completed(&mut self, _: &Op, _: u64) {}
}

/// What a target can do, declared up front so a test it cannot run is reported, never faked.
#[derive(Debug, Clone, Serialize)]
pub struct Capabilities {
    /// Reads and writes at any offset (FTP: no).
    pub random_access: bool,
    /// Bypassing the client's page cache (local O_DIRECT only).
    pub direct_io: bool,
    /// Create, list, stat and remove files and directories.
    pub metadata: bool,
    /// Largest single request, when the protocol caps it.
    pub max_io_size: Option<u64>,
    /// Requests the client can keep in flight at once.
    pub queue_depth: usize,
}

/// The space on the filesystem behind a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Space {
    pub total: u64,
    pub free: u64,
}

/// How a benchmark file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Create the file, or empty it if it exists; writable.
    Create,
    /// An existing file, readable and writable.
    Existing,
}

/// Per-handle I/O settings the engine asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoSettings {
    /// The largest request this handle will see (buffer size).
    pub max_io: usize,
    /// Requests in flight at once.
    pub queue_depth: usize,
    /// Bypass the page cache.
    pub direct: bool,
    /// Check every block read against what sharebench writes.
    pub verify: bool,
}

/// What a target reports about itself for the result document (never a secret).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TargetInfo {
    /// Where it points, with any secret removed.
    pub url: String,
    pub protocol: String,
    /// Negotiated or discovered parameters (filesystem type, dialect, max read/write, …).
    pub parameters: BTreeMap<String, String>,
}

/// A place to benchmark: a local directory, a share.
pub trait Target: Send + Sync {
    fn info(&self) -> TargetInfo;
    fn capabilities(&self) -> Capabilities;
    /// Free and total space, when the target can tell.
    fn space(&self) -> io::Result<Option<Space>>;
    fn make_dir(&self, path: &str) -> io::Result<()>;
    fn remove_dir(&self, path: &str) -> io::Result<()>;
    fn remove_file(&self, path: &str) -> io::Result<()>;
    /// The size of a file, or `None` when it does not exist (a stat).
    fn file_size(&self, path: &str) -> io::Result<Option<u64>>;
    /// Creates an empty file, or empties an existing one, and closes it.
    fn create_file(&self, path: &str) -> io::Result<()>;
    /// How many entries a directory holds, counted from a full listing as `ls` fetches it
    /// ("." and ".." not counted).
    fn list_dir(&self, path: &str) -> io::Result<u64>;
    fn open(&self, path: &str, mode: OpenMode, io: IoSettings) -> io::Result<Box<dyn Handle>>;
}

/// An open file that executes requests.
pub trait Handle: Send {
    /// Executes `ops` in order with up to the handle's queue depth in flight, reporting each
    /// completion to `sink`. Stops early, without error, once `stop` is set.
    fn execute(
        &mut self,
        ops: &mut dyn Iterator<Item = Op>,
        sink: &mut dyn OpSink,
        stop: &AtomicBool,
    ) -> io::Result<()>;

    /// Makes written data durable (fsync, SMB flush, NFS commit).
    fn flush(&mut self) -> io::Result<()>;
}
