//! NFS without a mount: the project's own NFSv3, v4.0 and v4.1 client (ONC RPC over TCP), so the
//! mount options the tuning literature turns on (rsize, wsize, timeo, retrans, hard/soft) mean
//! what they say. Up to `--qd` READ or WRITE calls are in flight on one connection per worker;
//! writes are UNSTABLE and made durable by COMMIT on flush, as the Linux client does.

mod handle;
mod nconnect;
mod rpc;
mod state;
mod v3;
mod v4;
mod xdr;

use super::url::Url;
use super::{Capabilities, Handle, IoSettings, OpenMode, Space, Target, TargetInfo};
use handle::{NfsHandle, Opened};
use rpc::{Connection, Identity, Retry};
use state::Client;
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::Duration;

pub const DEFAULT_PORT: u16 = 2049;
const PORTMAP_PORT: u16 = 111;
/// Deepest pipeline a handle keeps.
const MAX_QUEUE_DEPTH: usize = 256;
/// Room left in a v4.1 request or reply for everything but the data (RPC header, SEQUENCE,
/// PUTFH with the largest file handle, the READ or WRITE arguments).
const COMPOUND_OVERHEAD: u32 = 1024;

/// The protocol version the URL asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V3,
    /// NFSv4 with this minor version.
    V4(u32),
}

impl Version {
    fn parse(text: &str) -> Result<Version, String> {
        match text {
            "3" => Ok(Version::V3),
            "4" | "4.0" => Ok(Version::V4(0)),
            "4.1" => Ok(Version::V4(1)),
            other => Err(format!(
                "NFS version {other} is not supported; use version=3, 4 or 4.1"
            )),
        }
    }

    fn name(self) -> String {
        match self {
            Version::V3 => "3".into(),
            Version::V4(minor) => format!("4.{minor}"),
        }
    }
}

/// Client options from the URL, as NFS mount options name them.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub version: Version,
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
    /// TCP connections per open file (the Linux mount option, 1 to 16).
    pub nconnect: u32,
}

impl Options {
    /// Reads the options of an `nfs://` URL; unknown ones are refused by name.
    pub fn from_url(url: &Url) -> Result<Options, String> {
        // SAFETY: geteuid/getegid have no preconditions.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let mut options = Options {
            version: Version::V3,
            nfsport: url.port.unwrap_or(DEFAULT_PORT),
            mountport: None,
            uid,
            gid,
            rsize: None,
            wsize: None,
            timeo: 600,
            retrans: 2,
            hard: true,
            nconnect: 1,
        };
        fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
            value
                .parse()
                .map_err(|_| format!("{key}={value} is not a number"))
        }
        for (key, value) in &url.query {
            match key.as_str() {
                "version" | "vers" | "nfsvers" => options.version = Version::parse(value)?,
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
                "nconnect" => match number(key, value)? {
                    n @ 1..=16 => options.nconnect = n,
                    _ => return Err(format!("nconnect={value} is outside 1 to 16")),
                },
                "actimeo" | "noac" => {} // this client keeps no attribute cache: always "noac"
                other => return Err(format!("'{other}' is not an NFS option sharebench knows")),
            }
        }
        Ok(options)
    }
}

/// How the target reaches the export's files: by NFSv3 handles from MOUNT, or through an NFSv4
/// client with its lease and (v4.1) sessions.
enum Dialect {
    V3 { admin: Mutex<Connection> },
    V4 { client: Client },
}

pub struct NfsTarget {
    url: Url,
    addr: SocketAddr,
    options: Options,
    retry: Retry,
    /// The export's root directory handle.
    root: Vec<u8>,
    rsize: u32,
    wsize: u32,
    dialect: Dialect,
    /// Directory handles by path, like the kernel's dentry cache: an operation on a file costs
    /// one call, not one per path component. Only directories this client walked are kept, and
    /// removing one forgets it and everything under it.
    dirs: Mutex<HashMap<String, Vec<u8>>>,
    /// Names v4.0 open-owners uniquely within this client.
    owners: AtomicU32,
}

/// The largest power of two not above `n` (the Linux client rounds rsize/wsize the same way).
fn power_of_two_floor(n: u32) -> u32 {
    1 << (31 - n.max(1).leading_zeros())
}

/// The request size asked for, capped by what the server offers.
fn effective_size(asked: Option<u32>, offered: u32) -> u32 {
    let offered = offered.max(512);
    asked.unwrap_or(offered).clamp(512, offered)
}

