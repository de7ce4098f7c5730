//! The Firestore store's whole-store work: import, migrate, and the vectors' backfill.

use async_trait::async_trait;
use firestore::gcloud_sdk::google::firestore::v1::Value;

use super::FirestoreStore;
use super::document::entries::{entry_value, entry_values, thread_entries};
use super::document::index::thread_terms;
use super::document::layout::EMBEDDED_BY;
use super::document::writes::{append_write, with_field};
use super::vectors::document::embedded_by;
use crate::domain::{Embedded, Entry, ModelId, Namespace, Profile, ThreadId};
use crate::store::{EntryKey, Maintenance, StoreError, Unembedded};

#[async_trait]
impl Maintenance for FirestoreStore {
    async fn unembedded(
        &self,
        model: &ModelId,
        after: Option<&EntryKey>,
        limit: u32,
    ) -> Result<Vec<Unembedded>, StoreError> {
        self.unembedded_entries(model, after, limit).await
    }

    async fn put_vectors(&self, vectors: &[(EntryKey, Embedded)]) -> Result<u64, StoreError> {
        self.put_entry_vectors(vectors).await
    }

    async fn import(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        entries: &[Entry],
    ) -> Result<u64, StoreError> {
        let name = self.db.thread_path(ns, thread);
        self.db
            .change(&name, |current| {
                let held: Vec<Entry> = current
                    .map(|doc| {
                        thread_entries(doc)
                            .into_iter()
                            .map(|item| item.entry)
                            .collect()
                    })
                    .unwrap_or_default();
                let mut missing: Vec<&Entry> = Vec::new();
                for entry in entries {
                    if !held.contains(entry) && !missing.contains(&entry) {
                        missing.push(entry);
                    }
                }
                let added = missing.len() as u64;
                let missing: Vec<Value> = missing.into_iter().map(entry_value).collect();
                let mut values = current.map(entry_values).unwrap_or_default();
                values.extend(missing.iter().cloned());
                let write = (added > 0).then(|| {
                    let terms = thread_terms(&values);
                    let write = append_write(&name, missing, &terms, None, Some(&values));
                    with_field(write, EMBEDDED_BY, embedded_by(current, None))
                });
                Ok((write, added))
            })
            .await
    }

    async fn import_profile(
        &self,
        ns: &Namespace,
        versions: &[Profile],
    ) -> Result<u64, StoreError> {
        self.import_profile_versions(ns, versions).await
    }

    async fn migrate(&self) -> Result<u64, StoreError> {
        self.backfill(None).await
    }
}
