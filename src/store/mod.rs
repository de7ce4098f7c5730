//! Where memories live. Every backend implements [`MemoryStore`]; the conformance suite in
//! `tests/` holds each to the same behaviour.

mod bounded;
mod firestore;
mod sqlite;

use async_trait::async_trait;

use crate::domain::{Entry, Filter, Located, Namespace, Page, Query, ThreadId};

pub use bounded::Bounded;
pub use firestore::FirestoreStore;
pub use sqlite::SqliteStore;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the store did not answer within {0} s")]
    Timeout(u64),
    #[error("the store failed: {0}")]
    Unavailable(String),
    /// The thread's document would pass Firestore's 1 MiB limit.
    #[error("the thread is at the store's size limit")]
    DocumentTooLarge,
}

#[async_trait]
pub trait MemoryStore: Send + Sync {
    /// Appends `entry` to the thread, creating the thread if it is new. Concurrent saves,
    /// to one thread or many, all land.
    async fn save(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        entry: &Entry,
    ) -> Result<(), StoreError>;

    /// How many threads the namespace holds.
    async fn count(&self, ns: &Namespace) -> Result<u64, StoreError>;

    /// The entries `filter` admits, taken in [`Located::load_order`] into a
    /// [`PageBuilder`](crate::domain::PageBuilder) of `budget_chars`: threads most recently saved
    /// first, each with its entries oldest first, and what the budget left out.
    async fn page(
        &self,
        ns: &Namespace,
        filter: &Filter,
        budget_chars: usize,
    ) -> Result<Page, StoreError>;

    /// Entries that may match `query` (at least every one that does) among those `filter`
    /// admits, in no order; [`search`](crate::domain::search) ranks them.
    async fn candidates(
        &self,
        ns: &Namespace,
        filter: &Filter,
        query: &Query,
    ) -> Result<Vec<Located>, StoreError>;

    /// Succeeds when the store can serve requests.
    async fn ping(&self) -> Result<(), StoreError>;
}
