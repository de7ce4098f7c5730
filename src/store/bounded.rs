//! A time limit on every call a request makes of a store.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{
    Client, Counts, Credential, Grant, GrantStore, MemoryStore, NamespaceStats, Redeemed,
    SaveOutcome, StoreError,
};
use crate::domain::{
    Candidate, Embedded, Entry, Filter, Located, ModelId, Namespace, Page, PageBuilder, Profile,
    ProfileDraft, ProfileWrite, Query, Results, Retention, SearchCursor, TermCounts, Thread,
    ThreadId, Vector,
};

/// Puts a time limit on every request-path call ([`MemoryStore`], [`GrantStore`]) of the store
/// it wraps, so a stuck store answers [`StoreError::Timeout`] instead of hanging the request.
/// The call is dropped then, and the blocking work it started (a SQLite query, a search's ranking) learns that its caller gave
/// up, and stops: it would otherwise go on holding the connection or a core.
pub struct Bounded<S> {
    inner: Arc<S>,
    limit: Duration,
}

impl<S> Bounded<S> {
    /// `inner` is shared: [`Maintenance`](super::Maintenance) work calls it directly.
    pub fn new(inner: Arc<S>, limit: Duration) -> Self {
        Self { inner, limit }
    }

    async fn bound<T>(
        &self,
        call: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        tokio::time::timeout(self.limit, call)
            .await
            .unwrap_or(Err(StoreError::Timeout(self.limit.as_secs())))
    }
}

#[async_trait]
impl<S: MemoryStore> MemoryStore for Bounded<S> {
    async fn save(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        entry: &Entry,
        vector: Option<&Embedded>,
        retention: &Retention,
    ) -> Result<SaveOutcome, StoreError> {
        self.bound(self.inner.save(ns, thread, entry, vector, retention))
            .await
    }

    async fn page(
        &self,
        ns: &Namespace,
        filter: &Filter,
        page: PageBuilder,
    ) -> Result<Page, StoreError> {
        self.bound(self.inner.page(ns, filter, page)).await
    }

    async fn first_page(
        &self,
        ns: &Namespace,
        filter: &Filter,
        not_before: Option<i64>,
        budget_chars: usize,
    ) -> Result<(Option<Profile>, Page), StoreError> {
        self.bound(self.inner.first_page(ns, filter, not_before, budget_chars))
            .await
    }

    async fn term_counts(&self, ns: &Namespace, query: &Query) -> Result<TermCounts, StoreError> {
        self.bound(self.inner.term_counts(ns, query)).await
    }

    async fn candidates(
        &self,
        ns: &Namespace,
        filter: &Filter,
        terms: &[String],
    ) -> Result<Vec<Candidate>, StoreError> {
        self.bound(self.inner.candidates(ns, filter, terms)).await
    }

    async fn nearest(
        &self,
        ns: &Namespace,
        filter: &Filter,
        meaning: &Embedded,
    ) -> Result<Vec<Located>, StoreError> {
        self.bound(self.inner.nearest(ns, filter, meaning)).await
    }

    async fn recent_vectors(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        model: &ModelId,
        since: i64,
    ) -> Result<Vec<(Entry, Vector)>, StoreError> {
        self.bound(self.inner.recent_vectors(ns, thread, model, since))
            .await
    }

    /// The read and the ranking, within one limit.
    async fn search(
        &self,
        ns: &Namespace,
        filter: &Filter,
        query: &Query,
        meaning: Option<&Embedded>,
        after: Option<SearchCursor>,
        budget_chars: usize,
    ) -> Result<Results, StoreError> {
        self.bound(
            self.inner
                .search(ns, filter, query, meaning, after, budget_chars),
        )
        .await
    }

    async fn forget(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        at: Option<i64>,
    ) -> Result<Counts, StoreError> {
        self.bound(self.inner.forget(ns, thread, at)).await
    }

    async fn namespaces(&self) -> Result<Vec<NamespaceStats>, StoreError> {
        self.bound(self.inner.namespaces()).await
    }

    async fn namespace_names(&self) -> Result<Vec<String>, StoreError> {
        self.bound(self.inner.namespace_names()).await
    }

    async fn threads_page(
        &self,
        ns: &Namespace,
        after: Option<&str>,
        limit: u32,
    ) -> Result<Vec<Thread>, StoreError> {
        self.bound(self.inner.threads_page(ns, after, limit)).await
    }

    async fn delete_namespace(&self, ns: &Namespace) -> Result<Counts, StoreError> {
        self.bound(self.inner.delete_namespace(ns)).await
    }

    async fn profile(
        &self,
        ns: &Namespace,
        version: Option<u64>,
        not_before: Option<i64>,
    ) -> Result<Option<Profile>, StoreError> {
        self.bound(self.inner.profile(ns, version, not_before))
            .await
    }

    async fn write_profile(
        &self,
        ns: &Namespace,
        draft: &ProfileDraft,
        retention: &Retention,
    ) -> Result<ProfileWrite, StoreError> {
        self.bound(self.inner.write_profile(ns, draft, retention))
            .await
    }

    async fn profile_versions(&self, ns: &Namespace) -> Result<Vec<Profile>, StoreError> {
        self.bound(self.inner.profile_versions(ns)).await
    }

    async fn forget_profile(&self, ns: &Namespace) -> Result<u64, StoreError> {
        self.bound(self.inner.forget_profile(ns)).await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.bound(self.inner.ping()).await
    }
}

#[async_trait]
impl<S: GrantStore> GrantStore for Bounded<S> {
    async fn put_client(&self, client: &Client) -> Result<(), StoreError> {
        self.bound(self.inner.put_client(client)).await
    }

    async fn client(&self, id: &str) -> Result<Option<Client>, StoreError> {
        self.bound(self.inner.client(id)).await
    }

    async fn clients(&self, after: Option<&str>, limit: u32) -> Result<Vec<Client>, StoreError> {
        self.bound(self.inner.clients(after, limit)).await
    }

    async fn put_grant(&self, grant: &Grant) -> Result<(), StoreError> {
        self.bound(self.inner.put_grant(grant)).await
    }

    async fn grant(&self, id: &str) -> Result<Option<Grant>, StoreError> {
        self.bound(self.inner.grant(id)).await
    }

    async fn grants(&self, namespace: &str) -> Result<Vec<Grant>, StoreError> {
        self.bound(self.inner.grants(namespace)).await
    }

    async fn issue(
        &self,
        grant_id: &str,
        expires_at: DateTime<Utc>,
        credentials: &[Credential],
    ) -> Result<bool, StoreError> {
        self.bound(self.inner.issue(grant_id, expires_at, credentials))
            .await
    }

    async fn revoke_grant(&self, id: &str) -> Result<bool, StoreError> {
        self.bound(self.inner.revoke_grant(id)).await
    }

    async fn put_credential(&self, credential: &Credential) -> Result<(), StoreError> {
        self.bound(self.inner.put_credential(credential)).await
    }

    async fn credential(&self, digest: &str) -> Result<Option<Credential>, StoreError> {
        self.bound(self.inner.credential(digest)).await
    }

    async fn redeem(
        &self,
        digest: &str,
        keep_until: Option<DateTime<Utc>>,
    ) -> Result<Redeemed, StoreError> {
        self.bound(self.inner.redeem(digest, keep_until)).await
    }

    async fn purge_expired(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        self.bound(self.inner.purge_expired(now)).await
    }
}
