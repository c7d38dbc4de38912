//! Up to `queue_depth` requests in flight through io_uring, with registered buffers and file so
//! the kernel maps neither on each request.

use super::{short_read, sync};
use crate::target::buffer::AlignedBuf;
use crate::target::{payload, Handle, Op, OpSink};
use io_uring::{opcode, types, IoUring};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The deepest queue a handle accepts; deeper than any device or share benefits from.
pub const MAX_QUEUE_DEPTH: usize = 1024;

pub struct UringHandle {
    // Declared first so the ring is torn down before the buffers it points into.
    ring: IoUring,
    file: File,
    buffers: Vec<AlignedBuf>,
    /// The request occupying each buffer slot and when it was issued.
    in_flight: Vec<Option<(Op, Instant)>>,
    free: Vec<usize>,
    checker: Option<payload::Checker>,
}

impl UringHandle {
    pub fn new(
        file: File,
        mut buffers: Vec<AlignedBuf>,
        checker: Option<payload::Checker>,
    ) -> io::Result<UringHandle> {
        let depth = buffers.len();
        let ring = IoUring::new(depth.next_power_of_two() as u32).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("io_uring is not available on this system ({e}); use --engine psync"),
            )
        })?;
        let iovecs: Vec<libc::iovec> = buffers
            .iter_mut()
            .map(|buf| libc::iovec {
                iov_base: buf.as_mut_ptr().cast(),
                iov_len: buf.len(),
            })
            .collect();
        // SAFETY: the buffers live in self as long as the ring does and are never reallocated.
        unsafe { ring.submitter().register_buffers(&iovecs)? };
        ring.submitter().register_files(&[file.as_raw_fd()])?;
        Ok(UringHandle {
            ring,
            file,
            buffers,
            in_flight: vec![None; depth],
            free: (0..depth).rev().collect(),
            checker,
        })
    }

    /// Queues requests into free slots; returns how many were queued.
    fn fill(&mut self, ops: &mut dyn Iterator<Item = Op>, stop: &AtomicBool) -> usize {
        let issued = Instant::now();
        let mut queued = 0;
        let mut submission = self.ring.submission();
        while let Some(&slot) = self.free.last() {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let Some(op) = ops.next() else { break };
            self.free.pop();
            let buf = &mut self.buffers[slot];
            let ptr = buf.as_mut_ptr();
            let entry = if op.write {
                payload::stamp(&mut buf[..op.len], op.offset);
                opcode::WriteFixed::new(types::Fixed(0), ptr, op.len as u32, slot as u16)
                    .offset(op.offset)
                    .build()
            } else {
                opcode::ReadFixed::new(types::Fixed(0), ptr, op.len as u32, slot as u16)
                    .offset(op.offset)
                    .build()
            };
            // SAFETY: the buffer stays valid and untouched until this slot's completion is reaped.
            unsafe { submission.push(&entry.user_data(slot as u64)) }
                .expect("the ring has one entry per buffer slot");
            self.in_flight[slot] = Some((op, issued));
            queued += 1;
        }
        queued
    }

    /// Reaps finished requests; the first failed one becomes the result.
    fn reap(&mut self, sink: &mut dyn OpSink) -> io::Result<()> {
        let finished = Instant::now();
        let mut outcome = Ok(());
        for cqe in self.ring.completion() {
            let slot = cqe.user_data() as usize;
            let (op, issued) = self.in_flight[slot]
                .take()
                .expect("completion of a live slot");
            self.free.push(slot);
            let result = cqe.result();
            if result < 0 {
                outcome = outcome.and(Err(io::Error::from_raw_os_error(-result)));
            } else if (result as usize) < op.len {
                outcome = outcome.and(Err(if op.write {
                    io::Error::new(
                        io::ErrorKind::WriteZero,
                        "the filesystem took a short write",
                    )
                } else {
                    short_read(op.offset)
                }));
            } else if let Some(Err(e)) = self
                .checker
                .as_ref()
                .filter(|_| !op.write)
                .map(|checker| checker.check(&self.buffers[slot][..op.len], op.offset))
            {
                outcome = outcome.and(Err(e));
            } else {
                sink.completed(&op, (finished - issued).as_nanos() as u64);
            }
        }
        outcome
    }

    fn busy(&self) -> usize {
        self.in_flight.len() - self.free.len()
    }
}

impl Handle for UringHandle {
    fn execute(
        &mut self,
        ops: &mut dyn Iterator<Item = Op>,
        sink: &mut dyn OpSink,
        stop: &AtomicBool,
    ) -> io::Result<()> {
        let mut first_error = None;
        loop {
            if first_error.is_none() {
                self.fill(ops, stop);
            }
            if self.busy() == 0 {
                break;
            }
            match self.ring.submit_and_wait(1) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            // After an error, keep reaping (but stop issuing) until the kernel has let go of
            // every buffer.
            if let Err(e) = self.reap(sink) {
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    fn flush(&mut self) -> io::Result<()> {
        sync(&self.file)
    }
}
