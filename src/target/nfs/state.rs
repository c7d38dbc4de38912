//! NFSv4 client state: the client ID and the lease that keeps it alive, v4.1 sessions and their
//! slots, and sending a COMPOUND (SEQUENCE first on v4.1, retried while the server says "later").

use super::rpc::Connection;
use super::v3::NFS_PROGRAM;
use super::v4::{self, ChannelAttrs, Ops, Results, SessionId, StateId};
use super::xdr::Encoder;
use std::io;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// A v4.1 session: its id, limits, and the sequence id each slot expects next.
pub struct Session {
    pub id: SessionId,
    pub attrs: ChannelAttrs,
    seqids: Vec<u32>,
    free: Vec<u32>,
}

/// A request's place in a session: slot and its sequence id.
#[derive(Debug, Clone, Copy)]
pub struct Slot {
    pub index: u32,
    pub seqid: u32,
}

impl Session {
    fn new(id: SessionId, attrs: ChannelAttrs) -> Session {
        let slots = attrs.max_requests.max(1);
        Session {
            id,
            attrs,
            seqids: vec![1; slots as usize],
            free: (0..slots).rev().collect(),
        }
    }

    pub fn take_slot(&mut self) -> Option<Slot> {
        let index = self.free.pop()?;
        Some(Slot {
            index,
            seqid: self.seqids[index as usize],
        })
    }

    /// The slot is free again; its sequence moves on when the server processed the request.
    pub fn release(&mut self, slot: Slot, processed: bool) {
        if processed {
            self.seqids[slot.index as usize] = slot.seqid.wrapping_add(1);
        }
        self.free.push(slot.index);
    }

    pub fn highest_slot(&self) -> u32 {
        self.seqids.len() as u32 - 1
    }

    /// Appends SEQUENCE for `slot` to a compound.
    pub fn sequence(&self, ops: &mut Ops, slot: Slot) {
        ops.sequence(&self.id, slot.seqid, slot.index, self.highest_slot());
    }
}

/// A connection and, on v4.1, the session its compounds run in.
pub struct Channel {
    pub conn: Connection,
    pub minor: u32,
    pub session: Option<Session>,
}

impl Channel {
    /// One compound: `build` adds the operations (SEQUENCE is added first on v4.1), `parse`
    /// reads their results (SEQUENCE's is read already). While the server answers DELAY or
    /// GRACE the compound is sent again, for up to `patience`.
    pub fn call<T>(
        &mut self,
        patience: Duration,
        build: &dyn Fn(&mut Ops),
        mut parse: impl FnMut(&mut Results) -> io::Result<T>,
    ) -> io::Result<T> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(50);
        loop {
            let slot = match &mut self.session {
                Some(session) => Some(session.take_slot().ok_or_else(|| {
                    io::Error::other("no free session slot (the session is in use)")
                })?),
                None => None,
            };
            let mut ops = Ops::new(Encoder::default(), self.minor);
            if let (Some(session), Some(slot)) = (&self.session, slot) {
                session.sequence(&mut ops, slot);
            }
            build(&mut ops);
            let reply = self
                .conn
                .call(NFS_PROGRAM, v4::VERSION, v4::COMPOUND, &ops.finish().buf);
            let reply = match reply {
                Ok(reply) => reply,
                Err(e) => {
                    // not answered: the slot's request may or may not have run; a new session
                    // would be needed to be sure, and the run ends here anyway
                    if let (Some(session), Some(slot)) = (&mut self.session, slot) {
                        session.release(slot, false);
                    }
                    return Err(e);
                }
            };
            let mut results = Results::new(&reply)?;
            if let (Some(session), Some(slot)) = (&mut self.session, slot) {
                let sequenced = results.sequence();
                session.release(slot, sequenced.is_ok());
                sequenced?;
            }
            let later = matches!(results.status, v4::NFS4ERR_DELAY | v4::NFS4ERR_GRACE);
            if later && started.elapsed() < patience {
                sleep(pause);
                pause = (pause * 2).min(Duration::from_secs(1));
                continue;
            }
            return parse(&mut results);
        }
    }
}

/// Fore channel limits asked for: large enough for any rsize/wsize the server may offer; the
/// server answers with what it grants.
pub fn wanted_channel(slots: u32) -> ChannelAttrs {
    ChannelAttrs {
        max_request: (8 << 20) + 8192,
        max_response: (8 << 20) + 8192,
        max_response_cached: 8192,
        max_operations: 32,
        max_requests: slots,
    }
}

/// The client as the server knows it: its ID, the admin channel for metadata, and a thread
/// that renews the lease so state survives pauses longer than the lease between runs.
pub struct Client {
    pub minor: u32,
    pub clientid: u64,
    /// Seconds the server keeps this client's state without hearing from it.
    pub lease: u32,
    /// v4.1: the sequence the next CREATE_SESSION must carry.
    session_sequence: Mutex<u32>,
    admin: Arc<Mutex<Channel>>,
    /// Dropping it stops the renewals.
    _renewals: Sender<()>,
    pub patience: Duration,
}

