//! The data path: one open file on its own connection, with up to the queue depth of requests
//! in flight. A request larger than rsize/wsize goes out as several READ or WRITE calls
//! ("pieces"); on v4.1 each call in flight holds a session slot.

use super::rpc::Connection;
use super::state::{self, Channel, OpenState, Slot};
use super::v4::{self, Ops, Results, SessionId};
use super::{v3, xdr::Encoder};
use crate::target::buffer::AlignedBuf;
use crate::target::payload::{self, Checker};
use crate::target::{Handle, IoSettings, Op, OpSink};
use std::collections::{HashMap, VecDeque};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What a handle holds open on the server.
pub enum Opened {
    /// NFSv3 is stateless: the file handle is all.
    V3,
    V4 {
        state: OpenState,
        /// How long DELAY answers are retried.
        patience: Duration,
    },
}

/// A request being served: its buffer slot holds its data.
struct Pending {
    op: Op,
    issued: Instant,
    pieces_left: usize,
}

/// One call of a request: where in the request it starts and how long it is.
#[derive(Clone, Copy)]
struct Piece {
    slot: usize,
    at: usize,
    len: usize,
}

/// A call in flight: its piece, and its session slot on v4.1.
#[derive(Clone, Copy)]
struct Call {
    piece: Piece,
    session_slot: Option<Slot>,
}

pub struct NfsHandle {
    channel: Channel,
    file: Vec<u8>,
    opened: Opened,
    rsize: usize,
    wsize: usize,
    buffers: Vec<AlignedBuf>,
    slots: Vec<Option<Pending>>,
    in_flight: HashMap<u32, Call>,
    checker: Option<Checker>,
    call: Encoder,
}

impl NfsHandle {
    pub fn new(
        channel: Channel,
        file: Vec<u8>,
        opened: Opened,
        rsize: usize,
        wsize: usize,
        depth: usize,
        io: IoSettings,
    ) -> NfsHandle {
        let buffers = (0..depth)
            .map(|_| {
                let mut buf = AlignedBuf::new(io.max_io);
                payload::fill_base(&mut buf);
                buf
            })
            .collect();
        NfsHandle {
            channel,
            file,
            opened,
            rsize,
            wsize,
            buffers,
            slots: (0..depth).map(|_| None).collect(),
            in_flight: HashMap::new(),
            checker: io.verify.then(|| Checker::new(io.max_io)),
            call: Encoder::default(),
        }
    }
}

/// Everything needed to put a READ or WRITE on the wire (borrowed apart from the handle so
/// the pipeline can hold the rest mutably).
struct Wire<'h> {
    file: &'h [u8],
    opened: &'h Opened,
    minor: u32,
    /// v4.1: the session id and its highest slot, for SEQUENCE.
    session: Option<(SessionId, u32)>,
}

impl Wire<'_> {
    /// Sends one piece of `op` under `xid`; `data` is the request's buffer.
    fn send(
        &self,
        conn: &mut Connection,
        call: &mut Encoder,
        xid: u32,
        op: &Op,
        c: Call,
        data: &[u8],
    ) {
        let Piece { at, len, .. } = c.piece;
        let offset = op.offset + at as u64;
        let payload: &[u8] = if op.write { &data[at..at + len] } else { &[] };
        match self.opened {
            Opened::V3 => {
                let procedure = if op.write { v3::WRITE } else { v3::READ };
                conn.begin(call, xid, v3::NFS_PROGRAM, v3::VERSION, procedure);
                call.opaque(self.file).u64(offset).u32(len as u32);
                if op.write {
                    call.u32(v3::UNSTABLE).u32(len as u32);
                }
            }
            Opened::V4 { state, .. } => {
                conn.begin(call, xid, v3::NFS_PROGRAM, v4::VERSION, v4::COMPOUND);
                let mut ops = Ops::new(std::mem::take(call), self.minor);
                if let (Some((id, highest)), Some(slot)) = (self.session, c.session_slot) {
                    ops.sequence(&id, slot.seqid, slot.index, highest);
                }
                ops.putfh(self.file);
                if op.write {
                    ops.write_header(&state.stateid, offset, len as u32);
                } else {
                    ops.read(&state.stateid, offset, len as u32);
                }
                *call = ops.finish();
            }
        }
        conn.send(call, payload);
    }
}