/// Splits a target path into the directories to walk and the last name.
fn split(path: &str) -> io::Result<(Vec<&str>, &str)> {
    let mut names: Vec<&str> = path.split('/').filter(|n| !n.is_empty()).collect();
    let last = names
        .pop()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty path"))?;
    Ok((names, last))
}

impl NfsTarget {
    /// Reaches the export once, so a wrong host or export is found before anything is written.
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
        let export = format!("/{}", url.path.trim_end_matches('/'));
        let addr = SocketAddr::new(ip, options.nfsport);
        let (dialect, root, rtmax, wtmax) = match options.version {
            Version::V3 => {
                let mountport = match options.mountport {
                    Some(port) => port,
                    None => v3::portmap_port(
                        &mut reach(PORTMAP_PORT, "portmapper")?,
                        v3::MOUNT_PROGRAM,
                        v3::VERSION,
                    )?,
                };
                let root = v3::mount(&mut reach(mountport, "mount service")?, &export)?;
                let limits = v3::fsinfo(&mut reach(options.nfsport, "NFS service")?, &root)?;
                let admin = Connection::connect(addr, retry, identity)?;
                let dialect = Dialect::V3 {
                    admin: Mutex::new(admin),
                };
                (dialect, root, limits.rtmax, limits.wtmax)
            }
            Version::V4(minor) => {
                let mut conn = reach(options.nfsport, "NFS service")?;
                conn.set_retry(retry);
                let client = Client::establish(conn, minor, hard_limit)?;
                let (root, attrs) = v4_export(&client, &export)?;
                // a v4.1 request must fit the session, headers and all
                let (mut rtmax, mut wtmax) = (
                    attrs.max_read.unwrap_or(1 << 20).min(u32::MAX as u64) as u32,
                    attrs.max_write.unwrap_or(1 << 20).min(u32::MAX as u64) as u32,
                );
                if let Some(limits) = client.session_limits() {
                    let fits = |max: u32| {
                        power_of_two_floor(max.saturating_sub(COMPOUND_OVERHEAD).max(512))
                    };
                    rtmax = rtmax.min(fits(limits.max_response));
                    wtmax = wtmax.min(fits(limits.max_request));
                }
                (Dialect::V4 { client }, root, rtmax, wtmax)
            }
        };
        Ok(NfsTarget {
            url,
            addr,
            rsize: effective_size(options.rsize, rtmax),
            wsize: effective_size(options.wsize, wtmax),
            options,
            retry,
            root,
            dialect,
            dirs: Mutex::new(HashMap::new()),
            owners: AtomicU32::new(0),
        })
    }

    fn identity(&self) -> Identity {
        Identity {
            uid: self.options.uid,
            gid: self.options.gid,
        }
    }

    fn v3_admin<T>(
        &self,
        admin: &Mutex<Connection>,
        work: impl FnOnce(&mut Connection) -> io::Result<T>,
    ) -> io::Result<T> {
        let mut admin = admin.lock().unwrap_or_else(|p| p.into_inner());
        work(&mut admin)
    }

    /// The cached handle of the directory `dirs` names, if it was looked up before.
    fn cached_dir(&self, dirs: &[&str]) -> Option<Vec<u8>> {
        if dirs.is_empty() {
            return Some(self.root.clone());
        }
        let cache = self.dirs.lock().unwrap_or_else(|p| p.into_inner());
        cache.get(&dirs.join("/")).cloned()
    }

    fn remember_dir(&self, dirs: &[&str], handle: &[u8]) {
        let mut cache = self.dirs.lock().unwrap_or_else(|p| p.into_inner());
        cache.insert(dirs.join("/"), handle.to_vec());
    }

    /// Forgets a removed directory and everything under it.
    fn forget_dir(&self, path: &str) {
        let path = path.trim_matches('/');
        let mut cache = self.dirs.lock().unwrap_or_else(|p| p.into_inner());
        cache.retain(|dir, _| dir != path && !dir.starts_with(&format!("{path}/")));
    }

    /// NFSv3: the handle of the directory `dirs` names, walked to one LOOKUP at a time.
    fn v3_dir(&self, conn: &mut Connection, dirs: &[&str]) -> io::Result<Vec<u8>> {
        if let Some(dir) = self.cached_dir(dirs) {
            return Ok(dir);
        }
        let mut dir = self.root.clone();
        for name in dirs {
            dir = v3::lookup(conn, &dir, name)?.0;
        }
        self.remember_dir(dirs, &dir);
        Ok(dir)
    }

    /// NFSv3: the handle of the directory holding `path`, and the last name in it.
    fn v3_parent<'p>(
        &self,
        conn: &mut Connection,
        path: &'p str,
    ) -> io::Result<(Vec<u8>, &'p str)> {
        let (dirs, last) = split(path)?;
        Ok((self.v3_dir(conn, &dirs)?, last))
    }

    /// NFSv4: the handle of the directory `dirs` names, walked to in one compound.
    fn v4_dir(&self, client: &Client, dirs: &[&str]) -> io::Result<Vec<u8>> {
        if let Some(dir) = self.cached_dir(dirs) {
            return Ok(dir);
        }
        let dir = client.call(
            &|ops| {
                ops.putfh(&self.root);
                dirs.iter().for_each(|d| ops.lookup(d));
                ops.getfh();
            },
            |r| {
                r.done(v4::PUTFH)?;
                for _ in dirs {
                    r.done(v4::LOOKUP)?;
                }
                r.getfh()
            },
        )?;
        self.remember_dir(dirs, &dir);
        Ok(dir)
    }

    /// NFSv4: one compound in the directory holding `path` that applies `last_op` to the last
    /// name there.
    fn v4_in_parent<T>(
        &self,
        client: &Client,
        path: &str,
        last_op: &dyn Fn(&mut v4::Ops, &str),
        last_result: impl Fn(&mut v4::Results) -> io::Result<T>,
    ) -> io::Result<T> {
        let (dirs, last) = split(path)?;
        let dir = self.v4_dir(client, &dirs)?;
        client.call(
            &|ops| {
                ops.putfh(&dir);
                last_op(ops, last);
            },
            |r| {
                r.done(v4::PUTFH)?;
                last_result(r)
            },
        )
    }

    fn v4_open(
        &self,
        client: &Client,
        path: &str,
        mode: OpenMode,
        slots: u32,
    ) -> io::Result<(state::Channel, Vec<u8>, Opened)> {
        let conn = Connection::connect(self.addr, self.retry, self.identity())?;
        let mut channel = client.channel(conn, slots)?;
        let (dirs, name) = split(path)?;
        let dir = self.v4_dir(client, &dirs)?;
        let (file, state) = state::open(
            &mut channel,
            client.patience,
            client.clientid,
            &self.new_owner(),
            &dir,
            name,
            mode == OpenMode::Create,
        )?;
        let opened = Opened::V4 {
            state,
            patience: client.patience,
        };
        Ok((channel, file, opened))
    }

    /// A name for a new NFSv4 open-owner, unique within this client.
    fn new_owner(&self) -> Vec<u8> {
        format!("open-{}", self.owners.fetch_add(1, Ordering::Relaxed)).into_bytes()
    }
}

