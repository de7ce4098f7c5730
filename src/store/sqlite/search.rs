//! The search index: each entry's terms in an FTS5 table, for the candidates holding a term
//! and how many entries of a namespace hold it, and each entry's [`TermStats`] for ranking.
//!
//! Triggers keep both in the entry's own transaction, so every way of saving, importing or
//! forgetting keeps them exact. A term is indexed as `<namespace key>:<hash of the term>`, so a
//! count or a lookup touches only its namespace's entries. The index records the
//! [`TERMS_VERSION`] that built it, and is built again at open under another.

use std::collections::BTreeSet;

use rusqlite::functions::FunctionFlags;
use rusqlite::types::Value;
use rusqlite::{Connection, Transaction, params_from_iter};
use sha2::{Digest, Sha256};

use super::sql::{filter_sql, located};
use crate::domain::Filter;
use crate::search::{Candidate, MAX_CANDIDATES, TERMS_VERSION, TermStats, terms};

/// 6: the search index (filled by [`reindex_if_stale`], after migration 7); the folded copies
/// it replaces are gone.
pub fn add_search_index(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(
        "DROP TRIGGER entry_deleted;
         DROP TABLE entry_search;
         CREATE TABLE entry_stats (seq INTEGER PRIMARY KEY, stats BLOB NOT NULL);
         CREATE VIRTUAL TABLE entry_terms USING fts5(
             terms, content = '', detail = none,
             tokenize = \"unicode61 remove_diacritics 0 categories 'L* M* N* P* S* Co'\");
         CREATE TRIGGER entry_added AFTER INSERT ON entries BEGIN
             INSERT INTO entry_stats (seq, stats) VALUES (new.seq, term_stats(new.summary));
             INSERT INTO entry_terms (rowid, terms)
                 VALUES (new.seq, index_terms(new.namespace, new.summary));
         END;
         CREATE TRIGGER entry_deleted AFTER DELETE ON entries BEGIN
             DELETE FROM entry_stats WHERE seq = old.seq;
             INSERT INTO entry_terms (entry_terms, rowid, terms)
                 VALUES ('delete', old.seq, index_terms(old.namespace, old.summary));
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

/// 7: which [`TERMS_VERSION`] the index holds the terms of: none yet (0), so that
/// [`reindex_if_stale`] builds it, once, for a file of any earlier schema.
pub fn record_terms_version(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TABLE search_index (terms_version INTEGER NOT NULL);
         INSERT INTO search_index (terms_version) VALUES (0);",
    )
}

/// Builds the index again when another version of [`terms`] built it (or none did): every
/// entry's terms and stats, as this version cuts them. A contentless index forgets only what a delete
/// names exactly, so it cannot hold two versions' terms; rebuilding at open keeps it whole.
/// Answers how many entries were indexed again.
pub fn reindex_if_stale(tx: &Transaction) -> rusqlite::Result<Option<u64>> {
    let built: i64 = tx.query_row("SELECT terms_version FROM search_index", [], |row| {
        row.get(0)
    })?;
    if built == TERMS_VERSION {
        return Ok(None);
    }
    tx.execute_batch(
        "INSERT INTO entry_terms (entry_terms) VALUES ('delete-all');
         DELETE FROM entry_stats;
         INSERT INTO entry_stats (seq, stats) SELECT seq, term_stats(summary) FROM entries;
         INSERT INTO entry_terms (rowid, terms)
             SELECT seq, index_terms(namespace, summary) FROM entries;",
    )?;
    tx.execute(
        "UPDATE search_index SET terms_version = ?1",
        [TERMS_VERSION],
    )?;
    tx.query_row("SELECT COUNT(*) FROM entries", [], |row| row.get(0))
        .map(Some)
}

/// `term_stats(summary)` and `index_terms(namespace, summary)`, for the triggers.
pub fn register_functions(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function("term_stats", 1, flags, |ctx| {
        Ok(TermStats::of(ctx.get_raw(0).as_str()?).to_bytes())
    })?;
    conn.create_scalar_function("index_terms", 2, flags, |ctx| {
        let key = namespace_key(ctx.get_raw(0).as_str()?);
        let distinct: BTreeSet<String> = terms(ctx.get_raw(1).as_str()?).into_iter().collect();
        Ok(distinct
            .iter()
            .map(|term| token(&key, term))
            .collect::<Vec<_>>()
            .join(" "))
    })
}

/// What a namespace's terms start with in the index: short, and free of any character the
/// index's tokenizer would split at.
fn namespace_key(ns: &str) -> String {
    let digest = Sha256::digest(ns.as_bytes());
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("{hex}:")
}

/// How many of the namespace's entries hold each term, and how many it holds. Each count reads
/// only its term's list of entries (an `fts5vocab` table would read every term's).
pub fn term_counts(
    conn: &Connection,
    ns: &str,
    terms: &[String],
) -> rusqlite::Result<(u64, Vec<u64>)> {
    let key = namespace_key(ns);
    let mut count =
        conn.prepare_cached("SELECT COUNT(*) FROM entry_terms WHERE entry_terms MATCH ?1")?;
    let counts = terms
        .iter()
        .map(|term| count.query_row([phrase(&key, term)], |row| row.get(0)))
        .collect::<rusqlite::Result<_>>()?;
    let documents = conn
        .prepare_cached("SELECT COUNT(*) FROM entries WHERE namespace = ?1")?
        .query_row([ns], |row| row.get(0))?;
    Ok((documents, counts))
}

/// The [`MAX_CANDIDATES`] most recently stored entries `filter` admits holding one of `terms`.
/// The index leads (`CROSS JOIN` keeps it the outer loop, where the planner would otherwise walk
/// the namespace in time order) and hands out its rows newest stored first (its rowid is the
/// entry's `seq`), so `LIMIT` stops it. Ordering by save time instead would read and sort every
/// entry holding the term, summary and all: 200 ms rather than 10 for a term all of 10,000
/// entries hold. The two orders differ only for imported entries.
pub fn candidates(
    conn: &Connection,
    ns: &str,
    filter: &Filter,
    terms: &[String],
) -> rusqlite::Result<Vec<Candidate>> {
    let key = namespace_key(ns);
    let (clause, mut values) = filter_sql(filter);
    values.insert(0, Value::Text(ns.to_owned()));
    let phrases: Vec<String> = terms.iter().map(|term| phrase(&key, term)).collect();
    values.push(Value::Text(phrases.join(" OR ")));
    let sql = format!(
        "SELECT e.thread_id, e.summary, e.timestamp, e.at_us, e.seq, e.writer, s.stats
         FROM entry_terms CROSS JOIN entries e ON e.seq = entry_terms.rowid
              CROSS JOIN entry_stats s ON s.seq = e.seq
         WHERE entry_terms MATCH ?{} AND {clause}
         ORDER BY entry_terms.rowid DESC LIMIT {MAX_CANDIDATES}",
        values.len()
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    stmt.query_map(params_from_iter(&values), |row| {
        Ok(Candidate {
            item: located(row)?,
            stats: TermStats::from_bytes(&row.get::<_, Vec<u8>>(6)?),
        })
    })?
    .collect()
}

/// `term` of the namespace keyed `key` as an FTS5 query names it: quoted, so that nothing in it
/// is read as query syntax.
fn phrase(key: &str, term: &str) -> String {
    format!("\"{}\"", token(key, term))
}

/// `term` of the namespace keyed `key` as the index holds it: a hash in hex, so that it is always
/// one token of the index's tokenizer, whatever characters the term holds (a term the tokenizer
/// split would be a phrase, which an index without positions cannot answer).
fn token(key: &str, term: &str) -> String {
    let hash = term.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{key}{hash:016x}")
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;
    use crate::store::sqlite::schema::{migrate, set_up};

    /// A term more entries hold than a search ranks: the most recently stored are its
    /// candidates, whatever their save times say.
    #[test]
    fn candidates_of_a_common_term_are_the_most_recently_stored() {
        let mut conn = Connection::open_in_memory().unwrap();
        set_up(&conn).unwrap();
        migrate(&mut conn).unwrap();
        let held = MAX_CANDIDATES + 5;
        for i in 0..held {
            // Save times run backwards: the entry stored last is the oldest.
            conn.execute(
                "INSERT INTO entries (namespace, thread_id, summary, timestamp, at_us)
                 VALUES ('ns', ?1, '共通の話題', '2025-01-01T00:00:00.000000+09:00', ?2)",
                rusqlite::params![format!("t{i}"), 1_000_000 - i as i64],
            )
            .unwrap();
        }
        let found = candidates(&conn, "ns", &Filter::default(), &["共通".to_owned()]).unwrap();
        assert_eq!(found.len() as u64, MAX_CANDIDATES);
        let oldest_stored = found.iter().map(|c| c.item.seq).min().unwrap();
        assert_eq!(oldest_stored, 6, "the 5 stored first are left out");
    }
}