/// Reads a READ or WRITE reply: the data range for a read, the count for a write.
fn decode_reply(
    record: &[u8],
    results: usize,
    opened: &Opened,
    write: bool,
    session: Option<&mut state::Session>,
    session_slot: Option<Slot>,
) -> io::Result<(std::ops::Range<usize>, usize)> {
    if let Opened::V3 = opened {
        return if write {
            Ok((0..0, v3::write_result(record, results)? as usize))
        } else {
            let (data, _eof) = v3::read_result(record, results)?;
            Ok((data.clone(), data.len()))
        };
    }
    let mut r = Results::new(&record[results..])?;
    if let (Some(session), Some(slot)) = (session, session_slot) {
        let sequenced = r.sequence();
        session.release(slot, sequenced.is_ok());
        sequenced?;
    }
    r.done(v4::PUTFH)?;
    if write {
        Ok((0..0, r.write()? as usize))
    } else {
        let (data, _eof) = r.read(record.len())?;
        Ok((data.clone(), data.len()))
    }
}

impl Handle for NfsHandle {
    fn execute(
        &mut self,
        ops: &mut dyn Iterator<Item = Op>,
        sink: &mut dyn OpSink,
        stop: &AtomicBool,
    ) -> io::Result<()> {
        let NfsHandle {
            channel,
            file,
            opened,
            rsize,
            wsize,
            buffers,
            slots,
            in_flight,
            checker,
            call,
        } = self;
        let wire = Wire {
            file: &file[..],
            opened: &*opened,
            minor: channel.minor,
            session: channel.session.as_ref().map(|s| (s.id, s.highest_slot())),
        };
        let Channel { conn, session, .. } = channel;
        let mut free: Vec<usize> = (0..slots.len()).rev().collect();
        // pieces of admitted requests not sent yet (v4.1: waiting for a session slot)
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
                let max = if op.write { *wsize } else { *rsize };
                slots[slot] = Some(Pending {
                    op,
                    issued: Instant::now(),
                    pieces_left: op.len.div_ceil(max),
                });
                unsent.extend((0..op.len).step_by(max).map(|at| Piece {
                    slot,
                    at,
                    len: max.min(op.len - at),
                }));
            }
            // send what the session has room for
            while let Some(&piece) = unsent.front() {
                let session_slot = match session.as_mut() {
                    Some(s) => match s.take_slot() {
                        Some(slot) => Some(slot),
                        None => break,
                    },
                    None => None,
                };
                unsent.pop_front();
                let c = Call {
                    piece,
                    session_slot,
                };
                let op = slots[piece.slot].as_ref().expect("pending").op;
                let xid = conn.new_xid();
                wire.send(conn, call, xid, &op, c, &buffers[piece.slot]);
                in_flight.insert(xid, c);
            }
            if in_flight.is_empty() {
                return Ok(());
            }
            let reply = conn.receive(&mut |conn| {
                for (&xid, &c) in in_flight.iter() {
                    let op = slots[c.piece.slot].as_ref().expect("pending").op;
                    wire.send(conn, call, xid, &op, c, &buffers[c.piece.slot]);
                }
            })?;
            // a reply to a call already answered (after a retransmission) is dropped
            let Some(Call {
                piece,
                session_slot,
            }) = in_flight.remove(&reply.xid)
            else {
                continue;
            };
            let pending = slots[piece.slot].as_mut().expect("pending");
            let op = pending.op;
            let (data, done) = decode_reply(
                conn.record(),
                reply.results,
                wire.opened,
                op.write,
                session.as_mut(),
                session_slot,
            )?;
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
            // read data is in this client's memory now; it is copied out only to be checked
            if !op.write && checker.is_some() {
                buffers[piece.slot][piece.at..piece.at + piece.len]
                    .copy_from_slice(&conn.record()[data]);
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
        match &self.opened {
            Opened::V3 => v3::commit(&mut self.channel.conn, &self.file),
            Opened::V4 { patience, .. } => {
                let file = &self.file;
                self.channel.call(
                    *patience,
                    &|ops| {
                        ops.putfh(file);
                        ops.commit();
                    },
                    |r| {
                        r.done(v4::PUTFH)?;
                        r.done(v4::COMMIT)
                    },
                )
            }
        }
    }
}

impl Drop for NfsHandle {
    /// NFSv4: closes the open state and ends the handle's session, best effort.
    fn drop(&mut self) {
        let Opened::V4 { state, .. } = self.opened else {
            return;
        };
        // a run that failed part-way may leave calls in flight on a slot; free them all
        if let Some(session) = self.channel.session.as_mut() {
            for c in self.in_flight.values() {
                if let Some(slot) = c.session_slot {
                    session.release(slot, false);
                }
            }
        }
        self.channel.conn.fail_fast();
        let _ = state::close(&mut self.channel, Duration::ZERO, &self.file, &state);
        state::end_session(&mut self.channel);
    }
}
