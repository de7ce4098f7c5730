//! Why raw input was refused, in words that tell the caller what to change.

/// Why a request's values were refused. Each message tells the caller what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValidationError {
    #[error("`mode` is required: send mode=save, mode=load or mode=profile.")]
    MissingMode,
    #[error("`mode` must be `save`, `load` or `profile`.")]
    UnknownMode,
    #[error("`summary` is required for mode=save: send the text to remember.")]
    MissingSummary,
    #[error("`{0}` is blank: send the text to remember.")]
    Blank(TextField),
    #[error(
        "`{field}` is {actual} characters long; the limit is {limit}. Shorten it and save again."
    )]
    TooLong {
        field: TextField,
        actual: usize,
        limit: usize,
    },
    #[error(
        "`{0}` contains the control character U+{1:04X}; remove it (no C0 or C1 controls, DEL or bidirectional overrides and isolates; tab, newline and carriage return are allowed)."
    )]
    ControlCharacter(TextField, u32),
    #[error(
        "`thread_id` {0}. Send the thread_id a previous save returned, or omit it to start a new thread."
    )]
    InvalidThreadId(&'static str),
    #[error(
        "`thread_id` is required: send the thread_id of the thread to forget, as a load shows it."
    )]
    MissingThreadId,
    #[error(
        "`q` has {actual} characters; the limit is {limit}. Ask with the person's question or its key phrase, shorter."
    )]
    QueryTooLong { actual: usize, limit: usize },
    #[error("`{name}` must be {expected}.")]
    InvalidFilter {
        name: &'static str,
        expected: &'static str,
    },
    #[error("{0}")]
    InvalidParameters(&'static str),
}

/// A stored text, as its parameter is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextField {
    Summary,
    Profile,
}

impl std::fmt::Display for TextField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Summary => "summary",
            Self::Profile => "profile",
        })
    }
}
