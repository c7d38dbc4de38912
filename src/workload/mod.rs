//! What to do: the iozone test set, each test a stream of requests over one file.

pub mod kinds;
pub mod order;

pub use kinds::{AccessParams, TestKind};
pub use order::Order;
