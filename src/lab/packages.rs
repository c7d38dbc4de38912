//! The Debian packages the lab runs, found before anything is started.

use std::path::{Path, PathBuf};

/// Each program the lab needs and the Debian package that installs it.
pub const PROGRAMS: [(&str, &str); 12] = [
    ("smbd", "samba"),
    ("smbpasswd", "samba-common-bin"),
    ("ganesha.nfsd", "nfs-ganesha"),
    ("rpcbind", "rpcbind"),
    ("vsftpd", "vsftpd"),
    ("ip", "iproute2"),
    ("tc", "iproute2"),
    ("openssl", "openssl"),
    ("iperf3", "iperf3"),
    ("unshare", "util-linux"),
    ("taskset", "util-linux"),
    ("mount", "mount"),
];

/// Where ganesha's VFS backend lives, from package nfs-ganesha-vfs.
pub const GANESHA_PLUGINS: &str = "/usr/lib/x86_64-linux-gnu/ganesha";
const GANESHA_VFS: &str = "libfsalvfs.so";

/// The absolute path of `program`, looked up in PATH and the system binary directories
/// (root's sbin directories are not on every PATH).
pub fn find(program: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    let found = path
        .split(':')
        .chain(["/usr/sbin", "/sbin", "/usr/bin", "/bin"])
        .filter(|dir| !dir.is_empty())
        .map(|dir| Path::new(dir).join(program))
        .find(|candidate| candidate.is_file());
    found
}

/// One sentence naming the first missing package and how to install it, if any is missing.
pub fn missing() -> Option<String> {
    first_missing(
        |program| find(program).is_some(),
        Path::new(GANESHA_PLUGINS).join(GANESHA_VFS).is_file(),
    )
}

fn first_missing(installed: impl Fn(&str) -> bool, vfs_installed: bool) -> Option<String> {
    let absent = PROGRAMS
        .iter()
        .find(|(program, _)| !installed(program))
        .map(|&(program, package)| (program.to_string(), package));
    let absent = absent.or_else(|| {
        (!vfs_installed).then(|| {
            (
                format!("ganesha's VFS backend ({GANESHA_VFS})"),
                "nfs-ganesha-vfs",
            )
        })
    });
    absent.map(|(what, package)| {
        format!(
            "{what} is missing: install the Debian package {package} with \
             'apt-get install {package}'."
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_on_path_and_in_sbin() {
        assert!(find("sh").unwrap().is_absolute());
        assert!(find("no-such-program-anywhere").is_none());
    }

    #[test]
    fn a_missing_program_names_its_package_and_the_install_command() {
        assert_eq!(first_missing(|_| true, true), None);
        assert_eq!(
            first_missing(|p| p != "vsftpd", true).unwrap(),
            "vsftpd is missing: install the Debian package vsftpd with 'apt-get install vsftpd'."
        );
        assert!(first_missing(|p| p != "smbpasswd", true)
            .unwrap()
            .contains("samba-common-bin"));
        assert!(first_missing(|_| true, false)
            .unwrap()
            .contains("'apt-get install nfs-ganesha-vfs'"));
    }
}
