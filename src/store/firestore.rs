use std::collections::HashSet;
use std::time::Duration;

use async_trait::async_trait;
use firestore::gcloud_sdk::google::firestore::v1::{
    ArrayValue, CommitRequest, Document, DocumentMask, MapValue, Value, Write,
    document_transform::FieldTransform,
    document_transform::field_transform::{ServerValue, TransformType},
    value::ValueType,
    write::Operation,
};
use firestore::{FirestoreDb, FirestoreDbOptions};
use serde::Deserialize;

use super::{MemoryStore, StoreError};
use crate::domain::{
    Entry, Filter, Located, Namespace, Page, PageBuilder, Query, ThreadId, micros,
};

/// The original function's layout: `memory/{namespace}/threads/{thread_id}`.
const ROOT: &str = "memory";
const THREADS: &str = "threads";
/// An array of `{summary, timestamp}` maps, as the original writes it.
const ENTRIES: &str = "entries";
/// Set by kioku on every save (the original's documents lack it): the server's time of the
/// thread's last save, for retention policies.
const UPDATED_AT: &str = "updated_at";

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
            None => select
                .from(THREADS)
                .parent(self.threads_path(ns))
                .query()
                .await
                .map_err(unavailable)?,
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

fn unavailable(err: impl std::fmt::Display) -> StoreError {
    StoreError::Unavailable(err.to_string())
}

/// Firestore refuses documents over 1 MiB with INVALID_ARGUMENT and a message saying the
/// document "exceeds the maximum" size; any other failure is the store being unavailable.
fn commit_error(status: firestore::gcloud_sdk::tonic::Status) -> StoreError {
    let too_large = status.code() == firestore::gcloud_sdk::tonic::Code::InvalidArgument
        && status.message().contains("exceeds the maximum");
    if too_large {
        StoreError::DocumentTooLarge
    } else {
        unavailable(status)
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

/// One write, as the original's `set({"entries": ArrayUnion([entry])}, merge=True)` sends it:
/// an empty merge that creates the document if needed, then an atomic array append (so
/// concurrent saves from any number of instances all land), plus the server's time.
fn append_write(document: String, entry: &Entry) -> Write {
    let append = TransformType::AppendMissingElements(ArrayValue {
        values: vec![entry_value(entry)],
    });
    let now = TransformType::SetToServerValue(ServerValue::RequestTime as i32);
    Write {
        operation: Some(Operation::Update(Document {
            name: document,
            ..Document::default()
        })),
        update_mask: Some(DocumentMask::default()),
        update_transforms: vec![
            FieldTransform {
                field_path: ENTRIES.into(),
                transform_type: Some(append),
            },
            FieldTransform {
                field_path: UPDATED_AT.into(),
                transform_type: Some(now),
            },
        ],
        current_document: None,
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
    ) -> Result<(), StoreError> {
        let document = format!("{}/{THREADS}/{}", self.threads_path(ns), thread.as_str());
        let request = CommitRequest {
            database: self.db.get_database_path().clone(),
            writes: vec![append_write(document, entry)],
            ..CommitRequest::default()
        };
        self.db
            .client()
            .get()
            .commit(request)
            .await
            .map_err(commit_error)?;
        Ok(())
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
