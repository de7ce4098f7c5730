use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{TimeDelta, Utc};
use firestore::gcloud_sdk::google::firestore::v1::{
    ArrayValue, CommitRequest, Document, DocumentMask, GetDocumentRequest, MapValue, Precondition,
    Value, Write,
    document_transform::FieldTransform,
    document_transform::field_transform::{ServerValue, TransformType},
    precondition::ConditionType,
    value::ValueType,
    write::Operation,
};
use firestore::gcloud_sdk::prost_types::Timestamp;
use firestore::gcloud_sdk::tonic::{Code, Status};
use firestore::{FirestoreDb, FirestoreDbOptions};
use serde::Deserialize;

use super::{Counts, MemoryStore, NamespaceStats, SaveOutcome, StoreError, Trimmed};
use crate::domain::{
    Entry, Filter, Located, Namespace, Page, PageBuilder, Query, Retention, Thread, ThreadId,
    micros,
};

/// The original function's layout: `memory/{namespace}/threads/{thread_id}`.
const ROOT: &str = "memory";
const THREADS: &str = "threads";
/// An array of `{summary, timestamp}` maps, as the original writes it.
const ENTRIES: &str = "entries";
/// Set by kioku on every save (the original's documents lack it): the server's time of the
/// thread's last save, which orders threads for `KIOKU_MAX_THREADS`.
const UPDATED_AT: &str = "updated_at";
/// With `KIOKU_RETENTION_DAYS`, when the thread is past its age if no save comes first: the
/// field of the thread collection group's TTL policy (docs/deploy.md).
const EXPIRE_AT: &str = "expire_at";
/// "Maximum size for a document: 1 MiB (1,048,576 bytes)",
/// <https://firebase.google.com/docs/firestore/quotas#collections_documents_and_fields>.
const MAX_DOCUMENT_BYTES: usize = 1_048_576;
/// Writes a commit may carry (the same page of limits).
const MAX_WRITES_PER_COMMIT: usize = 500;
/// Tries at a read-then-write change before giving up on a thread that keeps changing.
const ATTEMPTS: usize = 5;

/// Firestore, for Cloud Run: any number of instances share one namespace.
#[derive(Clone)]
pub struct FirestoreStore {
    db: FirestoreDb,
}

impl FirestoreStore {
    /// Connects to `database` of `project`, or of the project the environment names (on Cloud
    /// Run, the metadata server) when `project` is `None`. Honours `FIRESTORE_EMULATOR_HOST`.
    /// Each request to Firestore is limited to `request_timeout`, and so is connecting.
    pub async fn connect(
        project: Option<String>,
        database: &str,
        request_timeout: Duration,
    ) -> Result<Self, StoreError> {
        let options = match project {
            Some(project) => FirestoreDbOptions::new(project),
            None => FirestoreDbOptions::for_default_project_id()
                .await
                .ok_or_else(|| {
                    StoreError::Unavailable(
                        "no Google Cloud project found: set GOOGLE_CLOUD_PROJECT".into(),
                    )
                })?,
        }
        .with_database_id(database.to_owned())
        .with_request_timeout(request_timeout);
        let db = tokio::time::timeout(request_timeout, FirestoreDb::with_options(options))
            .await
            .map_err(|_| StoreError::Timeout(request_timeout.as_secs()))?
            .map_err(unavailable)?;
        Ok(Self { db })
    }

    fn threads_path(&self, ns: &Namespace) -> String {
        format!("{}/{ROOT}/{}", self.db.get_documents_path(), ns.name())
    }

    fn thread_path(&self, ns: &Namespace, thread: &ThreadId) -> String {
        format!("{}/{THREADS}/{}", self.threads_path(ns), thread.as_str())
    }

    /// Every thread document of `ns`.
    async fn thread_documents(&self, ns: &Namespace) -> Result<Vec<Document>, StoreError> {
        self.db
            .fluent()
            .select()
            .from(THREADS)
            .parent(self.threads_path(ns))
            .query()
            .await
            .map_err(unavailable)
    }

    async fn get(&self, name: &str) -> Result<Option<Document>, StoreError> {
        let request = GetDocumentRequest {
            name: name.to_owned(),
            ..GetDocumentRequest::default()
        };
        match self.db.client().get().get_document(request).await {
            Ok(response) => Ok(Some(response.into_inner())),
            Err(status) if status.code() == Code::NotFound => Ok(None),
            Err(status) => Err(unavailable(status)),
        }
    }

