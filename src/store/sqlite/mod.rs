//! The embedded store: one SQLite file in WAL mode with `synchronous=FULL`, so a save that
//! was answered survives a process crash, and by SQLite's guarantee a power loss. One
//! connection, used on the blocking pool.

mod grants;
mod group_commit;
mod schema;
mod sql;
mod store;

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::Connection;

use super::StoreError;
use crate::files;
use group_commit::Queued;

#[derive(Clone)]
pub struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
    /// Saves not yet committed. Whichever save gets the connection next commits all of them
    /// in one transaction (group commit): concurrent saves share one fsync instead of
    /// queueing for one each.
    queue: Arc<Mutex<Vec<Queued>>>,
}

/// What a failed SQLite call was doing, for the log.
const QUERY_FAILED: &str = "an SQLite call failed";

impl SqliteStore {
    /// Opens or creates the file at `path`. A write that waits `lock_wait` for another
    /// connection's lock fails instead, so a caller's time limit can be kept.
    pub fn open(path: &Path, lock_wait: Duration) -> Result<Self, StoreError> {
        if let Some(dir) = path.parent() {
            files::private_dir(dir)
                .map_err(|e| StoreError::failed("the data directory could not be created", e))?;
        }
        files::private_file(path)
            .map_err(|e| StoreError::failed("the SQLite file could not be created", e))?;
        for companion in ["-wal", "-shm"] {
            let mut name = path.as_os_str().to_owned();
            name.push(companion);
            files::warn_if_open(Path::new(&name), files::FILE_MODE);
        }
        let opened = || -> rusqlite::Result<Connection> {
            let mut conn = Connection::open(path)?;
            conn.pragma_update(None, "journal_mode", "WAL")?;
            conn.pragma_update(None, "synchronous", "FULL")?;
            conn.busy_timeout(lock_wait)?;
            schema::migrate(&mut conn)?;
            schema::register_contains(&conn)?;
            Ok(conn)
        };
        let conn =
            opened().map_err(|e| StoreError::failed("the SQLite file could not be opened", e))?;
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
            let mut conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
            work(&mut conn)
        })
        .await
        .map_err(|e| StoreError::failed("the SQLite task did not finish", e))?
        .map_err(|e| StoreError::failed(QUERY_FAILED, e))
    }

    /// Deletes the entries of every namespace saved before `cutoff` (in
    /// [`entry_micros`](crate::domain::entry_micros)); returns how many.
    pub async fn purge_before(&self, cutoff: i64) -> Result<u64, StoreError> {
        self.with_conn(move |conn| {
            let purged = conn.execute("DELETE FROM entries WHERE at_us < ?1", [cutoff])?;
            Ok(purged as u64)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the durability of an answered save rests on: the kill test in tests/api/process.rs
    /// shows a process crash loses nothing; a power loss rests on these two settings
    /// (<https://www.sqlite.org/pragma.html#pragma_synchronous>).
    #[test]
    fn the_connection_runs_in_wal_mode_with_full_sync() {
        let dir = tempfile::tempdir().unwrap();
        let store =
            SqliteStore::open(&dir.path().join("kioku.sqlite3"), Duration::from_secs(1)).unwrap();
        let conn = store.conn.lock().unwrap();
        let journal: String = conn
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .unwrap();
        let synchronous: i64 = conn
            .query_row("PRAGMA synchronous", [], |row| row.get(0))
            .unwrap();
        // 2 is FULL: <https://www.sqlite.org/pragma.html#pragma_synchronous>.
        assert_eq!((journal.as_str(), synchronous), ("wal", 2));
    }
}
