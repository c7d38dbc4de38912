//! Emptying the client's page cache between runs, so a read measures the storage.

use std::io;

/// Writes back dirty pages, then drops clean page cache, dentries and inodes (root only).
pub fn drop_page_cache() -> io::Result<()> {
    // SAFETY: sync() takes no arguments and cannot fail.
    unsafe { libc::sync() };
    std::fs::write("/proc/sys/vm/drop_caches", "3\n")
}

/// True when this process may drop caches.
pub fn can_drop_caches() -> bool {
    // SAFETY: geteuid() has no preconditions.
    unsafe { libc::geteuid() == 0 }
}
