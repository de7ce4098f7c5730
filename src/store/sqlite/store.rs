//! The SQLite store's calls.

use std::sync::{Arc, PoisonError};

use async_trait::async_trait;
use rusqlite::params;

use super::group_commit::{Queued, commit_queued};
use super::snapshot::Snapshot;
use super::sql::{self, counts};
use super::{SqliteStore, Stop, profile, search, vectors};
use crate::domain::Counts;
use crate::domain::{
    Embedded, Entry, Filter, Located, ModelId, Namespace, Page, PageBuilder, Profile, ProfileDraft,
    ProfileWrite, Retention, Thread, ThreadId, Vector,
};
use crate::search::{Candidate, Query, TermCounts};
use crate::store::{MemoryStore, NamespaceStats, SaveOutcome, StoreError};

#[async_trait]
impl MemoryStore for SqliteStore {
    async fn save(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        entry: &Entry,
        vector: Option<&Embedded>,
        retention: &Retention,
    ) -> Result<SaveOutcome, StoreError> {
        let (save, outcome) = Queued::new(
            ns.name().to_owned(),
            thread.as_str().to_owned(),
            entry.clone(),
            vector.cloned(),
            *retention,
        );
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(save);
        let queue = Arc::clone(&self.queue);
        // Commits this save, unless a save that had the connection before took it along.
        self.run(Stop::Never, move |conn| {
            commit_queued(conn, &queue);
            Ok(())
        })
        .await?;
        outcome.await.unwrap_or_else(|e| {
            Err(StoreError::failed(
                "the group commit ended without telling the save's outcome",
                e,
            ))
        })
    }

    async fn page(
        &self,
        ns: &Namespace,
        filter: &Filter,
        page: PageBuilder,
    ) -> Result<Page, StoreError> {
        let (ns, filter) = (ns.name().to_owned(), filter.clone());
        self.read(move |conn| sql::page(conn, &ns, &filter, page))
            .await
    }

    /// On one read connection, in one trip off the async workers.
    async fn first_page(
        &self,
        ns: &Namespace,
        filter: &Filter,
        not_before: Option<i64>,
        budget_chars: usize,
    ) -> Result<(Option<Profile>, Page), StoreError> {
        let (ns, filter) = (ns.name().to_owned(), filter.clone());
        self.read(move |conn| {
            // The profile and the page answer the same moment.
            let snapshot = Snapshot::begin(conn)?;
            let profile = profile::read(&snapshot, &ns, None, not_before)?;
            let (profile, page) = PageBuilder::after_profile(profile, budget_chars);
            Ok((profile, sql::page(&snapshot, &ns, &filter, page)?))
        })
        .await
    }

    async fn term_counts(&self, ns: &Namespace, query: &Query) -> Result<TermCounts, StoreError> {
        let (ns, terms) = (ns.name().to_owned(), query.terms().to_vec());
        self.read(move |conn| {
            let (documents, counts) = search::term_counts(conn, &ns, &terms)?;
            Ok(TermCounts { documents, counts })
        })
        .await
    }

    async fn candidates(
        &self,
        ns: &Namespace,
        filter: &Filter,
        terms: &[String],
    ) -> Result<Vec<Candidate>, StoreError> {
        let (ns, filter, terms) = (ns.name().to_owned(), filter.clone(), terms.to_vec());
        self.read(move |conn| search::candidates(conn, &ns, &filter, &terms))
            .await
    }

    async fn nearest(
        &self,
        ns: &Namespace,
        filter: &Filter,
        meaning: &Embedded,
    ) -> Result<Vec<Located>, StoreError> {
        let (ns, filter, meaning) = (ns.name().to_owned(), filter.clone(), meaning.clone());
        self.read(move |conn| vectors::nearest(conn, &ns, &filter, &meaning))
            .await
    }

    async fn recent_vectors(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        model: &ModelId,
        since: i64,
    ) -> Result<Vec<(Entry, Vector)>, StoreError> {
        let (ns, thread) = (ns.name().to_owned(), thread.as_str().to_owned());
        let model = model.as_str().to_owned();
        self.read(move |conn| vectors::recent(conn, &ns, &thread, &model, since))
            .await
    }

