use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use rusqlite::functions::FunctionFlags;
use rusqlite::types::Value;
use rusqlite::{Connection, Transaction, params, params_from_iter};
use tokio::sync::oneshot;

use super::{Counts, MemoryStore, NamespaceStats, SaveOutcome, StoreError, Trimmed};
use crate::domain::{
    Entry, Filter, Located, Namespace, Page, PageBuilder, Query, Retention, Thread, ThreadId, fold,
    micros,
};

/// Schema versions, applied in order at open; `PRAGMA user_version` records how many ran.
const MIGRATIONS: &[fn(&Transaction) -> rusqlite::Result<()>] =
    &[create_tables, add_time_and_search, tidy_after_deletes];

/// 1: entries in save order; each thread remembers its latest entry.
fn create_tables(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TABLE entries (
             seq       INTEGER PRIMARY KEY AUTOINCREMENT,
             namespace TEXT NOT NULL,
             thread_id TEXT NOT NULL,
             summary   TEXT NOT NULL,
             timestamp TEXT NOT NULL
         );
         CREATE INDEX entries_by_thread ON entries (namespace, thread_id, seq);
         CREATE TABLE threads (
             namespace TEXT NOT NULL,
             thread_id TEXT NOT NULL,
             last_seq  INTEGER NOT NULL,
             PRIMARY KEY (namespace, thread_id)
         ) WITHOUT ROWID;
         CREATE INDEX threads_by_recency ON threads (namespace, last_seq DESC);",
    )
}

/// 2: each entry's time as a number, in load order; and its text folded for search, in a table
/// of its own so that a search reads only that.
fn add_time_and_search(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(
        "ALTER TABLE entries ADD COLUMN at_us INTEGER NOT NULL DEFAULT 0;
         CREATE INDEX entries_in_load_order ON entries (namespace, at_us DESC, thread_id, seq DESC);
         CREATE TABLE entry_search (seq INTEGER PRIMARY KEY, folded TEXT NOT NULL);",
    )?;
    let rows: Vec<(i64, String, String)> = tx
        .prepare("SELECT seq, summary, timestamp FROM entries")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut time = tx.prepare("UPDATE entries SET at_us = ?2 WHERE seq = ?1")?;
    let mut text = tx.prepare("INSERT INTO entry_search (seq, folded) VALUES (?1, ?2)")?;
    for (seq, summary, timestamp) in rows {
        time.execute(params![seq, micros(&timestamp)])?;
        text.execute(params![seq, fold(&summary)])?;
    }
    Ok(())
}

/// 3: deleting an entry deletes its search text, and its thread once empty, or moves the
/// thread's latest entry back; so every way of forgetting is a plain `DELETE FROM entries`.
fn tidy_after_deletes(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TRIGGER entry_deleted AFTER DELETE ON entries BEGIN
             DELETE FROM entry_search WHERE seq = old.seq;
             DELETE FROM threads WHERE namespace = old.namespace AND thread_id = old.thread_id
                 AND NOT EXISTS (SELECT 1 FROM entries
                                 WHERE namespace = old.namespace AND thread_id = old.thread_id);
             UPDATE threads SET last_seq = (SELECT MAX(seq) FROM entries
                                            WHERE namespace = old.namespace
                                              AND thread_id = old.thread_id)
                 WHERE namespace = old.namespace AND thread_id = old.thread_id
                   AND last_seq = old.seq;
         END;",
    )
}

/// Appends `entry` to the thread and makes it the thread's latest.
fn insert_entry(conn: &Connection, ns: &str, thread: &str, entry: &Entry) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO entries (namespace, thread_id, summary, timestamp, at_us)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            ns,
            thread,
            entry.summary,
            entry.timestamp,
            micros(&entry.timestamp)
        ],
    )?;
    let seq = conn.last_insert_rowid();
    conn.execute(
        "INSERT INTO entry_search (seq, folded) VALUES (?1, ?2)",
        params![seq, fold(&entry.summary)],
    )?;
    conn.execute(
        "INSERT INTO threads (namespace, thread_id, last_seq) VALUES (?1, ?2, ?3)
         ON CONFLICT (namespace, thread_id) DO UPDATE SET last_seq = excluded.last_seq",
        params![ns, thread, seq],
    )?;
    Ok(())
}

