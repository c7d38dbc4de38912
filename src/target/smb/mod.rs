//! The project's own SMB2/3 client (issue 5).

pub mod connection;
pub mod crypto;
pub mod negotiate;
pub mod session;
pub mod status;
pub mod transport;
pub mod wire;

use connection::Connection;
use session::{Credentials, Session};
use std::io;
use std::net::SocketAddr;
use std::time::Duration;
use transport::Transport;

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
