//! Each entry's vector, for search by meaning: a document per entry in
//! `memory/{namespace}/vectors` (document/layout.rs), written in the commit that saves the
//! entry, found with `findNearest`, and deleted when its entry goes. A vector outliving its
//! entry (a race with a forget, or a thread deleted by its TTL first) is never answered: every
//! hit is looked up in its thread. The backfill embeds what was saved without a vector
//! (backfill.rs).

pub mod backfill;
pub mod document;

use std::collections::{HashMap, HashSet};

use firestore::gcloud_sdk::google::firestore::v1::Document;
use firestore::{FirestoreFindNearestDistanceMeasure, FirestoreVector};
use futures_util::TryStreamExt;

use crate::domain::{Embedded, Entry, Filter, Located, ModelId, Namespace, ThreadId, Vector};
use crate::search::MAX_NEAREST;
use crate::store::firestore::FirestoreStore;
use crate::store::firestore::db::counted;
use crate::store::firestore::db::unavailable;
use crate::store::firestore::document::entries::{document_id, string_value, thread_entries};
use crate::store::firestore::document::layout::{EMBEDDING, MODEL, THREAD, THREADS, VECTORS};
use crate::store::{StoreError, usage};
use document::{split_thread_name, stored_vector, thread_of, vector_id};

impl FirestoreStore {
    /// The entries `filter` admits whose vectors of `meaning`'s model are nearest to it,
    /// nearest first: with a thread filter, that thread's vectors, compared here; else
    /// `findNearest` over the namespace (the vector index of docs/deploy.md), whose nearest
    /// [`MAX_NEAREST`] the time filters then narrow.
    pub(in crate::store::firestore) async fn nearest_entries(
        &self,
        ns: &Namespace,
        filter: &Filter,
        meaning: &Embedded,
    ) -> Result<Vec<Located>, StoreError> {
        let hits = match &filter.thread {
            Some(thread) => {
                let mut scored: Vec<(f32, Document)> = self
                    .thread_vectors(
                        &self.db.namespace_path(ns),
                        thread.as_str(),
                        Some(&meaning.model),
                        true,
                    )
                    .await?
                    .into_iter()
                    .filter_map(|doc| Some((meaning.vector.cosine(&stored_vector(&doc)?), doc)))
                    .collect();
                scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
                scored.truncate(MAX_NEAREST);
                scored.into_iter().map(|(_, doc)| doc).collect()
            }
            None => self.find_nearest(ns, meaning).await?,
        };
        let ids: HashSet<String> = hits
            .iter()
            .filter_map(thread_of)
            .map(str::to_owned)
            .collect();
        let ids: Vec<&String> = ids.iter().collect();
        let threads = self
            .documents_by_id(&self.db.namespace_path(ns), THREADS, &ids)
            .await?;
        let entries: HashMap<String, Located> = threads
            .iter()
            .flat_map(thread_entries)
            .map(|item| {
                let id = vector_id(&item.thread_id, item.at, &item.entry.summary);
                (id, item)
            })
            .collect();
        Ok(hits
            .iter()
            .filter_map(|hit| entries.get(&document_id(hit)))
            .filter(|item| filter.admits(item))
            .cloned()
            .collect())
    }

