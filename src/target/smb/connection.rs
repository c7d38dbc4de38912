//! One SMB2/3 connection with its session and tree: message ids and credits (MS-SMB2 3.2.4.1),
//! signing or encryption of every request once the session has keys, checking of every
//! response, compound chains, and answers to the server's oplock and lease breaks.

use super::crypto::{Encryption, Signer, TRANSFORM_ID, TRANSFORM_LEN};
use super::negotiate::Negotiated;
use super::status;
use super::transport::Transport;
use super::wire::{
    malformed, Header, Reader, ResponseHeader, Writer, FLAG_ASYNC, FLAG_RELATED, FLAG_RESPONSE,
    FLAG_SIGNED, HEADER_LEN, NEXT_COMMAND, OPLOCK_BREAK, SIGNATURE,
};
use std::collections::VecDeque;
use std::io;
use std::ops::Range;

/// Large MTU: one request may carry up to 64 KiB per credit it is charged.
const CREDIT_BYTES: usize = 65536;
/// Server notifications (breaks) carry this message id.
const UNSOLICITED: u64 = u64::MAX;
/// A lease break notification's structure size; an oplock break's is 24.
const LEASE_BREAK_SIZE: u16 = 44;
const LEASE_BREAK_ACK_REQUIRED: u32 = 0x01;

/// One message of the last frame received: its header and where it lies.
#[derive(Debug, Clone)]
pub struct Response {
    pub header: ResponseHeader,
    range: Range<usize>,
}

/// How the session protects its messages once keys exist.
#[derive(Default)]
pub struct Security {
    /// Verifies signed responses; signs requests too when `sign_requests`.
    pub signer: Option<Signer>,
    pub sign_requests: bool,
    /// Encrypts every request; responses then arrive encrypted.
    pub encryption: Option<Encryption>,
}

pub struct Connection {
    transport: Transport,
    pub negotiated: Negotiated,
    pub session_id: u64,
    pub tree_id: u32,
    pub security: Security,
    next_message_id: u64,
    credits: u32,
    /// Credits this connection asks to hold, enough for its deepest pipeline.
    credit_goal: u32,
    /// The most credits held at once, for the result document.
    pub most_credits: u32,
    /// Where the last frame's plaintext starts (after a transform header when encrypted).
    start: usize,
    /// Messages of the last frame not yet handed out (the rest of a compound response).
    unread: VecDeque<Response>,
    /// Request header and arguments, or a whole request to encrypt.
    scratch: Vec<u8>,
}

impl Connection {
    pub fn new(transport: Transport, negotiated: Negotiated) -> Connection {
        Connection {
            transport,
            negotiated,
            session_id: 0,
            tree_id: 0,
            security: Security::default(),
            next_message_id: 1, // NEGOTIATE used id 0
            credits: 1,
            credit_goal: 64,
            most_credits: 1,
            start: 0,
            unread: VecDeque::new(),
            scratch: Vec::new(),
        }
    }

    pub fn transport(&mut self) -> &mut Transport {
        &mut self.transport
    }

    /// Asks the server for enough credits to keep `credits` in hand.
    pub fn want_credits(&mut self, credits: u32) {
        self.credit_goal = credits.max(self.credit_goal);
    }

    pub fn credits(&self) -> u32 {
        self.credits
    }

    /// Credits a request moving `bytes` costs: one per 64 KiB with large MTU (2.1 and later).
    pub fn charge(&self, bytes: usize) -> u32 {
        if self.negotiated.dialect >= 0x0210 {
            bytes.div_ceil(CREDIT_BYTES).max(1) as u32
        } else {
            1
        }
    }

    /// Sends one request; returns its message id. `charge` comes from [`charge`](Self::charge)
    /// and must be covered by the credits in hand.
    pub fn send(
        &mut self,
        command: u16,
        body: &[u8],
        payload: &[u8],
        charge: u32,
    ) -> io::Result<u64> {
        let ids = self.send_chain(&[(command, body)], payload, charge)?;
        Ok(ids[0])
    }

