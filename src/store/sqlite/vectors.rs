//! Each entry's vector, for search by meaning: a row of `entry_vectors` beside the entry,
//! written in the save's transaction and deleted with the entry by a trigger. The nearest are
//! found by reading every vector of the namespace and comparing: a namespace holds thousands
//! of entries, not millions, and a scan of them costs less than keeping an index in step
//! (docs/scale.md has the figures).

use rusqlite::types::Value;
use rusqlite::{Connection, Transaction, params, params_from_iter};

use super::sql::{entry, filter_sql, located};
use crate::domain::{Embedded, Entry, Filter, Located, Vector};
use crate::search::MAX_NEAREST;
use crate::store::{EntryKey, StoreError, Unembedded};

/// 8: the entries' vectors, and the model that computed each.
pub fn add_vectors(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TABLE entry_vectors (
             seq INTEGER PRIMARY KEY, model TEXT NOT NULL, vector BLOB NOT NULL);
         CREATE TRIGGER entry_vector_deleted AFTER DELETE ON entries BEGIN
             DELETE FROM entry_vectors WHERE seq = old.seq;
         END;",
    )
}

/// Stores the vector of the entry `seq`, in place of any it had, if the entry is there:
/// answers 1 if it is, else 0.
pub fn insert_vector(conn: &Connection, seq: i64, embedded: &Embedded) -> rusqlite::Result<u64> {
    let stored = conn
        .prepare_cached(
            "INSERT OR REPLACE INTO entry_vectors (seq, model, vector)
             SELECT seq, ?2, ?3 FROM entries WHERE seq = ?1",
        )?
        .execute(params![
            seq,
            embedded.model.as_str(),
            embedded.vector.to_bytes()
        ])?;
    Ok(stored as u64)
}

/// The thread's entries saved at or after `since` with a vector of `model`, each with it.
pub fn recent(
    conn: &Connection,
    ns: &str,
    thread: &str,
    model: &str,
    since: i64,
) -> rusqlite::Result<Vec<(Entry, Vector)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT e.summary, e.timestamp, e.writer, v.vector FROM entries e
         CROSS JOIN entry_vectors v ON v.seq = e.seq
         WHERE e.namespace = ?1 AND e.thread_id = ?2 AND e.at_us >= ?3 AND v.model = ?4",
    )?;
    let rows = stmt.query_map(params![ns, thread, since, model], |row| {
        Ok((entry(row)?, Vector::from_bytes(row.get_ref(3)?.as_blob()?)))
    })?;
    let mut recent = Vec::new();
    for row in rows {
        if let (entry, Some(vector)) = row? {
            recent.push((entry, vector));
        }
    }
    Ok(recent)
}

/// The entry's `seq`, which is its key here.
pub fn seq_of(key: &EntryKey) -> Result<i64, StoreError> {
    key.as_str()
        .parse()
        .map_err(|e| StoreError::failed("an entry key SQLite did not answer", e))
}

/// Up to `limit` entries without a vector of `model`, newest stored first, from below
/// `before`. The walk down `entries`' primary key stops at `limit`: a batch costs the entries
/// it passes, and the backfill resumes below the last.
pub fn unembedded(
    conn: &Connection,
    model: &str,
    before: Option<i64>,
    limit: u32,
) -> rusqlite::Result<Vec<Unembedded>> {
    conn.prepare_cached(
        "SELECT e.seq, e.summary FROM entries e
         LEFT JOIN entry_vectors v ON v.seq = e.seq AND v.model = ?1
         WHERE v.seq IS NULL AND e.seq < ?2 ORDER BY e.seq DESC LIMIT ?3",
    )?
    .query_map(params![model, before.unwrap_or(i64::MAX), limit], |row| {
        Ok(Unembedded {
            key: EntryKey::new(row.get::<_, i64>(0)?.to_string()),
            summary: row.get(1)?,
        })
    })?
    .collect()
}

/// The [`MAX_NEAREST`] entries of the namespace `filter` admits whose vectors of `meaning`'s
/// model are closest to it, closest first; ties by `seq`, newest stored first.
pub fn nearest(
    conn: &Connection,
    ns: &str,
    filter: &Filter,
    meaning: &Embedded,
) -> rusqlite::Result<Vec<Located>> {
    let (clause, mut values) = filter_sql(filter);
    values.insert(0, Value::Text(ns.to_owned()));
    values.push(Value::Text(meaning.model.as_str().to_owned()));
    let sql = format!(
        "SELECT v.seq, v.vector FROM entries CROSS JOIN entry_vectors v ON v.seq = entries.seq
         WHERE {clause} AND v.model = ?{}",
        values.len()
    );
    let mut scored: Vec<(f32, i64)> = Vec::new();
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params_from_iter(&values))?;
    while let Some(row) = rows.next()? {
        let bytes = row.get_ref(1)?.as_blob()?;
        if let Some(vector) = Vector::from_bytes(bytes) {
            scored.push((meaning.vector.cosine(&vector), row.get(0)?));
        }
    }
    let closest = |a: &(f32, i64), b: &(f32, i64)| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1));
    if scored.len() > MAX_NEAREST {
        scored.select_nth_unstable_by(MAX_NEAREST - 1, closest);
        scored.truncate(MAX_NEAREST);
    }
    scored.sort_unstable_by(closest);
    let mut entry = conn.prepare_cached(
        "SELECT thread_id, summary, timestamp, at_us, seq, writer FROM entries WHERE seq = ?1",
    )?;
    scored
        .iter()
        .map(|(_, seq)| entry.query_row([seq], located))
        .collect()
}
