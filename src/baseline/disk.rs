//! The server's local-disk baseline: what the disk under the share writes and reads with no
//! network and no protocol in between, measured by the serve agent on the directory it was given
//! (`sharebench serve --disk DIR`). A protocol far below it is not held by the disk; one far
//! above it on reads was served from the server's page cache.

use super::tcp::{self, Settings};
use super::wire::{self, Mode};
use crate::result::{Latency, RunRecord};
use crate::target::payload;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

/// Written and read per system call: large enough that the calls cost nothing beside the disk.
pub const RECORD: usize = 1 << 20;

/// Agent side: writes `bytes` to a file in a work directory of its own under `dir` and makes
/// them durable, drops them from the page cache, reads them back, and removes it all. Returns
/// how long the write (with its fsync) and the read took.
pub fn write_then_read(dir: &Path, bytes: u64) -> io::Result<(Duration, Duration)> {
    let id: [u8; 4] = crate::random::bytes()?;
    let work = dir.join(format!(
        ".sharebench-{}",
        id.iter().map(|b| format!("{b:02x}")).collect::<String>()
    ));
    fs::create_dir(&work)?;
    let file = work.join("disk-baseline");
    let measured = timed_write_and_read(&file, bytes);
    let removed = fs::remove_file(&file).or_else(|e| match e.kind() {
        io::ErrorKind::NotFound => Ok(()),
        _ => Err(e),
    });
    let removed = removed.and_then(|()| fs::remove_dir(&work));
    let times = measured?;
    removed?;
    Ok(times)
}

fn timed_write_and_read(file: &Path, bytes: u64) -> io::Result<(Duration, Duration)> {
    // patterned, not zeros: compressing or deduplicating filesystems would skip zeros
    let mut buf = vec![0u8; RECORD];
    payload::fill_base(&mut buf);
    let started = Instant::now();
    let mut out = OpenOptions::new().write(true).create_new(true).open(file)?;
    let mut left = bytes;
    while left > 0 {
        let n = RECORD.min(left as usize);
        out.write_all(&buf[..n])?;
        left -= n as u64;
    }
    out.sync_all()?;
    let wrote = started.elapsed();
    forget_cached(&out)?;
    drop(out);

    let started = Instant::now();
    let mut input = File::open(file)?;
    let mut read = 0u64;
    loop {
        match input.read(&mut buf)? {
            0 => break,
            n => read += n as u64,
        }
    }
    let took = started.elapsed();
    if read != bytes {
        return Err(io::Error::other(format!(
            "the disk baseline read {read} bytes back of {bytes} written"
        )));
    }
    Ok((wrote, took))
}

/// Drops a durable file's pages from the page cache, so the read comes from the disk.
fn forget_cached(file: &File) -> io::Result<()> {
    // SAFETY: a valid descriptor; the advice only affects the cache.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    match rc {
        0 => Ok(()),
        errno => Err(io::Error::from_raw_os_error(errno)),
    }
}

/// Client side: one run of the agent's disk baseline of `settings.bytes`; the write's record
/// and the read's.
pub fn measure(settings: &Settings, n: usize, warmup: bool) -> io::Result<[RunRecord; 2]> {
    let mut stream = tcp::open(settings, Mode::Disk)?;
    let (status, text) = wire::read_reply(&mut stream)?;
    if status != 0 {
        return Err(io::Error::other(text));
    }
    let mut times = [0u8; 16];
    stream.read_exact(&mut times)?;
    let seconds = |b: &[u8]| u64::from_be_bytes(b.try_into().expect("8")) as f64 / 1e9;
    let record = |seconds: f64| {
        let seconds = seconds.max(1e-9);
        RunRecord {
            n,
            warmup,
            bytes: settings.bytes,
            seconds,
            ops: settings.bytes.div_ceil(RECORD as u64),
            bytes_per_s: settings.bytes as f64 / seconds,
            ops_per_s: 0.0,
            latency_us: Latency::default(),
            outlier: false,
            start_skew_s: 0.0,
            client_cpu_s: 0.0,
            workers: Vec::new(),
        }
    };
    Ok([record(seconds(&times[..8])), record(seconds(&times[8..]))])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_disk_baseline_writes_reads_back_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (wrote, read) = write_then_read(dir.path(), 3 * RECORD as u64 + 5).unwrap();
        assert!(wrote > Duration::ZERO && read > Duration::ZERO);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_directory_that_is_not_there_fails_and_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        assert!(write_then_read(&missing, 1).is_err());
        assert!(!missing.exists());
    }
}
