//! The data path: one open file on its own connection and session, with up to the queue depth
//! of requests in flight. A request larger than the I/O size goes out as several READ or WRITE
//! requests ("pieces"), each charged its credits; a piece waits while the credits in hand do
//! not cover it.

use super::connection::Connection;
use super::ops::{self, FileId};
use super::session;
use super::status;
use super::wire::{Writer, FLUSH, READ, WRITE};
use crate::target::buffer::AlignedBuf;
use crate::target::payload::{self, Checker};
use crate::target::{Handle, IoSettings, Op, OpSink};
use std::collections::{HashMap, VecDeque};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A request being served: its buffer slot holds its data.
struct Pending {
    op: Op,
    issued: Instant,
    pieces_left: usize,
}

/// One READ or WRITE of a request: which buffer slot, where in the request, how long.
#[derive(Clone, Copy)]
struct Piece {
    slot: usize,
    at: usize,
    len: usize,
}

pub struct SmbHandle {
    conn: Connection,
    file: FileId,
    io_size: usize,
    buffers: Vec<AlignedBuf>,
    slots: Vec<Option<Pending>>,
    in_flight: HashMap<u64, Piece>,
    checker: Option<Checker>,
    request: Writer,
    /// The most credits any handle held, shared with the target for its report.
    most_credits: Arc<AtomicU32>,
}

impl SmbHandle {
    pub fn new(
        mut conn: Connection,
        file: FileId,
        io_size: usize,
        io: IoSettings,
        most_credits: Arc<AtomicU32>,
    ) -> SmbHandle {
        let depth = io.queue_depth;
        conn.want_credits(credits_needed(&conn, io_size, io));
        let buffers = (0..depth)
            .map(|_| {
                let mut buf = AlignedBuf::new(io.max_io);
                payload::fill_base(&mut buf);
                buf
            })
            .collect();
        SmbHandle {
            conn,
            file,
            io_size,
            buffers,
            slots: (0..depth).map(|_| None).collect(),
            in_flight: HashMap::new(),
            checker: io.verify.then(|| Checker::new(io.max_io)),
            request: Writer::default(),
            most_credits,
        }
    }
}

/// Credits for every piece of every request in flight, and a few for the rest. Asked for before
/// the file is opened, so they are in hand when the first request goes out.
pub fn credits_needed(conn: &Connection, io_size: usize, io: IoSettings) -> u32 {
    let per_request = io.max_io.div_ceil(io_size) as u32 * conn.charge(io_size);
    io.queue_depth as u32 * per_request + 8
}

impl Handle for SmbHandle {
    fn execute(
        &mut self,
        ops: &mut dyn Iterator<Item = Op>,
        sink: &mut dyn OpSink,
        stop: &AtomicBool,
    ) -> io::Result<()> {
        let SmbHandle {
            conn,
            file,
            io_size,
            buffers,
            slots,
            in_flight,
            checker,
            request,
            ..
        } = self;
        let mut free: Vec<usize> = (0..slots.len()).rev().collect();
        // pieces of admitted requests not sent yet, waiting for credits
        let mut unsent: VecDeque<Piece> = VecDeque::new();
        loop {
            // admit requests while buffers are free and earlier pieces are all out
            while unsent.is_empty() && !stop.load(Ordering::Relaxed) {
                let Some(&slot) = free.last() else { break };
                let Some(op) = ops.next() else { break };
                free.pop();
                if op.write {
                    payload::stamp(&mut buffers[slot][..op.len], op.offset);
                }
                slots[slot] = Some(Pending {
                    op,
                    issued: Instant::now(),
                    pieces_left: op.len.div_ceil(*io_size),
                });
                unsent.extend((0..op.len).step_by(*io_size).map(|at| Piece {
                    slot,
                    at,
                    len: (*io_size).min(op.len - at),
                }));
            }
            // send what the credits cover
            while let Some(&piece) = unsent.front() {
                let charge = conn.charge(piece.len);
                if conn.credits() < charge {
                    if in_flight.is_empty() {
                        return Err(io::Error::other(format!(
                            "the SMB server left this client {} credits, fewer than the {charge} \
                             a request of {} bytes needs; try a smaller --smb-io-size",
                            conn.credits(),
                            piece.len
                        )));
                    }
                    break;
                }
                unsent.pop_front();
                let op = slots[piece.slot].as_ref().expect("pending").op;
                let offset = op.offset + piece.at as u64;
                let id = if op.write {
                    ops::write(request, file, offset, piece.len as u32);
                    let data = &buffers[piece.slot][piece.at..piece.at + piece.len];
                    conn.send(WRITE, &request.buf, data, charge)?
                } else {
                    ops::read(request, file, offset, piece.len as u32);
                    conn.send(READ, &request.buf, &[], charge)?
                };
                in_flight.insert(id, piece);
            }
            if in_flight.is_empty() {
                return Ok(());
            }
            let response = conn.receive()?;
            // an answer nobody waits for (a break acknowledgement) is dropped
            let Some(piece) = in_flight.remove(&response.header.message_id) else {
                continue;
            };
            let pending = slots[piece.slot].as_mut().expect("pending");
            let op = pending.op;
            if response.header.status != status::SUCCESS {
                return Err(status::error(response.header.status, "the benchmark file"));
            }
            let message = conn.message(&response);
            let done = if op.write {
                ops::written(message)? as usize
            } else {
                let data = ops::read_data(message)?;
                // read data is in this client's memory now; it is copied out only to be checked
                if checker.is_some() && data.len() == piece.len {
                    buffers[piece.slot][piece.at..piece.at + piece.len]
                        .copy_from_slice(&message[data.clone()]);
                }
                data.len()
            };
            if done != piece.len {
                return Err(if op.write {
                    io::Error::new(io::ErrorKind::WriteZero, "the server took a short write")
                } else {
                    io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!(
                            "the file ended before offset {}",
                            op.offset + (piece.at + done) as u64
                        ),
                    )
                });
            }
            pending.pieces_left -= 1;
            if pending.pieces_left == 0 {
                let Pending { op, issued, .. } = slots[piece.slot].take().expect("pending");
                if let Some(checker) = checker.as_ref().filter(|_| !op.write) {
                    checker.check(&buffers[piece.slot][..op.len], op.offset)?;
                }
                sink.completed(&op, issued.elapsed().as_nanos() as u64);
                free.push(piece.slot);
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.conn
            .call(FLUSH, &ops::flush(&self.file), "the benchmark file")
            .map(|_| ())
    }
}

impl Drop for SmbHandle {
    /// Closes the file and ends the session, best effort and quickly: a dead server must not
    /// hold up the end of a run.
    fn drop(&mut self) {
        self.most_credits
            .fetch_max(self.conn.most_credits, Ordering::Relaxed);
        self.conn.transport().set_timeout(Duration::from_secs(2));
        // answers to a run cut short are still on their way: take them first
        while !self.in_flight.is_empty() {
            match self.conn.receive() {
                Ok(response) => {
                    self.in_flight.remove(&response.header.message_id);
                }
                Err(_) => return,
            }
        }
        let _ = self.conn.call(
            super::wire::CLOSE,
            &ops::close(&self.file),
            "the benchmark file",
        );
        session::tear_down(&mut self.conn);
    }
}
