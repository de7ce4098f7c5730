//! A read transaction begun and ended with statements from the connection's cache: rusqlite's
//! `transaction()` parses `BEGIN` and `ROLLBACK` anew each time, which a small load paid for
//! on every call.

use std::ops::Deref;

use rusqlite::Connection;

/// One snapshot of the database, held until dropped: every query through it reads the same
/// moment, and the file's read locks are taken once, not once per query.
pub struct Snapshot<'c>(&'c Connection);

impl<'c> Snapshot<'c> {
    pub fn begin(conn: &'c Connection) -> rusqlite::Result<Self> {
        conn.prepare_cached("BEGIN")?.execute([])?;
        Ok(Self(conn))
    }
}

impl Deref for Snapshot<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.0
    }
}

impl Drop for Snapshot<'_> {
    /// Ends the transaction whatever happened in it, on an error or a panic too, so that the
    /// connection goes back to its pool without a snapshot that would hold back checkpoints.
    /// It wrote nothing, so COMMIT only lets go of the locks, with less work than ROLLBACK.
    fn drop(&mut self) {
        let ended = self
            .0
            .prepare_cached("COMMIT")
            .and_then(|mut commit| commit.execute([]));
        if ended.is_err() && !self.0.is_autocommit() {
            let _ = self.0.execute_batch("ROLLBACK");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counted(conn: &Connection) -> i64 {
        conn.query_row("SELECT COUNT(*) FROM t", [], |row| row.get(0))
            .unwrap()
    }

    /// A write made between two reads of one snapshot is not seen by the second, and the
    /// snapshot is over once dropped, on an error as after success.
    #[test]
    fn reads_through_a_snapshot_see_one_moment_and_it_ends_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let writer = Connection::open(&path).unwrap();
        writer
            .execute_batch("PRAGMA journal_mode=WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1);")
            .unwrap();
        let reader = Connection::open(&path).unwrap();
        {
            let snapshot = Snapshot::begin(&reader).unwrap();
            assert_eq!(counted(&snapshot), 1);
            writer.execute("INSERT INTO t VALUES (2)", []).unwrap();
            assert_eq!(counted(&snapshot), 1);
            assert!(!snapshot.is_autocommit());
        }
        assert!(reader.is_autocommit());
        assert_eq!(counted(&reader), 2);
        {
            let snapshot = Snapshot::begin(&reader).unwrap();
            assert!(
                snapshot
                    .query_row("SELECT nope FROM t", [], |_| Ok(()))
                    .is_err()
            );
        }
        assert!(reader.is_autocommit());
    }
}
