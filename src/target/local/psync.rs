//! One request at a time with pread/pwrite: the lowest-overhead path to the page cache.

use super::{short_read, sync};
use crate::target::buffer::AlignedBuf;
use crate::target::{payload, Handle, Op, OpSink};
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

pub struct PsyncHandle {
    file: File,
    buf: AlignedBuf,
    checker: Option<payload::Checker>,
}

impl PsyncHandle {
    pub fn new(file: File, buf: AlignedBuf, checker: Option<payload::Checker>) -> PsyncHandle {
        PsyncHandle { file, buf, checker }
    }
}

impl Handle for PsyncHandle {
    fn execute(
        &mut self,
        ops: &mut dyn Iterator<Item = Op>,
        sink: &mut dyn OpSink,
        stop: &AtomicBool,
    ) -> io::Result<()> {
        // One clock read per request: each request's end is the next one's start, so the loop's
        // own few nanoseconds are charged to the requests rather than lost between them.
        let mut started = Instant::now();
        for op in ops {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let buf = &mut self.buf[..op.len];
            if op.write {
                payload::stamp(buf, op.offset);
                self.file.write_all_at(buf, op.offset)?;
            } else {
                self.file.read_exact_at(buf, op.offset).map_err(|e| {
                    if e.kind() == io::ErrorKind::UnexpectedEof {
                        short_read(op.offset)
                    } else {
                        e
                    }
                })?;
                if let Some(checker) = &self.checker {
                    checker.check(buf, op.offset)?;
                }
            }
            let finished = Instant::now();
            sink.completed(&op, (finished - started).as_nanos() as u64);
            started = finished;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        sync(&self.file)
    }
}
