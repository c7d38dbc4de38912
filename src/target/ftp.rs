//! FTP, the classic baseline: whole files in order, STOR to write and RETR to read, over passive
//! data connections (EPSV by default, `?mode=pasv` for PASV). FTP has no random access, so tests
//! that need it are declared unsupported rather than faked.

use super::credentials::Secret;
use super::url::Url;
use super::{Capabilities, Handle, IoSettings, Op, OpSink, OpenMode, Space, Target, TargetInfo};
use crate::target::buffer::AlignedBuf;
use crate::target::{payload, spin};
use std::collections::BTreeMap;
use std::io;
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use suppaftp::types::FileType;
use suppaftp::{FtpError, FtpStream, Mode, Status};

pub const DEFAULT_PORT: u16 = 21;

pub struct FtpTarget {
    url: Url,
    addr: SocketAddr,
    user: String,
    password: Secret,
    /// The target directory, relative to the login directory, with a trailing `/` (or empty).
    base: String,
    mode: Mode,
    timeout: Duration,
    banner: String,
    /// One control connection for set-up work (MKD, DELE, SIZE), so it logs in once.
    admin: Mutex<FtpStream>,
}

impl FtpTarget {
    /// Connects and logs in once, so a wrong host, password or path is found before anything is
    /// written.
    pub fn connect(url: Url, password: Secret, timeout: Duration) -> io::Result<FtpTarget> {
        let port = url.port.unwrap_or(DEFAULT_PORT);
        let addr = (url.host.as_str(), port)
            .to_socket_addrs()
            .map_err(|e| io::Error::new(e.kind(), format!("cannot resolve {}: {e}", url.host)))?
            .next()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "the host has no address"))?;
        let mode = match url.param("mode") {
            None | Some("epsv") => Mode::ExtendedPassive,
            Some("pasv") => Mode::Passive,
            Some(other) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("mode={other} is not an FTP data mode (epsv or pasv)"),
                ))
            }
        };
        let user = url.user.clone().unwrap_or_else(|| "anonymous".into());
        let base = match url.path.trim_matches('/') {
            "" => String::new(),
            path => format!("{path}/"),
        };
        let mut admin = login(addr, &user, &password, mode, timeout)?;
        let banner = admin
            .get_welcome_msg()
            .map(|m| m.trim().to_string())
            .unwrap_or_default();
        if !base.is_empty() {
            admin
                .cwd(&base)
                .map_err(|e| ftp_error(e, &format!("the directory /{} is not there", url.path)))?;
            admin.cdup().ok();
        }
        Ok(FtpTarget {
            url,
            addr,
            user,
            password,
            base,
            mode,
            timeout,
            banner,
            admin: Mutex::new(admin),
        })
    }

    fn path(&self, relative: &str) -> String {
        format!("{}{relative}", self.base)
    }

    fn admin<T>(&self, work: impl FnOnce(&mut FtpStream) -> Result<T, FtpError>) -> io::Result<T> {
        let mut admin = self.admin.lock().unwrap_or_else(|p| p.into_inner());
        work(&mut admin).map_err(|e| ftp_error(e, "the FTP server refused"))
    }
}

/// One logged-in control connection in binary mode, every socket bounded by `timeout`.
fn login(
    addr: SocketAddr,
    user: &str,
    password: &Secret,
    mode: Mode,
    timeout: Duration,
) -> io::Result<FtpStream> {
    let mut stream = FtpStream::connect_timeout(addr, timeout)
        .map_err(|e| ftp_error(e, &format!("cannot connect to {addr}")))?
        .passive_stream_builder(move |data_addr| {
            let socket = TcpStream::connect_timeout(&data_addr, timeout)
                .map_err(FtpError::ConnectionError)?;
            // as curl does: a write's last partial segment goes out at once, not after an ACK
            socket
                .set_nodelay(true)
                .and_then(|()| socket.set_read_timeout(Some(timeout)))
                .and_then(|()| socket.set_write_timeout(Some(timeout)))
                .map_err(FtpError::ConnectionError)?;
            Ok(socket)
        });
    {
        let control = stream.get_ref();
        control.set_read_timeout(Some(timeout))?;
        control.set_write_timeout(Some(timeout))?;
    }
    stream.set_mode(mode);
    stream.login(user, password.expose()).map_err(|e| match e {
        FtpError::UnexpectedResponse(ref r) if r.status == Status::NotLoggedIn => io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("the FTP server refused the login of {user}: wrong user or password"),
        ),
        other => ftp_error(other, "the FTP login failed"),
    })?;
    stream
        .transfer_type(FileType::Binary)
        .map_err(|e| ftp_error(e, "the FTP server refused binary mode"))?;
    Ok(stream)
}

