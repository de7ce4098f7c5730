//! The backfill: sets the tracked fields and the search index of threads that lack them, or
//! whose fields no longer hold (the original function's threads, kioku's from before the
//! fields, and those indexed by another version of the terms), so that loads of their
//! namespaces read in order and searches read only the threads holding their terms.
//! Idempotent and resumable: it reads each namespace's threads a page at a time, by id, and
//! writes only those whose fields do not hold, each only if still as read.

use std::collections::HashMap;

use firestore::gcloud_sdk::google::firestore::v1::{Document, Value, Write};

use crate::domain::Namespace;
use crate::store::StoreError;
use crate::store::firestore::FirestoreStore;
use crate::store::firestore::document::entries::{document_id, entry_values, string_value};
use crate::store::firestore::document::index::{self, MAX_TERMS, is_indexed, thread_terms};
use crate::store::firestore::document::layout::EMBEDDED_BY;
use crate::store::firestore::document::size::fits;
use crate::store::firestore::document::tracked::{Tracked, is_tracked};
use crate::store::firestore::document::writes::{unchanged, update};
use crate::store::firestore::vectors::document::marked;

/// Threads a backfill holds at once.
const PAGE: u32 = 100;

impl FirestoreStore {
    /// Starts, in the background, the backfill of `ns`, unless it is already under way here.
    pub(in crate::store::firestore) fn start_backfill(&self, ns: &Namespace) {
        let name = ns.name().to_owned();
        let started = self
            .backfills
            .running
            .lock()
            .is_ok_and(|mut running| running.insert(name.clone()));
        if !started {
            return;
        }
        let (store, ns) = (self.clone(), ns.clone());
        tokio::spawn(async move {
            let permit = store.backfills.one_at_a_time.acquire().await;
            match store.backfill(Some(&ns)).await {
                Ok(threads) => tracing::info!(
                    namespace = ns.label(),
                    threads,
                    "tracked the threads a load found untracked"
                ),
                Err(err) => tracing::warn!(
                    namespace = ns.label(),
                    error = %err,
                    "the backfill stopped; the next load starts it again"
                ),
            }
            drop(permit);
            if let Ok(mut running) = store.backfills.running.lock() {
                running.remove(&name);
            }
        });
    }

    /// Tracks every thread of `ns`, or of every namespace; answers how many it wrote.
    pub async fn backfill(&self, ns: Option<&Namespace>) -> Result<u64, StoreError> {
        let namespaces = match ns {
            Some(ns) => vec![ns.clone()],
            None => self
                .db
                .namespace_names()
                .await?
                .iter()
                .map(|name| Namespace::named(name))
                .collect::<Result<_, _>>()
                .map_err(|problem| {
                    StoreError::failed("a stored namespace is unreadable", problem)
                })?,
        };
        let mut written = 0;
        for ns in &namespaces {
            let mut after: Option<String> = None;
            loop {
                let documents = self
                    .thread_page_documents(ns, after.as_deref(), PAGE)
                    .await?;
                for doc in &documents {
                    if needs_backfill(doc) {
                        written += self.track(doc).await?;
                    }
                }
                if documents.len() < PAGE as usize {
                    break;
                }
                after = documents.last().map(document_id);
            }
        }
        Ok(written)
    }

    /// Sets `doc`'s tracked fields and search index from its entries, if it is still as read;
    /// reads it again when a save came between. Answers 1 when it wrote.
    async fn track(&self, doc: &Document) -> Result<u64, StoreError> {
        let write = |doc: &Document| Write {
            current_document: Some(unchanged(Some(doc))),
            ..update(&doc.name, backfilled(doc), Vec::new())
        };
        if let Some(written) = self.db.commit_unless_lost(vec![write(doc)], 1).await? {
            return Ok(written);
        }
        self.db
            .change(&doc.name, |current| match current {
                Some(doc) if needs_backfill(doc) => Ok((Some(write(doc)), 1)),
                _ => Ok((None, 0)),
            })
            .await
    }
}

/// Whether the backfill has something to write to `doc`: its tracked fields do not hold, or
/// it is not indexed by this version and can be.
fn needs_backfill(doc: &Document) -> bool {
    !is_tracked(doc)
        || !doc.fields.contains_key(EMBEDDED_BY)
        || (!is_indexed(doc) && index_within_limits(doc).is_some())
}

/// The fields the backfill sets on `doc`: the tracked fields, the search index when the
/// document can hold it, and its vectors' mark when it has none (`""`: the vector backfill
/// reads it).
fn backfilled(doc: &Document) -> HashMap<String, Value> {
    let mut fields = Tracked::of(&entry_values(doc)).fields();
    fields.insert(EMBEDDED_BY.to_owned(), string_value(marked(doc)));
    fields.extend(index_within_limits(doc).unwrap_or_default());
    fields
}

/// `doc`'s search index, if the document stays within Firestore's limits with it. One that
/// does not (the original function wrote it near 1 MiB) keeps its namespace's searches reading
/// every thread, until a save to it drops what the thread cannot keep.
fn index_within_limits(doc: &Document) -> Option<HashMap<String, Value>> {
    let values = entry_values(doc);
    let terms = thread_terms(&values);
    if terms.len() > MAX_TERMS {
        return None;
    }
    let index = index::fields(&terms);
    let mut fields = doc.fields.clone();
    fields.extend(Tracked::of(&values).fields());
    fields.extend(index.clone());
    fits(&doc.name, &fields).then_some(index)
}
