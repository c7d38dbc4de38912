//! The project's own SMB2/3 client (issue 5), built up in steps. What exists so far: the message
//! layer, direct-TCP transport and NEGOTIATE of every dialect from 2.0.2 to 3.1.1, tested against
//! the lab's smbd. Session setup, tree connect, file I/O, signing and encryption come next; the
//! `smb://` target is not offered until they do.

pub mod negotiate;
pub mod transport;
pub mod wire;
