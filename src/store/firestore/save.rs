//! A save on Firestore: one append, and what it needs beyond that: a conditional rewrite when
//! a cap or the size limit needs the thread looked at, and the thread cap.

use firestore::gcloud_sdk::google::firestore::v1::{Document, Write};
use firestore::gcloud_sdk::prost_types::Timestamp;

use super::FirestoreStore;
use super::calls::counted;
use super::failure::{commit_error, lost_race, unavailable};
use super::index::{MAX_TERMS, held_terms, is_indexed, thread_terms, value_terms};
use super::layout::{NEWEST_MICROS, THREADS, UPDATED_AT};
use super::size::keep;
use super::tracked::Tracked;
use super::values::{entry_value, entry_values, saved_at};
use super::writes::{append_write, delete_write, entries_write, server_time, unchanged};
use crate::domain::{Entry, Namespace, Retention};
use crate::store::{Dropped, StoreError};

impl FirestoreStore {
    /// Appends `entry` to the thread as read in `current`, with one commit: moving a tracked and
    /// indexed thread's fields with atomic transforms, so that concurrent saves all land;
    /// setting any other thread's exactly, on condition that it is still as read. `None` when
    /// another write came first; [`StoreError::DocumentTooLarge`] when the thread's terms would
    /// pass [`MAX_TERMS`], so that the caller drops what the thread cannot keep.
    pub(super) async fn append(
        &self,
        name: &str,
        entry: &Entry,
        current: Option<&Document>,
        expire_at: Option<Timestamp>,
    ) -> Result<Option<()>, StoreError> {
        let value = entry_value(entry);
        let moved = current.filter(|doc| Tracked::read(doc).is_some() && is_indexed(doc));
        let write = match moved {
            Some(doc) => {
                let terms = value_terms(&value);
                if held_terms(doc) + terms.len() > MAX_TERMS {
                    return Err(StoreError::DocumentTooLarge);
                }
                append_write(name, vec![value], &terms, expire_at, None)
            }
            None => {
                let mut values = current.map(entry_values).unwrap_or_default();
                if !values.contains(&value) {
                    values.push(value.clone());
                }
                let terms = thread_terms(&values);
                if terms.len() > MAX_TERMS {
                    return Err(StoreError::DocumentTooLarge);
                }
                Write {
                    current_document: Some(unchanged(current)),
                    ..append_write(name, vec![value], &terms, expire_at, Some(&values))
                }
            }
        };
        self.commit_unless_lost(vec![write], ()).await
    }

    /// Appends `entry` after dropping what the caps and the document size limit do not
    /// keep: the whole array is written, so the thread must not change in between.
    pub(super) async fn append_within_limits(
        &self,
        name: &str,
        entry: &Entry,
        retention: &Retention,
        expire_at: Option<Timestamp>,
    ) -> Result<Dropped, StoreError> {
        let cutoff = retention.cutoff();
        self.change(name, |current| {
            let (kept, terms, dropped) =
                keep(current, name, entry, retention, cutoff, expire_at.is_some())?;
            let write = entries_write(name, kept, &terms, expire_at, vec![server_time()]);
            Ok((Some(write), dropped))
        })
        .await
    }

    /// Deletes the `excess` threads of `ns` saved to least recently, each only if still as
    /// read; how many went. When every thread is tracked, only those threads are read (by
    /// `newest_micros`, oldest first); else every thread's save time is.
    pub(super) async fn drop_least_recent(
        &self,
        ns: &Namespace,
        excess: u64,
        all_tracked: bool,
    ) -> Result<u64, StoreError> {
        if excess == 0 {
            return Ok(0);
        }
        let least_recent = if all_tracked {
            self.oldest_first(ns, excess).await?
        } else {
            let mut documents: Vec<Document> = self
                .db()
                .fluent()
                .select()
                .fields([UPDATED_AT])
                .from(THREADS)
                .parent(self.threads_path(ns))
                .query()
                .await
                .map(counted)
                .map_err(|e| unavailable("listing a namespace's threads failed", e))?;
            documents.sort_by_cached_key(|doc| (saved_at(doc), doc.name.clone()));
            documents.truncate(excess as usize);
            documents
        };
        let mut dropped = 0;
        for doc in &least_recent {
            let write = Write {
                current_document: Some(unchanged(Some(doc))),
                ..delete_write(&doc.name)
            };
            match self.commit(vec![write]).await {
                Ok(()) => dropped += 1,
                // Saved to since it was read, so no longer the least recent.
                Err(status) if lost_race(&status) => {}
                Err(status) => return Err(commit_error(status)),
            }
        }
        Ok(dropped)
    }

    /// The `limit` threads of `ns` whose newest entry is oldest, ties by name.
    async fn oldest_first(&self, ns: &Namespace, limit: u64) -> Result<Vec<Document>, StoreError> {
        self.db()
            .fluent()
            .select()
            .fields([NEWEST_MICROS])
            .from(THREADS)
            .parent(self.threads_path(ns))
            .order(|o| o.fields([o.field(NEWEST_MICROS).ascending()]))
            .limit(u32::try_from(limit).unwrap_or(u32::MAX))
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable("reading a namespace's least recent threads failed", e))
    }
}
