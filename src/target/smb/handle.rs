//! The data path: one open file on its own connection and session, with up to the queue depth
//! of requests in flight. A request larger than the I/O size goes out as several READ or WRITE
//! requests ("pieces"), each charged its credits; a piece waits while the credits in hand do
//! not cover it.

use super::connection::Connection;
use super::ops::{self, FileId};
use super::session;
use super::status;
use super::wire::{Writer, FLUSH, READ, WRITE};
use crate::target::pipeline::{Piece, Pipeline};
use crate::target::{Handle, IoSettings, Op, OpSink};
use std::collections::{HashMap, VecDeque};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub struct SmbHandle {
    conn: Connection,
    file: FileId,
    io_size: usize,
    pipeline: Pipeline,
    in_flight: HashMap<u64, Piece>,
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
        conn.want_credits(credits_needed(&conn, io_size, io));
        SmbHandle {
            conn,
            file,
            io_size,
            pipeline: Pipeline::new(io),
            in_flight: HashMap::new(),
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
            pipeline,
            in_flight,
            request,
            ..
        } = self;
        pipeline.begin();
        // pieces of admitted requests not sent yet, waiting for credits
        let mut unsent: VecDeque<Piece> = VecDeque::new();
        loop {
            // admit requests while buffers are free and earlier pieces are all out
            while unsent.is_empty() && pipeline.admit(ops, stop, |_| *io_size, &mut unsent) {}
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
                let op = pipeline.op(&piece);
                let offset = op.offset + piece.at as u64;
                let id = if op.write {
                    ops::write(request, file, offset, piece.len as u32);
                    conn.send(WRITE, &request.buf, pipeline.data(&piece), charge)?
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
            if response.header.status != status::SUCCESS {
                return Err(status::error(response.header.status, "the benchmark file"));
            }
            let message = conn.message(&response);
            if pipeline.op(&piece).write {
                let written = ops::written(message)? as usize;
                pipeline.finish_piece(piece, written, &[], sink)?;
            } else {
                let data = &message[ops::read_data(message)?];
                pipeline.finish_piece(piece, data.len(), data, sink)?;
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
