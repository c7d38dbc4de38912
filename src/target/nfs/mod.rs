//! NFS without a mount: the project's own NFSv3 client (ONC RPC over TCP), so the mount options
//! the tuning literature turns on (rsize, wsize, timeo, retrans, hard/soft) mean what they say.
//! Up to `--qd` READ or WRITE calls are in flight on one connection per worker; writes are
//! UNSTABLE and made durable by COMMIT on flush, as the Linux client does.

mod rpc;
mod v3;
mod xdr;

use super::buffer::AlignedBuf;
use super::payload::{self, Checker};
use super::url::Url;
use super::{Capabilities, Handle, IoSettings, Op, OpSink, OpenMode, Space, Target, TargetInfo};
use rpc::{Connection, Identity, Retry};
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use xdr::Encoder;

pub const DEFAULT_PORT: u16 = 2049;
const PORTMAP_PORT: u16 = 111;
/// Deepest pipeline a handle keeps.
const MAX_QUEUE_DEPTH: usize = 256;

/// Client options from the URL, as NFS mount options name them.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub version: String,
    pub nfsport: u16,
    pub mountport: Option<u16>,
    pub uid: u32,
    pub gid: u32,
    pub rsize: Option<u32>,
    pub wsize: Option<u32>,
    /// Tenths of a second before the first retransmission.
    pub timeo: u32,
    pub retrans: u32,
    pub hard: bool,
}

impl Options {
    /// Reads the options of an `nfs://` URL; unknown ones are refused by name.
    pub fn from_url(url: &Url) -> Result<Options, String> {
        // SAFETY: geteuid/getegid have no preconditions.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let mut options = Options {
            version: "3".into(),
            nfsport: url.port.unwrap_or(DEFAULT_PORT),
            mountport: None,
            uid,
            gid,
            rsize: None,
            wsize: None,
            timeo: 600,
            retrans: 2,
            hard: true,
        };
        fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
            value
                .parse()
                .map_err(|_| format!("{key}={value} is not a number"))
        }
        for (key, value) in &url.query {
            match key.as_str() {
                "version" | "vers" | "nfsvers" => options.version = value.clone(),
                "nfsport" | "port" => options.nfsport = number(key, value)?,
                "mountport" => options.mountport = Some(number(key, value)?),
                "uid" => options.uid = number(key, value)?,
                "gid" => options.gid = number(key, value)?,
                "rsize" => options.rsize = Some(number(key, value)?),
                "wsize" => options.wsize = Some(number(key, value)?),
                "timeo" => options.timeo = number::<u32>(key, value)?.max(1),
                "retrans" => options.retrans = number(key, value)?,
                "hard" => options.hard = true,
                "soft" => options.hard = false,
                "actimeo" | "noac" => {} // this client keeps no attribute cache: always "noac"
                other => return Err(format!("'{other}' is not an NFS option sharebench knows")),
            }
        }
        if options.version != "3" {
            return Err(format!(
                "NFS version {} is not available in this build yet; use version=3",
                options.version
            ));
        }
        Ok(options)
    }
}

pub struct NfsTarget {
    url: Url,
    addr: SocketAddr,
    options: Options,
    retry: Retry,
    root: Vec<u8>,
    rsize: u32,
    wsize: u32,
    admin: Mutex<Connection>,
}

impl NfsTarget {
    /// Mounts the export once, so a wrong host or export is found before anything is written.
    pub fn connect(url: Url, hard_limit: Duration) -> io::Result<NfsTarget> {
        let options =
            Options::from_url(&url).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let ip = (url.host.as_str(), 0)
            .to_socket_addrs()
            .map_err(|e| io::Error::new(e.kind(), format!("cannot resolve {}: {e}", url.host)))?
            .next()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "the host has no address"))?
            .ip();
        let retry = Retry {
            timeo: Duration::from_millis(options.timeo as u64 * 100),
            retrans: options.retrans,
            hard: options.hard,
            hard_limit,
        };
        // set-up calls fail fast: a wrong address should not wait through a hard mount
        let setup = Retry {
            hard: false,
            retrans: 1,
            timeo: retry.timeo.min(Duration::from_secs(5)),
            ..retry
        };
        let identity = Identity {
            uid: options.uid,
            gid: options.gid,
        };
        let reach = |port: u16, what: &str| {
            Connection::connect(SocketAddr::new(ip, port), setup, identity).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot reach the {what} at {ip}:{port}: {e}"),
                )
            })
        };
        let mountport = match options.mountport {
            Some(port) => port,
            None => v3::portmap_port(
                &mut reach(PORTMAP_PORT, "portmapper")?,
                v3::MOUNT_PROGRAM,
                v3::VERSION,
            )?,
        };
        let export = format!("/{}", url.path.trim_end_matches('/'));
        let root = v3::mount(&mut reach(mountport, "mount service")?, &export)?;
        let addr = SocketAddr::new(ip, options.nfsport);
        let mut admin = reach(options.nfsport, "NFS service")?;
        let limits = v3::fsinfo(&mut admin, &root)?;
        let admin = Connection::connect(addr, retry, identity)?;
        // the request sizes asked for, capped by what the server offers
        let rsize = options
            .rsize
            .unwrap_or(limits.rtmax)
            .clamp(512, limits.rtmax.max(512));
        let wsize = options
            .wsize
            .unwrap_or(limits.wtmax)
            .clamp(512, limits.wtmax.max(512));
        Ok(NfsTarget {
            url,
            addr,
            options,
            retry,
            root,
            rsize,
            wsize,
            admin: Mutex::new(admin),
        })
    }

    fn admin<T>(&self, work: impl FnOnce(&mut Connection) -> io::Result<T>) -> io::Result<T> {
        let mut admin = self.admin.lock().unwrap_or_else(|p| p.into_inner());
        work(&mut admin)
    }

    /// The handle of the directory holding `path`, and the last name in it.
    fn parent<'p>(&self, conn: &mut Connection, path: &'p str) -> io::Result<(Vec<u8>, &'p str)> {
        let mut dir = self.root.clone();
        let mut names: Vec<&str> = path.split('/').filter(|n| !n.is_empty()).collect();
        let last = names
            .pop()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty path"))?;
        for name in names {
            dir = v3::lookup(conn, &dir, name)?.0;
        }
        Ok((dir, last))
    }
}

