//! What the numbers mean: warnings about how far a result can be trusted, the bottleneck verdict
//! the sizing model, and the tuning advisor.

pub mod advisor;
pub mod compare;
pub mod sizing;
pub mod verdict;
pub mod warnings;