    async fn commit(&self, writes: Vec<Write>) -> Result<(), Status> {
        let request = CommitRequest {
            database: self.db.get_database_path().clone(),
            writes,
            ..CommitRequest::default()
        };
        self.db.client().get().commit(request).await?;
        Ok(())
    }

    /// Reads the document `name`, lets `plan` choose a write from what it holds, and commits
    /// the write only if the document is still as read; reads again when another write came
    /// between. `plan` answers no write when nothing needs to change.
    async fn change<T>(
        &self,
        name: &str,
        mut plan: impl FnMut(Option<&Document>) -> Result<(Option<Write>, T), StoreError>,
    ) -> Result<T, StoreError> {
        for _ in 0..ATTEMPTS {
            let current = self.get(name).await?;
            let (write, outcome) = plan(current.as_ref())?;
            let Some(write) = write else {
                return Ok(outcome);
            };
            let write = Write {
                current_document: Some(unchanged(current.as_ref())),
                ..write
            };
            match self.commit(vec![write]).await {
                Ok(()) => return Ok(outcome),
                Err(status) if lost_race(&status) => continue,
                Err(status) => return Err(commit_error(status)),
            }
        }
        Err(StoreError::Unavailable(
            "a thread kept changing under concurrent writes".into(),
        ))
    }

    /// Appends `entry` after dropping what `retention` and the document size limit do not
    /// keep: the whole array is written, so the thread must not change in between.
    async fn append_within_limits(
        &self,
        name: &str,
        entry: &Entry,
        retention: &Retention,
    ) -> Result<Trimmed, StoreError> {
        let expire_at = retention
            .max_age_days
            .map(|days| timestamp(Utc::now() + TimeDelta::days(days.get().into())));
        let cutoff = retention.cutoff();
        self.change(name, |current| {
            let (kept, trimmed) =
                keep(current, name, entry, retention, cutoff, expire_at.is_some())?;
            let write = entries_write(name, kept, expire_at, vec![server_time()]);
            Ok((Some(write), trimmed))
        })
        .await
    }

    /// Deletes the least recently saved of the `count` threads of `ns` beyond `max`; returns
    /// how many. Threads the original function saved (no `updated_at`) count as the least
    /// recent.
    async fn drop_least_recent(
        &self,
        ns: &Namespace,
        count: u64,
        max: u64,
    ) -> Result<u64, StoreError> {
        if count <= max {
            return Ok(0);
        }
        let mut documents: Vec<Document> = self
            .db
            .fluent()
            .select()
            .fields([UPDATED_AT])
            .from(THREADS)
            .parent(self.threads_path(ns))
            .query()
            .await
            .map_err(unavailable)?;
        documents.sort_by_cached_key(|doc| (saved_at(doc), doc.name.clone()));
        let mut dropped = 0;
        for doc in documents.iter().take((count - max) as usize) {
            let write = Write {
                current_document: Some(unchanged(Some(doc))),
                ..delete_write(&doc.name)
            };
            match self.commit(vec![write]).await {
                Ok(()) => dropped += 1,
                // Saved to since it was read, so no longer the least recent.
                Err(status) if lost_race(&status) => {}
                Err(status) => return Err(commit_error(status)),
            }
        }
        Ok(dropped)
    }

    /// Every entry `filter` admits. Firestore cannot filter or order inside an array, so the
    /// thread documents are read whole (one, with a thread filter) and the rest is done here.
    async fn admitted(&self, ns: &Namespace, filter: &Filter) -> Result<Vec<Located>, StoreError> {
        let select = self.db.fluent().select();
        let documents = match &filter.thread {
            Some(thread) => select
                .by_id_in(THREADS)
                .parent(self.threads_path(ns))
                .one(thread.as_str())
                .await
                .map_err(unavailable)?
                .into_iter()
                .collect(),
            None => self.thread_documents(ns).await?,
        };
        Ok(documents
            .iter()
            .flat_map(thread_entries)
            .filter(|item| filter.admits(item))
            .collect())
    }
}

fn distinct_threads(items: &[Located]) -> u64 {
    items
        .iter()
        .map(|item| item.thread_id.as_str())
        .collect::<HashSet<_>>()
        .len() as u64
}

