use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use rusqlite::{Connection, params};

use super::{MemoryStore, StoreError};
use crate::domain::{Entry, Namespace, Thread, ThreadId};

/// Schema versions, applied in order at open; `PRAGMA user_version` records how many ran.
const MIGRATIONS: &[&str] = &[
    // 1: entries in save order; each thread remembers its latest entry for ordering.
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
];

/// The embedded store: one SQLite file in WAL mode with `synchronous=FULL`, so a save that
/// was answered survives a crash or power loss. One connection, used on the blocking pool.
#[derive(Clone)]
pub struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
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
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
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

fn unavailable(err: rusqlite::Error) -> StoreError {
    StoreError::Unavailable(err.to_string())
}

fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    let applied: usize = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    for (version, sql) in MIGRATIONS.iter().enumerate().skip(applied) {
        tx.execute_batch(sql)?;
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
    ) -> Result<(), StoreError> {
        let (ns, thread, entry) = (
            ns.name().to_owned(),
            thread.as_str().to_owned(),
            entry.clone(),
        );
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            tx.execute(
                "INSERT INTO entries (namespace, thread_id, summary, timestamp) VALUES (?1, ?2, ?3, ?4)",
                params![ns, thread, entry.summary, entry.timestamp],
            )?;
            tx.execute(
                "INSERT INTO threads (namespace, thread_id, last_seq) VALUES (?1, ?2, ?3)
                 ON CONFLICT (namespace, thread_id) DO UPDATE SET last_seq = excluded.last_seq",
                params![ns, thread, tx.last_insert_rowid()],
            )?;
            tx.commit()
        })
        .await
    }

    async fn count(&self, ns: &Namespace) -> Result<u64, StoreError> {
        let ns = ns.name().to_owned();
        self.with_conn(move |conn| {
            conn.query_row(
                "SELECT COUNT(*) FROM threads WHERE namespace = ?1",
                [ns],
                |row| row.get(0),
            )
        })
        .await
    }

    async fn load(&self, ns: &Namespace) -> Result<Vec<Thread>, StoreError> {
        let ns = ns.name().to_owned();
        self.with_conn(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT e.thread_id, e.summary, e.timestamp
                 FROM threads t JOIN entries e
                   ON e.namespace = t.namespace AND e.thread_id = t.thread_id
                 WHERE t.namespace = ?1
                 ORDER BY t.last_seq DESC, e.seq",
            )?;
            let mut rows = stmt.query([ns])?;
            let mut threads: Vec<Thread> = Vec::new();
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

    async fn ping(&self) -> Result<(), StoreError> {
        self.with_conn(|conn| conn.query_row("SELECT 1", [], |_| Ok(())))
            .await
    }
}
