//! SMB2/3 without a mount: the project's own client. Each open file gets its own connection
//! and session, so workers never share a socket; metadata goes through one admin connection.
//! Requests are compounded where Windows does (open, act, close in one round trip), and the data
//! path keeps up to `--qd` READ or WRITE requests in flight within the credits granted.

pub mod connection;
pub mod crypto;
mod handle;
pub mod negotiate;
pub mod ops;
#[cfg(target_arch = "x86_64")]
mod polyval_wide;
pub mod session;
pub mod status;
pub mod transport;
pub mod wire;

use super::url::Url;
use super::{Capabilities, Handle, IoSettings, OpenMode, Space, Target, TargetInfo};
use connection::Connection;
use handle::SmbHandle;
use ops::{Caching, Create, RELATED_FILE};
use session::{Credentials, Session, SessionInfo};
use std::collections::BTreeMap;
use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use transport::Transport;
use wire::{CLOSE, CREATE, QUERY_DIRECTORY, QUERY_INFO, SET_INFO};

pub const DEFAULT_PORT: u16 = 445;
/// Deepest pipeline a handle keeps.
const MAX_QUEUE_DEPTH: usize = 256;
/// Largest READ or WRITE this client sends, whatever the server allows (Samba's default).
const LARGEST_IO: u32 = 8 << 20;
/// QUERY_DIRECTORY pages: 64 KiB, one credit, what Windows asks for.
const DIRECTORY_PAGE: u32 = 65536;

/// The client settings of the `--smb-*` flags.
#[derive(Debug, Clone)]
pub struct Options {
    /// The one dialect to offer, or all of them.
    pub dialect: Option<u16>,
    pub encrypt: bool,
    pub io_size: Option<u32>,
    pub caching: Caching,
}

/// A dialect by its name ("2.0.2" … "3.1.1").
pub fn parse_dialect(text: &str) -> Result<u16, String> {
    wire::DIALECTS
        .iter()
        .copied()
        .find(|&d| wire::dialect_name(d) == text)
        .ok_or_else(|| {
            format!("'{text}' is not an SMB dialect; use 2.0.2, 2.1, 3.0, 3.0.2 or 3.1.1")
        })
}

/// A new connection, negotiated (offering `dialects`), authenticated and connected to `share`.
pub fn open_session(
    addr: SocketAddr,
    host: &str,
    share: &str,
    dialects: &[u16],
    who: &Credentials,
    encrypt: bool,
    timeout: Duration,
) -> io::Result<(Connection, Session)> {
    let mut transport = Transport::connect(addr, timeout)?;
    let negotiated = negotiate::negotiate(&mut transport, dialects)?;
    let mut conn = Connection::new(transport, negotiated);
    let mut session = session::set_up(&mut conn, who, encrypt)?;
    session::tree_connect(&mut conn, host, share, &mut session)?;
    Ok((conn, session))
}

pub struct SmbTarget {
    url: Url,
    addr: SocketAddr,
    share: String,
    /// The directory inside the share the URL names ("" for the share's root).
    base: String,
    who: Credentials,
    options: Options,
    timeout: Duration,
    admin: Mutex<Connection>,
    session: SessionInfo,
    dialect: u16,
    max_read: u32,
    max_write: u32,
    max_transact: u32,
    io_size: u32,
    credits_granted: u32,
    most_credits: Arc<AtomicU32>,
    /// Lease keys: a random prefix and a counter, unique per open.
    lease_prefix: u64,
    leases: AtomicU64,
}

