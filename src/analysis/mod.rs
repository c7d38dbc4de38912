//! What the numbers mean: warnings about how far a result can be trusted, the bottleneck verdict
//! and the sizing model; later the tuning advisor.

pub mod sizing;
pub mod verdict;
pub mod warnings;
