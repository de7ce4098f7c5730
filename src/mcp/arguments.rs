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
    /// Search: the person's question or its key phrase, in any language. The summaries most
    /// relevant to it come back, best first, each with the terms it `matched`.
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

/// `forget_memory`'s arguments: a thread, or the profile.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgetArguments {
    /// The thread to forget, as a load shows it.
    pub thread_id: Option<String>,
    /// Forget only the summary saved at this time: its `timestamp` exactly as a load shows it.
    /// Leave it out to forget the whole thread.
    pub timestamp: Option<String>,
    /// `true` (and no `thread_id`): forget the profile, every kept version of it.
    pub profile: Option<bool>,
}

/// `load_profile`'s arguments; all optional.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoadProfileArguments {
    /// An earlier version to read (the newest 20 are kept), to undo a bad rewrite; leave it
    /// out for the current profile.
    #[schemars(range(min = 1))]
    pub version: Option<u64>,
}

/// `save_profile`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SaveProfileArguments {
    /// The whole new profile, plain text, short (at most the server's limit, 2,000 characters
    /// unless set otherwise): the current one with what changed merged in; nothing dropped that
    /// the user did not take back.
    pub profile: String,
    /// The `version` of the profile you read (0 when it was empty). If another version is
    /// current, nothing is written and the error carries it in `current`: merge and retry.
    pub expected_version: Option<u64>,
}
