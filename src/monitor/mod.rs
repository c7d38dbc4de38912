//! What the machines are and do: host facts now; /proc samplers during runs later.

pub mod cpu;
pub mod host;
pub mod proc;
pub mod sampler;
