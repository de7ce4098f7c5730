//! The memory store's operations on Firestore, each across the parts it touches: a save appends
//! to its thread (threads/save.rs) with its vector, a forget prunes the vectors it leaves.

use async_trait::async_trait;
use firestore::gcloud_sdk::google::firestore::v1::Value;

use super::FirestoreStore;
use super::db::Tries;
use super::document::entries::{
    document_id, entry_values, expiry, newest_entry, thread_entries, value_micros,
};
use super::document::index::thread_terms;
use super::document::writes::{delete_write, entries_write};
use super::shapes::Shape;
use crate::domain::Counts;
use crate::domain::{
    Embedded, Entry, Filter, Located, ModelId, Namespace, Page, PageBuilder, Profile, ProfileDraft,
    ProfileWrite, Retention, Thread, ThreadId, Vector,
};
use crate::search::{Candidate, Query, TermCounts};
use crate::store::{Dropped, MemoryStore, NamespaceStats, SaveOutcome, StoreError};

#[async_trait]
impl MemoryStore for FirestoreStore {
    /// Reads the thread (to answer a repeated save with the entry it repeats, and to tell a new
    /// thread) and counts the namespace's threads, at once; then appends `entry` with one commit
    /// (threads/save.rs), read again only when another write to an untracked thread came first, or
    /// when the thread has to be looked at: a cap on its entries, or a first try that would have
    /// passed the size limit. Then enforces the thread cap. Two identical saves at once may both
    /// land: a repeat is a retry, which comes after the save it repeats.
    async fn save(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        entry: &Entry,
        vector: Option<&Embedded>,
        retention: &Retention,
    ) -> Result<SaveOutcome, StoreError> {
        let name = self.db.thread_path(ns, thread);
        let (current, counted) = tokio::join!(self.db.get(&name), self.count(ns));
        let (mut current, counted) = (current?, counted?);
        let threads = counted.all.threads;
        let expire_at = expiry(retention);
        let mut tries = Tries::default();
        let (mut dropped, new_thread) = loop {
            if !tries.next().await {
                return Err(StoreError::Contended);
            }
            let newest = current.as_ref().and_then(newest_entry);
            if let Some(newest) = newest.filter(|newest| entry.repeats(newest)) {
                return Ok(SaveOutcome {
                    thread_count: threads,
                    repeat_of: Some(newest),
                    ..SaveOutcome::default()
                });
            }
            let new_thread = current.is_none();
            if retention.max_entries_per_thread.is_none() {
                let appended = self
                    .append(&name, entry, vector, current.as_ref(), expire_at)
                    .await;
                match appended {
                    Ok(Some(())) => break (Dropped::default(), new_thread),
                    Ok(None) => {
                        current = self.db.get(&name).await?;
                        continue;
                    }
                    Err(StoreError::DocumentTooLarge) => {}
                    Err(other) => return Err(other),
                }
            }
            // A cap on the thread's entries, or the size limit, needs the thread looked at.
            let dropped = self
                .append_within_limits(&name, entry, vector, retention, expire_at)
                .await?;
            break (dropped, new_thread);
        };
        // Counted before the save: a thread it created is one more.
        let mut thread_count = threads + u64::from(new_thread);
        if let Some(max) = retention.max_threads {
            let excess = thread_count.saturating_sub(max.get().into());
            dropped.threads = self
                .drop_least_recent(ns, excess, counted.all_tracked())
                .await?;
            thread_count -= dropped.threads;
        }
        Ok(SaveOutcome {
            dropped,
            thread_count,
            new_thread,
            repeat_of: None,
        })
    }

    async fn page(
        &self,
        ns: &Namespace,
        filter: &Filter,
        page: PageBuilder,
    ) -> Result<Page, StoreError> {
        let small = self.whole_if_small(ns, filter).await?;
        self.page_of(ns, small, filter, page).await
    }

    /// A namespace this instance saw small without a profile is read in one call (load/at_once.rs).
    /// Else a small namespace is read beside the profile, and paged once the profile's share of
    /// the budget is known; a large one is read in order after it, within what the profile
    /// leaves.
    async fn first_page(
        &self,
        ns: &Namespace,
        filter: &Filter,
        not_before: Option<i64>,
        budget_chars: usize,
    ) -> Result<(Option<Profile>, Page), StoreError> {
        if let Some(Shape::Small {
            newest_version: None,
            threads,
        }) = self.shapes.of(ns)
            && filter.thread.is_none()
            && let Some(read) = self.at_once(ns, threads).await?
        {
            let threads = read.threads.len();
            let (profile, page) =
                self.seen_small(ns, read.newest, threads, not_before, budget_chars);
            return Ok((profile, self.small_page(ns, &read.threads, filter, page)));
        }
        let (newest, small) = tokio::join!(
            self.read_profile(ns, None, None),
            self.whole_if_small(ns, filter)
        );
        let (newest, small) = (newest?, small?);
        let (profile, page) = match &small {
            Some(threads) => self.seen_small(ns, newest, threads.len(), not_before, budget_chars),
            None => PageBuilder::after_profile(
                newest.filter(|p| p.written_since(not_before)),
                budget_chars,
            ),
        };
        Ok((profile, self.page_of(ns, small, filter, page).await?))
    }

