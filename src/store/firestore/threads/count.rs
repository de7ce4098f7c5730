//! How many threads and entries a namespace holds, and how many of its threads are tracked:
//! one aggregation, for a load's totals, a save's thread count and the operator's figures.

use serde::Deserialize;

use crate::domain::{Counts, Namespace};
use crate::store::firestore::FirestoreStore;
use crate::store::firestore::db::unavailable;
use crate::store::firestore::document::layout::{ENTRY_COUNT, THREADS};
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
    /// How many threads and entries `ns` holds, and how many threads are tracked. One
    /// aggregation, billed a read per 1,000 threads.
    pub(in crate::store::firestore) async fn count(
        &self,
        ns: &Namespace,
    ) -> Result<Counted, StoreError> {
        let totals: Vec<Totals> = self
            .db
            .current()
            .fluent()
            .select()
            .from(THREADS)
            .parent(self.db.namespace_path(ns))
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
pub struct Counted {
    pub all: Counts,
    pub tracked: u64,
}

impl Counted {
    /// Whether every thread has the tracked fields, so the namespace can be read in order.
    pub fn all_tracked(&self) -> bool {
        self.tracked == self.all.threads
    }
}
