//! The SQLite schema: migrations applied in order at open, and what every connection is set up
//! with (the SQL functions kioku adds, and room to keep its statements prepared).

use rusqlite::{Connection, Transaction, params};

use super::search::{add_search_index, record_terms_version, register_functions, reindex_if_stale};
use super::vectors::add_vectors;
use crate::domain::entry_micros;
use crate::search::fold;

/// Schema versions, applied in order at open; `PRAGMA user_version` records how many ran.
const MIGRATIONS: &[fn(&Transaction) -> rusqlite::Result<()>] = &[
    create_tables,
    add_time_and_search,
    tidy_after_deletes,
    add_oauth_records,
    add_profiles,
    add_search_index,
    record_terms_version,
    add_vectors,
    add_grant_token_digests,
    add_grant_client_names,
    add_client_expiry,
    add_writers,
];

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
        time.execute(params![seq, entry_micros(&timestamp)])?;
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

/// 4: the OAuth server's clients, grants and credentials. Times are microseconds since the
/// epoch, so that expiry and age compare as numbers; a client's redirect URIs are a JSON array.
/// Every expiry is indexed for the purge.
fn add_oauth_records(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TABLE oauth_clients (
             id            TEXT PRIMARY KEY,
             name          TEXT NOT NULL,
             secret_digest TEXT,
             redirect_uris TEXT NOT NULL,
             registered    INTEGER NOT NULL,
             created_at    INTEGER NOT NULL
         ) WITHOUT ROWID;
         CREATE TABLE oauth_grants (
             id              TEXT PRIMARY KEY,
             client_id       TEXT NOT NULL,
             namespace       TEXT NOT NULL,
             namespace_label TEXT NOT NULL,
             signed_in_with  TEXT NOT NULL,
             scope           TEXT NOT NULL,
             resource        TEXT,
             created_at      INTEGER NOT NULL,
             expires_at      INTEGER NOT NULL
         ) WITHOUT ROWID;
         CREATE INDEX oauth_grants_by_namespace ON oauth_grants (namespace, created_at);
         CREATE INDEX oauth_grants_by_expiry ON oauth_grants (expires_at);
         CREATE TABLE oauth_credentials (
             digest     TEXT PRIMARY KEY,
             kind       TEXT NOT NULL,
             grant_id   TEXT,
             expires_at INTEGER NOT NULL,
             used       INTEGER NOT NULL,
             body       TEXT NOT NULL
         ) WITHOUT ROWID;
         CREATE INDEX oauth_credentials_by_grant ON oauth_credentials (grant_id);
         CREATE INDEX oauth_credentials_by_expiry ON oauth_credentials (expires_at);",
    )
}

/// 5: each namespace's profile, a row per kept version; `at_us` as an entry's, for the purge.
fn add_profiles(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(
        "CREATE TABLE profile_versions (
             namespace  TEXT NOT NULL,
             version    INTEGER NOT NULL,
             profile    TEXT NOT NULL,
             updated_at TEXT NOT NULL,
             at_us      INTEGER NOT NULL,
             PRIMARY KEY (namespace, version)
         ) WITHOUT ROWID;
         CREATE INDEX profile_versions_by_time ON profile_versions (at_us);",
    )
}

/// 9: the digest of the API token a grant was signed in with, so that it ends with the token.
fn add_grant_token_digests(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch("ALTER TABLE oauth_grants ADD COLUMN token_digest TEXT;")
}

/// 10: the client's name as the person saw it, since a client known by its metadata document's
/// URL has no row of its own.
fn add_grant_client_names(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch("ALTER TABLE oauth_grants ADD COLUMN client_name TEXT;")
}

/// 11: when a client that registered itself goes if nobody completes a grant for it.
fn add_client_expiry(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(
        "ALTER TABLE oauth_clients ADD COLUMN expires_at INTEGER;
         CREATE INDEX oauth_clients_by_expiry ON oauth_clients (expires_at);",
    )
}

