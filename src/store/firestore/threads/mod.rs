//! A namespace's threads: read whole (read.rs), counted (count.rs), saved to (save.rs), and
//! summed up for the operator (stats.rs).

pub mod count;
pub mod read;
pub mod save;
pub mod stats;
