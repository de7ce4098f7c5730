//! What an operator sees of each namespace (threads, entries, the last save): from the tracked
//! fields when every thread of it has them (one aggregation and its newest thread, whatever it
//! holds), else from reading its threads a page at a time.

use futures_util::{StreamExt, TryStreamExt, stream};

use crate::domain::Counts;
use crate::domain::Namespace;
use crate::store::firestore::FirestoreStore;
use crate::store::firestore::document::entries::thread_entries;
use crate::store::{NamespaceStats, StoreError};

/// Threads read a page at a time from a namespace that is not tracked yet.
const PAGE: u32 = 100;
/// Namespaces counted at once.
const AT_ONCE: usize = 8;

impl FirestoreStore {
    /// Every namespace's figures, by name.
    pub(in crate::store::firestore) async fn namespace_stats(
        &self,
    ) -> Result<Vec<NamespaceStats>, StoreError> {
        let names = self.db.namespace_names().await?;
        stream::iter(names)
            .map(|name| self.stats_of(name))
            .buffered(AT_ONCE)
            .try_collect()
            .await
    }

    async fn stats_of(&self, name: String) -> Result<NamespaceStats, StoreError> {
        let ns = Namespace::named(&name)
            .map_err(|problem| StoreError::failed("a stored namespace is unreadable", problem))?;
        let counted = self.count(&ns).await?;
        let mut stats = NamespaceStats {
            name,
            counts: Counts::default(),
            last_saved: None,
        };
        if counted.all_tracked() {
            stats.counts = Counts {
                threads: counted.all.threads,
                entries: counted.all.entries,
            };
            let newest = self.newest_first(&ns, None, None, 1).await?;
            stats.last_saved = newest.first().and_then(newest_timestamp);
            return Ok(stats);
        }
        let mut after: Option<String> = None;
        let mut newest: Option<(i64, String)> = None;
        loop {
            let documents = self
                .thread_page_documents(&ns, after.as_deref(), PAGE)
                .await?;
            for doc in &documents {
                let entries = thread_entries(doc);
                stats.counts.threads += 1;
                stats.counts.entries += entries.len() as u64;
                for item in entries {
                    if newest.as_ref().is_none_or(|(at, _)| *at < item.at) {
                        newest = Some((item.at, item.entry.timestamp));
                    }
                }
            }
            if documents.len() < PAGE as usize {
                break;
            }
            after = documents
                .last()
                .map(crate::store::firestore::document::entries::document_id);
        }
        stats.last_saved = newest.map(|(_, timestamp)| timestamp);
        Ok(stats)
    }
}

/// The timestamp of the newest entry of a thread document.
fn newest_timestamp(
    doc: &firestore::gcloud_sdk::google::firestore::v1::Document,
) -> Option<String> {
    thread_entries(doc)
        .into_iter()
        .max_by_key(|item| item.at)
        .map(|item| item.entry.timestamp)
}
