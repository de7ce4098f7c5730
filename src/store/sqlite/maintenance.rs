//! The SQLite store's whole-store work: import, migrate, and the vectors' backfill.

use async_trait::async_trait;
use rusqlite::params;

use super::sql::insert_entry;
use super::{SqliteStore, Stop, profile, vectors};
use crate::domain::{Embedded, Entry, ModelId, Namespace, Profile, ThreadId};
use crate::store::{EntryKey, Maintenance, StoreError, Unembedded};

#[async_trait]
impl Maintenance for SqliteStore {
    async fn unembedded(
        &self,
        model: &ModelId,
        after: Option<&EntryKey>,
        limit: u32,
    ) -> Result<Vec<Unembedded>, StoreError> {
        let model = model.as_str().to_owned();
        let before = after.map(vectors::seq_of).transpose()?;
        self.read(move |conn| vectors::unembedded(conn, &model, before, limit))
            .await
    }

    async fn put_vectors(&self, embedded: &[(EntryKey, Embedded)]) -> Result<u64, StoreError> {
        let embedded = embedded
            .iter()
            .map(|(key, vector)| Ok((vectors::seq_of(key)?, vector.clone())))
            .collect::<Result<Vec<_>, StoreError>>()?;
        self.run(Stop::WhenGivenUp, move |conn| {
            let tx = conn.transaction()?;
            let mut stored = 0;
            for (seq, vector) in &embedded {
                stored += vectors::insert_vector(&tx, *seq, vector)?;
            }
            tx.commit()?;
            Ok(stored)
        })
        .await
    }

    async fn import(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        entries: &[Entry],
    ) -> Result<u64, StoreError> {
        let (ns, thread) = (ns.name().to_owned(), thread.as_str().to_owned());
        let entries = entries.to_vec();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let mut added = 0;
            for entry in &entries {
                let held: bool = tx.query_row(
                    "SELECT EXISTS (SELECT 1 FROM entries WHERE namespace = ?1 AND thread_id = ?2
                                    AND summary = ?3 AND timestamp = ?4)",
                    params![ns, thread, entry.summary, entry.timestamp],
                    |row| row.get(0),
                )?;
                if !held {
                    insert_entry(&tx, &ns, &thread, entry)?;
                    added += 1;
                }
            }
            tx.commit()?;
            Ok(added)
        })
        .await
    }

    async fn import_profile(
        &self,
        ns: &Namespace,
        versions: &[Profile],
    ) -> Result<u64, StoreError> {
        let (ns, versions) = (ns.name().to_owned(), versions.to_vec());
        self.with_conn(move |conn| profile::import(conn, &ns, &versions))
            .await
    }

    /// Migrations run as the database opens.
    async fn migrate(&self) -> Result<u64, StoreError> {
        Ok(0)
    }
}