/// An FTP error as an io::Error with a sentence a person can act on.
fn ftp_error(error: FtpError, doing: &str) -> io::Error {
    match error {
        FtpError::ConnectionError(e) => io::Error::new(e.kind(), format!("{doing}: {e}")),
        FtpError::UnexpectedResponse(response) => {
            let text = String::from_utf8_lossy(&response.body).trim().to_string();
            let kind = match response.status {
                Status::FileUnavailable => io::ErrorKind::NotFound,
                Status::NotLoggedIn => io::ErrorKind::PermissionDenied,
                _ => io::ErrorKind::Other,
            };
            io::Error::new(kind, format!("{doing}: {text}"))
        }
        other => io::Error::other(format!("{doing}: {other}")),
    }
}

impl Drop for FtpTarget {
    fn drop(&mut self) {
        let admin = self.admin.get_mut().unwrap_or_else(|p| p.into_inner());
        let _ = admin.quit();
    }
}

impl Target for FtpTarget {
    fn info(&self) -> TargetInfo {
        let mut parameters = BTreeMap::new();
        parameters.insert("banner".into(), self.banner.clone());
        let mode = match self.mode {
            Mode::Passive => "passive (PASV)",
            Mode::ExtendedPassive => "extended passive (EPSV)",
            Mode::Active => "active",
        };
        parameters.insert("data_mode".into(), mode.into());
        parameters.insert("type".into(), "binary".into());
        TargetInfo {
            url: self.url.redacted(),
            protocol: "ftp".into(),
            parameters,
        }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            random_access: false,
            direct_io: false,
            metadata: true,
            max_io_size: None,
            queue_depth: 1,
        }
    }

    fn space(&self) -> io::Result<Option<Space>> {
        // FTP has no standard way to ask for free space
        Ok(None)
    }

    fn make_dir(&self, path: &str) -> io::Result<()> {
        let path = self.path(path);
        self.admin(|ftp| ftp.mkdir(&path))
    }

    fn remove_dir(&self, path: &str) -> io::Result<()> {
        let path = self.path(path);
        self.admin(|ftp| ftp.rmdir(&path))
    }

    fn remove_file(&self, path: &str) -> io::Result<()> {
        let path = self.path(path);
        self.admin(|ftp| ftp.rm(&path))
    }

    fn file_size(&self, path: &str) -> io::Result<Option<u64>> {
        let path = self.path(path);
        match self.admin(|ftp| ftp.size(&path)) {
            Ok(size) => Ok(Some(size as u64)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn create_file(&self, path: &str) -> io::Result<()> {
        let path = self.path(path);
        self.admin(|ftp| ftp.put_file(&path, &mut io::empty()).map(drop))
    }

    fn list_dir(&self, path: &str) -> io::Result<u64> {
        let path = self.path(path);
        // NLST names each entry on a line of its own, nothing else
        self.admin(|ftp| ftp.nlst(Some(&path))).map(|names| {
            names
                .iter()
                .filter(|n| !n.ends_with("/.") && !n.ends_with("/..") && *n != "." && *n != "..")
                .count() as u64
        })
    }

    fn open(&self, path: &str, mode: OpenMode, io: IoSettings) -> io::Result<Box<dyn Handle>> {
        let path = self.path(path);
        let mut control = login(
            self.addr,
            &self.user,
            &self.password,
            self.mode,
            self.timeout,
        )?;
        let length = match mode {
            OpenMode::Create => 0,
            OpenMode::Existing => control
                .size(&path)
                .map_err(|e| ftp_error(e, &format!("cannot find {path}")))?
                as u64,
        };
        let mut buf = AlignedBuf::new(io.max_io);
        payload::fill_base(&mut buf);
        Ok(Box::new(FtpHandle {
            control,
            path,
            length,
            buf,
            checker: io.verify.then(|| payload::Checker::new(io.max_io)),
            timeout: self.timeout,
            patience: spin::Patience::default(),
        }))
    }
}

/// One worker's control connection and the file it transfers.
struct FtpHandle {
    control: FtpStream,
    path: String,
    /// The file's length when opened (reads that stop short of it abort the transfer).
    length: u64,
    buf: AlignedBuf,
    checker: Option<payload::Checker>,
    /// The longest wait for data or room on the data connection.
    timeout: Duration,
    patience: spin::Patience,
}

impl Drop for FtpHandle {
    /// QUIT, and wait for the server's goodbye: vsftpd finishes storing a file for a while
    /// after its 226 reply (0.4 s after a 1 GiB put on the lab) and answers QUIT only then. A
    /// client that hangs up at once leaves that work to overlap its next transfer; waiting here,
    /// untimed, keeps each run's work inside its own run, as curl's QUIT does.
    fn drop(&mut self) {
        let _ = self.control.quit();
    }
}

fn not_in_order() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "FTP transfers a file from its start to its end; this test needs random access",
    )
}

