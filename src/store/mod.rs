//! Where memories live. Every backend implements [`MemoryStore`]; the conformance suite in
//! `tests/` holds each to the same behaviour.

mod bounded;
mod firestore;
mod sqlite;

use async_trait::async_trait;

use crate::domain::{Entry, Filter, Located, Namespace, Page, Query, Retention, Thread, ThreadId};

pub use bounded::Bounded;
pub use firestore::FirestoreStore;
pub use sqlite::SqliteStore;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the store did not answer within {0} s")]
    Timeout(u64),
    #[error("the store failed: {0}")]
    Unavailable(String),
    /// The entry alone would pass Firestore's 1 MiB limit for a thread's document.
    #[error("the entry is larger than the store's limit for a thread")]
    DocumentTooLarge,
}

/// What a save dropped to keep within the [`Retention`] limits and the store's size limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Trimmed {
    /// The saved thread's oldest entries.
    pub entries: u64,
    /// Least recently saved threads, whole.
    pub threads: u64,
    /// Whether entries went because the thread would have passed the store's size limit.
    pub for_size: bool,
}

/// What a save did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SaveOutcome {
    pub trimmed: Trimmed,
    /// Threads the namespace holds once the save is in, as the save's answer reports them.
    pub threads: u64,
}

/// How much a namespace, or a part of it, holds or held.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub threads: u64,
    pub entries: u64,
}

/// A namespace as an administrator sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceStats {
    pub name: String,
    pub counts: Counts,
    /// The timestamp of its newest entry.
    pub last_saved: Option<String>,
}

#[async_trait]
pub trait MemoryStore: Send + Sync {
    /// Appends `entry` to the thread, creating the thread if it is new, then drops what
    /// `retention` and the store's size limit do not keep, and counts the namespace's threads.
    /// Concurrent saves, to one thread or many, all land.
    async fn save(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        entry: &Entry,
        retention: &Retention,
    ) -> Result<SaveOutcome, StoreError>;

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

    /// Removes the thread, or only its entries saved at `at` (in
    /// [`micros`](crate::domain::micros)); a thread left without entries is gone.
    async fn forget(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        at: Option<i64>,
    ) -> Result<Counts, StoreError>;

    /// Every namespace that holds a thread, by name.
    async fn namespaces(&self) -> Result<Vec<NamespaceStats>, StoreError>;

    /// The namespace's threads by id, each with its entries in the order they were saved.
    async fn threads(&self, ns: &Namespace) -> Result<Vec<Thread>, StoreError>;

    /// Appends, in order, the `entries` the thread does not hold yet (the same summary and
    /// timestamp), so that importing twice changes nothing. Returns how many it appended.
    async fn import(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        entries: &[Entry],
    ) -> Result<u64, StoreError>;

    /// Removes every thread of the namespace; returns what it held.
    async fn delete_namespace(&self, ns: &Namespace) -> Result<Counts, StoreError>;

    /// Succeeds when the store can serve requests.
    async fn ping(&self) -> Result<(), StoreError>;
}