/// The root handle and size limits of an export in the server's NFSv4 namespace.
fn v4_export(client: &Client, export: &str) -> io::Result<(Vec<u8>, v4::Attrs)> {
    let names: Vec<&str> = export.split('/').filter(|n| !n.is_empty()).collect();
    client
        .call(
            &|ops| {
                ops.putrootfh();
                names.iter().for_each(|n| ops.lookup(n));
                ops.getfh();
                ops.getattr(&[v4::ATTR_TYPE, v4::ATTR_MAXREAD, v4::ATTR_MAXWRITE]);
            },
            |r| {
                r.done(v4::PUTROOTFH)?;
                for _ in &names {
                    r.done(v4::LOOKUP)?;
                }
                Ok((r.getfh()?, r.getattr()?))
            },
        )
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied => io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "the server does not export {export} to this client over NFSv4 (not in its \
                     pseudo filesystem, or no access)"
                ),
            ),
            _ => e,
        })
}

impl Drop for NfsTarget {
    fn drop(&mut self) {
        if let Dialect::V4 { client } = &self.dialect {
            client.end();
        }
    }
}

impl Target for NfsTarget {
    fn info(&self) -> TargetInfo {
        let mut parameters = BTreeMap::new();
        parameters.insert("version".into(), self.options.version.name());
        parameters.insert("rsize".into(), self.rsize.to_string());
        parameters.insert("wsize".into(), self.wsize.to_string());
        parameters.insert("timeo".into(), self.options.timeo.to_string());
        parameters.insert("retrans".into(), self.options.retrans.to_string());
        parameters.insert("nconnect".into(), self.options.nconnect.to_string());
        parameters.insert(
            "mount".into(),
            if self.options.hard { "hard" } else { "soft" }.into(),
        );
        parameters.insert(
            "attribute_cache".into(),
            "none (every call goes to the server)".into(),
        );
        if let Dialect::V4 { client } = &self.dialect {
            parameters.insert("lease_seconds".into(), client.lease.to_string());
            if let Some(limits) = client.session_limits() {
                parameters.insert("session_max_request".into(), limits.max_request.to_string());
                parameters.insert(
                    "session_max_response".into(),
                    limits.max_response.to_string(),
                );
            }
        }
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
        let (total, free) = match &self.dialect {
            Dialect::V3 { admin } => self.v3_admin(admin, |c| v3::fsstat(c, &self.root))?,
            Dialect::V4 { client } => {
                let attrs = client.call(
                    &|ops| {
                        ops.putfh(&self.root);
                        ops.getattr(&[v4::ATTR_SPACE_AVAIL, v4::ATTR_SPACE_TOTAL]);
                    },
                    |r| {
                        r.done(v4::PUTFH)?;
                        r.getattr()
                    },
                )?;
                match (attrs.space_total, attrs.space_avail) {
                    (Some(total), Some(free)) => (total, free),
                    _ => return Ok(None),
                }
            }
        };
        Ok(Some(Space { total, free }))
    }