/// Drops what `retention` does not keep after a save to `thread`: its oldest entries beyond
/// the limit, and the least recently saved threads beyond theirs.
fn apply_retention(
    conn: &Connection,
    ns: &str,
    thread: &str,
    retention: &Retention,
) -> rusqlite::Result<Trimmed> {
    let mut trimmed = Trimmed::default();
    if let Some(max) = retention.max_entries_per_thread {
        trimmed.entries = conn.execute(
            "DELETE FROM entries WHERE seq IN (
                 SELECT seq FROM entries WHERE namespace = ?1 AND thread_id = ?2
                 ORDER BY seq DESC LIMIT -1 OFFSET ?3)",
            params![ns, thread, max.get()],
        )? as u64;
    }
    if let Some(max) = retention.max_threads {
        let excess: u64 = conn.query_row(
            "SELECT MAX(COUNT(*) - ?2, 0) FROM threads WHERE namespace = ?1",
            params![ns, max.get()],
            |row| row.get(0),
        )?;
        if excess > 0 {
            conn.execute(
                "DELETE FROM entries WHERE namespace = ?1 AND thread_id IN (
                     SELECT thread_id FROM threads WHERE namespace = ?1
                     ORDER BY last_seq LIMIT ?2)",
                params![ns, excess],
            )?;
            trimmed.threads = excess;
        }
    }
    Ok(trimmed)
}

fn counts(
    conn: &Connection,
    clause: &str,
    values: impl rusqlite::Params,
) -> rusqlite::Result<Counts> {
    conn.query_row(
        &format!("SELECT COUNT(DISTINCT thread_id), COUNT(*) FROM entries WHERE {clause}"),
        values,
        |row| {
            Ok(Counts {
                threads: row.get(0)?,
                entries: row.get(1)?,
            })
        },
    )
}

/// `contains(text, word)`: SQLite's `instr` compares at every character, far slower than
/// Rust's substring search over megabytes of text.
fn register_contains(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function("contains", 2, flags, |ctx| {
        Ok(ctx.get_raw(0).as_str()?.contains(ctx.get_raw(1).as_str()?))
    })
}

/// The WHERE clause of a filter, after `namespace = ?1`, and its parameters from `?2`. With a
/// limit, only the threads whose newest admitted entries are newest.
fn filter_sql(filter: &Filter) -> (String, Vec<Value>) {
    let thread = filter
        .thread
        .as_ref()
        .map(|t| Value::Text(t.as_str().to_owned()));
    let admits = "(?2 IS NULL OR thread_id = ?2) AND at_us >= ?3 AND at_us < ?4";
    let mut sql = format!("namespace = ?1 AND {admits}");
    if filter.limit.is_some() {
        sql.push_str(&format!(
            " AND thread_id IN (SELECT thread_id FROM entries WHERE namespace = ?1 AND {admits}
                GROUP BY thread_id ORDER BY MAX(at_us) DESC, thread_id LIMIT ?5)"
        ));
    }
    let mut values = vec![
        thread.unwrap_or(Value::Null),
        Value::Integer(filter.since.unwrap_or(i64::MIN)),
        Value::Integer(filter.before.unwrap_or(i64::MAX)),
    ];
    if let Some(limit) = filter.limit {
        values.push(Value::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
    }
    (sql, values)
}

fn located(row: &rusqlite::Row) -> rusqlite::Result<Located> {
    Ok(Located {
        thread_id: row.get(0)?,
        entry: Entry {
            summary: row.get(1)?,
            timestamp: row.get(2)?,
        },
        at: row.get(3)?,
        seq: row.get(4)?,
    })
}

/// A save waiting for its commit, and where to say how it went.
struct Queued {
    ns: String,
    thread: String,
    entry: Entry,
    retention: Retention,
    done: oneshot::Sender<Result<SaveOutcome, StoreError>>,
}

/// The embedded store: one SQLite file in WAL mode with `synchronous=FULL`, so a save that
/// was answered survives a crash or power loss. One connection, used on the blocking pool.
#[derive(Clone)]
pub struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
    /// Saves not yet committed. Whichever save gets the connection next commits all of them
    /// in one transaction (group commit): concurrent saves share one fsync instead of
    /// queueing for one each.
    queue: Arc<Mutex<Vec<Queued>>>,
}

impl SqliteStore {
    /// Opens or creates the file at `path`. A write that waits `lock_wait` for another
    /// connection's lock fails instead, so a caller's time limit can be kept.
    pub fn open(path: &Path, lock_wait: Duration) -> Result<Self, StoreError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| StoreError::Unavailable(format!("{}: {e}", dir.display())))?;
        }
        let mut conn = Connection::open(path).map_err(unavailable)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(unavailable)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(unavailable)?;
        conn.busy_timeout(lock_wait).map_err(unavailable)?;
        migrate(&mut conn).map_err(unavailable)?;
        register_contains(&conn).map_err(unavailable)?;
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
            queue: Arc::default(),
        })
    }

    /// Runs `work` on the connection without blocking the async runtime.
    async fn with_conn<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let conn = Arc::clone(&self.conn);
        tokio::task::spawn_blocking(move || {
            // A panic mid-call leaves no open transaction (it rolls back on drop), so the
            // connection stays usable after poisoning.
            let mut conn = conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            work(&mut conn)
        })
        .await
        .map_err(|e| StoreError::Unavailable(e.to_string()))?
        .map_err(unavailable)
    }
}