impl Client {
    /// Makes this process known to the server on `conn` (SETCLIENTID on v4.0; EXCHANGE_ID and a
    /// one-slot session on v4.1) and starts renewing its lease.
    pub fn establish(conn: Connection, minor: u32, patience: Duration) -> io::Result<Client> {
        let mut channel = Channel {
            conn,
            minor,
            session: None,
        };
        let (verifier, owner) = identity();
        let (clientid, session_sequence) = if minor == 0 {
            let (clientid, confirm) =
                channel.call(patience, &|ops| ops.setclientid(&verifier, &owner), |r| {
                    r.setclientid()
                })?;
            channel.call(
                patience,
                &|ops| ops.setclientid_confirm(clientid, &confirm),
                |r| r.done(v4::SETCLIENTID_CONFIRM),
            )?;
            (clientid, 0)
        } else {
            let (clientid, sequence) =
                channel.call(patience, &|ops| ops.exchange_id(&verifier, &owner), |r| {
                    r.exchange_id()
                })?;
            let session = create_session(&mut channel, clientid, sequence, 1, patience)?;
            channel.session = Some(session);
            channel.call(patience, &|ops| ops.reclaim_complete(), |r| {
                match r.done(v4::RECLAIM_COMPLETE) {
                    Err(_) if r.status == v4::NFS4ERR_COMPLETE_ALREADY => Ok(()),
                    other => other,
                }
            })?;
            (clientid, sequence.wrapping_add(1))
        };
        let lease = channel
            .call(
                patience,
                &|ops| {
                    ops.putrootfh();
                    ops.getattr(&[v4::ATTR_LEASE_TIME]);
                },
                |r| {
                    r.done(v4::PUTROOTFH)?;
                    r.getattr()
                },
            )?
            .lease_time
            .unwrap_or(90);
        let admin = Arc::new(Mutex::new(channel));
        let (renewals, stop) = mpsc::channel();
        let renewing = Arc::clone(&admin);
        std::thread::spawn(move || {
            // three renewals per lease, so one lost renewal never lets the lease run out
            let period = Duration::from_secs(lease.max(3) as u64) / 3;
            while let Err(RecvTimeoutError::Timeout) = stop.recv_timeout(period) {
                let mut admin = renewing.lock().unwrap_or_else(|p| p.into_inner());
                // a failure here shows up in the next real call, where it can be reported
                let _ = renew(&mut admin, clientid);
            }
        });
        Ok(Client {
            minor,
            clientid,
            lease,
            session_sequence: Mutex::new(session_sequence),
            admin,
            _renewals: renewals,
            patience,
        })
    }

    /// Work on the admin channel, which no one else uses meanwhile.
    pub fn with_admin<T>(&self, work: impl FnOnce(&mut Channel) -> T) -> T {
        let mut admin = self.admin.lock().unwrap_or_else(|p| p.into_inner());
        work(&mut admin)
    }

    /// A compound on the admin channel.
    pub fn call<T>(
        &self,
        build: &dyn Fn(&mut Ops),
        parse: impl FnMut(&mut Results) -> io::Result<T>,
    ) -> io::Result<T> {
        self.with_admin(|admin| admin.call(self.patience, build, parse))
    }

    /// The admin session's limits (v4.1), which every session of this client is granted too.
    pub fn session_limits(&self) -> Option<ChannelAttrs> {
        let admin = self.admin.lock().unwrap_or_else(|p| p.into_inner());
        admin.session.as_ref().map(|s| s.attrs)
    }

    /// A channel of its own on `conn`: on v4.1 a new session with up to `slots` slots.
    pub fn channel(&self, conn: Connection, slots: u32) -> io::Result<Channel> {
        let mut channel = Channel {
            conn,
            minor: self.minor,
            session: None,
        };
        if self.minor > 0 {
            let mut sequence = self
                .session_sequence
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let session =
                create_session(&mut channel, self.clientid, *sequence, slots, self.patience)?;
            *sequence = sequence.wrapping_add(1);
            channel.session = Some(session);
        }
        Ok(channel)
    }

    /// Best effort: the server forgets this client's session and ID at once rather than at
    /// lease expiry. A dead server is not waited for.
    pub fn end(&self) {
        let mut admin = self.admin.lock().unwrap_or_else(|p| p.into_inner());
        admin.conn.fail_fast();
        let clientid = self.clientid;
        if let Some(id) = admin.session.as_ref().map(|s| s.id) {
            let ended = admin.call(Duration::ZERO, &|ops| ops.destroy_session(&id), |r| {
                r.done(v4::DESTROY_SESSION)
            });
            admin.session = None;
            if ended.is_ok() {
                let _ = admin.call(Duration::ZERO, &|ops| ops.destroy_clientid(clientid), |r| {
                    r.done(v4::DESTROY_CLIENTID)
                });
            }
        }
    }
}

