//! The contract every backend keeps: what a request asks a store to keep and to find. The
//! store only stores; ranking a search is [`search`](crate::search)'s.

use async_trait::async_trait;

use super::{NamespaceStats, SaveOutcome, StoreError};
use crate::domain::Counts;
use crate::domain::{
    Embedded, Entry, Filter, Located, ModelId, Namespace, Page, PageBuilder, Profile, ProfileDraft,
    ProfileWrite, Retention, Thread, ThreadId, Vector,
};
use crate::search::{Candidate, Query, TermCounts};

#[async_trait]
pub trait MemoryStore: Send + Sync {
    /// Appends `entry` to the thread, creating the thread if it is new, then drops what
    /// `retention`'s caps and the store's size limit do not keep, and counts the namespace's
    /// threads. Concurrent saves, to one thread or many, all land. A save that
    /// [repeats](Entry::repeats) the thread's newest entry stores nothing and answers it.
    /// `vector`, the entry's meaning, is stored with it, and forgotten with it.
    async fn save(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        entry: &Entry,
        vector: Option<&Embedded>,
        retention: &Retention,
    ) -> Result<SaveOutcome, StoreError>;

    /// Gives `page` the entries `filter` admits, in [`Located::load_order`], until it is full;
    /// then the totals it needs to say what it left out.
    async fn page(
        &self,
        ns: &Namespace,
        filter: &Filter,
        page: PageBuilder,
    ) -> Result<Page, StoreError>;

    /// The first page of a load without filters: the newest profile written at or after
    /// `not_before`, then the page within what it leaves of `budget_chars`
    /// ([`PageBuilder::after_profile`]). A backend may read the two at once.
    async fn first_page(
        &self,
        ns: &Namespace,
        filter: &Filter,
        not_before: Option<i64>,
        budget_chars: usize,
    ) -> Result<(Option<Profile>, Page), StoreError> {
        let profile = self.profile(ns, None, not_before).await?;
        let (profile, page) = PageBuilder::after_profile(profile, budget_chars);
        Ok((profile, self.page(ns, filter, page).await?))
    }

    /// How many of the namespace's documents hold each of `query`'s terms, and how many
    /// documents it holds (see [`TermCounts`]).
    async fn term_counts(&self, ns: &Namespace, query: &Query) -> Result<TermCounts, StoreError>;

    /// Entries `filter` admits that hold at least one of `terms`, in no order: every one, or
    /// when more do, [`MAX_CANDIDATES`](crate::search::MAX_CANDIDATES) of them (those the store
    /// finds first: SQLite the most recently stored, Firestore the first threads by id).
    async fn candidates(
        &self,
        ns: &Namespace,
        filter: &Filter,
        terms: &[String],
    ) -> Result<Vec<Candidate>, StoreError>;

    /// The [`MAX_NEAREST`](crate::search::MAX_NEAREST) entries `filter` admits whose vectors, of `meaning`'s model, are
    /// closest to it, closest first. Entries without a vector of that model are not among them.
    async fn nearest(
        &self,
        ns: &Namespace,
        filter: &Filter,
        meaning: &Embedded,
    ) -> Result<Vec<Located>, StoreError>;

    /// The thread's entries saved at or after `since` (in
    /// [`entry_micros`](crate::domain::entry_micros)) that have a vector of `model`, each with it.
    async fn recent_vectors(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        model: &ModelId,
        since: i64,
    ) -> Result<Vec<(Entry, Vector)>, StoreError>;

    /// Removes the thread, or only its entries saved at `at` (in
    /// [`entry_micros`](crate::domain::entry_micros)); a thread left without entries is gone.
    async fn forget(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        at: Option<i64>,
    ) -> Result<Counts, StoreError>;

    /// Every namespace that holds a thread or a profile, by name, with what it holds.
    async fn namespaces(&self) -> Result<Vec<NamespaceStats>, StoreError>;

    /// The names of the namespaces [`namespaces`](Self::namespaces) lists, sorted, without
    /// reading their threads: what an export of a whole database starts from.
    async fn namespace_names(&self) -> Result<Vec<String>, StoreError>;

    /// Up to `limit` of the namespace's threads by id, from the first after `after` (the id of
    /// the last thread of the page before, as this answered it: a stored id need not pass
    /// [`ThreadId::parse`], the original function having written it), each with its entries in
    /// the order they were saved. A page shorter than `limit` is the last. A thread document
    /// the original left without entries comes with none, so that it still moves the cursor.
    async fn threads_page(
        &self,
        ns: &Namespace,
        after: Option<&str>,
        limit: u32,
    ) -> Result<Vec<Thread>, StoreError>;

    /// Removes every thread and the profile of the namespace; returns the threads it held.
    async fn delete_namespace(&self, ns: &Namespace) -> Result<Counts, StoreError>;

    /// The namespace's profile now, or its version `version`; none written before
    /// `not_before` (in [`entry_micros`](crate::domain::entry_micros)).
    async fn profile(
        &self,
        ns: &Namespace,
        version: Option<u64>,
        not_before: Option<i64>,
    ) -> Result<Option<Profile>, StoreError>;

    /// Stores `draft` as the profile's next version, unless the draft may not replace the
    /// current one (see [`ProfileDraft::after`]; the newest within `retention`'s age): then
    /// answers that one and stores nothing. Keeps the newest
    /// [`KEPT_PROFILE_VERSIONS`](crate::domain::KEPT_PROFILE_VERSIONS), and none past their
    /// age. Of concurrent rewrites expecting one version, one lands.
    async fn write_profile(
        &self,
        ns: &Namespace,
        draft: &ProfileDraft,
        retention: &Retention,
    ) -> Result<ProfileWrite, StoreError>;

    /// Every version of the profile it keeps, oldest first.
    async fn profile_versions(&self, ns: &Namespace) -> Result<Vec<Profile>, StoreError>;

    /// Forgets every version of the profile; returns how many there were.
    async fn forget_profile(&self, ns: &Namespace) -> Result<u64, StoreError>;

    /// Succeeds when the store can serve requests.
    async fn ping(&self) -> Result<(), StoreError>;
}