impl SqliteStore {
    /// Deletes the entries of every namespace saved before `cutoff` (in [`micros`]); returns
    /// how many.
    pub async fn purge_before(&self, cutoff: i64) -> Result<u64, StoreError> {
        self.with_conn(move |conn| {
            let purged = conn.execute("DELETE FROM entries WHERE at_us < ?1", [cutoff])?;
            Ok(purged as u64)
        })
        .await
    }
}

fn unavailable(err: rusqlite::Error) -> StoreError {
    StoreError::Unavailable(err.to_string())
}

/// Stores one save, drops what its retention does not keep, and counts the threads.
fn insert(conn: &Connection, save: &Queued) -> rusqlite::Result<SaveOutcome> {
    insert_entry(conn, &save.ns, &save.thread, &save.entry)?;
    let trimmed = apply_retention(conn, &save.ns, &save.thread, &save.retention)?;
    let threads = thread_count(conn, &save.ns)?;
    Ok(SaveOutcome { trimmed, threads })
}

fn thread_count(conn: &Connection, ns: &str) -> rusqlite::Result<u64> {
    conn.query_row(
        "SELECT COUNT(*) FROM threads WHERE namespace = ?1",
        [ns],
        |row| row.get(0),
    )
}

/// Commits every queued save in one transaction, each in a savepoint of its own so that a
/// save that fails fails alone, and tells each how it went once the commit is on disk. A save
/// whose caller has given up (timed out) is dropped, so that it cannot land after its caller
/// was told it failed.
fn commit_queued(conn: &mut Connection, queue: &Mutex<Vec<Queued>>) {
    let queued = std::mem::take(&mut *queue.lock().unwrap_or_else(PoisonError::into_inner));
    let batch: Vec<Queued> = queued
        .into_iter()
        .filter(|save| !save.done.is_closed())
        .collect();
    if batch.is_empty() {
        return;
    }
    let outcomes = commit_batch(conn, &batch);
    for (n, save) in batch.into_iter().enumerate() {
        let failed = |e: &rusqlite::Error| StoreError::Unavailable(e.to_string());
        let outcome = match &outcomes {
            Ok(outcomes) => outcomes[n].as_ref().map_err(failed).copied(),
            Err(e) => Err(failed(e)),
        };
        // The caller may have given up meanwhile; then nobody is waiting to hear.
        let _ = save.done.send(outcome);
    }
}

/// Each save's outcome, once the transaction holding the ones that succeeded is committed.
fn commit_batch(
    conn: &mut Connection,
    batch: &[Queued],
) -> rusqlite::Result<Vec<rusqlite::Result<SaveOutcome>>> {
    let mut tx = conn.transaction()?;
    let mut outcomes = Vec::with_capacity(batch.len());
    for save in batch {
        let savepoint = tx.savepoint()?;
        let outcome = insert(&savepoint, save);
        if outcome.is_ok() {
            savepoint.commit()?;
        }
        outcomes.push(outcome);
    }
    tx.commit()?;
    Ok(outcomes)
}

fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    let applied: usize = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    for (version, migration) in MIGRATIONS.iter().enumerate().skip(applied) {
        migration(&tx)?;
        tx.pragma_update(None, "user_version", version + 1)?;
    }
    tx.commit()
}

