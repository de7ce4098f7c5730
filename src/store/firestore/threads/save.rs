//! A save on Firestore: one append, and what it needs beyond that: a conditional rewrite when
//! a cap or the size limit needs the thread looked at, and the thread cap.

use firestore::gcloud_sdk::google::firestore::v1::{Document, Write};
use firestore::gcloud_sdk::prost_types::Timestamp;

use crate::domain::{Embedded, Entry, Namespace, Retention, entry_micros};
use crate::store::firestore::FirestoreStore;
use crate::store::firestore::db::counted;
use crate::store::firestore::db::{commit_error, lost_race, unavailable};
use crate::store::firestore::document::entries::{entry_value, entry_values, saved_at};
use crate::store::firestore::document::index::{
    MAX_TERMS, held_terms, is_indexed, thread_terms, value_terms,
};
use crate::store::firestore::document::layout::{EMBEDDED_BY, NEWEST_MICROS, THREADS, UPDATED_AT};
use crate::store::firestore::document::size::keep;
use crate::store::firestore::document::tracked::Tracked;
use crate::store::firestore::document::writes::{
    append_write, delete_write, entries_write, server_time, unchanged, with_field,
};
use crate::store::firestore::vectors::document::{
    VectorOf, embedded_by, split_thread_name, vector_id, vector_write,
};
use crate::store::{Dropped, StoreError};

impl FirestoreStore {
    /// Appends `entry` to the thread as read in `current`, with one commit: moving a tracked and
    /// indexed thread's fields with atomic transforms, so that concurrent saves all land;
    /// setting any other thread's exactly, on condition that it is still as read. `None` when
    /// another write came first; [`StoreError::DocumentTooLarge`] when the thread's terms would
    /// pass [`MAX_TERMS`], so that the caller drops what the thread cannot keep.
    pub(in crate::store::firestore) async fn append(
        &self,
        name: &str,
        entry: &Entry,
        vector: Option<&Embedded>,
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
                let write = append_write(name, vec![value], &terms, expire_at, None);
                // A new entry with a vector keeps the mark as it is, whatever it is now.
                match vector {
                    Some(_) => write,
                    None => with_field(write, EMBEDDED_BY, embedded_by(current, None)),
                }
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
                let write = append_write(name, vec![value], &terms, expire_at, Some(&values));
                Write {
                    current_document: Some(unchanged(current)),
                    ..with_field(write, EMBEDDED_BY, embedded_by(current, vector))
                }
            }
        };
        let mut writes = vec![write];
        writes.extend(vector.map(|vector| entry_vector(name, entry, vector, expire_at)));
        self.db.commit_unless_lost(writes, ()).await
    }

    /// Appends `entry` after dropping what the caps and the document size limit do not
    /// keep: the whole array is written, so the thread must not change in between.
    pub(in crate::store::firestore) async fn append_within_limits(
        &self,
        name: &str,
        entry: &Entry,
        vector: Option<&Embedded>,
        retention: &Retention,
        expire_at: Option<Timestamp>,
    ) -> Result<Dropped, StoreError> {
        let cutoff = retention.cutoff();
        let along: Vec<Write> = vector
            .map(|vector| entry_vector(name, entry, vector, expire_at))
            .into_iter()
            .collect();
        let dropped = self
            .db
            .change_along(name, &along, |current| {
                let (kept, terms, dropped) =
                    keep(current, name, entry, retention, cutoff, expire_at.is_some())?;
                let write = entries_write(name, kept, &terms, expire_at, vec![server_time()]);
                let write = with_field(write, EMBEDDED_BY, embedded_by(current, vector));
                Ok((Some(write), dropped))
            })
            .await?;
        if dropped.entries > 0 {
            self.prune_vectors(name).await?;
        }
        Ok(dropped)
    }

    /// Deletes the `excess` threads of `ns` saved to least recently, each only if still as
    /// read; how many went. When every thread is tracked, only those threads are read (by
    /// `newest_micros`, oldest first); else every thread's save time is.
    pub(in crate::store::firestore) async fn drop_least_recent(
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
                .db
                .current()
                .fluent()
                .select()
                .fields([UPDATED_AT])
                .from(THREADS)
                .parent(self.db.namespace_path(ns))
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
            match self.db.commit(vec![write]).await {
                Ok(()) => {
                    dropped += 1;
                    self.prune_vectors(&doc.name).await?;
                }
                // Saved to since it was read, so no longer the least recent.
                Err(status) if lost_race(&status) => {}
                Err(status) => return Err(commit_error(status)),
            }
        }
        Ok(dropped)
    }

    /// The `limit` threads of `ns` whose newest entry is oldest, ties by name.
    async fn oldest_first(&self, ns: &Namespace, limit: u64) -> Result<Vec<Document>, StoreError> {
        self.db
            .current()
            .fluent()
            .select()
            .fields([NEWEST_MICROS])
            .from(THREADS)
            .parent(self.db.namespace_path(ns))
            .order(|o| o.fields([o.field(NEWEST_MICROS).ascending()]))
            .limit(u32::try_from(limit).unwrap_or(u32::MAX))
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable("reading a namespace's least recent threads failed", e))
    }
}

/// The vector document of `entry`, appended to the thread document `name`.
fn entry_vector(
    name: &str,
    entry: &Entry,
    vector: &Embedded,
    expire_at: Option<Timestamp>,
) -> Write {
    let (_, thread) = split_thread_name(name);
    let at = entry_micros(&entry.timestamp);
    let id = vector_id(thread, at, &entry.summary);
    let of = VectorOf {
        thread: name,
        at,
        id: &id,
    };
    vector_write(&of, vector, expire_at)
}
