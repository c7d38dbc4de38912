//! Samples in, summaries out. Knows nothing of protocols, files or terminals.

pub mod compare;
pub mod outliers;
pub mod summary;

pub use outliers::flag_outliers;
pub use summary::{Summary, NOISY_CV};
