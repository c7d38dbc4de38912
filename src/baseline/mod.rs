//! Ceilings to measure a file server against: raw TCP to a serve agent on the server host (and
//! that agent itself). Local-disk and memory-copy ceilings come next.

pub mod remote;
pub mod serve;
pub mod tcp;
pub mod wire;