    async fn find_nearest(
        &self,
        ns: &Namespace,
        meaning: &Embedded,
    ) -> Result<Vec<Document>, StoreError> {
        let model = meaning.model.as_str().to_owned();
        let query = FirestoreVector::new(
            meaning
                .vector
                .values()
                .iter()
                .map(|v| f64::from(*v))
                .collect(),
        );
        self.db
            .current()
            .fluent()
            .select()
            .fields([THREAD])
            .from(VECTORS)
            .parent(self.db.namespace_path(ns))
            .filter(|q| q.field(MODEL).eq(model.clone()))
            .find_nearest(
                EMBEDDING,
                query,
                FirestoreFindNearestDistanceMeasure::Cosine,
                MAX_NEAREST as u32,
            )
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable("finding the nearest vectors failed", e))
    }

    /// The vector documents of `thread` in the namespace document `parent` (of `model` only,
    /// when given), whole when `whole`, else with no field.
    pub(in crate::store::firestore) async fn thread_vectors(
        &self,
        parent: &str,
        thread: &str,
        model: Option<&ModelId>,
        whole: bool,
    ) -> Result<Vec<Document>, StoreError> {
        let db = self.db.current();
        let select = db.fluent().select();
        let select = if whole {
            select
        } else {
            select.fields([THREAD])
        };
        select
            .from(VECTORS)
            .parent(parent)
            .filter(|q| {
                q.for_all([
                    q.field(THREAD).eq(thread),
                    model.and_then(|m| q.field(MODEL).eq(m.as_str())),
                ])
            })
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable("reading a thread's vectors failed", e))
    }

    /// The documents of `collection` under `parent` with these ids, those that exist, in one
    /// call.
    async fn documents_by_id(
        &self,
        parent: &str,
        collection: &str,
        ids: &[&String],
    ) -> Result<Vec<Document>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        usage::read(ids.len() as u64);
        self.db
            .current()
            .fluent()
            .select()
            .by_id_in(collection)
            .parent(parent)
            .batch_with_errors(ids.iter().map(|id| id.as_str()))
            .await
            .map_err(|e| unavailable("reading documents by id failed", e))?
            .map_ok(|(_, doc)| doc)
            .try_collect::<Vec<_>>()
            .await
            .map(|docs| docs.into_iter().flatten().collect())
            .map_err(|e| unavailable("reading documents by id failed", e))
    }

    /// Deletes the vectors of `thread` whose entries it no longer holds: after a forget, or
    /// entries dropped by a cap, or the thread's deletion. The vectors are read before the
    /// thread, so that one saved in between, with its entry, stays.
    pub(in crate::store::firestore) async fn prune_vectors(
        &self,
        name: &str,
    ) -> Result<(), StoreError> {
        let (parent, thread) = split_thread_name(name);
        let vectors = self.thread_vectors(parent, thread, None, false).await?;
        if vectors.is_empty() {
            return Ok(());
        }
        let held: HashSet<String> = self
            .db
            .get(name)
            .await?
            .iter()
            .flat_map(thread_entries)
            .map(|item| vector_id(&item.thread_id, item.at, &item.entry.summary))
            .collect();
        let gone: Vec<String> = vectors
            .into_iter()
            .filter(|doc| !held.contains(&document_id(doc)))
            .map(|doc| doc.name)
            .collect();
        self.db.delete_all(&gone).await
    }

    /// The entries of `thread` saved at or after `since` with a vector of `model`, each with
    /// it: the thread, then those entries' vector documents, by id, in one call.
    pub(in crate::store::firestore) async fn recent_entry_vectors(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        model: &ModelId,
        since: i64,
    ) -> Result<Vec<(Entry, Vector)>, StoreError> {
        let Some(doc) = self.db.get(&self.db.thread_path(ns, thread)).await? else {
            return Ok(Vec::new());
        };
        let recent: HashMap<String, Entry> = thread_entries(&doc)
            .into_iter()
            .filter(|item| item.at >= since)
            .map(|item| {
                let id = vector_id(&item.thread_id, item.at, &item.entry.summary);
                (id, item.entry)
            })
            .collect();
        let ids: Vec<&String> = recent.keys().collect();
        let vectors = self
            .documents_by_id(&self.db.namespace_path(ns), VECTORS, &ids)
            .await?;
        Ok(vectors
            .iter()
            .filter(|doc| doc.fields.get(MODEL) == Some(&string_value(model.as_str())))
            .filter_map(|doc| Some((recent.get(&document_id(doc))?.clone(), stored_vector(doc)?)))
            .collect())
    }

    /// Deletes every vector of `ns`.
    pub(in crate::store::firestore) async fn delete_vectors(
        &self,
        ns: &Namespace,
    ) -> Result<(), StoreError> {
        let names: Vec<String> = self
            .db
            .current()
            .fluent()
            .select()
            .fields([THREAD])
            .from(VECTORS)
            .parent(self.db.namespace_path(ns))
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable("listing a namespace's vectors failed", e))?
            .into_iter()
            .map(|doc| doc.name)
            .collect();
        self.db.delete_all(&names).await
    }
}
