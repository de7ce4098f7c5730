//! A time limit on every call of a store.

use std::future::Future;
use std::time::Duration;

use async_trait::async_trait;

use super::{Counts, MemoryStore, NamespaceStats, SaveOutcome, StoreError};
use crate::domain::{
    Entry, Filter, Located, Namespace, Page, PageBuilder, Query, Retention, Thread, ThreadId,
};

/// Puts a time limit on every call of the store it wraps, so a stuck store answers
/// [`StoreError::Timeout`] instead of hanging the request.
pub struct Bounded<S> {
    inner: S,
    limit: Duration,
}

impl<S> Bounded<S> {
    pub fn new(inner: S, limit: Duration) -> Self {
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
        retention: &Retention,
    ) -> Result<SaveOutcome, StoreError> {
        self.bound(self.inner.save(ns, thread, entry, retention))
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

    async fn candidates(
        &self,
        ns: &Namespace,
        filter: &Filter,
        query: &Query,
    ) -> Result<Vec<Located>, StoreError> {
        self.bound(self.inner.candidates(ns, filter, query)).await
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

    async fn threads(&self, ns: &Namespace) -> Result<Vec<Thread>, StoreError> {
        self.bound(self.inner.threads(ns)).await
    }

    async fn import(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        entries: &[Entry],
    ) -> Result<u64, StoreError> {
        self.bound(self.inner.import(ns, thread, entries)).await
    }

    async fn delete_namespace(&self, ns: &Namespace) -> Result<Counts, StoreError> {
        self.bound(self.inner.delete_namespace(ns)).await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.bound(self.inner.ping()).await
    }
}