/// The failure, for the operator's log, with document paths left out: a bare token's
/// namespace is named by the token, and Firestore's messages quote paths.
fn unavailable(err: impl std::fmt::Display) -> StoreError {
    let text = err.to_string();
    let message: Vec<&str> = text
        .split(' ')
        .map(|word| {
            if word.contains("/documents/") || word.contains(&format!("{ROOT}/")) {
                "<document>"
            } else {
                word
            }
        })
        .collect();
    StoreError::Unavailable(message.join(" "))
}

/// Firestore refuses documents over 1 MiB with INVALID_ARGUMENT and a message saying the
/// document "exceeds the maximum" size; any other failure is the store being unavailable.
fn commit_error(status: Status) -> StoreError {
    let too_large =
        status.code() == Code::InvalidArgument && status.message().contains("exceeds the maximum");
    if too_large {
        StoreError::DocumentTooLarge
    } else {
        unavailable(status)
    }
}

/// Whether a conditional write failed because the document changed after it was read.
fn lost_race(status: &Status) -> bool {
    matches!(
        status.code(),
        Code::FailedPrecondition | Code::AlreadyExists | Code::NotFound | Code::Aborted
    )
}

/// The document must be as read: last updated then, or still missing.
fn unchanged(document: Option<&Document>) -> Precondition {
    let condition = match document {
        Some(doc) => ConditionType::UpdateTime(doc.update_time.unwrap_or_default()),
        None => ConditionType::Exists(false),
    };
    Precondition {
        condition_type: Some(condition),
    }
}

fn timestamp(at: chrono::DateTime<Utc>) -> Timestamp {
    Timestamp {
        seconds: at.timestamp(),
        nanos: at.timestamp_subsec_micros() as i32 * 1_000,
    }
}

/// When kioku last saved to the thread; `None` (first in order) when it never did.
fn saved_at(doc: &Document) -> Option<(i64, i32)> {
    match doc.fields.get(UPDATED_AT)?.value_type.as_ref()? {
        ValueType::TimestampValue(t) => Some((t.seconds, t.nanos)),
        _ => None,
    }
}

fn string_value(text: &str) -> Value {
    Value {
        value_type: Some(ValueType::StringValue(text.to_owned())),
    }
}

fn entry_value(entry: &Entry) -> Value {
    let fields = [
        ("summary".to_owned(), string_value(&entry.summary)),
        ("timestamp".to_owned(), string_value(&entry.timestamp)),
    ];
    Value {
        value_type: Some(ValueType::MapValue(MapValue {
            fields: fields.into_iter().collect(),
        })),
    }
}

/// The stored values of the thread's `entries` array, whatever their shape.
fn entry_values(doc: &Document) -> Vec<Value> {
    match doc.fields.get(ENTRIES).and_then(|v| v.value_type.as_ref()) {
        Some(ValueType::ArrayValue(array)) => array.values.clone(),
        _ => Vec::new(),
    }
}

/// The time of a stored entry, in [`micros`]; unreadable ones sort oldest.
fn value_micros(value: &Value) -> i64 {
    entry(value).map_or(i64::MIN, |e| micros(&e.timestamp))
}

/// Sets the thread's document's time of last save to the server's.
fn server_time() -> FieldTransform {
    FieldTransform {
        field_path: UPDATED_AT.into(),
        transform_type: Some(TransformType::SetToServerValue(
            ServerValue::RequestTime as i32,
        )),
    }
}

/// One write, as the original's `set({"entries": ArrayUnion([entry])}, merge=True)` sends it:
/// an empty merge that creates the document if needed, then an atomic array append (so
/// concurrent saves from any number of instances all land), plus the server's time.
fn append_write(document: &str, values: Vec<Value>) -> Write {
    let append = FieldTransform {
        field_path: ENTRIES.into(),
        transform_type: Some(TransformType::AppendMissingElements(ArrayValue { values })),
    };
    Write {
        operation: Some(Operation::Update(Document {
            name: document.to_owned(),
            ..Document::default()
        })),
        update_mask: Some(DocumentMask::default()),
        update_transforms: vec![append, server_time()],
        current_document: None,
    }
}

