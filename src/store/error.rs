//! How a store call fails. The cause is kept as the error's source, for the operator's log.

use std::error::Error;

/// A cause of a store failure.
pub type Cause = Box<dyn Error + Send + Sync + 'static>;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the store did not answer within {0} s")]
    Timeout(u64),
    /// Work stopped because its caller had stopped waiting (after a [`Self::Timeout`]).
    #[error("the work was stopped: its caller had stopped waiting")]
    GivenUp,
    /// `context` says what kioku was doing; `source` is what the backend said.
    #[error("{context}")]
    Failed {
        context: &'static str,
        #[source]
        source: Cause,
    },
    #[error("{0}")]
    Misconfigured(&'static str),
    /// A read-then-write kept finding the document changed by other writes.
    #[error("a document kept changing under concurrent writes")]
    Contended,
    /// The entry alone would pass Firestore's 1 MiB limit for a thread's document.
    #[error("the entry is larger than the store's limit for a thread")]
    DocumentTooLarge,
}

impl StoreError {
    pub fn failed(context: &'static str, source: impl Into<Cause>) -> Self {
        Self::Failed {
            context,
            source: source.into(),
        }
    }
}