impl Target for NfsTarget {
    fn info(&self) -> TargetInfo {
        let mut parameters = BTreeMap::new();
        parameters.insert("version".into(), "3".into());
        parameters.insert("rsize".into(), self.rsize.to_string());
        parameters.insert("wsize".into(), self.wsize.to_string());
        parameters.insert("timeo".into(), self.options.timeo.to_string());
        parameters.insert("retrans".into(), self.options.retrans.to_string());
        parameters.insert(
            "mount".into(),
            if self.options.hard { "hard" } else { "soft" }.into(),
        );
        parameters.insert(
            "attribute_cache".into(),
            "none (every call goes to the server)".into(),
        );
        TargetInfo {
            url: self.url.redacted(),
            protocol: "nfs".into(),
            parameters,
        }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            random_access: true,
            direct_io: false,
            metadata: true,
            max_io_size: Some(self.rsize.min(self.wsize) as u64),
            queue_depth: MAX_QUEUE_DEPTH,
        }
    }

    fn space(&self) -> io::Result<Option<Space>> {
        let (total, free) = self.admin(|c| v3::fsstat(c, &self.root))?;
        Ok(Some(Space { total, free }))
    }

    fn make_dir(&self, path: &str) -> io::Result<()> {
        self.admin(|c| {
            let (dir, name) = self.parent(c, path)?;
            v3::mkdir(c, &dir, name).map(|_| ())
        })
    }

    fn remove_dir(&self, path: &str) -> io::Result<()> {
        self.admin(|c| {
            let (dir, name) = self.parent(c, path)?;
            v3::rmdir(c, &dir, name)
        })
    }

    fn remove_file(&self, path: &str) -> io::Result<()> {
        self.admin(|c| {
            let (dir, name) = self.parent(c, path)?;
            v3::remove(c, &dir, name)
        })
    }

    fn file_size(&self, path: &str) -> io::Result<Option<u64>> {
        let found = self.admin(|c| {
            let (dir, name) = self.parent(c, path)?;
            v3::lookup(c, &dir, name)
        });
        match found {
            Ok((_, size)) => Ok(Some(size)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn open(&self, path: &str, mode: OpenMode, io: IoSettings) -> io::Result<Box<dyn Handle>> {
        let identity = Identity {
            uid: self.options.uid,
            gid: self.options.gid,
        };
        let mut conn = Connection::connect(self.addr, self.retry, identity)?;
        let (dir, name) = self.parent(&mut conn, path)?;
        let file = match mode {
            OpenMode::Create => v3::create(&mut conn, &dir, name)?,
            OpenMode::Existing => v3::lookup(&mut conn, &dir, name)?.0,
        };
        let depth = io.queue_depth.clamp(1, MAX_QUEUE_DEPTH);
        let buffers = (0..depth)
            .map(|_| {
                let mut buf = AlignedBuf::new(io.max_io);
                payload::fill_base(&mut buf);
                buf
            })
            .collect();
        Ok(Box::new(NfsHandle {
            conn,
            file,
            rsize: self.rsize as usize,
            wsize: self.wsize as usize,
            buffers,
            slots: (0..depth).map(|_| None).collect(),
            in_flight: HashMap::new(),
            checker: io.verify.then(|| Checker::new(io.max_io)),
            call: Encoder::default(),
        }))
    }
}

/// A request being served: its buffer slot holds its data.
struct Pending {
    op: Op,
    issued: Instant,
    pieces_left: usize,
}

/// One RPC of a request: where in the request it starts and how long it is.
#[derive(Clone, Copy)]
struct Piece {
    slot: usize,
    at: usize,
    len: usize,
}

struct NfsHandle {
    conn: Connection,
    file: Vec<u8>,
    rsize: usize,
    wsize: usize,
    buffers: Vec<AlignedBuf>,
    slots: Vec<Option<Pending>>,
    in_flight: HashMap<u32, Piece>,
    checker: Option<Checker>,
    call: Encoder,
}

/// Sends one piece (a READ or a WRITE) under `xid`.
#[allow(clippy::too_many_arguments)]
fn send_piece(
    conn: &mut Connection,
    call: &mut Encoder,
    file: &[u8],
    xid: u32,
    op: &Op,
    piece: Piece,
    data: &[u8],
) {
    let offset = op.offset + piece.at as u64;
    if op.write {
        conn.begin(call, xid, v3::NFS_PROGRAM, v3::VERSION, v3::WRITE);
        call.opaque(file)
            .u64(offset)
            .u32(piece.len as u32)
            .u32(v3::UNSTABLE)
            .u32(piece.len as u32);
        conn.send(call, &data[piece.at..piece.at + piece.len]);
    } else {
        conn.begin(call, xid, v3::NFS_PROGRAM, v3::VERSION, v3::READ);
        call.opaque(file).u64(offset).u32(piece.len as u32);
        conn.send(call, &[]);
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
            conn,
            file,
            rsize,
            wsize,
            buffers,
            slots,
            in_flight,
            checker,
            call,
        } = self;
        let mut free: Vec<usize> = (0..slots.len()).rev().collect();
        loop {
            // keep the pipeline full
            while let Some(&slot) = free.last() {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let Some(op) = ops.next() else { break };
                free.pop();
                let max = if op.write { *wsize } else { *rsize };
                if op.write {
                    payload::stamp(&mut buffers[slot][..op.len], op.offset);
                }
                let pieces = op.len.div_ceil(max);
                slots[slot] = Some(Pending {
                    op,
                    issued: Instant::now(),
                    pieces_left: pieces,
                });
                for at in (0..op.len).step_by(max) {
                    let piece = Piece {
                        slot,
                        at,
                        len: max.min(op.len - at),
                    };
                    let xid = conn.new_xid();
                    send_piece(conn, call, file, xid, &op, piece, &buffers[slot]);
                    in_flight.insert(xid, piece);
                }
            }
            if in_flight.is_empty() {
                return Ok(());
            }
            let reply = conn.receive(&mut |c| {
                for (&xid, &piece) in in_flight.iter() {
                    let op = slots[piece.slot]
                        .as_ref()
                        .expect("a piece's request is pending")
                        .op;
                    send_piece(c, call, file, xid, &op, piece, &buffers[piece.slot]);
                }
            })?;
            // a reply to a call already answered (after a retransmission) is dropped
            let Some(piece) = in_flight.remove(&reply.xid) else {
                continue;
            };
            let pending = slots[piece.slot]
                .as_mut()
                .expect("a piece's request is pending");
            let op = pending.op;
            if op.write {
                let written = v3::write_result(conn.record(), reply.results)? as usize;
                if written != piece.len {
                    return Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "the server took a short write",
                    ));
                }
            } else {
                let (data, _eof) = v3::read_result(conn.record(), reply.results)?;
                if data.len() != piece.len {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!(
                            "the file ended before offset {}",
                            op.offset + (piece.at + data.len()) as u64
                        ),
                    ));
                }
                // the data is in this client's memory now; it is copied out only to be checked
                if checker.is_some() {
                    buffers[piece.slot][piece.at..piece.at + piece.len]
                        .copy_from_slice(&conn.record()[data]);
                }
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
        v3::commit(&mut self.conn, &self.file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_options_are_read_with_mount_option_names() {
        let url = Url::parse("nfs://h/data?version=3&nfsport=2050&mountport=20048&rsize=65536&timeo=5&retrans=1&soft&uid=1000&gid=100").unwrap();
        let o = Options::from_url(&url).unwrap();
        assert_eq!(
            (o.nfsport, o.mountport, o.rsize, o.wsize),
            (2050, Some(20048), Some(65536), None)
        );
        assert_eq!(
            (o.timeo, o.retrans, o.hard, o.uid, o.gid),
            (5, 1, false, 1000, 100)
        );
        let defaults = Options::from_url(&Url::parse("nfs://h/data").unwrap()).unwrap();
        assert_eq!(
            (
                defaults.timeo,
                defaults.retrans,
                defaults.hard,
                defaults.nfsport
            ),
            (600, 2, true, 2049)
        );
        assert!(
            Options::from_url(&Url::parse("nfs://h/d?version=4.1").unwrap())
                .unwrap_err()
                .contains("version=3")
        );
        assert!(Options::from_url(&Url::parse("nfs://h/d?bogus=1").unwrap())
            .unwrap_err()
            .contains("'bogus'"));
        assert!(
            Options::from_url(&Url::parse("nfs://h/d?rsize=big").unwrap())
                .unwrap_err()
                .contains("rsize=big")
        );
    }
}
