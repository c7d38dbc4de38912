//! What the numbers mean: warnings about how far a result can be trusted; later the bottleneck
//! verdict, the sizing model and the tuning advisor.

pub mod verdict;
pub mod warnings;