/// 12: who wrote each entry and profile version, as JSON; NULL for what was written before.
fn add_writers(tx: &Transaction) -> rusqlite::Result<()> {
    tx.execute_batch(
        "ALTER TABLE entries ADD COLUMN writer TEXT;
         ALTER TABLE profile_versions ADD COLUMN writer TEXT;",
    )
}

pub fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    let applied: usize = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    for (version, migration) in MIGRATIONS.iter().enumerate().skip(applied) {
        migration(&tx)?;
        tx.pragma_update(None, "user_version", version + 1)?;
    }
    // A new file's empty index is built too: nothing to say about it.
    if let Some(entries @ 1..) = reindex_if_stale(&tx)? {
        tracing::info!(entries, "search index rebuilt for this version's terms");
    }
    tx.commit()
}

/// Statements each connection keeps prepared: more than any one connection's calls use, so
/// that a statement is parsed once per connection rather than once per call.
const PREPARED_STATEMENTS: usize = 64;

/// What every connection, the writer's and each reader's, needs before its first call.
pub fn set_up(conn: &Connection) -> rusqlite::Result<()> {
    conn.set_prepared_statement_cache_capacity(PREPARED_STATEMENTS);
    register_functions(conn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Filter;
    use crate::store::sqlite::search::{candidates, term_counts};

    /// A file the first `version` migrations made, holding one entry.
    fn file_at(version: usize) -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        set_up(&conn).unwrap();
        let tx = conn.transaction().unwrap();
        for migration in &MIGRATIONS[..version] {
            migration(&tx).unwrap();
        }
        tx.pragma_update(None, "user_version", version).unwrap();
        tx.execute(
            "INSERT INTO entries (namespace, thread_id, summary, timestamp, at_us)
             VALUES ('ns', 't', '東京で会議', '2025-01-01T00:00:00.000000+09:00', 1)",
            [],
        )
        .unwrap();
        tx.commit().unwrap();
        conn
    }

    const TERMS: [&str; 2] = ["東京", "大阪"];

    fn counts(conn: &Connection, ns: &str) -> (u64, Vec<u64>) {
        term_counts(conn, ns, &TERMS.map(String::from)).unwrap()
    }

    /// A file written before the search index: migrating builds it for what the file holds,
    /// and the triggers keep it exact after.
    #[test]
    fn the_search_index_is_built_for_entries_saved_before_it() {
        let before = MIGRATIONS
            .iter()
            .position(|m| std::ptr::fn_addr_eq(*m, add_search_index as fn(&_) -> _))
            .unwrap();
        let mut conn = file_at(before);
        migrate(&mut conn).unwrap();

        assert_eq!(counts(&conn, "ns"), (1, vec![1, 0]));
        assert_eq!(counts(&conn, "other"), (0, vec![0, 0]));
        let found = candidates(&conn, "ns", &Filter::default(), &[TERMS[0].to_owned()]).unwrap();
        assert_eq!(found.len(), 1);
        assert!(found[0].stats.is_some());

        conn.execute("DELETE FROM entries", []).unwrap();
        assert_eq!(counts(&conn, "ns"), (0, vec![0, 0]));
    }

    /// An index another version of the terms built is built again at open, and a delete
    /// after it still forgets exactly what it added.
    #[test]
    fn an_index_of_another_terms_version_is_rebuilt() {
        let mut conn = file_at(MIGRATIONS.len());
        conn.execute_batch(
            "INSERT INTO entry_terms (entry_terms) VALUES ('delete-all');
             UPDATE search_index SET terms_version = 0;",
        )
        .unwrap();
        assert_eq!(counts(&conn, "ns"), (1, vec![0, 0]));
        migrate(&mut conn).unwrap();
        assert_eq!(counts(&conn, "ns"), (1, vec![1, 0]));

        conn.execute("DELETE FROM entries", []).unwrap();
        assert_eq!(counts(&conn, "ns"), (0, vec![0, 0]));
    }
}
