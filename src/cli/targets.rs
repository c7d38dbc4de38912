//! From what the user typed (a path or a URL) to a target, refusing flags that do not apply.

use super::args::MethodArgs;
use super::Failure;
use crate::target::credentials::{self, Secret};
use crate::target::ftp::FtpTarget;
use crate::target::local::{LocalEngine, LocalTarget};
use crate::target::nfs::NfsTarget;
use crate::target::smb::ops::Caching;
use crate::target::smb::{Options as SmbOptions, SmbTarget};
use crate::target::url::{self, Url};
use crate::target::Target;
use std::io;
use std::path::Path;
use std::time::Duration;

/// Opens the target named by `spec` (default: the current directory).
pub fn open(spec: Option<&str>, method: &MethodArgs) -> Result<Box<dyn Target>, Failure> {
    let spec = spec.unwrap_or(".");
    if !url::is_url(spec) {
        smb_only_flags(method, "a local path")?;
        return open_local(Path::new(spec), method).map(|t| Box::new(t) as Box<dyn Target>);
    }
    let url = Url::parse(spec).map_err(|e| Failure::bad_input(format!("{e}.")))?;
    let shown = url.redacted();
    local_only_flags(method, &url.scheme)?;
    if url.scheme != "smb" {
        smb_only_flags(method, &format!("{}:// targets", url.scheme))?;
    }
    let timeout = Duration::from_secs(method.timeout);
    let target: Box<dyn Target> = match url.scheme.as_str() {
        "ftp" => Box::new(open_ftp(url, method)?.0),
        "nfs" => Box::new(
            NfsTarget::connect(url, timeout)
                .map_err(|e| Failure::bad_input(format!("{shown}: {e}.")))?,
        ),
        "smb" => {
            // no user: a guest session, which needs no password
            let password = match url.user {
                Some(_) => Some(
                    credentials::password(method.password_file.as_deref(), url.password(), &shown)
                        .map_err(|e| Failure::bad_input(format!("{e}.")))?,
                ),
                None => None,
            };
            let options = SmbOptions {
                dialect: method.smb_dialect,
                encrypt: method.smb_encrypt,
                io_size: method
                    .smb_io_size
                    .map(|size| {
                        u32::try_from(size)
                            .ok()
                            .filter(|&s| s >= 512)
                            .ok_or_else(|| {
                                Failure::bad_input(
                                    "--smb-io-size must be between 512 bytes and 4G.",
                                )
                            })
                    })
                    .transpose()?,
                caching: method.smb_lease,
            };
            Box::new(
                SmbTarget::connect(url, password, options, timeout)
                    .map_err(|e| Failure::bad_input(format!("{shown}: {e}.")))?,
            )
        }
        other => {
            return Err(Failure::bad_input(format!(
                "'{other}://' is not a target sharebench knows (paths, smb://, nfs://, ftp://)."
            )))
        }
    };
    let depth = target.capabilities().queue_depth;
    if method.qd as usize > depth {
        return Err(Failure::bad_input(format!(
            "--qd {} is deeper than {shown} allows ({depth} request(s) in flight).",
            method.qd
        )));
    }
    Ok(target)
}

/// Flags that only mean something for a local path.
/// Connects to an FTP URL; also returns the password, for connecting again later.
pub fn open_ftp(url: Url, method: &MethodArgs) -> Result<(FtpTarget, Secret), Failure> {
    let shown = url.redacted();
    let password = credentials::password(method.password_file.as_deref(), url.password(), &shown)
        .map_err(|e| Failure::bad_input(format!("{e}.")))?;
    let target = FtpTarget::connect(url, password.clone(), Duration::from_secs(method.timeout))
        .map_err(|e| Failure::bad_input(format!("{shown}: {e}.")))?;
    Ok((target, password))
}

fn local_only_flags(method: &MethodArgs, scheme: &str) -> Result<(), Failure> {
    let refuse = |flag: &str, why: &str| {
        Err(Failure::bad_input(format!(
            "{flag} does not apply to {scheme}:// targets: {why}."
        )))
    };
    if method.direct {
        return refuse("--direct", "O_DIRECT is a local filesystem flag");
    }
    if method.engine != LocalEngine::Psync {
        return refuse("--engine", "it chooses how local requests are issued");
    }
    if method.drop_caches {
        return refuse(
            "--drop-caches",
            "it empties this client's cache, not the server's",
        );
    }
    Ok(())
}

/// Flags that only mean something for an SMB share.
fn smb_only_flags(method: &MethodArgs, target: &str) -> Result<(), Failure> {
    let set = [
        (method.smb_dialect.is_some(), "--smb-dialect"),
        (method.smb_encrypt, "--smb-encrypt"),
        (method.smb_io_size.is_some(), "--smb-io-size"),
        (method.smb_lease != Caching::None, "--smb-lease"),
    ];
    match set.iter().find(|(on, _)| *on) {
        Some((_, flag)) => Err(Failure::bad_input(format!(
            "{flag} applies to smb:// targets, not to {target}."
        ))),
        None => Ok(()),
    }
}

fn open_local(path: &Path, method: &MethodArgs) -> Result<LocalTarget, Failure> {
    let shown = path.display();
    if method.qd > 1 && method.engine != LocalEngine::IoUring {
        return Err(Failure::bad_input(
            "--qd above 1 needs --engine io_uring (psync has one request in flight).",
        ));
    }
    match std::fs::metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(Failure::bad_input(format!("{shown} does not exist.")))
        }
        Err(e) => return Err(Failure::bad_input(format!("cannot use {shown}: {e}."))),
        Ok(meta) if !meta.is_dir() => {
            return Err(Failure::bad_input(format!(
                "{shown} is not a directory; give the directory to benchmark in."
            )))
        }
        Ok(_) => {}
    }
    LocalTarget::new(path, method.engine)
        .map_err(|e| Failure::bad_input(format!("cannot use {shown}: {e}.")))
}
