use std::future::Future;
use std::time::Duration;

use async_trait::async_trait;

use super::{MemoryStore, StoreError};
use crate::domain::{Entry, Filter, Located, Namespace, Page, Query, ThreadId};

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
    ) -> Result<(), StoreError> {
        self.bound(self.inner.save(ns, thread, entry)).await
    }

    async fn count(&self, ns: &Namespace) -> Result<u64, StoreError> {
        self.bound(self.inner.count(ns)).await
    }

    async fn page(
        &self,
        ns: &Namespace,
        filter: &Filter,
        budget_chars: usize,
    ) -> Result<Page, StoreError> {
        self.bound(self.inner.page(ns, filter, budget_chars)).await
    }

    async fn candidates(
        &self,
        ns: &Namespace,
        filter: &Filter,
        query: &Query,
    ) -> Result<Vec<Located>, StoreError> {
        self.bound(self.inner.candidates(ns, filter, query)).await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.bound(self.inner.ping()).await
    }
}
