//! What whole-store work asks of a backend outside any request: `kioku migrate` and
//! `kioku import`, and the background job that embeds what was stored without a vector. Apart
//! from [`MemoryStore`](super::MemoryStore), whose calls a request makes within its
//! operation's [`TimeLimit`](super::TimeLimit): this work runs as long as the store is large,
//! and each backend call it makes has a limit of its own (SQLite's busy timeout, each
//! Firestore attempt's).

use async_trait::async_trait;

use super::{EntryKey, StoreError, Unembedded};
use crate::domain::{Embedded, Entry, ModelId, Namespace, Profile, ThreadId};

#[async_trait]
pub trait Maintenance: Send + Sync {
    /// About `limit` entries of any namespace without a vector of `model`, from those after
    /// `after` (the key of the last of the batch before) in the store's order: SQLite's is
    /// newest stored first; Firestore's is by namespace and thread, a thread's whole at once.
    /// An empty batch is the last.
    async fn unembedded(
        &self,
        model: &ModelId,
        after: Option<&EntryKey>,
        limit: u32,
    ) -> Result<Vec<Unembedded>, StoreError>;
    /// Stores each entry's vector, in place of any it had; an entry forgotten meanwhile gets
    /// none. Answers how many it stored.
    async fn put_vectors(&self, vectors: &[(EntryKey, Embedded)]) -> Result<u64, StoreError>;
    /// Appends, in order, the `entries` the thread does not hold yet (the same summary and
    /// timestamp), so that importing twice changes nothing. Returns how many it appended.
    async fn import(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        entries: &[Entry],
    ) -> Result<u64, StoreError>;
    /// Adds the `versions` it does not hold (by number), then keeps the newest
    /// [`KEPT_PROFILE_VERSIONS`](crate::domain::KEPT_PROFILE_VERSIONS); returns how many it
    /// added, so that importing twice changes nothing.
    async fn import_profile(&self, ns: &Namespace, versions: &[Profile])
    -> Result<u64, StoreError>;
    /// Brings what is stored up to this version's layout, all of it at once and without the
    /// store time limit (`kioku migrate`); answers how many threads it changed. Idempotent, and
    /// safe beside a serving kioku.
    async fn migrate(&self) -> Result<u64, StoreError>;
}
