//! Network namespaces joined by a veth pair, with tbf shaping, and TCP probes made from inside a
//! namespace.

use super::state::Namespaces;
use std::fs::File;
use std::io;
use std::net::{SocketAddr, TcpStream};
use std::os::fd::AsRawFd;
use std::process::Command;
use std::time::Duration;

/// The server side of the veth pair; the client is .2. Only ever used inside the lab's own
/// namespaces, so it collides with nothing on the host.
pub const SERVER_ADDR: &str = "10.211.0.1";
pub const CLIENT_ADDR: &str = "10.211.0.2";
const PREFIX: u8 = 24;

/// Namespace and interface names for a lab id (interface names stay under 16 bytes).
pub fn names(id: &str) -> Namespaces {
    Namespaces {
        server: format!("sb-{id}-srv"),
        client: format!("sb-{id}-cli"),
        server_veth: format!("sb{id}s"),
        client_veth: format!("sb{id}c"),
        client_addr: CLIENT_ADDR.into(),
    }
}

fn ip(args: &[&str]) -> io::Result<()> {
    run("ip", args)
}

fn run(program: &str, args: &[&str]) -> io::Result<()> {
    let path = super::packages::find(program)
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("{program} not found")))?;
    let out = Command::new(path).args(args).output()?;
    if out.status.success() {
        return Ok(());
    }
    Err(io::Error::other(format!(
        "'{program} {}' failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    )))
}

/// Creates both namespaces, the veth pair between them with addresses, and brings links up.
pub fn create(ns: &Namespaces) -> io::Result<()> {
    ip(&["netns", "add", &ns.server])?;
    ip(&["netns", "add", &ns.client])?;
    ip(&[
        "link",
        "add",
        &ns.server_veth,
        "netns",
        &ns.server,
        "type",
        "veth",
        "peer",
        "name",
        &ns.client_veth,
        "netns",
        &ns.client,
    ])?;
    for (space, veth, addr) in [
        (&ns.server, &ns.server_veth, SERVER_ADDR),
        (&ns.client, &ns.client_veth, ns.client_addr.as_str()),
    ] {
        ip(&[
            "-n",
            space,
            "addr",
            "add",
            &format!("{addr}/{PREFIX}"),
            "dev",
            veth,
        ])?;
        ip(&["-n", space, "link", "set", veth, "up"])?;
        ip(&["-n", space, "link", "set", "lo", "up"])?;
    }
    Ok(())
}

/// Shapes both directions to `bits_per_s` with a token bucket on each veth end.
pub fn shape(ns: &Namespaces, bits_per_s: f64) -> io::Result<()> {
    let rate = format!("{}bit", bits_per_s.round() as u64);
    // a burst of about 4 ms at line rate, at least 64 KiB: enough for gigabit without bursts
    // that would blur a slow link
    let burst = format!("{}", ((bits_per_s / 8.0) * 0.004).max(65536.0) as u64);
    for (space, veth) in [(&ns.server, &ns.server_veth), (&ns.client, &ns.client_veth)] {
        run(
            "ip",
            &[
                "netns", "exec", space, "tc", "qdisc", "replace", "dev", veth, "root", "tbf",
                "rate", &rate, "burst", &burst, "latency", "50ms",
            ],
        )?;
    }
    Ok(())
}

/// Deletes both namespaces (the veth pair goes with them). Missing ones are fine.
pub fn delete(ns: &Namespaces) -> io::Result<()> {
    let mut outcome = Ok(());
    for space in [&ns.server, &ns.client] {
        if exists(space) {
            outcome = outcome.and(ip(&["netns", "del", space]));
        }
    }
    outcome
}

pub fn exists(space: &str) -> bool {
    std::path::Path::new("/run/netns").join(space).exists()
}

/// Tries a TCP connection to `addr` from inside namespace `space` (or from here when `None`).
pub fn can_connect(space: Option<&str>, addr: SocketAddr) -> bool {
    let attempt = move || TcpStream::connect_timeout(&addr, Duration::from_millis(300)).is_ok();
    let Some(space) = space else {
        return attempt();
    };
    let Ok(handle) = File::open(std::path::Path::new("/run/netns").join(space)) else {
        return false;
    };
    // setns changes only the calling thread's namespace, so a short-lived thread does it
    std::thread::spawn(move || {
        // SAFETY: a valid namespace fd; CLONE_NEWNET only affects this thread.
        let entered = unsafe { libc::setns(handle.as_raw_fd(), libc::CLONE_NEWNET) } == 0;
        entered && attempt()
    })
    .join()
    .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interface_names_fit_the_kernel_limit() {
        let ns = names("abcdef");
        assert!(ns.server_veth.len() < 16 && ns.client_veth.len() < 16);
        assert_ne!(ns.server, ns.client);
    }
}
