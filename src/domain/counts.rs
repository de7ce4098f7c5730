//! A tally of threads and entries: what a namespace holds, what an operation removed, what a
//! page's budget left out.

/// How many threads, and how many entries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub threads: u64,
    pub entries: u64,
}