    async fn term_counts(&self, ns: &Namespace, query: &Query) -> Result<TermCounts, StoreError> {
        self.indexed_term_counts(ns, query).await
    }

    async fn candidates(
        &self,
        ns: &Namespace,
        filter: &Filter,
        terms: &[String],
    ) -> Result<Vec<Candidate>, StoreError> {
        self.indexed_candidates(ns, filter, terms).await
    }

    async fn nearest(
        &self,
        ns: &Namespace,
        filter: &Filter,
        meaning: &Embedded,
    ) -> Result<Vec<Located>, StoreError> {
        self.nearest_entries(ns, filter, meaning).await
    }

    async fn recent_vectors(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        model: &ModelId,
        since: i64,
    ) -> Result<Vec<(Entry, Vector)>, StoreError> {
        self.recent_entry_vectors(ns, thread, model, since).await
    }

    async fn forget(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        at: Option<i64>,
    ) -> Result<Counts, StoreError> {
        let name = self.db.thread_path(ns, thread);
        let counts = self
            .db
            .change(&name, |current| {
                let Some(doc) = current else {
                    return Ok((None, Counts::default()));
                };
                let (gone, kept): (Vec<Value>, Vec<Value>) = entry_values(doc)
                    .into_iter()
                    .partition(|v| at.is_none_or(|at| value_micros(v) == at));
                let counts = Counts {
                    threads: u64::from(kept.is_empty()),
                    entries: gone.len() as u64,
                };
                let write = if kept.is_empty() {
                    Some(delete_write(&name))
                } else if gone.is_empty() {
                    None
                } else {
                    let terms = thread_terms(&kept);
                    Some(entries_write(&name, kept, &terms, None, Vec::new()))
                };
                Ok((write, counts))
            })
            .await?;
        if counts.entries > 0 {
            self.prune_vectors(&name).await?;
        }
        Ok(counts)
    }

    async fn namespaces(&self) -> Result<Vec<NamespaceStats>, StoreError> {
        self.namespace_stats().await
    }

    async fn namespace_names(&self) -> Result<Vec<String>, StoreError> {
        self.db.namespace_names().await
    }

    async fn threads_page(
        &self,
        ns: &Namespace,
        after: Option<&str>,
        limit: u32,
    ) -> Result<Vec<Thread>, StoreError> {
        Ok(self
            .thread_page_documents(ns, after, limit)
            .await?
            .iter()
            .map(|doc| Thread {
                id: document_id(doc),
                entries: thread_entries(doc)
                    .into_iter()
                    .map(|item| item.entry)
                    .collect(),
            })
            .collect())
    }

    async fn delete_namespace(&self, ns: &Namespace) -> Result<Counts, StoreError> {
        let documents = self.thread_documents(ns).await?;
        let held = Counts {
            threads: documents.len() as u64,
            entries: documents
                .iter()
                .map(|d| thread_entries(d).len() as u64)
                .sum(),
        };
        let names: Vec<String> = documents.into_iter().map(|doc| doc.name).collect();
        self.db.delete_all(&names).await?;
        self.delete_vectors(ns).await?;
        self.forget_profile_versions(ns).await?;
        Ok(held)
    }

    async fn profile(
        &self,
        ns: &Namespace,
        version: Option<u64>,
        not_before: Option<i64>,
    ) -> Result<Option<Profile>, StoreError> {
        self.read_profile(ns, version, not_before).await
    }

    async fn write_profile(
        &self,
        ns: &Namespace,
        draft: &ProfileDraft,
        retention: &Retention,
    ) -> Result<ProfileWrite, StoreError> {
        let write = self.write_profile_version(ns, draft, retention).await?;
        if let ProfileWrite::Written(written) = &write {
            self.shapes.profile_now(ns, Some(written.version));
        }
        Ok(write)
    }

    async fn profile_versions(&self, ns: &Namespace) -> Result<Vec<Profile>, StoreError> {
        self.profile_versions_of(ns).await
    }

    async fn forget_profile(&self, ns: &Namespace) -> Result<u64, StoreError> {
        let forgotten = self.forget_profile_versions(ns).await?;
        self.shapes.profile_now(ns, None);
        Ok(forgotten)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.db.ping().await
    }
}
