//! Why an operation on a memory failed: the input, the memory, or the store.

use crate::domain::ValidationError;
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
