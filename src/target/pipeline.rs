//! What the pipelined network data paths (NFS, SMB) share: each request in flight owns a buffer
//! slot, goes out as one or more protocol calls ("pieces") no larger than the protocol allows,
//! and completes, checked when verifying, once every piece is answered.

use super::buffer::AlignedBuf;
use super::payload::{self, Checker};
use super::{IoSettings, Op, OpSink};
use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// One call of a request: its buffer slot, where in the request it starts, how long it is.
#[derive(Debug, Clone, Copy)]
pub struct Piece {
    pub slot: usize,
    pub at: usize,
    pub len: usize,
}

/// A request being served.
struct Pending {
    op: Op,
    issued: Instant,
    pieces_left: usize,
}

pub struct Pipeline {
    buffers: Vec<AlignedBuf>,
    slots: Vec<Option<Pending>>,
    free: Vec<usize>,
    checker: Option<Checker>,
}

impl Pipeline {
    /// Buffers for `io.queue_depth` requests of up to `io.max_io` bytes.
    pub fn new(io: IoSettings) -> Pipeline {
        let buffers = (0..io.queue_depth)
            .map(|_| {
                let mut buf = AlignedBuf::new(io.max_io);
                payload::fill_base(&mut buf);
                buf
            })
            .collect();
        Pipeline {
            buffers,
            slots: (0..io.queue_depth).map(|_| None).collect(),
            free: (0..io.queue_depth).rev().collect(),
            checker: io.verify.then(|| Checker::new(io.max_io)),
        }
    }

    /// Starts a pass: every slot free (a pass cut short by an error leaves some taken).
    pub fn begin(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
        self.free = (0..self.slots.len()).rev().collect();
    }

    /// Takes the next request while a slot is free and `stop` is not raised; its data is
    /// stamped when it writes, and its pieces of at most `piece_len(op)` bytes are queued on
    /// `unsent`. False when nothing was admitted.
    pub fn admit(
        &mut self,
        ops: &mut dyn Iterator<Item = Op>,
        stop: &AtomicBool,
        piece_len: impl Fn(&Op) -> usize,
        unsent: &mut VecDeque<Piece>,
    ) -> bool {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let Some(&slot) = self.free.last() else {
            return false;
        };
        let Some(op) = ops.next() else {
            return false;
        };
        self.free.pop();
        if op.write {
            payload::stamp(&mut self.buffers[slot][..op.len], op.offset);
        }
        let max = piece_len(&op).max(1);
        self.slots[slot] = Some(Pending {
            op,
            issued: Instant::now(),
            pieces_left: op.len.div_ceil(max),
        });
        unsent.extend((0..op.len).step_by(max).map(|at| Piece {
            slot,
            at,
            len: max.min(op.len - at),
        }));
        true
    }

    /// The request a piece belongs to.
    pub fn op(&self, piece: &Piece) -> Op {
        self.slots[piece.slot]
            .as_ref()
            .expect("a pending request")
            .op
    }

    /// A piece's bytes in its request's buffer (what a write sends).
    pub fn data(&self, piece: &Piece) -> &[u8] {
        &self.buffers[piece.slot][piece.at..piece.at + piece.len]
    }

    /// A piece was answered, moving `done` bytes; `read` is the data a read returned (copied
    /// only to be checked). Completes the request with its piece the last.
    pub fn finish_piece(
        &mut self,
        piece: Piece,
        done: usize,
        read: &[u8],
        sink: &mut dyn OpSink,
    ) -> io::Result<()> {
        let op = self.op(&piece);
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
        if !op.write && self.checker.is_some() {
            self.buffers[piece.slot][piece.at..piece.at + piece.len].copy_from_slice(read);
        }
        let pending = self.slots[piece.slot].as_mut().expect("a pending request");
        pending.pieces_left -= 1;
        if pending.pieces_left > 0 {
            return Ok(());
        }
        let Pending { op, issued, .. } = self.slots[piece.slot].take().expect("pending");
        if let Some(checker) = self.checker.as_ref().filter(|_| !op.write) {
            checker.check(&self.buffers[piece.slot][..op.len], op.offset)?;
        }
        sink.completed(&op, issued.elapsed().as_nanos() as u64);
        self.free.push(piece.slot);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Count(Vec<Op>);

    impl OpSink for Count {
        fn completed(&mut self, op: &Op, _: u64) {
            self.0.push(*op);
        }
    }

    fn settings(depth: usize) -> IoSettings {
        IoSettings {
            max_io: 10,
            queue_depth: depth,
            direct: false,
            verify: false,
        }
    }

    #[test]
    fn requests_split_into_pieces_and_complete_with_their_last() {
        let mut pipeline = Pipeline::new(settings(2));
        let ops = [0u64, 10, 20].map(|offset| Op {
            offset,
            len: 10,
            write: true,
        });
        let mut ops = ops.into_iter();
        let (stop, mut unsent, mut sink) = (AtomicBool::new(false), VecDeque::new(), Count(vec![]));
        assert!(pipeline.admit(&mut ops, &stop, |_| 4, &mut unsent));
        assert!(pipeline.admit(&mut ops, &stop, |_| 4, &mut unsent));
        assert!(
            !pipeline.admit(&mut ops, &stop, |_| 4, &mut unsent),
            "two slots only"
        );
        let lens: Vec<usize> = unsent.iter().map(|p| p.len).collect();
        assert_eq!(lens, [4, 4, 2, 4, 4, 2]);
        for _ in 0..3 {
            let piece = unsent.pop_front().unwrap();
            pipeline
                .finish_piece(piece, piece.len, &[], &mut sink)
                .unwrap();
        }
        assert_eq!(
            sink.0.len(),
            1,
            "the first request completes with its third piece"
        );
        assert!(
            pipeline.admit(&mut ops, &stop, |_| 4, &mut unsent),
            "its slot is free again"
        );
        let piece = unsent.pop_front().unwrap();
        let short = pipeline.finish_piece(piece, 1, &[], &mut sink).unwrap_err();
        assert_eq!(short.kind(), io::ErrorKind::WriteZero);
    }
}