    async fn forget(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        at: Option<i64>,
    ) -> Result<Counts, StoreError> {
        let (ns, thread) = (ns.name().to_owned(), thread.as_str().to_owned());
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let clause = "namespace = ?1 AND thread_id = ?2 AND (?3 IS NULL OR at_us = ?3)";
            let before = counts(&tx, clause, params![ns, thread, at])?;
            tx.execute(
                &format!("DELETE FROM entries WHERE {clause}"),
                params![ns, thread, at],
            )?;
            let left = counts(
                &tx,
                "namespace = ?1 AND thread_id = ?2",
                params![ns, thread],
            )?;
            tx.commit()?;
            Ok(Counts {
                threads: u64::from(before.entries > 0 && left.entries == 0),
                entries: before.entries,
            })
        })
        .await
    }

    async fn namespaces(&self) -> Result<Vec<NamespaceStats>, StoreError> {
        self.read(|conn| {
            let mut stmt = conn.prepare(
                "SELECT namespace, COUNT(DISTINCT thread_id), COUNT(*),
                        (SELECT timestamp FROM entries l WHERE l.namespace = e.namespace
                         ORDER BY at_us DESC LIMIT 1)
                 FROM entries e GROUP BY namespace
                 UNION ALL
                 SELECT DISTINCT namespace, 0, 0, NULL FROM profile_versions p
                 WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.namespace = p.namespace)
                 ORDER BY 1",
            )?;
            stmt.query_map([], |row| {
                Ok(NamespaceStats {
                    name: row.get(0)?,
                    counts: Counts {
                        threads: row.get(1)?,
                        entries: row.get(2)?,
                    },
                    last_saved: row.get(3)?,
                })
            })?
            .collect()
        })
        .await
    }

    async fn namespace_names(&self) -> Result<Vec<String>, StoreError> {
        self.read(|conn| {
            conn.prepare(
                "SELECT namespace FROM threads UNION SELECT namespace FROM profile_versions
                 ORDER BY 1",
            )?
            .query_map([], |row| row.get(0))?
            .collect()
        })
        .await
    }

    async fn threads_page(
        &self,
        ns: &Namespace,
        after: Option<&str>,
        limit: u32,
    ) -> Result<Vec<Thread>, StoreError> {
        let (ns, after) = (ns.name().to_owned(), after.map(str::to_owned));
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT summary, timestamp, writer, thread_id FROM entries
                 WHERE namespace = ?1 AND thread_id IN (
                     SELECT thread_id FROM threads WHERE namespace = ?1
                     AND (?2 IS NULL OR thread_id > ?2) ORDER BY thread_id LIMIT ?3)
                 ORDER BY thread_id, seq",
            )?;
            let mut threads: Vec<Thread> = Vec::new();
            let mut rows = stmt.query(params![ns, after, limit])?;
            while let Some(row) = rows.next()? {
                let (entry, id): (_, String) = (sql::entry(row)?, row.get(3)?);
                match threads.last_mut() {
                    Some(thread) if thread.id == id => thread.entries.push(entry),
                    _ => threads.push(Thread {
                        id,
                        entries: vec![entry],
                    }),
                }
            }
            Ok(threads)
        })
        .await
    }

    async fn delete_namespace(&self, ns: &Namespace) -> Result<Counts, StoreError> {
        let ns = ns.name().to_owned();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let held = counts(&tx, "namespace = ?1", [&ns])?;
            tx.execute("DELETE FROM entries WHERE namespace = ?1", [&ns])?;
            profile::forget(&tx, &ns)?;
            tx.commit()?;
            Ok(held)
        })
        .await
    }

    async fn profile(
        &self,
        ns: &Namespace,
        version: Option<u64>,
        not_before: Option<i64>,
    ) -> Result<Option<Profile>, StoreError> {
        let ns = ns.name().to_owned();
        self.read(move |conn| profile::read(conn, &ns, version, not_before))
            .await
    }

    async fn write_profile(
        &self,
        ns: &Namespace,
        draft: &ProfileDraft,
        retention: &Retention,
    ) -> Result<ProfileWrite, StoreError> {
        let (ns, draft, retention) = (ns.name().to_owned(), draft.clone(), *retention);
        self.with_conn(move |conn| profile::write(conn, &ns, &draft, &retention))
            .await
    }

    async fn profile_versions(&self, ns: &Namespace) -> Result<Vec<Profile>, StoreError> {
        let ns = ns.name().to_owned();
        self.read(move |conn| profile::versions(conn, &ns)).await
    }

    async fn forget_profile(&self, ns: &Namespace) -> Result<u64, StoreError> {
        let ns = ns.name().to_owned();
        self.with_conn(move |conn| profile::forget(conn, &ns)).await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.with_conn(|conn| conn.query_row("SELECT 1", [], |_| Ok(())))
            .await
    }
}
