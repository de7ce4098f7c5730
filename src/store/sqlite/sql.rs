//! The SQL of the store's calls: writing an entry, the caps of a save, counts, and the
//! WHERE clause of a filter.

use std::collections::HashSet;

use rusqlite::types::{Type, Value, ValueRef};
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};

use crate::domain::Counts;
use crate::domain::{Entry, Filter, Located, Page, PageBuilder, Retention, Writer, entry_micros};
use crate::store::Dropped;

/// Appends `entry` to the thread and makes it the thread's latest; answers its `seq`.
pub fn insert_entry(
    conn: &Connection,
    ns: &str,
    thread: &str,
    entry: &Entry,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO entries (namespace, thread_id, summary, timestamp, at_us, writer)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        ns,
        thread,
        entry.summary,
        entry.timestamp,
        entry_micros(&entry.timestamp),
        writer_json(entry.writer.as_ref()),
    ])?;
    let seq = conn.last_insert_rowid();
    conn.prepare_cached(
        "INSERT INTO threads (namespace, thread_id, last_seq) VALUES (?1, ?2, ?3)
         ON CONFLICT (namespace, thread_id) DO UPDATE SET last_seq = excluded.last_seq",
    )?
    .execute(params![ns, thread, seq])?;
    Ok(seq)
}

/// Drops what `retention`'s caps do not keep after a save to `thread`: its oldest entries
/// beyond the limit, and the least recently saved threads beyond theirs.
pub fn apply_caps(
    conn: &Connection,
    ns: &str,
    thread: &str,
    retention: &Retention,
) -> rusqlite::Result<Dropped> {
    let mut dropped = Dropped::default();
    if let Some(max) = retention.max_entries_per_thread {
        // Entries past their age go first and unreported, as on every store: no load shows
        // them already, and the cap counts only what a load would.
        if let Some(cutoff) = retention.cutoff() {
            conn.prepare_cached(
                "DELETE FROM entries WHERE namespace = ?1 AND thread_id = ?2 AND at_us < ?3",
            )?
            .execute(params![ns, thread, cutoff])?;
        }
        dropped.entries = conn
            .prepare_cached(
                "DELETE FROM entries WHERE seq IN (
                     SELECT seq FROM entries WHERE namespace = ?1 AND thread_id = ?2
                     ORDER BY seq DESC LIMIT -1 OFFSET ?3)",
            )?
            .execute(params![ns, thread, max.get()])? as u64;
    }
    if let Some(max) = retention.max_threads {
        let excess: u64 = conn
            .prepare_cached("SELECT MAX(COUNT(*) - ?2, 0) FROM threads WHERE namespace = ?1")?
            .query_row(params![ns, max.get()], |row| row.get(0))?;
        if excess > 0 {
            conn.prepare_cached(
                "DELETE FROM entries WHERE namespace = ?1 AND thread_id IN (
                     SELECT thread_id FROM threads WHERE namespace = ?1
                     ORDER BY last_seq LIMIT ?2)",
            )?
            .execute(params![ns, excess])?;
            dropped.threads = excess;
        }
    }
    Ok(dropped)
}

pub fn counts(
    conn: &Connection,
    clause: &str,
    values: impl rusqlite::Params,
) -> rusqlite::Result<Counts> {
    conn.prepare_cached(&format!(
        "SELECT COUNT(DISTINCT thread_id), COUNT(*) FROM entries WHERE {clause}"
    ))?
    .query_row(values, |row| {
        Ok(Counts {
            threads: row.get(0)?,
            entries: row.get(1)?,
        })
    })
}

/// The entry saved to the thread last, if the thread exists.
pub fn newest_entry(conn: &Connection, ns: &str, thread: &str) -> rusqlite::Result<Option<Entry>> {
    conn.prepare_cached(
        "SELECT summary, timestamp, writer FROM entries WHERE seq = (
             SELECT last_seq FROM threads WHERE namespace = ?1 AND thread_id = ?2)",
    )?
    .query_row(params![ns, thread], entry)
    .optional()
}

pub fn thread_count(conn: &Connection, ns: &str) -> rusqlite::Result<u64> {
    conn.prepare_cached("SELECT COUNT(*) FROM threads WHERE namespace = ?1")?
        .query_row([ns], |row| row.get(0))
}

/// The page of `ns` that `filter` admits, newest first, until `page` is full.
pub fn page(
    conn: &Connection,
    ns: &str,
    filter: &Filter,
    mut page: PageBuilder,
) -> rusqlite::Result<Page> {
    let (mut clause, mut values) = filter_sql(filter);
    values.insert(0, Value::Text(ns.to_owned()));
    let entries = match filter.limit {
        Some(limit) => keep_newest_threads(conn, &mut clause, &mut values, limit)?,
        None => "entries",
    };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT thread_id, summary, timestamp, at_us, seq, writer FROM {entries} WHERE {clause}
         ORDER BY at_us DESC, thread_id, seq DESC"
    ))?;
    let mut rows = stmt.query(params_from_iter(&values))?;
    while let Some(row) = rows.next()? {
        if !page.push(located(row)?) {
            break;
        }
    }
    let totals = if page.is_full() {
        let sql =
            format!("SELECT COUNT(*), COUNT(DISTINCT thread_id) FROM {entries} WHERE {clause}");
        Some(
            conn.prepare_cached(&sql)?
                .query_row(params_from_iter(&values), |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })?,
        )
    } else {
        None
    };
    Ok(page.finish(totals))
}