/// Replaces the thread's whole `entries` array (and its expiry, when given); other fields stay.
fn entries_write(
    document: &str,
    values: Vec<Value>,
    expire_at: Option<Timestamp>,
    transforms: Vec<FieldTransform>,
) -> Write {
    let array = Value {
        value_type: Some(ValueType::ArrayValue(ArrayValue { values })),
    };
    let mut fields = std::collections::HashMap::from([(ENTRIES.to_owned(), array)]);
    if let Some(at) = expire_at {
        let at = Value {
            value_type: Some(ValueType::TimestampValue(at)),
        };
        fields.insert(EXPIRE_AT.to_owned(), at);
    }
    let field_paths = fields.keys().cloned().collect();
    Write {
        operation: Some(Operation::Update(Document {
            name: document.to_owned(),
            fields,
            ..Document::default()
        })),
        update_mask: Some(DocumentMask { field_paths }),
        update_transforms: transforms,
        current_document: None,
    }
}

fn delete_write(document: &str) -> Write {
    Write {
        operation: Some(Operation::Delete(document.to_owned())),
        ..Write::default()
    }
}

/// The entries a thread keeps when `entry` is appended to `current`: those `retention`
/// keeps, less the oldest while the document would pass Firestore's size limit, then
/// `entry`; and what went.
fn keep(
    current: Option<&Document>,
    name: &str,
    entry: &Entry,
    retention: &Retention,
    cutoff: Option<i64>,
    expires: bool,
) -> Result<(Vec<Value>, Trimmed), StoreError> {
    let held = current.map(entry_values).unwrap_or_default();
    let before = held.len();
    let mut kept: Vec<Value> = held
        .into_iter()
        .filter(|v| cutoff.is_none_or(|cutoff| value_micros(v) >= cutoff))
        .collect();
    if let Some(max) = retention.max_entries_per_thread {
        let room = max.get() as usize - 1;
        kept.drain(..kept.len().saturating_sub(room));
    }
    let by_rules = before - kept.len();
    kept.push(entry_value(entry));

    let rewritten =
        |field: &String| field == ENTRIES || field == UPDATED_AT || (expires && field == EXPIRE_AT);
    let others: usize = current.map_or(0, |doc| {
        doc.fields
            .iter()
            .filter(|(field, _)| !rewritten(field))
            .map(|(field, value)| string_size(field) + value_size(value))
            .sum()
    });
    let timestamp_field = |field| string_size(field) + 8;
    let fixed = document_size(name)
        + others
        + string_size(ENTRIES)
        + timestamp_field(UPDATED_AT)
        + if expires {
            timestamp_field(EXPIRE_AT)
        } else {
            0
        };
    let mut size = fixed + kept.iter().map(value_size).sum::<usize>();
    let mut for_size = 0;
    while size > MAX_DOCUMENT_BYTES && for_size + 1 < kept.len() {
        size -= value_size(&kept[for_size]);
        for_size += 1;
    }
    if size > MAX_DOCUMENT_BYTES {
        return Err(StoreError::DocumentTooLarge);
    }
    kept.drain(..for_size);
    let trimmed = Trimmed {
        entries: (by_rules + for_size) as u64,
        threads: 0,
        for_size: for_size > 0,
    };
    Ok((kept, trimmed))
}

/// Storage sizes, as <https://firebase.google.com/docs/firestore/storage-size> defines them.
fn string_size(text: &str) -> usize {
    text.len() + 1
}

/// A document's name (its path's ids, plus 16) and the 32 bytes every document takes.
fn document_size(name: &str) -> usize {
    name_size(name) + 32
}

fn name_size(name: &str) -> usize {
    let path = name
        .split_once("/documents/")
        .map_or(name, |(_, path)| path);
    path.split('/').map(string_size).sum::<usize>() + 16
}

fn value_size(value: &Value) -> usize {
    match &value.value_type {
        None | Some(ValueType::NullValue(_) | ValueType::BooleanValue(_)) => 1,
        Some(ValueType::IntegerValue(_) | ValueType::DoubleValue(_))
        | Some(ValueType::TimestampValue(_)) => 8,
        Some(ValueType::GeoPointValue(_)) => 16,
        Some(ValueType::StringValue(text)) => string_size(text),
        Some(ValueType::BytesValue(bytes)) => bytes.len(),
        Some(ValueType::ReferenceValue(name)) => name_size(name),
        Some(ValueType::ArrayValue(array)) => array.values.iter().map(value_size).sum(),
        Some(ValueType::MapValue(map)) => map
            .fields
            .iter()
            .map(|(key, value)| string_size(key) + value_size(value))
            .sum(),
        // Query expressions, never stored.
        Some(_) => 0,
    }
}