#[async_trait]
impl MemoryStore for SqliteStore {
    async fn save(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        entry: &Entry,
        retention: &Retention,
    ) -> Result<SaveOutcome, StoreError> {
        let (done, outcome) = oneshot::channel();
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Queued {
                ns: ns.name().to_owned(),
                thread: thread.as_str().to_owned(),
                entry: entry.clone(),
                retention: *retention,
                done,
            });
        let queue = Arc::clone(&self.queue);
        // Commits this save, unless a save that had the connection before took it along.
        self.with_conn(move |conn| {
            commit_queued(conn, &queue);
            Ok(())
        })
        .await?;
        outcome
            .await
            .unwrap_or_else(|_| Err(StoreError::Unavailable("the save was lost".into())))
    }

    async fn count(&self, ns: &Namespace) -> Result<u64, StoreError> {
        let ns = ns.name().to_owned();
        self.with_conn(move |conn| thread_count(conn, &ns)).await
    }

    async fn page(
        &self,
        ns: &Namespace,
        filter: &Filter,
        budget_chars: usize,
    ) -> Result<Page, StoreError> {
        let ns = ns.name().to_owned();
        let (clause, mut values) = filter_sql(filter);
        values.insert(0, Value::Text(ns));
        self.with_conn(move |conn| {
            let mut page = PageBuilder::new(budget_chars);
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT thread_id, summary, timestamp, at_us, seq FROM entries WHERE {clause}
                 ORDER BY at_us DESC, thread_id, seq DESC"
            ))?;
            let mut rows = stmt.query(params_from_iter(&values))?;
            while let Some(row) = rows.next()? {
                if !page.push(located(row)?) {
                    break;
                }
            }
            let totals = if page.is_full() {
                let sql = format!(
                    "SELECT COUNT(*), COUNT(DISTINCT thread_id) FROM entries WHERE {clause}"
                );
                Some(conn.query_row(&sql, params_from_iter(&values), |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })?)
            } else {
                None
            };
            Ok(page.finish(totals))
        })
        .await
    }

    async fn candidates(
        &self,
        ns: &Namespace,
        filter: &Filter,
        query: &Query,
    ) -> Result<Vec<Located>, StoreError> {
        let ns = ns.name().to_owned();
        // The limit of a search counts results, not threads: [`search`] applies it.
        let (mut clause, mut values) = filter_sql(&Filter {
            limit: None,
            ..filter.clone()
        });
        values.insert(0, Value::Text(ns));
        for word in query.words() {
            values.push(Value::Text(word.clone()));
            clause.push_str(&format!(" AND contains(s.folded, ?{})", values.len()));
        }
        self.with_conn(move |conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT thread_id, summary, timestamp, at_us, e.seq
                 FROM entries e JOIN entry_search s ON s.seq = e.seq WHERE {clause}"
            ))?;
            stmt.query_map(params_from_iter(&values), located)?
                .collect()
        })
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
        self.with_conn(|conn| {
            let mut stmt = conn.prepare(
                "SELECT namespace, COUNT(DISTINCT thread_id), COUNT(*),
                        (SELECT timestamp FROM entries l WHERE l.namespace = e.namespace
                         ORDER BY at_us DESC LIMIT 1)
                 FROM entries e GROUP BY namespace ORDER BY namespace",
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

    async fn threads(&self, ns: &Namespace) -> Result<Vec<Thread>, StoreError> {
        let ns = ns.name().to_owned();
        self.with_conn(move |conn| {
            let mut stmt = conn.prepare(
                "SELECT thread_id, summary, timestamp FROM entries WHERE namespace = ?1
                 ORDER BY thread_id, seq",
            )?;
            let mut threads: Vec<Thread> = Vec::new();
            let mut rows = stmt.query([ns])?;
            while let Some(row) = rows.next()? {
                let id: String = row.get(0)?;
                let entry = Entry {
                    summary: row.get(1)?,
                    timestamp: row.get(2)?,
                };
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

    async fn delete_namespace(&self, ns: &Namespace) -> Result<Counts, StoreError> {
        let ns = ns.name().to_owned();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let held = counts(&tx, "namespace = ?1", [&ns])?;
            tx.execute("DELETE FROM entries WHERE namespace = ?1", [&ns])?;
            tx.commit()?;
            Ok(held)
        })
        .await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.with_conn(|conn| conn.query_row("SELECT 1", [], |_| Ok(())))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queued(summary: &str) -> (Queued, oneshot::Receiver<Result<SaveOutcome, StoreError>>) {
        let (done, outcome) = oneshot::channel();
        let entry = Entry {
            summary: summary.into(),
            timestamp: "2025-08-19T08:39:27.174624+09:00".into(),
        };
        let save = Queued {
            ns: "ns".into(),
            thread: "t".into(),
            entry,
            retention: Retention::default(),
            done,
        };
        (save, outcome)
    }

    #[test]
    fn one_commit_lands_every_queued_save_but_those_given_up() {
        let dir = tempfile::tempdir().unwrap();
        let store =
            SqliteStore::open(&dir.path().join("kioku.sqlite3"), Duration::from_secs(1)).unwrap();
        let (first, mut first_outcome) = queued("first");
        let (given_up, _) = queued("given up");
        let (last, mut last_outcome) = queued("last");
        let queue = Mutex::new(vec![first, given_up, last]);

        let mut conn = store.conn.lock().unwrap();
        commit_queued(&mut conn, &queue);

        assert!(queue.lock().unwrap().is_empty());
        assert!(first_outcome.try_recv().unwrap().is_ok());
        assert!(last_outcome.try_recv().unwrap().is_ok());
        let summaries: Vec<String> = conn
            .prepare("SELECT summary FROM entries ORDER BY seq")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(summaries, ["first", "last"]);
    }
}
