//! The profile's SQL: each namespace's versions in a table of their own, the newest kept.

use rusqlite::{Connection, OptionalExtension, params};

use super::sql::{writer, writer_json};
use crate::domain::{
    KEPT_PROFILE_VERSIONS, Profile, ProfileDraft, ProfileWrite, Retention, entry_micros,
};

/// A version number as SQLite stores it: numbers past `i64::MAX` are never written.
fn number(version: u64) -> i64 {
    i64::try_from(version).unwrap_or(i64::MAX)
}

fn profile(row: &rusqlite::Row) -> rusqlite::Result<Profile> {
    Ok(Profile {
        profile: row.get(0)?,
        version: row.get(1)?,
        updated_at: row.get(2)?,
        writer: writer(row, 3)?,
    })
}

/// The newest version, or `version`, written at or after `not_before`.
pub fn read(
    conn: &Connection,
    ns: &str,
    version: Option<u64>,
    not_before: Option<i64>,
) -> rusqlite::Result<Option<Profile>> {
    conn.prepare_cached(
        "SELECT profile, version, updated_at, writer FROM profile_versions
         WHERE namespace = ?1 AND (?2 IS NULL OR version = ?2) AND at_us >= ?3
         ORDER BY version DESC LIMIT 1",
    )?
    .query_row(
        params![ns, version.map(number), not_before.unwrap_or(i64::MIN)],
        profile,
    )
    .optional()
}

/// Stores `draft` as the next version unless it may not replace the current one (the newest,
/// unless past its age); then drops the versions past the kept number.
pub fn write(
    conn: &mut Connection,
    ns: &str,
    draft: &ProfileDraft,
    retention: &Retention,
) -> rusqlite::Result<ProfileWrite> {
    let tx = conn.transaction()?;
    let newest = read(&tx, ns, None, None)?;
    let written = match draft.after(newest, retention.cutoff()) {
        ProfileWrite::Written(written) => written,
        conflict => return Ok(conflict),
    };
    insert(&tx, ns, &written)?;
    keep_newest(&tx, ns)?;
    tx.commit()?;
    Ok(ProfileWrite::Written(written))
}

/// Every kept version, oldest first.
pub fn versions(conn: &Connection, ns: &str) -> rusqlite::Result<Vec<Profile>> {
    conn.prepare_cached(
        "SELECT profile, version, updated_at, writer FROM profile_versions WHERE namespace = ?1
         ORDER BY version",
    )?
    .query_map([ns], profile)?
    .collect()
}

/// Adds the versions not held by number; returns how many.
pub fn import(conn: &mut Connection, ns: &str, versions: &[Profile]) -> rusqlite::Result<u64> {
    let tx = conn.transaction()?;
    let mut added = 0;
    for version in versions {
        added += insert(&tx, ns, version)? as u64;
    }
    keep_newest(&tx, ns)?;
    tx.commit()?;
    Ok(added)
}

/// Forgets every version; returns how many.
pub fn forget(conn: &Connection, ns: &str) -> rusqlite::Result<u64> {
    let forgotten = conn.execute("DELETE FROM profile_versions WHERE namespace = ?1", [ns])?;
    Ok(forgotten as u64)
}

/// Inserts `version` unless its number is held; returns how many rows it added.
fn insert(conn: &Connection, ns: &str, version: &Profile) -> rusqlite::Result<usize> {
    conn.prepare_cached(
        "INSERT INTO profile_versions (namespace, version, profile, updated_at, at_us, writer)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO NOTHING",
    )?
    .execute(params![
        ns,
        number(version.version),
        version.profile,
        version.updated_at,
        entry_micros(&version.updated_at),
        writer_json(version.writer.as_ref()),
    ])
}

fn keep_newest(conn: &Connection, ns: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "DELETE FROM profile_versions WHERE namespace = ?1 AND version <= (
             SELECT MAX(version) - ?2 FROM profile_versions WHERE namespace = ?1)",
    )?
    .execute(params![ns, number(KEPT_PROFILE_VERSIONS)])?;
    Ok(())
}