#[derive(Deserialize)]
struct Count {
    count: u64,
}

#[async_trait]
impl MemoryStore for FirestoreStore {
    async fn save(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        entry: &Entry,
        retention: &Retention,
    ) -> Result<SaveOutcome, StoreError> {
        let name = self.thread_path(ns, thread);
        // One atomic append, unless the thread has to be looked at: a limit on its entries,
        // or a first try that would have passed the size limit.
        let mut trimmed = if retention.limits_threads() {
            self.append_within_limits(&name, entry, retention).await?
        } else {
            match self
                .commit(vec![append_write(&name, vec![entry_value(entry)])])
                .await
            {
                Ok(()) => Trimmed::default(),
                Err(status) => match commit_error(status) {
                    StoreError::DocumentTooLarge => {
                        self.append_within_limits(&name, entry, retention).await?
                    }
                    other => return Err(other),
                },
            }
        };
        let mut threads = self.count(ns).await?;
        if let Some(max) = retention.max_threads {
            trimmed.threads = self
                .drop_least_recent(ns, threads, max.get().into())
                .await?;
            threads -= trimmed.threads;
        }
        Ok(SaveOutcome { trimmed, threads })
    }

    async fn count(&self, ns: &Namespace) -> Result<u64, StoreError> {
        let counts: Vec<Count> = self
            .db
            .fluent()
            .select()
            .from(THREADS)
            .parent(self.threads_path(ns))
            .aggregate(|a| a.fields([a.field("count").count()]))
            .obj()
            .query()
            .await
            .map_err(unavailable)?;
        Ok(counts.first().map_or(0, |c| c.count))
    }

    async fn page(
        &self,
        ns: &Namespace,
        filter: &Filter,
        budget_chars: usize,
    ) -> Result<Page, StoreError> {
        let mut items = self.admitted(ns, filter).await?;
        items.sort_by(Located::load_order);
        filter.limit_threads(&mut items);
        let totals = (items.len() as u64, distinct_threads(&items));
        let mut page = PageBuilder::new(budget_chars);
        for item in items {
            if !page.push(item) {
                break;
            }
        }
        let totals = page.is_full().then_some(totals);
        Ok(page.finish(totals))
    }

    async fn candidates(
        &self,
        ns: &Namespace,
        filter: &Filter,
        _: &Query,
    ) -> Result<Vec<Located>, StoreError> {
        self.admitted(ns, filter).await
    }

    async fn forget(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        at: Option<i64>,
    ) -> Result<Counts, StoreError> {
        let name = self.thread_path(ns, thread);
        self.change(&name, |current| {
            let Some(doc) = current else {
                return Ok((None, Counts::default()));
            };
            let (gone, kept): (Vec<Value>, Vec<Value>) = entry_values(doc)
                .into_iter()
                .partition(|v| at.is_none_or(|at| value_micros(v) == at));
            let counts = Counts {
                threads: u64::from(kept.is_empty()),
                entries: gone.len() as u64,
            };
            let write = if kept.is_empty() {
                Some(delete_write(&name))
            } else if gone.is_empty() {
                None
            } else {
                Some(entries_write(&name, kept, None, Vec::new()))
            };
            Ok((write, counts))
        })
        .await
    }

    async fn namespaces(&self) -> Result<Vec<NamespaceStats>, StoreError> {
        let documents: Vec<Document> = self
            .db
            .fluent()
            .select()
            .from(THREADS)
            .parent(self.db.get_documents_path().clone())
            .all_descendants()
            .query()
            .await
            .map_err(unavailable)?;
        let root = format!("{}/{ROOT}/", self.db.get_documents_path());
        let mut namespaces: BTreeMap<String, NamespaceStats> = BTreeMap::new();
        for doc in &documents {
            // Only memory/{namespace}/threads/{thread}: other `threads` collections are not ours.
            let Some(path) = doc.name.strip_prefix(&root) else {
                continue;
            };
            let [name, THREADS, _] = path.split('/').collect::<Vec<_>>()[..] else {
                continue;
            };
            let stats = namespaces
                .entry(name.to_owned())
                .or_insert_with(|| NamespaceStats {
                    name: name.to_owned(),
                    counts: Counts::default(),
                    last_saved: None,
                });
            let entries = thread_entries(doc);
            stats.counts.threads += 1;
            stats.counts.entries += entries.len() as u64;
            let newest = entries.into_iter().max_by_key(|item| item.at);
            if let Some(newest) = newest {
                let later = stats
                    .last_saved
                    .as_deref()
                    .is_none_or(|last| micros(last) < newest.at);
                if later {
                    stats.last_saved = Some(newest.entry.timestamp);
                }
            }
        }
        Ok(namespaces.into_values().collect())
    }

