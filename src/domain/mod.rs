//! Validated values and the rules of a load. Raw input becomes one of these at a boundary or
//! not at all, so nothing past it ever sees an invalid thread id, summary or namespace; and
//! the answer's budget and paging are decided here once, for every store (the ranking of a
//! search, in [`search`](crate::search)).

mod budget;
mod counts;
mod document_id;
mod door;
mod entry;
mod error;
mod filter;
mod json_text;
mod loopback;
mod mode;
mod namespace;
mod near_repeat;
mod page;
mod profile;
mod retention;
mod summary;
mod thread_id;
mod ties;
mod time;
mod vector;
mod writer;

pub use budget::{Budget, ENVELOPE_CHARS, cut_to_fit, entry_json_chars, json_chars};
pub use counts::Counts;
pub use document_id::MAX_THREAD_ID_CHARS;
pub use door::Door;
pub use entry::{Entry, REPEAT_WINDOW_MICROS, Thread, now_stamp};
pub use error::{TextField, ValidationError};
pub use filter::{Filter, Located};
pub use json_text::write_json_str;
pub use loopback::is_loopback_host;
pub use mode::Mode;
pub use namespace::Namespace;
pub use near_repeat::nearly_repeats;
pub use page::{Page, PageBuilder};
pub use profile::{
    KEPT_PROFILE_VERSIONS, Profile, ProfileDraft, ProfileWrite, check_profile, parse_version,
};
pub use retention::Retention;
pub use summary::{Summary, is_forbidden_in_a_name};
pub use thread_id::ThreadId;
pub use ties::Ties;
pub use time::{cursor, entry_micros, parse_instant, parse_timestamp};
pub use vector::{Embedded, ModelId, Vector};
pub use writer::{Caller, Writer};
