//! `nconnect`: one open file over several TCP connections, as the Linux client's mount option of
//! that name. A server may serve each connection from one thread (NFS-Ganesha does), and then a
//! single connection caps what one client can draw however deep its pipeline: on the lab, one
//! connection read 1.9 GB/s and two 2.6 GB/s.
//!
//! Each connection is a handle of its own, with its own pipeline of `--qd` calls and its own
//! retransmissions, driven by a thread of its own. This handle deals the requests out in order to
//! whichever connection asks for one next and passes their completions on.

use crate::target::{Handle, Op, OpSink};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, TrySendError};
use std::sync::Mutex;
use std::thread;
use std::time::Duration;

pub struct Spread {
    parts: Vec<Box<dyn Handle>>,
}

impl Spread {
    pub fn new(parts: Vec<Box<dyn Handle>>) -> Spread {
        Spread { parts }
    }
}

/// Hands a connection's completions back to the dealing thread.
struct Completions(mpsc::Sender<(Op, u64)>);

impl OpSink for Completions {
    fn completed(&mut self, op: &Op, latency_ns: u64) {
        // the dealer outlives every connection's thread, so the send cannot fail
        let _ = self.0.send((*op, latency_ns));
    }
}

impl Handle for Spread {
    fn execute(
        &mut self,
        ops: &mut dyn Iterator<Item = Op>,
        sink: &mut dyn OpSink,
        stop: &AtomicBool,
    ) -> io::Result<()> {
        let (deal, dealt) = mpsc::sync_channel::<Op>(self.parts.len());
        let dealt = Mutex::new(dealt);
        let (done, completions) = mpsc::channel();
        let running = AtomicUsize::new(self.parts.len());
        thread::scope(|scope| {
            let threads: Vec<_> = self
                .parts
                .iter_mut()
                .map(|part| {
                    let (dealt, running) = (&dealt, &running);
                    let mut sink = Completions(done.clone());
                    scope.spawn(move || {
                        let mut next = std::iter::from_fn(|| {
                            dealt.lock().unwrap_or_else(|p| p.into_inner()).recv().ok()
                        });
                        let outcome = part.execute(&mut next, &mut sink, stop);
                        running.fetch_sub(1, Ordering::Release);
                        outcome
                    })
                })
                .collect();
            drop(done);
            // deal every request, passing completions on meanwhile; a connection that failed
            // takes no more, and when none is left the rest is not dealt
            'dealing: for op in ops {
                let mut op = op;
                loop {
                    match deal.try_send(op) {
                        Ok(()) => break,
                        Err(TrySendError::Full(back)) => op = back,
                        Err(TrySendError::Disconnected(_)) => break 'dealing,
                    }
                    if running.load(Ordering::Acquire) == 0 {
                        break 'dealing;
                    }
                    match completions.recv_timeout(Duration::from_millis(1)) {
                        Ok((op, latency)) => sink.completed(&op, latency),
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => break 'dealing,
                    }
                }
                while let Ok((op, latency)) = completions.try_recv() {
                    sink.completed(&op, latency);
                }
            }
            drop(deal);
            for (op, latency) in completions.iter() {
                sink.completed(&op, latency);
            }
            threads
                .into_iter()
                .map(|t| t.join().expect("an NFS connection's thread panicked"))
                .collect::<io::Result<Vec<()>>>()
                .map(drop)
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        // COMMIT on each connection: a server may keep each connection's writes apart
        self.parts.iter_mut().try_for_each(|part| part.flush())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection that completes every request at once, remembering what it got.
    struct Recording {
        got: std::sync::Arc<Mutex<Vec<u64>>>,
        fail_after: Option<usize>,
    }

    impl Handle for Recording {
        fn execute(
            &mut self,
            ops: &mut dyn Iterator<Item = Op>,
            sink: &mut dyn OpSink,
            _: &AtomicBool,
        ) -> io::Result<()> {
            for (i, op) in ops.enumerate() {
                if Some(i) == self.fail_after {
                    return Err(io::Error::other("connection lost"));
                }
                self.got.lock().unwrap().push(op.offset);
                sink.completed(&op, 1);
            }
            Ok(())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    struct Count(u64);

    impl OpSink for Count {
        fn completed(&mut self, _: &Op, _: u64) {
            self.0 += 1;
        }
    }

    fn ops(n: u64) -> impl Iterator<Item = Op> {
        (0..n).map(|i| Op {
            offset: i * 4096,
            len: 4096,
            write: false,
        })
    }

    #[test]
    fn every_request_goes_to_exactly_one_connection_and_completes_once() {
        let got = std::sync::Arc::new(Mutex::new(Vec::new()));
        let parts = (0..3)
            .map(|_| {
                Box::new(Recording {
                    got: got.clone(),
                    fail_after: None,
                }) as Box<dyn Handle>
            })
            .collect();
        let mut spread = Spread::new(parts);
        let mut count = Count(0);
        spread
            .execute(&mut ops(10_000), &mut count, &AtomicBool::new(false))
            .unwrap();
        assert_eq!(count.0, 10_000);
        let mut offsets = got.lock().unwrap().clone();
        offsets.sort();
        assert_eq!(offsets, (0..10_000).map(|i| i * 4096).collect::<Vec<_>>());
    }

    #[test]
    fn a_failed_connection_fails_the_whole_and_nothing_hangs() {
        let got = std::sync::Arc::new(Mutex::new(Vec::new()));
        let parts = (0..2)
            .map(|_| {
                Box::new(Recording {
                    got: got.clone(),
                    fail_after: Some(5),
                }) as Box<dyn Handle>
            })
            .collect();
        let mut spread = Spread::new(parts);
        let error = spread
            .execute(&mut ops(10_000), &mut Count(0), &AtomicBool::new(false))
            .unwrap_err();
        assert_eq!(error.to_string(), "connection lost");
    }
}
