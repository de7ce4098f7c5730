//! The embedded store: one SQLite file in WAL mode with `synchronous=FULL`, so a save that
//! was answered survives a process crash, and by SQLite's guarantee a power loss. One
//! connection writes; a few read-only ones read beside it. All are used on the blocking pool.

mod grants;
mod group_commit;
mod maintenance;
mod profile;
mod readers;
mod schema;
mod search;
mod snapshot;
mod sql;
mod store;
mod vectors;

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::Connection;

use super::StoreError;
use super::blocking::{GivenUp, off_workers};
use crate::files;
use group_commit::Queued;
use readers::Readers;

#[derive(Clone)]
pub struct SqliteStore {
    /// The one connection that writes (and the OAuth records' reads, which are small).
    conn: Arc<Mutex<Connection>>,
    readers: Arc<Readers>,
    /// Saves not yet committed. Whichever save gets the connection next commits all of them
    /// in one transaction (group commit): concurrent saves share one fsync instead of
    /// queueing for one each.
    queue: Arc<Mutex<Vec<Queued>>>,
}

/// Runs `work` on `conn`, stopping it once `given_up` is set.
fn stopping<T>(
    conn: &mut Connection,
    given_up: &GivenUp,
    work: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
) -> Result<T, StoreError> {
    // Its caller may have given up while it waited for the connection.
    if given_up.is_set() {
        return Err(StoreError::GivenUp);
    }
    // A progress handler rather than `sqlite3_interrupt` from the caller's side: it is set and
    // cleared while this call holds the connection, so it can only ever stop this call's
    // statements, never those of the call that gets the connection next.
    let given_up = given_up.clone();
    conn.progress_handler(PROGRESS_EVERY_OPS, Some(move || given_up.is_set()));
    let done = work(conn);
    conn.progress_handler(0, None::<fn() -> bool>);
    done.map_err(|e| StoreError::failed(QUERY_FAILED, e))
}

/// What a failed SQLite call was doing, for the log.
const QUERY_FAILED: &str = "an SQLite call failed";

/// Virtual machine instructions between checks of whether a call's caller gave up: a check
/// is an atomic load, so it costs nothing measurable, and a thousand instructions take
/// microseconds, so a given-up call stops at once.
const PROGRESS_EVERY_OPS: std::ffi::c_int = 1_000;

/// Whether a call stops once its caller gave up.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    WhenGivenUp,
    /// For the group commit of saves: one commit carries the saves of other callers, who
    /// still wait for it (a save whose caller gave up is left out of it instead).
    Never,
}

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
            schema::set_up(&conn)?;
            schema::migrate(&mut conn)?;
            Ok(conn)
        };
        let conn =
            opened().map_err(|e| StoreError::failed("the SQLite file could not be opened", e))?;
        let readers = Readers::open(path, lock_wait)
            .map_err(|e| StoreError::failed("the SQLite file could not be opened to read", e))?;
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
            readers: Arc::new(readers),
            queue: Arc::default(),
        })
    }

    /// Runs `work` on a read-only connection, as [`with_conn`](Self::with_conn) runs it on the
    /// writer's; it waits for no write, and for no other read while a connection is idle.
    async fn read<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let mut lent = self.readers.take().await.ok_or_else(|| {
            StoreError::failed("no read connection is left", "the pool was closed")
        })?;
        off_workers(move |given_up| stopping(lent.conn(), given_up, work)).await?
    }

    /// Runs `work` on the connection without blocking the async runtime, and stops it once its
    /// caller gave up: the connection is every namespace's, so work nobody waits for must not
    /// keep it.
    async fn with_conn<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        self.run(Stop::WhenGivenUp, work).await
    }

    /// Runs `work` on the connection on the blocking pool, stopping it as `stop` says.
    async fn run<T: Send + 'static>(
        &self,
        stop: Stop,
        work: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let conn = Arc::clone(&self.conn);
        off_workers(move |given_up| {
            // A panic mid-call leaves no open transaction (it rolls back on drop), so the
            // connection stays usable after poisoning.
            let mut conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
            if stop == Stop::Never {
                return work(&mut conn).map_err(|e| StoreError::failed(QUERY_FAILED, e));
            }
            stopping(&mut conn, given_up, work)
        })
        .await?
    }

    /// Deletes the entries and profile versions of every namespace saved before `cutoff` (in
    /// [`entry_micros`](crate::domain::entry_micros)); returns how many.
    pub async fn purge_before(&self, cutoff: i64) -> Result<u64, StoreError> {
        self.with_conn(move |conn| {
            let entries = conn.execute("DELETE FROM entries WHERE at_us < ?1", [cutoff])?;
            let profiles =
                conn.execute("DELETE FROM profile_versions WHERE at_us < ?1", [cutoff])?;
            Ok((entries + profiles) as u64)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;

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

    /// A query whose caller stopped waiting stops too, and the connection serves the next
    /// call at once, instead of after the query would have run its course (half a minute).
    #[tokio::test]
    async fn a_query_whose_caller_gave_up_stops_and_frees_the_connection() {
        let dir = tempfile::tempdir().unwrap();
        let store =
            SqliteStore::open(&dir.path().join("kioku.sqlite3"), Duration::from_secs(1)).unwrap();
        let long = store.with_conn(|conn| {
            conn.query_row(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 1e8)
                 SELECT count(*) FROM n",
                [],
                |row| row.get::<_, i64>(0),
            )
        });
        let given_up = tokio::time::timeout(Duration::from_millis(100), long).await;
        assert!(given_up.is_err(), "the query ended early: {given_up:?}");
        let next = tokio::time::timeout(Duration::from_secs(5), store.ping()).await;
        assert!(matches!(next, Ok(Ok(()))), "{next:?}");
    }
}
