//! A search's reads on Firestore, from each thread document's search index
//! (document/index.rs): how many threads hold each of the question's terms (a count aggregation
//! a term, bounded), and the threads holding the terms that choose the candidates (one `array-contains-any` query). A
//! namespace with a thread not indexed by this version yet is read whole instead, and its
//! backfill started.

use std::collections::HashSet;

use firestore::FirestoreQueryFilter;
use firestore::gcloud_sdk::google::firestore::v1::Document;
use firestore::select_filter_builder::FirestoreQueryFilterBuilder;
use futures_util::future::try_join_all;
use serde::Deserialize;

use crate::domain::{Filter, Namespace};
use crate::search::{Candidate, MAX_CANDIDATES, Query, TermCounts, terms};
use crate::store::firestore::FirestoreStore;
use crate::store::firestore::db::counted;
use crate::store::firestore::db::unavailable;
use crate::store::firestore::document::entries::thread_entries;
use crate::store::firestore::document::layout::{LOADED, SEARCH_TERMS, TERMS_VERSION, THREADS};
use crate::store::firestore::document::tracked::tracks;
use crate::store::{StoreError, usage};

/// A count aggregation's answer.
#[derive(Deserialize)]
struct Count {
    count: u64,
}

impl FirestoreStore {
    /// The threads holding each term, counted up to just past [`MAX_CANDIDATES`], beside the
    /// namespace's threads: a read per count, two for one that passes 1,000.
    pub(in crate::store::firestore) async fn indexed_term_counts(
        &self,
        ns: &Namespace,
        query: &Query,
    ) -> Result<TermCounts, StoreError> {
        let holding = query.terms().iter().map(|term| self.holding(ns, term));
        let (indexed, counts) = tokio::join!(self.indexed_threads(ns), try_join_all(holding));
        match indexed? {
            Some(documents) => Ok(TermCounts {
                documents,
                counts: counts?,
            }),
            None => {
                self.start_backfill(ns);
                self.whole_term_counts(ns, query).await
            }
        }
    }

    /// The entries `filter` admits of every thread holding one of `drivers`: one query, a
    /// read a thread. With a thread filter, that thread alone.
    pub(in crate::store::firestore) async fn indexed_candidates(
        &self,
        ns: &Namespace,
        filter: &Filter,
        drivers: &[String],
    ) -> Result<Vec<Candidate>, StoreError> {
        if filter.thread.is_none() {
            let (indexed, documents) =
                tokio::join!(self.indexed_threads(ns), self.holding_any(ns, drivers));
            if indexed?.is_some() {
                // Each thread's entries are read from its document once.
                let (mut candidates, mut all_tracked) = (Vec::new(), true);
                for doc in &documents? {
                    let entries = thread_entries(doc);
                    all_tracked &= tracks(doc, &entries);
                    candidates.extend(
                        (entries.into_iter().filter(|item| filter.admits(item)))
                            .map(|item| Candidate { item, stats: None }),
                    );
                }
                // The original function appended to a thread after kioku indexed it.
                if !all_tracked {
                    self.start_backfill(ns);
                }
                return Ok(candidates);
            }
            self.start_backfill(ns);
        }
        Ok(self
            .admitted(ns, filter)
            .await?
            .into_iter()
            .map(|item| Candidate { item, stats: None })
            .collect())
    }

    /// How many threads `ns` holds, when every one is indexed by this version's terms; `None`
    /// when one is not (it would be found by no term). Two aggregations, at once.
    async fn indexed_threads(&self, ns: &Namespace) -> Result<Option<u64>, StoreError> {
        let version = |q: FirestoreQueryFilterBuilder| {
            q.field(TERMS_VERSION).eq(crate::search::TERMS_VERSION)
        };
        let (counted, indexed) = tokio::join!(self.count(ns), self.count_where(ns, version, None));
        let threads = counted?.all.threads;
        Ok((indexed? == threads).then_some(threads))
    }

    /// How many threads of `ns` hold `term`, up to one past [`MAX_CANDIDATES`]: no term that
    /// common chooses candidates.
    async fn holding(&self, ns: &Namespace, term: &str) -> Result<u64, StoreError> {
        let term = |q: FirestoreQueryFilterBuilder| q.field(SEARCH_TERMS).array_contains(term);
        self.count_where(ns, term, Some(MAX_CANDIDATES as usize + 1))
            .await
    }

    /// How many threads of `ns` `filter` selects, or up to `up_to` of them: billed a read per
    /// 1,000 counted.
    async fn count_where(
        &self,
        ns: &Namespace,
        filter: impl Fn(FirestoreQueryFilterBuilder) -> Option<FirestoreQueryFilter>,
        up_to: Option<usize>,
    ) -> Result<u64, StoreError> {
        let counts: Vec<Count> = self
            .db
            .current()
            .fluent()
            .select()
            .from(THREADS)
            .parent(self.db.namespace_path(ns))
            .filter(filter)
            .aggregate(|a| {
                let count = a.field("count");
                a.fields([match up_to {
                    Some(up_to) => count.count_up_to(up_to),
                    None => count.count(),
                }])
            })
            .obj()
            .query()
            .await
            .map_err(|e| unavailable("counting the threads holding a term failed", e))?;
        let count = counts.first().map_or(0, |c| c.count);
        usage::read(count.div_ceil(1_000).max(1));
        Ok(count)
    }

    /// The threads of `ns` holding one of `terms` (at most 30, as `array-contains-any`
    /// takes), with the fields a search reads: all of them, or [`MAX_CANDIDATES`] in the order
    /// of their ids when more do (only when the rarest term is that common), so that no search
    /// reads the whole namespace. Newest first would need a composite index (docs/scale.md).
    async fn holding_any(
        &self,
        ns: &Namespace,
        terms: &[String],
    ) -> Result<Vec<Document>, StoreError> {
        self.db
            .current()
            .fluent()
            .select()
            .fields(LOADED)
            .from(THREADS)
            .parent(self.db.namespace_path(ns))
            .filter(|q| q.field(SEARCH_TERMS).array_contains_any(terms.to_vec()))
            .limit(MAX_CANDIDATES as u32)
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable("reading the threads holding a search's terms failed", e))
    }

    /// The counts from every thread document of `ns`, read whole: for a namespace not indexed
    /// yet.
    async fn whole_term_counts(
        &self,
        ns: &Namespace,
        query: &Query,
    ) -> Result<TermCounts, StoreError> {
        let documents = self.thread_documents(ns).await?;
        let mut counts = vec![0; query.terms().len()];
        for document in &documents {
            let held: HashSet<String> = thread_entries(document)
                .iter()
                .flat_map(|item| terms(&item.entry.summary))
                .collect();
            for (count, term) in counts.iter_mut().zip(query.terms()) {
                *count += u64::from(held.contains(term));
            }
        }
        Ok(TermCounts {
            documents: documents.len() as u64,
            counts,
        })
    }
}