/// The WHERE clause of a filter, after `namespace = ?1`, and its parameters from `?2`. A limit
/// is not in it: [`keep_newest_threads`] adds it.
pub fn filter_sql(filter: &Filter) -> (String, Vec<Value>) {
    let thread = filter
        .thread
        .as_ref()
        .map(|t| Value::Text(t.as_str().to_owned()));
    let sql = "namespace = ?1 AND (?2 IS NULL OR thread_id = ?2) AND at_us >= ?3 AND at_us < ?4";
    let values = vec![
        thread.unwrap_or(Value::Null),
        Value::Integer(filter.since.unwrap_or(i64::MIN)),
        Value::Integer(filter.before.unwrap_or(i64::MAX)),
    ];
    (sql.to_owned(), values)
}

/// Narrows `clause` (with its `values`, `?1` first) to the `limit` threads whose newest entries
/// it admits are newest, ties by id, and answers the table to read them from. The threads are
/// the first distinct ones in load order, read from its index only as far as they reach, so
/// that a limited load costs what it answers, not what the namespace holds.
pub fn keep_newest_threads(
    conn: &Connection,
    clause: &mut String,
    values: &mut Vec<Value>,
    limit: usize,
) -> rusqlite::Result<&'static str> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT thread_id FROM entries WHERE {clause} ORDER BY at_us DESC, thread_id"
    ))?;
    let mut rows = stmt.query(params_from_iter(values.iter()))?;
    let (mut seen, mut chosen) = (HashSet::new(), Vec::new());
    while chosen.len() < limit {
        let Some(row) = rows.next()? else { break };
        let thread: String = row.get(0)?;
        if seen.insert(thread.clone()) {
            chosen.push(thread);
        }
    }
    let ids = serde_json::to_string(&chosen).expect("thread ids serialize");
    values.push(Value::Text(ids));
    clause.push_str(&format!(
        " AND thread_id IN (SELECT value FROM json_each(?{}))",
        values.len()
    ));
    // Each of the few threads read by its own index, then sorted: the planner would walk the
    // whole namespace in load order instead, to skip the sort.
    Ok("entries INDEXED BY entries_by_thread")
}

/// An entry read as `thread_id, summary, timestamp, at_us, seq, writer`.
pub fn located(row: &rusqlite::Row) -> rusqlite::Result<Located> {
    Ok(Located {
        thread_id: row.get(0)?,
        entry: Entry {
            summary: text(row, 1)?,
            timestamp: row.get(2)?,
            writer: writer(row, 5)?,
        },
        at: row.get(3)?,
        seq: row.get(4)?,
    })
}

/// An entry read as `summary, timestamp, writer`.
pub fn entry(row: &rusqlite::Row) -> rusqlite::Result<Entry> {
    Ok(Entry {
        summary: text(row, 0)?,
        timestamp: row.get(1)?,
        writer: writer(row, 2)?,
    })
}

/// A TEXT column, as `row.get` reads it but checked to be UTF-8 many bytes at a time: the
/// standard check goes a character at a time outside ASCII, and a load reads thousands of a
/// summary's characters.
fn text(row: &rusqlite::Row, column: usize) -> rusqlite::Result<String> {
    match row.get_ref(column)? {
        ValueRef::Text(utf8) => simdutf8::basic::from_utf8(utf8)
            .map(str::to_owned)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(column, Type::Text, e.into())),
        other => Err(rusqlite::Error::InvalidColumnType(
            column,
            row.as_ref().column_name(column)?.to_owned(),
            other.data_type(),
        )),
    }
}

/// A writer as its column holds it: JSON, or NULL for none.
pub fn writer_json(writer: Option<&Writer>) -> Option<String> {
    writer.map(|w| serde_json::to_string(w).expect("a writer serializes"))
}

/// The writer `column` holds, read where SQLite holds it; none when NULL, or not one this
/// version knows.
pub fn writer(row: &rusqlite::Row, column: usize) -> rusqlite::Result<Option<Writer>> {
    let json = row.get_ref(column)?.as_str_or_null()?;
    Ok(json.and_then(|json| serde_json::from_str(json).ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a file edited outside kioku may hold: TEXT that is not UTF-8, or no TEXT at all,
    /// is an error, as `row.get` makes it, never a string.
    #[test]
    fn a_text_column_is_checked_to_be_utf8() {
        let conn = Connection::open_in_memory().unwrap();
        let read = |sql: &str| conn.query_row(sql, [], |row| text(row, 0));
        assert_eq!(read("SELECT '記憶 ok'").unwrap(), "記憶 ok");
        assert!(matches!(
            read("SELECT CAST(x'e8a8ff' AS TEXT)"),
            Err(rusqlite::Error::FromSqlConversionFailure(0, Type::Text, _))
        ));
        assert!(matches!(
            read("SELECT 1"),
            Err(rusqlite::Error::InvalidColumnType(0, _, Type::Integer))
        ));
    }
}
