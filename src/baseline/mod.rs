//! Ceilings to measure a file server against, through a serve agent on the server host (and
//! that agent itself): raw TCP between the hosts, and the server's local disk.

pub mod disk;
pub mod remote;
pub mod serve;
pub mod tcp;
pub mod wire;