    /// Sends requests as one compound chain, each after the first related to it (it acts on
    /// the file the first one opens). `payload` follows the last request; `last_charge` is
    /// what that one costs, the others cost one credit each.
    pub fn send_chain(
        &mut self,
        requests: &[(u16, &[u8])],
        payload: &[u8],
        last_charge: u32,
    ) -> io::Result<Vec<u64>> {
        let total: u32 = requests.len() as u32 - 1 + last_charge;
        if total > self.credits {
            return Err(io::Error::other(format!(
                "the SMB server granted {} credits, fewer than the {total} a request needs",
                self.credits
            )));
        }
        let encrypt = self.security.encryption.is_some();
        let mut w = Writer {
            buf: std::mem::take(&mut self.scratch),
        };
        w.buf.clear();
        if encrypt {
            w.buf.resize(TRANSFORM_LEN, 0);
        }
        let mut ids = Vec::with_capacity(requests.len());
        let mut starts = Vec::with_capacity(requests.len());
        for (i, &(command, body)) in requests.iter().enumerate() {
            let last = i + 1 == requests.len();
            let charge = if last { last_charge } else { 1 };
            if i > 0 {
                w.align(8);
            }
            let start = w.buf.len();
            let wanted = (self.credit_goal.saturating_sub(self.credits - charge)).max(charge);
            Header {
                command,
                credit_charge: if self.negotiated.dialect >= 0x0210 {
                    charge as u16
                } else {
                    0
                },
                credits_wanted: wanted.min(u16::MAX as u32) as u16,
                flags: if i > 0 { FLAG_RELATED } else { 0 },
                message_id: self.next_message_id,
                tree_id: self.tree_id,
                session_id: self.session_id,
            }
            .write(&mut w);
            w.bytes(body);
            ids.push(self.next_message_id);
            starts.push(start);
            self.next_message_id += charge as u64;
            self.credits -= charge;
        }
        // chain the messages: each says how far on the next one starts
        for pair in starts.windows(2) {
            w.patch_u32(pair[0] + NEXT_COMMAND, (pair[1] - pair[0]) as u32);
        }
        let outcome = if let Some(encryption) = self.security.encryption.as_mut() {
            w.buf.extend_from_slice(payload);
            encryption.seal(&mut w.buf, self.session_id);
            self.transport.send(&[&w.buf])
        } else {
            if let (Some(signer), true) = (&self.security.signer, self.security.sign_requests) {
                for (i, &start) in starts.iter().enumerate() {
                    let last = i + 1 == starts.len();
                    let end = starts.get(i + 1).copied().unwrap_or(w.buf.len());
                    let flags_at = start + 16;
                    let flags =
                        u32::from_le_bytes(w.buf[flags_at..flags_at + 4].try_into().expect("4"));
                    w.patch_u32(flags_at, flags | FLAG_SIGNED);
                    let pieces: &[&[u8]] = if last {
                        &[&w.buf[start..end], payload]
                    } else {
                        &[&w.buf[start..end]]
                    };
                    let signature = signer.sign(pieces, ids[i], false, false);
                    w.buf[start + SIGNATURE.start..start + SIGNATURE.end]
                        .copy_from_slice(&signature);
                }
            }
            self.transport.send(&[&w.buf, payload])
        };
        self.scratch = w.buf;
        outcome.map_err(|e| lost(&e))?;
        Ok(ids)
    }

