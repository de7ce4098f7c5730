//! A namespace's thread documents read whole: all of them, a page of them by id, or the
//! entries a filter admits, for what cannot be read in order (a thread filter, threads the
//! backfill has not reached, exports).

use firestore::gcloud_sdk::google::firestore::v1::value::ValueType;
use firestore::gcloud_sdk::google::firestore::v1::{Document, Value};
use firestore::{FirestoreQueryCursor, FirestoreValue};

use crate::domain::{Filter, Located, Namespace};
use crate::store::firestore::FirestoreStore;
use crate::store::firestore::db::{counted, unavailable};
use crate::store::firestore::document::entries::thread_entries;
use crate::store::firestore::document::layout::THREADS;
use crate::store::{StoreError, usage};

impl FirestoreStore {
    /// Every thread document of `ns`.
    pub(in crate::store::firestore) async fn thread_documents(
        &self,
        ns: &Namespace,
    ) -> Result<Vec<Document>, StoreError> {
        self.db
            .current()
            .fluent()
            .select()
            .from(THREADS)
            .parent(self.db.namespace_path(ns))
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable("listing a namespace's threads failed", e))
    }

    /// Up to `limit` thread documents of `ns` by id, from the first after the thread `after`:
    /// one query, each document read once.
    pub(in crate::store::firestore) async fn thread_page_documents(
        &self,
        ns: &Namespace,
        after: Option<&str>,
        limit: u32,
    ) -> Result<Vec<Document>, StoreError> {
        let db = self.db.current();
        let select = db
            .fluent()
            .select()
            .from(THREADS)
            .parent(self.db.namespace_path(ns))
            .order(|o| o.fields([o.field("__name__").ascending()]))
            .limit(limit);
        let select = match after {
            Some(after) => {
                let name = format!("{}/{THREADS}/{after}", self.db.namespace_path(ns));
                let value = FirestoreValue::from(Value {
                    value_type: Some(ValueType::ReferenceValue(name)),
                });
                select.start_at(FirestoreQueryCursor::AfterValue(vec![value]))
            }
            None => select,
        };
        select
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable("reading a page of a namespace's threads failed", e))
    }

    /// Every entry `filter` admits. Firestore cannot filter or order inside an array, so the
    /// thread documents are read whole (one, with a thread filter) and the rest is done here.
    pub(in crate::store::firestore) async fn admitted(
        &self,
        ns: &Namespace,
        filter: &Filter,
    ) -> Result<Vec<Located>, StoreError> {
        let db = self.db.current();
        let select = db.fluent().select();
        let documents = match &filter.thread {
            Some(thread) => select
                .by_id_in(THREADS)
                .parent(self.db.namespace_path(ns))
                .one(thread.as_str())
                .await
                .inspect(|_| usage::read(1))
                .map_err(|e| unavailable("reading a thread failed", e))?
                .into_iter()
                .collect(),
            None => self.thread_documents(ns).await?,
        };
        Ok(documents
            .iter()
            .flat_map(thread_entries)
            .filter(|item| filter.admits(item))
            .collect())
    }
}
