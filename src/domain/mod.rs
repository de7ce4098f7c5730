//! Validated values. Raw input becomes one of these at the HTTP boundary or not at all, so
//! nothing past the routes ever sees an invalid thread id, summary or namespace.

mod entry;
mod mode;
mod namespace;
mod page;
mod retention;
mod search;
mod summary;
mod thread_id;

pub use entry::{Entry, Thread};
pub use mode::Mode;
pub use namespace::Namespace;
pub use page::{
    Filter, Found, Located, Lookup, Omitted, Page, PageBuilder, Results, SearchCursor, micros,
    parse_instant, parse_timestamp, search,
};
pub use retention::Retention;
pub use search::{Query, fold};
pub use summary::Summary;
pub use thread_id::ThreadId;

/// Why a request's values were refused. Each message tells the caller what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValidationError {
    #[error("`mode` is required: send mode=save or mode=load.")]
    MissingMode,
    #[error("`mode` must be `save` or `load`.")]
    UnknownMode,
    #[error("`summary` is required for mode=save: send the text to remember.")]
    MissingSummary,
    #[error("`summary` is blank: send the text to remember.")]
    BlankSummary,
    #[error(
        "`summary` is {actual} characters long; the limit is {limit}. Shorten it and save again."
    )]
    SummaryTooLong { actual: usize, limit: usize },
    #[error(
        "`summary` contains the control character U+{0:04X}; remove it (tab, newline and carriage return are allowed)."
    )]
    SummaryControlCharacter(u32),
    #[error(
        "`thread_id` {0}. Send the thread_id a previous save returned, or omit it to start a new thread."
    )]
    InvalidThreadId(&'static str),
    #[error(
        "`thread_id` is required: send the thread_id of the thread to forget, as a load shows it."
    )]
    MissingThreadId,
    #[error("`{name}` must be {expected}.")]
    InvalidFilter {
        name: &'static str,
        expected: &'static str,
    },
}

/// The longest thread id accepted, in characters.
pub const MAX_THREAD_ID_CHARS: usize = 256;

/// Why `id` cannot name a Firestore document, if it cannot.
/// Rules: <https://firebase.google.com/docs/firestore/quotas#collections_documents_and_fields>.
fn document_id_problem(id: &str) -> Option<&'static str> {
    if id.is_empty() {
        Some("is empty")
    } else if id.len() > 1_500 {
        Some("is longer than 1,500 bytes")
    } else if id.contains('/') {
        Some("must not contain `/`")
    } else if id == "." || id == ".." {
        Some("must not be `.` or `..`")
    } else if id.len() >= 4 && id.starts_with("__") && id.ends_with("__") {
        Some("must not start and end with `__`")
    } else if id.chars().any(char::is_control) {
        Some("must not contain control characters")
    } else {
        None
    }
}