    fn make_dir(&self, path: &str) -> io::Result<()> {
        match &self.dialect {
            Dialect::V3 { admin } => self.v3_admin(admin, |c| {
                let (dir, name) = self.v3_parent(c, path)?;
                v3::mkdir(c, &dir, name).map(|_| ())
            }),
            Dialect::V4 { client } => {
                self.v4_in_parent(client, path, &|ops, name| ops.mkdir(name), |r| {
                    r.done(v4::CREATE)
                })
            }
        }
    }

    fn remove_dir(&self, path: &str) -> io::Result<()> {
        self.forget_dir(path);
        match &self.dialect {
            Dialect::V3 { admin } => self.v3_admin(admin, |c| {
                let (dir, name) = self.v3_parent(c, path)?;
                v3::rmdir(c, &dir, name)
            }),
            Dialect::V4 { .. } => self.remove_file(path),
        }
    }

    fn remove_file(&self, path: &str) -> io::Result<()> {
        match &self.dialect {
            Dialect::V3 { admin } => self.v3_admin(admin, |c| {
                let (dir, name) = self.v3_parent(c, path)?;
                v3::remove(c, &dir, name)
            }),
            // NFSv4 REMOVE takes files and empty directories alike
            Dialect::V4 { client } => {
                self.v4_in_parent(client, path, &|ops, name| ops.remove(name), |r| {
                    r.done(v4::REMOVE)
                })
            }
        }
    }

