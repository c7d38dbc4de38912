//! The data path: one open file on its own connection, with up to the queue depth of requests
//! in flight. A request larger than rsize/wsize goes out as several READ or WRITE calls
//! ("pieces"); on v4.1 each call in flight holds a session slot.

use super::rpc::Connection;
use super::state::{self, Channel, OpenState, Slot};
use super::v4::{self, Ops, Results, SessionId};
use super::{v3, xdr::Encoder};
use crate::target::pipeline::{Piece, Pipeline};
use crate::target::{Handle, IoSettings, Op, OpSink};
use std::collections::{HashMap, VecDeque};
use std::io;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

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
    pipeline: Pipeline,
    in_flight: HashMap<u32, Call>,
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
        NfsHandle {
            channel,
            file,
            opened,
            rsize,
            wsize,
            pipeline: Pipeline::new(IoSettings {
                queue_depth: depth,
                ..io
            }),
            in_flight: HashMap::new(),
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
    /// Sends one piece of `op` under `xid`; `data` is the piece's bytes.
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
        let payload: &[u8] = if op.write { data } else { &[] };
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
            pipeline,
            in_flight,
            call,
        } = self;
        let wire = Wire {
            file: &file[..],
            opened: &*opened,
            minor: channel.minor,
            session: channel.session.as_ref().map(|s| (s.id, s.highest_slot())),
        };
        let Channel { conn, session, .. } = channel;
        pipeline.begin();
        let piece_len = |op: &Op| if op.write { *wsize } else { *rsize };
        // pieces of admitted requests not sent yet (v4.1: waiting for a session slot)
        let mut unsent: VecDeque<Piece> = VecDeque::new();
        loop {
            // admit requests while buffers are free and earlier pieces are all out
            while unsent.is_empty() && pipeline.admit(ops, stop, piece_len, &mut unsent) {}
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
                let xid = conn.new_xid();
                wire.send(
                    conn,
                    call,
                    xid,
                    &pipeline.op(&piece),
                    c,
                    pipeline.data(&piece),
                );
                in_flight.insert(xid, c);
            }
            if in_flight.is_empty() {
                return Ok(());
            }
            let reply = conn.receive(&mut |conn| {
                for (&xid, &c) in in_flight.iter() {
                    let piece = &c.piece;
                    wire.send(
                        conn,
                        call,
                        xid,
                        &pipeline.op(piece),
                        c,
                        pipeline.data(piece),
                    );
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
            let (data, done) = decode_reply(
                conn.record(),
                reply.results,
                wire.opened,
                pipeline.op(&piece).write,
                session.as_mut(),
                session_slot,
            )?;
            // read data is in this client's memory; the pipeline copies it only to check it
            pipeline.finish_piece(piece, done, &conn.record()[data], sink)?;
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
