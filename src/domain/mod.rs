//! Validated values and the rules of a load. Raw input becomes one of these at a boundary or
//! not at all, so nothing past it ever sees an invalid thread id, summary or namespace; and
//! the answer's budget, paging and ranking are decided here once, for every store.

mod budget;
mod document_id;
mod door;
mod entry;
mod error;
mod filter;
mod fusion;
mod json_text;
mod lookup;
mod loopback;
mod mode;
mod namespace;
mod near_repeat;
mod page;
mod profile;
mod query;
mod relevance;
mod retention;
mod search;
mod summary;
mod surface;
mod terms;
mod thread_id;
mod ties;
mod time;
mod vector;
mod writer;

pub use budget::{entry_json_chars, json_chars};
pub use document_id::MAX_THREAD_ID_CHARS;
pub use door::Door;
pub use entry::{Entry, REPEAT_WINDOW_MICROS, Thread, now_stamp};
pub use error::{TextField, ValidationError};
pub use filter::{Filter, Located};
pub use fusion::{MAX_NEAREST, fuse};
pub use json_text::write_json_str;
pub use lookup::Lookup;
pub use loopback::is_loopback_host;
pub use mode::Mode;
pub use namespace::Namespace;
pub use near_repeat::{SIMILAR_COSINE, nearly_repeats};
pub use page::{Omitted, Page, PageBuilder};
pub use profile::{
    KEPT_PROFILE_VERSIONS, Profile, ProfileDraft, ProfileWrite, check_profile, parse_version,
};
pub use query::{MAX_QUERY_CHARS, MAX_QUERY_TERMS, MAX_QUERY_WORDS, Query};
pub use relevance::{MAX_CANDIDATES, MAX_DRIVERS, TermCounts, TermStats, drivers};
pub use retention::Retention;
pub use search::{Candidate, Found, Ranked, Results, SearchCursor, rank, take};
pub use summary::{Summary, is_forbidden_in_a_name};
pub use terms::{TERMS_VERSION, fold, terms};
pub use thread_id::ThreadId;
pub use time::{cursor, entry_micros, parse_instant, parse_timestamp};
pub use vector::{Embedded, ModelId, Vector};
pub use writer::{Caller, Writer};