    /// The next response: the rest of the last compound frame first, then a new frame. Interim
    /// (pending) answers and break notifications are dealt with here and never returned.
    pub fn receive(&mut self) -> io::Result<Response> {
        loop {
            if let Some(response) = self.unread.pop_front() {
                return Ok(response);
            }
            self.transport.receive().map_err(|e| lost(&e))?;
            self.start = 0;
            if self.transport.message().starts_with(&TRANSFORM_ID) {
                let Some(encryption) = self.security.encryption.as_ref() else {
                    return Err(malformed());
                };
                encryption.open(self.transport.message_mut())?;
                self.start = TRANSFORM_LEN;
            } else if self.security.encryption.is_some() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the SMB server answered an encrypted session in clear text",
                ));
            }
            self.split_frame()?;
        }
    }

    /// Splits the frame just received into its messages, checks their signatures, takes their
    /// credits, and queues the ones callers wait for.
    fn split_frame(&mut self) -> io::Result<()> {
        let mut at = self.start;
        loop {
            let end_of_frame = self.transport.message().len();
            let header = Reader {
                data: &self.transport.message()[at..],
            }
            .header()?;
            let end = match header.next_command {
                0 => end_of_frame,
                n => at
                    .checked_add(n as usize)
                    .filter(|&e| e <= end_of_frame)
                    .ok_or_else(malformed)?,
            };
            if header.flags & FLAG_RESPONSE == 0 {
                return Err(malformed());
            }
            self.credits += header.credits_granted as u32;
            self.most_credits = self.most_credits.max(self.credits);
            // an encrypted frame is already authenticated as a whole
            if self.start == 0 && header.flags & FLAG_SIGNED != 0 {
                self.verify(at..end, &header)?;
            }
            let interim = header.flags & FLAG_ASYNC != 0 && header.status == status::PENDING;
            if header.message_id == UNSOLICITED && header.command == OPLOCK_BREAK {
                self.acknowledge_break(at..end)?;
            } else if !interim {
                self.unread.push_back(Response {
                    header,
                    range: at..end,
                });
            }
            if header.next_command == 0 {
                return Ok(());
            }
            at = end;
        }
    }

    /// Checks a signed message's signature against the session's key.
    fn verify(&mut self, range: Range<usize>, header: &ResponseHeader) -> io::Result<()> {
        let Some(signer) = self.security.signer.as_ref() else {
            // signed before this client has the key: only the last SESSION_SETUP response,
            // which the session checks itself once the key exists
            return Ok(());
        };
        let message = &mut self.transport.message_mut()[range];
        let mut claimed = [0u8; 16];
        claimed.copy_from_slice(&message[SIGNATURE]);
        message[SIGNATURE].fill(0);
        let actual = signer.sign(&[message], header.message_id, true, false);
        message[SIGNATURE].copy_from_slice(&claimed);
        if actual == claimed {
            Ok(())
        } else {
            Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "an SMB response carried a wrong signature",
            ))
        }
    }

    /// Checks the signature of a message received earlier (the last SESSION_SETUP response,
    /// signed with the key it establishes).
    pub fn verify_late(&mut self, response: &Response) -> io::Result<()> {
        if response.header.flags & FLAG_SIGNED == 0 {
            return Ok(());
        }
        self.verify(response.range.clone(), &response.header)
    }

    /// A break asks this client to give up cached rights it holds on a file: agree, so another
    /// opener is not kept waiting.
    fn acknowledge_break(&mut self, range: Range<usize>) -> io::Result<()> {
        let r = Reader {
            data: &self.transport.message()[range],
        };
        let body = HEADER_LEN;
        let mut ack = Writer::default();
        if r.u16(body)? == LEASE_BREAK_SIZE {
            if r.u32(body + 4)? & LEASE_BREAK_ACK_REQUIRED == 0 {
                return Ok(());
            }
            let lease_key = r.bytes(body + 8, 16)?.to_vec();
            let new_state = r.u32(body + 28)?;
            ack.u16(36)
                .u16(0)
                .u32(0)
                .bytes(&lease_key)
                .u32(new_state)
                .u64(0);
        } else {
            let level = r.u8(body + 2)?;
            let file_id = r.bytes(body + 8, 16)?.to_vec();
            ack.u16(24).u8(level).u8(0).u32(0).bytes(&file_id);
        }
        if self.credits == 0 {
            return Ok(()); // the server sees no answer and breaks the rights itself
        }
        self.send(OPLOCK_BREAK, &ack.buf, &[], 1).map(|_| ())
    }

    /// The last request as sent, when it had no data and was not encrypted (SESSION_SETUP,
    /// for the pre-authentication hash).
    pub fn last_request(&self) -> &[u8] {
        &self.scratch
    }

    /// The bytes of a message received (header first).
    pub fn message(&self, response: &Response) -> &[u8] {
        &self.transport.message()[response.range.clone()]
    }

    /// Waits for the response to `message_id`, dropping answers to requests nobody waits for
    /// (break acknowledgements).
    pub fn wait_for(&mut self, message_id: u64) -> io::Result<Response> {
        loop {
            let response = self.receive()?;
            if response.header.message_id == message_id {
                return Ok(response);
            }
        }
    }

    /// One request and its response's bytes, for everything but the data path. A failed
    /// status becomes an error naming `what`.
    pub fn call(&mut self, command: u16, body: &[u8], what: &str) -> io::Result<Vec<u8>> {
        match self.call_status(command, body)? {
            (status::SUCCESS, message) => Ok(message),
            (failed, _) => Err(status::error(failed, what)),
        }
    }

    /// One request and its response's status and bytes, whatever the status.
    pub fn call_status(&mut self, command: u16, body: &[u8]) -> io::Result<(u32, Vec<u8>)> {
        let id = self.send(command, body, &[], 1)?;
        let response = self.wait_for(id)?;
        Ok((response.header.status, self.message(&response).to_vec()))
    }

    /// A compound chain and each of its responses: status and bytes.
    pub fn call_chain(&mut self, requests: &[(u16, &[u8])]) -> io::Result<Vec<(u32, Vec<u8>)>> {
        let ids = self.send_chain(requests, &[], 1)?;
        let mut answers = Vec::with_capacity(ids.len());
        for id in ids {
            let response = self.wait_for(id)?;
            answers.push((response.header.status, self.message(&response).to_vec()));
        }
        Ok(answers)
    }
}

/// A broken connection, in one sentence.
fn lost(e: &io::Error) -> io::Error {
    match e.kind() {
        io::ErrorKind::TimedOut => io::Error::new(
            io::ErrorKind::TimedOut,
            format!("the SMB server did not answer: {e}"),
        ),
        kind => io::Error::new(
            kind,
            format!("the connection to the SMB server failed: {e}"),
        ),
    }
}
