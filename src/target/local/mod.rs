//! A local or mounted directory, through the kernel's file API.
//!
//! Two ways to issue requests: `psync` (one pread/pwrite at a time per worker, the baseline every
//! admin knows from fio and iozone) and `io_uring` (up to `--qd` requests in flight per worker).

mod psync;
mod uring;

use super::buffer::AlignedBuf;
use super::payload;
use super::{Capabilities, Handle, IoSettings, OpenMode, Space, Target, TargetInfo};
use crate::monitor::host::meminfo;
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// How a local handle issues its requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LocalEngine {
    Psync,
    #[value(name = "io_uring")]
    IoUring,
}

impl LocalEngine {
    pub fn name(self) -> &'static str {
        match self {
            LocalEngine::Psync => "psync",
            LocalEngine::IoUring => "io_uring",
        }
    }
}

pub struct LocalTarget {
    root: PathBuf,
    engine: LocalEngine,
}

impl LocalTarget {
    /// A target rooted at `root`, which must be an existing directory.
    pub fn new(root: &Path, engine: LocalEngine) -> io::Result<LocalTarget> {
        let root = root.canonicalize()?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                "not a directory",
            ));
        }
        Ok(LocalTarget { root, engine })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }
}

impl Target for LocalTarget {
    fn info(&self) -> TargetInfo {
        let mut parameters = BTreeMap::new();
        parameters.insert("engine".into(), self.engine.name().into());
        if let Some(fs_type) = filesystem_type(&self.root) {
            parameters.insert("filesystem".into(), fs_type);
        }
        TargetInfo {
            url: self.root.display().to_string(),
            protocol: "local".into(),
            parameters,
        }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            random_access: true,
            direct_io: true,
            metadata: true,
            max_io_size: None,
            queue_depth: match self.engine {
                LocalEngine::Psync => 1,
                LocalEngine::IoUring => uring::MAX_QUEUE_DEPTH,
            },
        }
    }

    fn space(&self) -> io::Result<Option<Space>> {
        let path = std::ffi::CString::new(self.root.as_os_str().as_encoded_bytes())
            .map_err(io::Error::other)?;
        let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: path is NUL-terminated and stat is a valid out pointer.
        if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let unit = stat.f_frsize as u64;
        let space = Space {
            total: stat.f_blocks as u64 * unit,
            free: stat.f_bavail as u64 * unit,
        };
        let in_memory = filesystem_type(&self.root).is_some_and(|fs| is_memory_filesystem(&fs));
        Ok(Some(if in_memory {
            memory_capped(space, meminfo("MemAvailable"), meminfo("MemTotal"))
        } else {
            space
        }))
    }

    fn make_dir(&self, path: &str) -> io::Result<()> {
        fs::create_dir(self.path(path))
    }

    fn remove_dir(&self, path: &str) -> io::Result<()> {
        fs::remove_dir(self.path(path))
    }

    fn remove_file(&self, path: &str) -> io::Result<()> {
        fs::remove_file(self.path(path))
    }

    fn file_size(&self, path: &str) -> io::Result<Option<u64>> {
        match fs::metadata(self.path(path)) {
            Ok(meta) => Ok(Some(meta.len())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn create_file(&self, path: &str) -> io::Result<()> {
        fs::File::create(self.path(path)).map(drop)
    }

    fn list_dir(&self, path: &str) -> io::Result<u64> {
        let mut entries = 0;
        for entry in fs::read_dir(self.path(path))? {
            entry?;
            entries += 1;
        }
        Ok(entries)
    }

    fn open(&self, path: &str, mode: OpenMode, io: IoSettings) -> io::Result<Box<dyn Handle>> {
        let mut options = OpenOptions::new();
        options.read(true).write(true);
        if mode == OpenMode::Create {
            options.create(true).truncate(true);
        }
        if io.direct {
            options.custom_flags(libc::O_DIRECT);
        }
        let file = options.open(self.path(path)).map_err(|e| {
            if io.direct && e.raw_os_error() == Some(libc::EINVAL) {
                io::Error::new(
                    io::ErrorKind::Unsupported,
                    "this filesystem does not support --direct (O_DIRECT)",
                )
            } else {
                e
            }
        })?;
        let new_buffer = || {
            let mut buf = AlignedBuf::new(io.max_io);
            payload::fill_base(&mut buf);
            buf
        };
        let checker = io.verify.then(|| payload::Checker::new(io.max_io));
        Ok(match self.engine {
            LocalEngine::Psync => Box::new(psync::PsyncHandle::new(file, new_buffer(), checker)),
            LocalEngine::IoUring => {
                let depth = io.queue_depth.clamp(1, uring::MAX_QUEUE_DEPTH);
                let buffers = (0..depth).map(|_| new_buffer()).collect();
                Box::new(uring::UringHandle::new(file, buffers, checker)?)
            }
        })
    }
}

/// Filesystems whose files live in RAM.
pub fn is_memory_filesystem(fs_type: &str) -> bool {
    matches!(fs_type, "tmpfs" | "ramfs")
}

/// The space of a filesystem that lives in RAM: files there take memory, so the machine's
/// available memory caps what they may use (tmpfs may advertise more than there is; ramfs
/// advertises nothing).
fn memory_capped(space: Space, available: Option<u64>, ram: Option<u64>) -> Space {
    let (Some(available), Some(ram)) = (available, ram) else {
        return space;
    };
    if space.total == 0 {
        return Space {
            total: ram,
            free: available,
        };
    }
    Space {
        total: space.total.min(ram),
        free: space.free.min(available),
    }
}

/// Makes data durable, as iozone -e and fio's fsync do.
fn sync(file: &File) -> io::Result<()> {
    file.sync_all()
}

/// The filesystem type of the mount that holds `path` (ext4, xfs, tmpfs, nfs4, cifs, fuse.…).
fn filesystem_type(path: &Path) -> Option<String> {
    let mounts = fs::read_to_string("/proc/self/mounts").ok()?;
    mounts
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (_, mount_point, fs_type) = (fields.next()?, fields.next()?, fields.next()?);
            let mount_point = mount_point.replace("\\040", " ");
            path.starts_with(&mount_point)
                .then(|| (mount_point.len(), fs_type.to_string()))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, fs_type)| fs_type)
}

/// An error for a read that found the end of the file before the request was filled.
fn short_read(offset: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!(
            "the file ended before offset {offset}: it was changed or truncated during the run"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    #[test]
    fn memory_filesystems_are_capped_by_available_memory() {
        let tmpfs = Space {
            total: 24 * GIB,
            free: 24 * GIB,
        };
        assert_eq!(
            memory_capped(tmpfs, Some(10 * GIB), Some(16 * GIB)),
            Space {
                total: 16 * GIB,
                free: 10 * GIB
            }
        );
        let ramfs = Space { total: 0, free: 0 };
        assert_eq!(
            memory_capped(ramfs, Some(10 * GIB), Some(16 * GIB)),
            Space {
                total: 16 * GIB,
                free: 10 * GIB
            }
        );
        assert_eq!(memory_capped(tmpfs, None, None), tmpfs);
        assert!(is_memory_filesystem("tmpfs") && !is_memory_filesystem("ext4"));
    }
}