    async fn threads(&self, ns: &Namespace) -> Result<Vec<Thread>, StoreError> {
        let mut threads: Vec<Thread> = self
            .thread_documents(ns)
            .await?
            .iter()
            .map(|doc| Thread {
                id: doc.name.rsplit('/').next().unwrap_or_default().to_owned(),
                entries: thread_entries(doc)
                    .into_iter()
                    .map(|item| item.entry)
                    .collect(),
            })
            .filter(|thread| !thread.entries.is_empty())
            .collect();
        threads.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(threads)
    }

    async fn import(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        entries: &[Entry],
    ) -> Result<u64, StoreError> {
        let name = self.thread_path(ns, thread);
        self.change(&name, |current| {
            let held: Vec<Entry> = current
                .map(|doc| {
                    thread_entries(doc)
                        .into_iter()
                        .map(|item| item.entry)
                        .collect()
                })
                .unwrap_or_default();
            let mut missing: Vec<&Entry> = Vec::new();
            for entry in entries {
                if !held.contains(entry) && !missing.contains(&entry) {
                    missing.push(entry);
                }
            }
            let added = missing.len() as u64;
            let write = (!missing.is_empty())
                .then(|| append_write(&name, missing.into_iter().map(entry_value).collect()));
            Ok((write, added))
        })
        .await
    }

    async fn delete_namespace(&self, ns: &Namespace) -> Result<Counts, StoreError> {
        let documents = self.thread_documents(ns).await?;
        let held = Counts {
            threads: documents.len() as u64,
            entries: documents
                .iter()
                .map(|d| thread_entries(d).len() as u64)
                .sum(),
        };
        for chunk in documents.chunks(MAX_WRITES_PER_COMMIT) {
            let writes = chunk.iter().map(|doc| delete_write(&doc.name)).collect();
            self.commit(writes).await.map_err(commit_error)?;
        }
        Ok(held)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.db.ping().await.map_err(unavailable)
    }
}

/// A stored thread's entries, read leniently: the original wrote them, or someone by hand.
fn thread_entries(doc: &Document) -> Vec<Located> {
    let thread_id = doc.name.rsplit('/').next().unwrap_or_default();
    let values = match doc.fields.get(ENTRIES).and_then(|v| v.value_type.as_ref()) {
        Some(ValueType::ArrayValue(array)) => array.values.as_slice(),
        _ => &[],
    };
    values
        .iter()
        .filter_map(entry)
        .zip(0..)
        .map(|(entry, seq)| Located {
            thread_id: thread_id.to_owned(),
            at: micros(&entry.timestamp),
            entry,
            seq,
        })
        .collect()
}

fn entry(value: &Value) -> Option<Entry> {
    let Some(ValueType::MapValue(map)) = &value.value_type else {
        return None;
    };
    let text = |key: &str| match map.fields.get(key).and_then(|v| v.value_type.as_ref()) {
        Some(ValueType::StringValue(s)) => s.clone(),
        _ => String::new(),
    };
    Some(Entry {
        summary: text("summary"),
        timestamp: text("timestamp"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_never_quote_a_document_path() {
        let status = Status::not_found(
            "Document \"projects/p/databases/(default)/documents/memory/s3cret/threads/t\" not found.",
        );
        let StoreError::Unavailable(message) = unavailable(status) else {
            panic!("unavailable");
        };
        assert!(!message.contains("s3cret"), "{message}");
        assert!(message.contains("<document> not found."), "{message}");
    }

    #[test]
    fn storage_sizes_follow_firestores_rules() {
        let name = "projects/p/databases/(default)/documents/memory/ns/threads/t";
        // memory, ns, threads, t: each its bytes plus one; 16 for the name; 32 per document.
        assert_eq!(document_size(name), 7 + 3 + 8 + 2 + 16 + 32);
        let entry = entry_value(&Entry {
            summary: "記".into(),
            timestamp: "ts".into(),
        });
        assert_eq!(value_size(&entry), (8 + 4) + (10 + 3));
    }
}