impl SmbTarget {
    /// Logs on and connects the share once, so a wrong host, password or share is found before
    /// anything is written.
    pub fn connect(
        url: Url,
        password: Option<super::credentials::Secret>,
        options: Options,
        timeout: Duration,
    ) -> io::Result<SmbTarget> {
        let addr = (url.host.as_str(), url.port.unwrap_or(DEFAULT_PORT))
            .to_socket_addrs()
            .map_err(|e| io::Error::new(e.kind(), format!("cannot resolve {}: {e}", url.host)))?
            .next()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "the host has no address"))?;
        let (share, base) = match url.path.split_once('/') {
            Some((share, base)) => (share.to_string(), base.trim_matches('/').to_string()),
            None => (url.path.clone(), String::new()),
        };
        if share.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the URL names no share: write smb://host/share",
            ));
        }
        let who = Credentials {
            domain: url.domain.clone(),
            user: url.user.clone(),
            password,
        };
        let dialects = match options.dialect {
            Some(d) => vec![d],
            None => wire::DIALECTS.to_vec(),
        };
        let (admin, session) = open_session(
            addr,
            &url.host,
            &share,
            &dialects,
            &who,
            options.encrypt,
            timeout,
        )?;
        let n = &admin.negotiated;
        let offered = n.max_read.min(n.max_write).min(LARGEST_IO);
        let io_size = match options.io_size {
            Some(asked) if asked > offered => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "--smb-io-size {asked} is more than the server allows ({offered} bytes)"
                    ),
                ))
            }
            Some(asked) => asked,
            None => offered,
        };
        let target = SmbTarget {
            dialect: n.dialect,
            max_read: n.max_read,
            max_write: n.max_write,
            max_transact: n.max_transact,
            credits_granted: admin.credits(),
            io_size,
            url,
            addr,
            share,
            base,
            who,
            options,
            timeout,
            admin: Mutex::new(admin),
            session: session.info,
            most_credits: Arc::new(AtomicU32::new(0)),
            lease_prefix: u64::from_le_bytes(crate::random::bytes()?),
            leases: AtomicU64::new(0),
        };
        if !target.base.is_empty() && target.file_size_of(&target.base, ops::DIRECTORY)?.is_none() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{} does not exist in the share", target.base),
            ));
        }
        Ok(target)
    }

    /// A target path inside the URL's directory.
    fn full(&self, path: &str) -> String {
        match (self.base.is_empty(), path.trim_matches('/')) {
            (true, path) => path.to_string(),
            (false, "") => self.base.clone(),
            (false, path) => format!("{}/{path}", self.base),
        }
    }

    fn admin(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.admin.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Opens `create`, runs `then` on the file it opened, and closes it: one round trip.
    /// Returns the responses (CREATE's first); the first failure is the error.
    fn open_act_close(
        &self,
        create: Create,
        then: &[(u16, Vec<u8>)],
        what: &str,
    ) -> io::Result<Vec<Vec<u8>>> {
        let create = create.encode();
        let close = ops::close(&RELATED_FILE);
        let mut requests: Vec<(u16, &[u8])> = vec![(CREATE, &create)];
        requests.extend(then.iter().map(|(c, b)| (*c, b.as_slice())));
        requests.push((CLOSE, &close));
        let answers = self.admin().call_chain(&requests)?;
        if let Some((failed, _)) = answers.iter().find(|(s, _)| *s != status::SUCCESS) {
            return Err(status::error(*failed, what));
        }
        Ok(answers.into_iter().map(|(_, m)| m).collect())
    }

    /// The size of `path` (a full path), or `None` when it does not exist.
    fn file_size_of(&self, path: &str, options: u32) -> io::Result<Option<u64>> {
        let create = Create::new(path, ops::READ_ATTRIBUTES, ops::OPEN, options);
        match self.open_act_close(create, &[], path) {
            Ok(answers) => Ok(Some(ops::created(&answers[0])?.end_of_file)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn remove(&self, path: &str, options: u32) -> io::Result<()> {
        let full = self.full(path);
        let create = Create::new(&full, ops::DELETE, ops::OPEN, options);
        let delete = ops::delete_on_close(&RELATED_FILE);
        self.open_act_close(create, &[(SET_INFO, delete)], &full)
            .map(|_| ())
    }

    fn lease_key(&self) -> [u8; 16] {
        let n = self.leases.fetch_add(1, Ordering::Relaxed);
        let mut key = [0u8; 16];
        key[..8].copy_from_slice(&self.lease_prefix.to_le_bytes());
        key[8..].copy_from_slice(&n.to_le_bytes());
        key
    }
}

impl Target for SmbTarget {
    fn info(&self) -> TargetInfo {
        let mut parameters = BTreeMap::new();
        let mut put = |k: &str, v: String| {
            parameters.insert(k.to_string(), v);
        };
        put("dialect", wire::dialect_name(self.dialect));
        put("signing", self.session.signing.unwrap_or("off").into());
        put("encryption", self.session.cipher.unwrap_or("off").into());
        put("max_read", self.max_read.to_string());
        put("max_write", self.max_write.to_string());
        put("max_transact", self.max_transact.to_string());
        put("io_size", self.io_size.to_string());
        put("credits_granted", self.credits_granted.to_string());
        put("caching", self.options.caching.name().into());
        put("guest", self.session.guest.to_string());
        TargetInfo {
            url: self.url.redacted(),
            protocol: "smb".into(),
            parameters,
        }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            random_access: true,
            direct_io: false,
            metadata: true,
            max_io_size: None,
            queue_depth: MAX_QUEUE_DEPTH,
        }
    }

    fn space(&self) -> io::Result<Option<Space>> {
        let create = Create::new(&self.base, ops::READ_ATTRIBUTES, ops::OPEN, ops::DIRECTORY);
        let query = ops::query_space(&RELATED_FILE);
        let answers = self.open_act_close(create, &[(QUERY_INFO, query)], "the share")?;
        let (total, free) = ops::space(&answers[1])?;
        Ok(Some(Space { total, free }))
    }

    fn make_dir(&self, path: &str) -> io::Result<()> {
        let full = self.full(path);
        let create = Create::new(&full, ops::READ_ATTRIBUTES, ops::CREATE_NEW, ops::DIRECTORY);
        self.open_act_close(create, &[], &full).map(|_| ())
    }

    fn remove_dir(&self, path: &str) -> io::Result<()> {
        self.remove(path, ops::DIRECTORY)
    }

    fn remove_file(&self, path: &str) -> io::Result<()> {
        self.remove(path, ops::NON_DIRECTORY)
    }

    fn file_size(&self, path: &str) -> io::Result<Option<u64>> {
        self.file_size_of(&self.full(path), 0)
    }

    fn create_file(&self, path: &str) -> io::Result<()> {
        let full = self.full(path);
        let create = Create::new(
            &full,
            ops::WRITE_DATA,
            ops::OVERWRITE_IF,
            ops::NON_DIRECTORY,
        );
        self.open_act_close(create, &[], &full).map(|_| ())
    }

    fn list_dir(&self, path: &str) -> io::Result<u64> {
        let full = self.full(path);
        let mut admin = self.admin();
        let create = Create::new(
            &full,
            ops::READ_DATA | ops::READ_ATTRIBUTES,
            ops::OPEN,
            ops::DIRECTORY,
        );
        let opened = admin.call(CREATE, &create.encode(), &full)?;
        let file = ops::created(&opened)?.file_id;
        let mut count = 0;
        let mut first = true;
        let listed = loop {
            let query = ops::query_directory(&file, first, DIRECTORY_PAGE);
            first = false;
            match admin.call_status(QUERY_DIRECTORY, &query) {
                Ok((status::SUCCESS, page)) => match ops::count_entries(&page) {
                    Ok(n) => count += n,
                    Err(e) => break Err(e),
                },
                Ok((status::NO_MORE_FILES, _)) => break Ok(count),
                Ok((failed, _)) => break Err(status::error(failed, &full)),
                Err(e) => break Err(e),
            }
        };
        let closed = admin.call(CLOSE, &ops::close(&file), &full);
        let count = listed?;
        closed?;
        Ok(count)
    }

    fn open(&self, path: &str, mode: OpenMode, io: IoSettings) -> io::Result<Box<dyn Handle>> {
        let full = self.full(path);
        let dialects = [self.dialect];
        let (mut conn, _) = open_session(
            self.addr,
            &self.url.host,
            &self.share,
            &dialects,
            &self.who,
            self.options.encrypt || self.session.cipher.is_some(),
            self.timeout,
        )?;
        let disposition = match mode {
            OpenMode::Create => ops::OVERWRITE_IF,
            OpenMode::Existing => ops::OPEN,
        };
        let mut create = Create::new(
            &full,
            ops::READ_DATA | ops::WRITE_DATA | ops::READ_ATTRIBUTES,
            disposition,
            ops::NON_DIRECTORY,
        );
        create.caching = self.options.caching;
        if self.dialect >= 0x0210 {
            create.lease = Some((self.lease_key(), self.dialect));
        }
        let io_size = (self.io_size as usize).min(io.max_io.max(1));
        conn.want_credits(handle::credits_needed(&conn, io_size, io));
        let opened = conn.call(CREATE, &create.encode(), &full)?;
        let file = ops::created(&opened)?.file_id;
        Ok(Box::new(SmbHandle::new(
            conn,
            file,
            io_size,
            io,
            self.most_credits.clone(),
        )))
    }
}

impl Drop for SmbTarget {
    fn drop(&mut self) {
        let admin = self.admin.get_mut().unwrap_or_else(|e| e.into_inner());
        admin.transport().set_timeout(Duration::from_secs(2));
        session::tear_down(admin);
    }
}
