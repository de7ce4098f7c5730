//! Why an operation on a memory failed: the input, the memory, or the store.

use crate::domain::{Profile, ValidationError};
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error(transparent)]
    Invalid(#[from] ValidationError),
    #[error(
        "Nothing to forget: {0}. Load the memory to see each thread's thread_id and each summary's timestamp."
    )]
    NothingToForget(&'static str),
    #[error(
        "The profile changed since expected_version was read: `current` holds the profile now (none when it was forgotten). Merge your rewrite into it and send it again with expected_version set to its version (0 for none)."
    )]
    ProfileConflict(Option<Profile>),
    #[error(
        "The profile has no version {0}: only the newest {kept} are kept. Read the profile without `version` to see the current one.",
        kept = crate::domain::KEPT_PROFILE_VERSIONS
    )]
    UnknownProfileVersion(u64),
    #[error(
        "This summary alone is larger than the store holds in one thread (1 MiB); save a shorter summary."
    )]
    EntryTooLarge,
    #[error("Memory is unavailable right now; try again in a few seconds.")]
    Store(#[source] StoreError),
}

impl From<StoreError> for MemoryError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::DocumentTooLarge => Self::EntryTooLarge,
            other => Self::Store(other),
        }
    }
}