impl Handle for FtpHandle {
    fn execute(
        &mut self,
        ops: &mut dyn Iterator<Item = Op>,
        sink: &mut dyn OpSink,
        stop: &AtomicBool,
    ) -> io::Result<()> {
        let mut transfer = None;
        let mut position = 0u64;
        let mut writing = false;
        let mut started = Instant::now();
        for op in ops {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            if op.offset != position {
                return Err(not_in_order());
            }
            // the transfer starts with the first request, so its set-up is part of the timing
            let stream = match &mut transfer {
                Some(stream) => stream,
                None => {
                    writing = op.write;
                    let opened = if op.write {
                        self.control.put_with_stream(&self.path)
                    } else {
                        self.control.retr_as_stream(&self.path)
                    };
                    let opened = opened
                        .map_err(|e| ftp_error(e, &format!("cannot transfer {}", self.path)))?;
                    // bulk data moves without sleeping between packets (see spin.rs)
                    opened.get_ref().get_ref().set_nonblocking(true)?;
                    transfer.insert(opened)
                }
            };
            if op.write != writing {
                return Err(not_in_order());
            }
            let buf = &mut self.buf[..op.len];
            let fd = stream.get_ref().get_ref().as_raw_fd();
            if op.write {
                payload::stamp(buf, op.offset);
                spin::write_all(stream, fd, buf, self.timeout)?;
            } else {
                spin::read_exact(stream, fd, buf, self.timeout, &mut self.patience)?;
                if let Some(checker) = &self.checker {
                    checker.check(buf, op.offset)?;
                }
            }
            position += op.len as u64;
            let finished = Instant::now();
            sink.completed(&op, (finished - started).as_nanos() as u64);
            started = finished;
        }
        let Some(stream) = transfer else {
            return Ok(());
        };
        let complete = writing || position == self.length;
        if complete && !stop.load(Ordering::Relaxed) {
            // closing the data connection and the server's 226 end the transfer: timed
            stream
                .finish()
                .map_err(|e| ftp_error(e, &format!("the transfer of {} failed", self.path)))
        } else {
            self.control
                .abort(stream)
                .map_err(|e| ftp_error(e, "cannot abort the transfer"))
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        // the server's 226 reply already said it has the whole file
        Ok(())
    }
}
