//! Loads that cost what they answer: a namespace's threads read newest first, by their tracked
//! `newest_micros`, a few at a time, until the page and its totals are known (merge.rs); one
//! aggregation beside it counts the rest (and, for a save, the namespace's threads).

use firestore::gcloud_sdk::google::firestore::v1::{Document, Value, value::ValueType};
use firestore::{FirestoreQueryCursor, FirestoreValue};

use crate::domain::{Filter, Namespace, Page, PageBuilder};
use crate::store::StoreError;
use crate::store::firestore::FirestoreStore;
use crate::store::firestore::db::counted;
use crate::store::firestore::db::unavailable;
use crate::store::firestore::document::entries::thread_entries;
use crate::store::firestore::document::layout::{LOADED, NEWEST_MICROS, THREADS};
use crate::store::firestore::document::tracked::Tracked;
use crate::store::firestore::load::merge::Merge;
use crate::store::firestore::load::small::whole_page;

impl FirestoreStore {
    /// The page of one thread, or of a namespace larger than one query reads: in order, or
    /// whole while a thread of the namespace is not tracked.
    pub(in crate::store::firestore) async fn page_of_many(
        &self,
        ns: &Namespace,
        filter: &Filter,
        page: PageBuilder,
    ) -> Result<Page, StoreError> {
        if filter.thread.is_none() {
            match self.ordered_page(ns, filter, page.clone()).await? {
                Some(page) => return Ok(page),
                None => self.start_backfill(ns),
            }
        }
        let items = self.admitted(ns, filter).await?;
        Ok(whole_page(items, filter, page))
    }

    /// The page of a load without a thread filter, reading threads newest first; `None` when
    /// a thread of the namespace is not tracked (see index/backfill.rs), and only a whole read can
    /// tell what it holds.
    pub(in crate::store::firestore) async fn ordered_page(
        &self,
        ns: &Namespace,
        filter: &Filter,
        page: PageBuilder,
    ) -> Result<Option<Page>, StoreError> {
        let (counted, merge) = tokio::join!(self.count(ns), self.merge(ns, filter, page));
        let (counted, merge) = (counted?, merge?);
        self.shapes.counted(ns, counted.all.threads);
        match merge {
            Some(merge) if counted.all_tracked() => Ok(Some(merge.finish(Some(counted.all)))),
            _ => Ok(None),
        }
    }

    /// Reads threads newest first into a [`Merge`] until it wants no more; `None` on a thread
    /// whose tracked fields do not hold.
    async fn merge<'a>(
        &self,
        ns: &Namespace,
        filter: &'a Filter,
        page: PageBuilder,
    ) -> Result<Option<Merge<'a>>, StoreError> {
        let mut merge = Merge::new(filter, page);
        let mut after: Option<(i64, String)> = None;
        while let Some(wanted) = merge.wants() {
            let documents = self
                .newest_first(ns, filter.since, after.as_ref(), wanted)
                .await?;
            let ended = documents.len() < wanted as usize;
            for doc in &documents {
                let entries = thread_entries(doc);
                let Some(tracked) = Tracked::read(doc).filter(|t| t.holds_for(&entries)) else {
                    return Ok(None);
                };
                merge.read(entries);
                after = Some((tracked.newest, doc.name.clone()));
            }
            let bound = after.as_ref().map(|(newest, _)| *newest);
            merge.release(bound.filter(|_| !ended));
        }
        Ok(Some(merge))
    }

    /// Up to `limit` threads of `ns`, newest first, from after `after` (a thread's
    /// `newest_micros` and name), each with an entry at or after `since`.
    pub(in crate::store::firestore) async fn newest_first(
        &self,
        ns: &Namespace,
        since: Option<i64>,
        after: Option<&(i64, String)>,
        limit: u32,
    ) -> Result<Vec<Document>, StoreError> {
        let db = self.db.current();
        let mut query = db
            .fluent()
            .select()
            .fields(LOADED)
            .from(THREADS)
            .parent(self.db.namespace_path(ns))
            .filter(|q| {
                q.for_all([since.and_then(|at| q.field(NEWEST_MICROS).greater_than_or_equal(at))])
            })
            .order(|o| o.fields([o.field(NEWEST_MICROS).desc()]))
            .limit(limit);
        if let Some((newest, name)) = after {
            // Ties in `newest_micros` are ordered by name, in the same direction.
            let name = FirestoreValue::from(Value {
                value_type: Some(ValueType::ReferenceValue(name.clone())),
            });
            query = query.start_at(FirestoreQueryCursor::AfterValue(vec![
                (*newest).into(),
                name,
            ]));
        }
        query
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable("reading a namespace's newest threads failed", e))
    }
}
