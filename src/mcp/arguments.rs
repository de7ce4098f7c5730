//! What each tool takes, with the JSON Schema a client sees.

use schemars::JsonSchema;
use serde::Deserialize;

/// `save_memory`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SaveArguments {
    /// What to remember: a summary of the conversation so far (what was decided, done and left
    /// open), plain text, at most the server's limit (5,000 characters unless set otherwise).
    #[schemars(required)]
    pub summary: Option<String>,
    /// The thread to save to. Leave it out on a conversation's first save and send the
    /// `thread_id` that save returned with every later one.
    pub thread_id: Option<String>,
}

/// `load_memories`'s arguments; all optional.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoadArguments {
    /// Keywords: only summaries holding every word, most matches first. One or two
    /// distinctive words work best; any language, no need to split Japanese.
    #[schemars(length(max = crate::domain::MAX_QUERY_CHARS))]
    pub q: Option<String>,
    /// Only this thread.
    pub thread_id: Option<String>,
    /// Only summaries saved at or after this time (RFC 3339, or YYYY-MM-DD).
    pub since: Option<String>,
    /// The `next_before` of a truncated answer, to get what it left out.
    pub before: Option<String>,
    /// At most this many threads (the most recently saved), or results with `q`.
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
}

/// `forget_memory`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgetArguments {
    /// The thread to forget, as a load shows it.
    pub thread_id: String,
    /// Forget only the summary saved at this time: its `timestamp` exactly as a load shows it.
    /// Leave it out to forget the whole thread.
    pub timestamp: Option<String>,
}