    fn file_size(&self, path: &str) -> io::Result<Option<u64>> {
        let found = match &self.dialect {
            Dialect::V3 { admin } => self.v3_admin(admin, |c| {
                let (dir, name) = self.v3_parent(c, path)?;
                v3::lookup(c, &dir, name).map(|(_, size)| size)
            }),
            Dialect::V4 { client } => self.v4_in_parent(
                client,
                path,
                &|ops, name| {
                    ops.lookup(name);
                    ops.getattr(&[v4::ATTR_SIZE]);
                },
                |r| {
                    r.done(v4::LOOKUP)?;
                    Ok(r.getattr()?.size.unwrap_or(0))
                },
            ),
        };
        match found {
            Ok(size) => Ok(Some(size)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn create_file(&self, path: &str) -> io::Result<()> {
        match &self.dialect {
            Dialect::V3 { admin } => self.v3_admin(admin, |c| {
                let (dir, name) = self.v3_parent(c, path)?;
                v3::create(c, &dir, name).map(drop)
            }),
            // as a program does it: OPEN with create, then CLOSE
            Dialect::V4 { client } => {
                let (dirs, name) = split(path)?;
                let dir = self.v4_dir(client, &dirs)?;
                let owner = self.new_owner();
                client.with_admin(|admin| {
                    let (file, state) = state::open(
                        admin,
                        client.patience,
                        client.clientid,
                        &owner,
                        &dir,
                        name,
                        true,
                    )?;
                    state::close(admin, client.patience, &file, &state)
                })
            }
        }
    }

    fn list_dir(&self, path: &str) -> io::Result<u64> {
        let dirs: Vec<&str> = path.split('/').filter(|n| !n.is_empty()).collect();
        match &self.dialect {
            Dialect::V3 { admin } => self.v3_admin(admin, |c| {
                let dir = self.v3_dir(c, &dirs)?;
                v3::count_entries(c, &dir)
            }),
            Dialect::V4 { client } => {
                let dir = self.v4_dir(client, &dirs)?;
                let (mut cookie, mut verifier, mut count) = (0, [0u8; 8], 0);
                loop {
                    let (next_verifier, entries, last, eof) = client.call(
                        &|ops| {
                            ops.putfh(&dir);
                            ops.readdir(cookie, &verifier, v3::READDIR_BYTES);
                        },
                        |r| {
                            r.done(v4::PUTFH)?;
                            r.readdir()
                        },
                    )?;
                    count += entries;
                    verifier = next_verifier;
                    match last {
                        Some(last) if !eof => cookie = last,
                        _ => return Ok(count),
                    }
                }
            }
        }
    }

    fn open(&self, path: &str, mode: OpenMode, io: IoSettings) -> io::Result<Box<dyn Handle>> {
        let first = self.open_connection(path, mode, io)?;
        if self.options.nconnect <= 1 {
            return Ok(Box::new(first));
        }
        // the first connection made or emptied the file; the others open it as it is
        let mut parts: Vec<Box<dyn Handle>> = vec![Box::new(first)];
        for _ in 1..self.options.nconnect {
            parts.push(Box::new(self.open_connection(
                path,
                OpenMode::Existing,
                io,
            )?));
        }
        Ok(Box::new(nconnect::Spread::new(parts)))
    }
}

impl NfsTarget {
    /// Opens `path` on a connection of its own.
    fn open_connection(&self, path: &str, mode: OpenMode, io: IoSettings) -> io::Result<NfsHandle> {
        let depth = io.queue_depth.clamp(1, MAX_QUEUE_DEPTH);
        let (channel, file, opened) = match &self.dialect {
            Dialect::V3 { .. } => {
                let mut conn = Connection::connect(self.addr, self.retry, self.identity())?;
                let (dir, name) = self.v3_parent(&mut conn, path)?;
                let file = match mode {
                    OpenMode::Create => v3::create(&mut conn, &dir, name)?,
                    OpenMode::Existing => v3::lookup(&mut conn, &dir, name)?.0,
                };
                let channel = state::Channel {
                    conn,
                    minor: 0,
                    session: None,
                };
                (channel, file, Opened::V3)
            }
            Dialect::V4 { client } => {
                // a slot for every call a full pipeline can have in flight
                let pieces = io.max_io.div_ceil(self.rsize.min(self.wsize) as usize);
                let slots = (depth * pieces).min(MAX_QUEUE_DEPTH) as u32;
                self.v4_open(client, path, mode, slots)?
            }
        };
        Ok(NfsHandle::new(
            channel,
            file,
            opened,
            self.rsize as usize,
            self.wsize as usize,
            depth,
            io,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_sizes_are_capped_by_the_server_and_rounded_like_linux() {
        assert_eq!(effective_size(Some(262_144), 1 << 20), 262_144);
        assert_eq!(effective_size(Some(4_000_000_000), 1 << 20), 1 << 20);
        assert_eq!(effective_size(None, 1 << 20), 1 << 20);
        assert_eq!(effective_size(Some(1), 1 << 20), 512, "never below 512");
        // a 1 MiB session cannot carry a 1 MiB WRITE and its headers: 512 KiB it is
        assert_eq!(power_of_two_floor((1 << 20) - COMPOUND_OVERHEAD), 1 << 19);
        assert_eq!(power_of_two_floor(1 << 20), 1 << 20);
    }

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
        let minor =
            |v: &str| Options::from_url(&Url::parse(&format!("nfs://h/d?version={v}")).unwrap());
        assert_eq!(minor("4").unwrap().version, Version::V4(0));
        assert_eq!(minor("4.1").unwrap().version, Version::V4(1));
        assert!(minor("4.2")
            .unwrap_err()
            .contains("use version=3, 4 or 4.1"));
        let nconnect =
            |n: &str| Options::from_url(&Url::parse(&format!("nfs://h/d?nconnect={n}")).unwrap());
        assert_eq!(nconnect("4").unwrap().nconnect, 4);
        assert!(nconnect("17").unwrap_err().contains("outside 1 to 16"));
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