/// An open file's state on the server.
#[derive(Debug, Clone, Copy)]
pub struct OpenState {
    pub stateid: StateId,
    /// The open-owner's next sequence id (v4.0; v4.1 ignores it).
    pub seqid: u32,
    /// A delegation the server granted anyway, returned on close.
    pub delegation: Option<StateId>,
}

/// OPENs `name` in directory `dir`, for reading and writing (`create`: made or emptied), as
/// a new open-owner `owner`; v4.0 confirms the first OPEN of an owner. Returns the file handle
/// and the open state.
#[allow(clippy::too_many_arguments)]
pub fn open(
    channel: &mut Channel,
    patience: Duration,
    clientid: u64,
    owner: &[u8],
    dir: &[u8],
    name: &str,
    create: bool,
) -> io::Result<(Vec<u8>, OpenState)> {
    let ((stateid, confirm, delegation), file) = channel.call(
        patience,
        &|ops| {
            ops.putfh(dir);
            ops.open(0, clientid, owner, name, create);
            ops.getfh();
        },
        |r| {
            r.done(v4::PUTFH)?;
            Ok((r.open()?, r.getfh()?))
        },
    )?;
    let mut state = OpenState {
        stateid,
        seqid: 1,
        delegation,
    };
    if confirm {
        state.stateid = channel.call(
            patience,
            &|ops| {
                ops.putfh(&file);
                ops.open_confirm(&stateid, 1);
            },
            |r| {
                r.done(v4::PUTFH)?;
                r.open_confirm()
            },
        )?;
        state.seqid = 2;
    }
    Ok((file, state))
}

/// CLOSEs an open file, returning a delegation first if one was granted.
pub fn close(
    channel: &mut Channel,
    patience: Duration,
    file: &[u8],
    state: &OpenState,
) -> io::Result<()> {
    channel.call(
        patience,
        &|ops| {
            ops.putfh(file);
            if let Some(delegation) = &state.delegation {
                ops.delegreturn(delegation);
            }
            ops.close(state.seqid, &state.stateid);
        },
        |r| {
            r.done(v4::PUTFH)?;
            if state.delegation.is_some() {
                r.done(v4::DELEGRETURN)?;
            }
            r.done(v4::CLOSE)
        },
    )
}

/// Ends a handle's session, best effort and without waiting on a dead server.
pub fn end_session(channel: &mut Channel) {
    channel.conn.fail_fast();
    if let Some(id) = channel.session.as_ref().map(|s| s.id) {
        let _ = channel.call(Duration::ZERO, &|ops| ops.destroy_session(&id), |r| {
            r.done(v4::DESTROY_SESSION)
        });
        channel.session = None;
    }
}

fn create_session(
    channel: &mut Channel,
    clientid: u64,
    sequence: u32,
    slots: u32,
    patience: Duration,
) -> io::Result<Session> {
    let fore = wanted_channel(slots);
    let (id, attrs) = channel.call(
        patience,
        &|ops| ops.create_session(clientid, sequence, &fore),
        |r| r.create_session(),
    )?;
    Ok(Session::new(id, attrs))
}

fn renew(admin: &mut Channel, clientid: u64) -> io::Result<()> {
    if admin.minor == 0 {
        admin.call(Duration::ZERO, &|ops| ops.renew(clientid), |r| {
            r.done(v4::RENEW)
        })
    } else {
        // SEQUENCE alone renews the lease
        admin.call(Duration::ZERO, &|_| {}, |_| Ok(()))
    }
}

/// A verifier that changes with every process start and an owner id unique to this process,
/// so a restarted sharebench is a new client and two at once never share state.
fn identity() -> ([u8; 8], Vec<u8>) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let verifier = (now.as_nanos() as u64).to_be_bytes();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let owner = format!(
        "sharebench/{}/{}/{}",
        host.trim(),
        std::process::id(),
        now.as_nanos()
    );
    (verifier, owner.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_advance_only_when_the_server_processed_the_request() {
        let mut session = Session::new([0; 16], wanted_channel(2));
        let a = session.take_slot().unwrap();
        let b = session.take_slot().unwrap();
        assert_eq!((a.index, a.seqid, b.index, b.seqid), (0, 1, 1, 1));
        assert!(session.take_slot().is_none(), "two slots, both taken");
        session.release(a, true);
        session.release(b, false);
        let b_again = session.take_slot().unwrap();
        assert_eq!(
            (b_again.index, b_again.seqid),
            (1, 1),
            "not processed: same seqid"
        );
        let a_again = session.take_slot().unwrap();
        assert_eq!((a_again.index, a_again.seqid), (0, 2));
    }
}
