//! Writing an export a line at a time, reading a namespace's threads a page at a time: an
//! export holds at most one page and the line it writes, whatever the database's size, and
//! reads each thread once. Each read is within the store's time limit, an export as long as
//! the memory.

use std::io::{self, Write};
use std::sync::Arc;
use std::vec;

use serde::Serialize;

use super::{ProfileRecord, ThreadRecord, TransferError};
use crate::domain::{Namespace, Thread};
use crate::store::{MemoryStore, TimeLimit};

/// Threads read from the store at once, which bounds an export's memory: a thread is at most
/// 1 MiB on Firestore and usually a few KiB; fewer per page would cost a round trip each.
const THREADS_PER_PAGE: u32 = 100;

/// What an export wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Exported {
    pub threads: u64,
    pub entries: u64,
    pub profile_versions: u64,
}

/// The namespaces an export covers: `name`, or every one the store holds (named by the store
/// without reading their threads).
pub async fn namespaces(
    store: &dyn MemoryStore,
    name: Option<&str>,
    limit: TimeLimit,
) -> Result<Vec<Namespace>, TransferError> {
    if let Some(name) = name {
        return Ok(vec![Namespace::requested(name)?]);
    }
    limit
        .within(store.namespace_names())
        .await?
        .iter()
        .map(|name| Namespace::named(name).map_err(TransferError::StoredName))
        .collect()
}

/// Writes every thread of `namespaces` to `out`, a line each, then its profile; returns how
/// much it wrote.
pub async fn export(
    store: Arc<dyn MemoryStore>,
    namespaces: Vec<Namespace>,
    limit: TimeLimit,
    out: &mut impl Write,
) -> Result<Exported, TransferError> {
    let mut export = Export::new(store, namespaces, limit);
    while let Some(line) = export.next_line().await? {
        out.write_all(&line)?;
    }
    Ok(export.written())
}

/// An export under way: each namespace's threads by id, a line each, then its profile's line.
/// It owns the store, so that a response body can carry it.
pub struct Export {
    store: Arc<dyn MemoryStore>,
    limit: TimeLimit,
    namespaces: vec::IntoIter<Namespace>,
    reading: Option<Reading>,
    written: Exported,
}

/// Where the reading of one namespace stands.
struct Reading {
    ns: Namespace,
    /// Threads read and not written yet.
    page: vec::IntoIter<Thread>,
    /// The id of the last thread read, after which the next page starts.
    after: Option<String>,
    /// Whether the last page was full, so that the store may hold more.
    more: bool,
}

impl Export {
    pub fn new(store: Arc<dyn MemoryStore>, namespaces: Vec<Namespace>, limit: TimeLimit) -> Self {
        Self {
            store,
            limit,
            namespaces: namespaces.into_iter(),
            reading: None,
            written: Exported::default(),
        }
    }

    /// What the lines given so far hold.
    pub fn written(&self) -> Exported {
        self.written
    }

    /// The next line, newline included; `None` once every namespace is written.
    pub async fn next_line(&mut self) -> Result<Option<Vec<u8>>, TransferError> {
        loop {
            let reading = match &mut self.reading {
                Some(reading) => reading,
                None => match self.namespaces.next() {
                    Some(ns) => self.reading.insert(Reading {
                        ns,
                        page: Vec::new().into_iter(),
                        after: None,
                        more: true,
                    }),
                    None => return Ok(None),
                },
            };
            if let Some(thread) = reading.page.next() {
                // A thread document the original left without entries holds nothing to keep.
                if thread.entries.is_empty() {
                    continue;
                }
                self.written.threads += 1;
                self.written.entries += thread.entries.len() as u64;
                let record = ThreadRecord {
                    namespace: reading.ns.name().to_owned(),
                    thread_id: thread.id,
                    entries: thread.entries,
                };
                return line(&record).map(Some);
            }
            if reading.more {
                let read = (self.store).threads_page(
                    &reading.ns,
                    reading.after.as_deref(),
                    THREADS_PER_PAGE,
                );
                let page = self.limit.within(read).await?;
                reading.more = page.len() == THREADS_PER_PAGE as usize;
                reading.after = page.last().map(|thread| thread.id.clone());
                reading.page = page.into_iter();
                continue;
            }
            let read = self.store.profile_versions(&reading.ns);
            let profile_versions = self.limit.within(read).await?;
            let namespace = reading.ns.name().to_owned();
            self.reading = None;
            if !profile_versions.is_empty() {
                self.written.profile_versions += profile_versions.len() as u64;
                let record = ProfileRecord {
                    namespace,
                    profile_versions,
                };
                return line(&record).map(Some);
            }
        }
    }
}

fn line(record: &impl Serialize) -> Result<Vec<u8>, TransferError> {
    let mut line = serde_json::to_vec(record).map_err(io::Error::from)?;
    line.push(b'\n');
    Ok(line)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::domain::{Entry, Profile, ThreadId, Writer};
    use crate::store::{Maintenance, SqliteStore};

    /// Pages end and begin between lines: every thread once, by id, then the profile; and a
    /// namespace holding only a profile.
    #[tokio::test]
    async fn an_export_crosses_pages_and_namespaces() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("kioku.sqlite3"), Duration::from_secs(5));
        let store = Arc::new(store.unwrap());
        let many = Namespace::named("many").unwrap();
        let profile_only = Namespace::named("p").unwrap();
        let threads = THREADS_PER_PAGE as usize * 2 + 1;
        let entry = Entry {
            summary: "要約".into(),
            timestamp: "2025-08-19T08:39:27.174624+09:00".into(),
            writer: Some(Writer::Import),
        };
        for i in 0..threads {
            let id = ThreadId::parse(&format!("t{i:03}")).unwrap();
            store
                .import(&many, &id, std::slice::from_ref(&entry))
                .await
                .unwrap();
        }
        let version = Profile {
            profile: "Rust を書く".into(),
            version: 1,
            updated_at: entry.timestamp.clone(),
            writer: Some(Writer::Page),
        };
        store
            .import_profile(&profile_only, &[version])
            .await
            .unwrap();

        let limit = TimeLimit::new(std::time::Duration::from_secs(8));
        let names = namespaces(store.as_ref(), None, limit).await.unwrap();
        let mut out = Vec::new();
        let written = export(store, names, limit, &mut out).await.unwrap();
        assert_eq!(
            written,
            Exported {
                threads: threads as u64,
                entries: threads as u64,
                profile_versions: 1
            }
        );
        let lines: Vec<serde_json::Value> = out
            .split(|byte| *byte == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| serde_json::from_slice(line).unwrap())
            .collect();
        let ids: Vec<&str> = lines[..threads]
            .iter()
            .map(|line| line["thread_id"].as_str().unwrap())
            .collect();
        let expected: Vec<String> = (0..threads).map(|i| format!("t{i:03}")).collect();
        assert_eq!(ids, expected);
        assert_eq!(lines[threads]["namespace"], "p");
        assert_eq!(lines.len(), threads + 1);
    }
}
