//! Search: a question read into terms, the summaries holding them ranked by relevance (BM25)
//! and fused with the ranking by meaning, and the results taken within the answer's budget.
//! One tokenizer both indexes what a store keeps and reads the question, so every store ranks
//! alike: a store counts terms and finds candidates, and the ranking happens here.

mod fusion;
mod query;
mod relevance;
mod results;
mod surface;
mod terms;

pub use fusion::{MAX_NEAREST, fuse};
pub use query::{MAX_QUERY_TERMS, Query};
pub use relevance::{MAX_CANDIDATES, MAX_DRIVERS, TermCounts, TermStats, drivers};
pub use results::{Candidate, Found, Ranked, Results, SearchCursor, rank, take};
pub use terms::{TERMS_VERSION, fold, terms};
