//! Group commit: concurrent saves share one transaction, and so one fsync.

use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::Connection;
use tokio::sync::oneshot;

use super::sql::{apply_caps, insert_entry, newest_entry, thread_count};
use super::vectors::insert_vector;
use crate::domain::{Embedded, Entry, Retention};
use crate::store::{SaveOutcome, StoreError};

/// A save waiting for its commit, and where to say how it went.
pub struct Queued {
    ns: String,
    thread: String,
    entry: Entry,
    vector: Option<Embedded>,
    retention: Retention,
    done: oneshot::Sender<Result<SaveOutcome, StoreError>>,
}

impl Queued {
    /// A save of `entry` (with its vector), and where its outcome will be told.
    pub fn new(
        ns: String,
        thread: String,
        entry: Entry,
        vector: Option<Embedded>,
        retention: Retention,
    ) -> (Self, oneshot::Receiver<Result<SaveOutcome, StoreError>>) {
        let (done, outcome) = oneshot::channel();
        let save = Self {
            ns,
            thread,
            entry,
            vector,
            retention,
            done,
        };
        (save, outcome)
    }
}

/// Stores one save, unless it repeats the thread's newest entry; drops what its retention's
/// caps do not keep, and counts the threads.
fn insert(conn: &Connection, save: &Queued) -> rusqlite::Result<SaveOutcome> {
    let newest = newest_entry(conn, &save.ns, &save.thread)?;
    if let Some(newest) = newest.as_ref().filter(|newest| save.entry.repeats(newest)) {
        return Ok(SaveOutcome {
            thread_count: thread_count(conn, &save.ns)?,
            repeat_of: Some(newest.clone()),
            ..SaveOutcome::default()
        });
    }
    let seq = insert_entry(conn, &save.ns, &save.thread, &save.entry)?;
    if let Some(vector) = &save.vector {
        insert_vector(conn, seq, vector)?;
    }
    let dropped = apply_caps(conn, &save.ns, &save.thread, &save.retention)?;
    Ok(SaveOutcome {
        dropped,
        thread_count: thread_count(conn, &save.ns)?,
        new_thread: newest.is_none(),
        repeat_of: None,
    })
}

/// Commits every queued save in one transaction, each in a savepoint of its own so that a
/// save that fails fails alone, and tells each how it went once the commit is on disk. A save
/// whose caller has given up (timed out) is dropped, so that it cannot land after its caller
/// was told it failed.
pub fn commit_queued(conn: &mut Connection, queue: &Mutex<Vec<Queued>>) {
    let queued = std::mem::take(&mut *queue.lock().unwrap_or_else(PoisonError::into_inner));
    let batch: Vec<Queued> = queued
        .into_iter()
        .filter(|save| !save.done.is_closed())
        .collect();
    if batch.is_empty() {
        return;
    }
    let outcomes: Vec<Result<SaveOutcome, StoreError>> = match commit_batch(conn, &batch) {
        Ok(outcomes) => outcomes
            .into_iter()
            .map(|outcome| outcome.map_err(|e| StoreError::failed("a save failed", e)))
            .collect(),
        // One cause, shared by every save of the batch.
        Err(e) => {
            let cause = Arc::new(e);
            (0..batch.len())
                .map(|_| {
                    Err(StoreError::failed(
                        "the saves' commit failed",
                        Arc::clone(&cause),
                    ))
                })
                .collect()
        }
    };
    for (save, outcome) in batch.into_iter().zip(outcomes) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn queued(summary: &str) -> (Queued, oneshot::Receiver<Result<SaveOutcome, StoreError>>) {
        let entry = Entry {
            summary: summary.into(),
            timestamp: "2025-08-19T08:39:27.174624+09:00".into(),
            writer: None,
        };
        Queued::new("ns".into(), "t".into(), entry, None, Retention::default())
    }

    #[test]
    fn one_commit_lands_every_queued_save_but_those_given_up() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::SqliteStore::open(
            &dir.path().join("kioku.sqlite3"),
            std::time::Duration::from_secs(1),
        )
        .unwrap();
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
