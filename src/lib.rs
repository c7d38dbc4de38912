//! sharebench: how fast is this file server, what limits it, and what should change.
//!
//! Data flows one way: cli → (workload + target) → engine → stats → analysis → report.

pub mod analysis;
pub mod baseline;
pub mod cli;
pub mod engine;
pub mod lab;
pub mod monitor;
pub mod random;
pub mod report;
pub mod result;
pub mod stats;
pub mod target;
pub mod units;
pub mod workload;
