//! Loads that cost what they answer: a namespace's threads read newest first, by their tracked
//! `newest_micros`, a few at a time, until the page and its totals are known (merge.rs); one
//! aggregation beside it counts the rest (and, for a save, the namespace's threads).

use firestore::gcloud_sdk::google::firestore::v1::{Document, Value, value::ValueType};
use firestore::{FirestoreQueryCursor, FirestoreValue};
use serde::Deserialize;

use super::FirestoreStore;
use super::calls::counted;
use super::failure::unavailable;
use super::layout::{ENTRY_COUNT, LOADED, NEWEST_MICROS, THREADS};
use super::merge::Merge;
use super::small::whole_page;
use super::tracked::Tracked;
use super::values::thread_entries;
use crate::domain::{Counts, Filter, Namespace, Page, PageBuilder};
use crate::store::{StoreError, usage};

/// The aggregation's answer. `mean` is the average `entry_count` of the threads that have
/// one: with `entries`, it tells how many threads are tracked.
#[derive(Deserialize)]
struct Totals {
    threads: u64,
    entries: i64,
    mean: Option<f64>,
}

impl FirestoreStore {
    /// The page of one thread, or of a namespace larger than one query reads: in order, or
    /// whole while a thread of the namespace is not tracked.
    pub(super) async fn page_of_many(
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
    /// a thread of the namespace is not tracked (see backfill.rs), and only a whole read can
    /// tell what it holds.
    pub(super) async fn ordered_page(
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
    pub(super) async fn newest_first(
        &self,
        ns: &Namespace,
        since: Option<i64>,
        after: Option<&(i64, String)>,
        limit: u32,
    ) -> Result<Vec<Document>, StoreError> {
        let db = self.db();
        let mut query = db
            .fluent()
            .select()
            .fields(LOADED)
            .from(THREADS)
            .parent(self.threads_path(ns))
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

    /// How many threads and entries `ns` holds, and how many threads are tracked. One
    /// aggregation, billed a read per 1,000 threads.
    pub(super) async fn count(&self, ns: &Namespace) -> Result<Counted, StoreError> {
        let totals: Vec<Totals> = self
            .db()
            .fluent()
            .select()
            .from(THREADS)
            .parent(self.threads_path(ns))
            .aggregate(|a| {
                a.fields([
                    a.field("threads").count(),
                    a.field("entries").sum(ENTRY_COUNT),
                    a.field("mean").avg(ENTRY_COUNT),
                ])
            })
            .obj()
            .query()
            .await
            .map_err(|e| unavailable("counting a namespace's threads failed", e))?;
        let Some(totals) = totals.into_iter().next() else {
            usage::read(1);
            return Ok(Counted::default());
        };
        usage::read(totals.threads.div_ceil(1_000).max(1));
        let entries = u64::try_from(totals.entries).unwrap_or_default();
        // Sum and mean skip threads without the field, so together they count those with it.
        let tracked = match totals.mean {
            Some(mean) if mean > 0.0 => (entries as f64 / mean).round() as u64,
            _ => 0,
        };
        Ok(Counted {
            all: Counts {
                threads: totals.threads,
                entries,
            },
            tracked,
        })
    }
}

/// What [`FirestoreStore::count`] found: the namespace's threads and the entries of its tracked
/// ones, and how many threads are tracked.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Counted {
    pub all: Counts,
    pub tracked: u64,
}

impl Counted {
    /// Whether every thread has the tracked fields, so the namespace can be read in order.
    pub fn all_tracked(&self) -> bool {
        self.tracked == self.all.threads
    }
}
