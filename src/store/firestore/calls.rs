//! Firestore's calls as kioku makes them: reads, commits, and the read-then-write loop that
//! makes a change safe under concurrent writers.

use std::time::Duration;

use firestore::gcloud_sdk::google::firestore::v1::value::ValueType;
use firestore::gcloud_sdk::google::firestore::v1::{
    CommitRequest, Document, DocumentMask, GetDocumentRequest, ListDocumentsRequest,
    ListDocumentsResponse, Value, Write,
};
use firestore::gcloud_sdk::tonic::{Code, Status};
use firestore::{FirestoreQueryCursor, FirestoreValue};

use super::FirestoreStore;
use super::failure::{commit_error, lost_race, unavailable};
use super::layout::{MAX_WRITES_PER_COMMIT, ROOT, THREADS};
use super::values::thread_entries;
use super::writes::{delete_write, unchanged};
use crate::domain::{Filter, Located, Namespace};
use crate::store::{StoreError, usage};

/// Tries at a read-then-write change before giving up on a thread that keeps changing; with
/// the waits between them, well within the store's time limit.
const ATTEMPTS: u32 = 12;
/// The longest wait between two tries.
const MAX_BACKOFF: Duration = Duration::from_millis(200);
/// Namespace names a listing asks for at once: a name each, so many are cheap.
const NAMES_PER_PAGE: i32 = 1_000;

impl FirestoreStore {
    /// Every thread document of `ns`.
    pub(super) async fn thread_documents(
        &self,
        ns: &Namespace,
    ) -> Result<Vec<Document>, StoreError> {
        self.db()
            .fluent()
            .select()
            .from(THREADS)
            .parent(self.threads_path(ns))
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable("listing a namespace's threads failed", e))
    }

    /// Up to `limit` thread documents of `ns` by id, from the first after the thread `after`:
    /// one query, each document read once.
    pub(super) async fn thread_page_documents(
        &self,
        ns: &Namespace,
        after: Option<&str>,
        limit: u32,
    ) -> Result<Vec<Document>, StoreError> {
        let db = self.db();
        let select = db
            .fluent()
            .select()
            .from(THREADS)
            .parent(self.threads_path(ns))
            .order(|o| o.fields([o.field("__name__").ascending()]))
            .limit(limit);
        let select = match after {
            Some(after) => {
                let name = format!("{}/{THREADS}/{after}", self.threads_path(ns));
                let value = FirestoreValue::from(Value {
                    value_type: Some(ValueType::ReferenceValue(name)),
                });
                select.start_at(FirestoreQueryCursor::AfterValue(vec![value]))
            }
            None => select,
        };
        select
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable("reading a page of a namespace's threads failed", e))
    }

    /// The name of every namespace: the documents of `memory`, a page of names at a time, with
    /// no field. The original never writes `memory/{namespace}` itself, only documents below
    /// it, so they are asked for as "missing" documents, which ListDocuments alone lists; no
    /// thread is read.
    pub(super) async fn list_namespace_names(&self) -> Result<Vec<String>, StoreError> {
        let root = format!("{}/{ROOT}/", self.clients.shared().get_documents_path());
        let mut names = Vec::new();
        let mut page_token = String::new();
        loop {
            let request = ListDocumentsRequest {
                parent: self.clients.shared().get_documents_path().clone(),
                collection_id: ROOT.to_owned(),
                page_size: NAMES_PER_PAGE,
                page_token,
                mask: Some(DocumentMask::default()),
                show_missing: true,
                ..ListDocumentsRequest::default()
            };
            let page = self
                .list(request)
                .await
                .map_err(|e| unavailable("listing every namespace failed", e))?;
            names.extend(
                page.documents
                    .into_iter()
                    .filter_map(|doc| Some(doc.name.strip_prefix(&root)?.to_owned())),
            );
            if page.next_page_token.is_empty() {
                return Ok(names);
            }
            page_token = page.next_page_token;
        }
    }

    /// A page of the documents of `collection` below `parent`, or of every collection below it
    /// (`None`), by name, with only `fields`. One answer, where a query answers a message per
    /// document, and each message that comes apart costs the client a wake-up (BENCHMARKS.md).
    pub(super) async fn list_below(
        &self,
        parent: String,
        collection: Option<&str>,
        page_size: u32,
        fields: &[&str],
        page_token: String,
    ) -> Result<ListDocumentsResponse, Status> {
        let request = ListDocumentsRequest {
            parent,
            collection_id: collection.unwrap_or_default().to_owned(),
            page_size: i32::try_from(page_size).unwrap_or(i32::MAX),
            page_token,
            mask: Some(DocumentMask {
                field_paths: fields.iter().map(|&field| field.to_owned()).collect(),
            }),
            ..ListDocumentsRequest::default()
        };
        self.list(request).await
    }

    /// One page of a listing, its documents counted as Firestore bills them.
    async fn list(&self, request: ListDocumentsRequest) -> Result<ListDocumentsResponse, Status> {
        let mut client = self.db().client().get();
        let mut page = self
            .within_time(client.list_documents(request))
            .await?
            .into_inner();
        page.documents = counted(page.documents);
        Ok(page)
    }

    pub(super) async fn get(&self, name: &str) -> Result<Option<Document>, StoreError> {
        let request = GetDocumentRequest {
            name: name.to_owned(),
            ..GetDocumentRequest::default()
        };
        // Billed one read whether the document exists or not.
        usage::read(1);
        let mut client = self.db().client().get();
        match self.within_time(client.get_document(request)).await {
            Ok(response) => Ok(Some(response.into_inner())),
            Err(status) if status.code() == Code::NotFound => Ok(None),
            Err(status) => Err(unavailable("reading a document failed", status)),
        }
    }

    pub(super) async fn commit(&self, writes: Vec<Write>) -> Result<(), Status> {
        let request = CommitRequest {
            database: self.clients.shared().get_database_path().clone(),
            writes,
            ..CommitRequest::default()
        };
        let writes = request.writes.len() as u64;
        let mut client = self.db().client().get();
        self.within_time(client.commit(request)).await?;
        usage::wrote(writes);
        Ok(())
    }

    /// A request kioku makes itself, held to the time limit the crate holds its own to.
    async fn within_time<T>(
        &self,
        call: impl Future<Output = Result<T, Status>>,
    ) -> Result<T, Status> {
        tokio::time::timeout(self.request_timeout, call)
            .await
            .unwrap_or_else(|_| {
                Err(Status::deadline_exceeded(
                    "Firestore did not answer in time",
                ))
            })
    }

    /// Reads the document `name`, lets `plan` choose a write from what it holds, and commits
    /// the write only if the document is still as read; reads again when another write came
    /// between. `plan` answers no write when nothing needs to change.
    pub(super) async fn change<T>(
        &self,
        name: &str,
        plan: impl FnMut(Option<&Document>) -> Result<(Option<Write>, T), StoreError>,
    ) -> Result<T, StoreError> {
        self.change_along(name, &[], plan).await
    }

    /// [`change`](Self::change), committing `along` in the same commit as the write.
    pub(super) async fn change_along<T>(
        &self,
        name: &str,
        along: &[Write],
        mut plan: impl FnMut(Option<&Document>) -> Result<(Option<Write>, T), StoreError>,
    ) -> Result<T, StoreError> {
        let mut tries = Tries::default();
        while tries.next().await {
            let current = self.get(name).await?;
            let (write, outcome) = plan(current.as_ref())?;
            let Some(write) = write else {
                return Ok(outcome);
            };
            let write = Write {
                current_document: Some(unchanged(current.as_ref())),
                ..write
            };
            let writes = [&[write], along].concat();
            if let Some(outcome) = self.commit_unless_lost(writes, outcome).await? {
                return Ok(outcome);
            }
        }
        Err(StoreError::Contended)
    }

    /// Commits `writes` and answers `outcome`; `None` when a precondition failed because
    /// another writer came first.
    pub(super) async fn commit_unless_lost<T>(
        &self,
        writes: Vec<Write>,
        outcome: T,
    ) -> Result<Option<T>, StoreError> {
        match self.commit(writes).await {
            Ok(()) => Ok(Some(outcome)),
            Err(status) if lost_race(&status) => Ok(None),
            Err(status) => Err(commit_error(status)),
        }
    }

    /// Deletes the documents `names`, as many to a commit as Firestore takes.
    pub(super) async fn delete_all(&self, names: &[String]) -> Result<(), StoreError> {
        for chunk in names.chunks(MAX_WRITES_PER_COMMIT) {
            let writes = chunk.iter().map(|name| delete_write(name)).collect();
            self.commit(writes).await.map_err(commit_error)?;
        }
        Ok(())
    }

    /// Every entry `filter` admits. Firestore cannot filter or order inside an array, so the
    /// thread documents are read whole (one, with a thread filter) and the rest is done here.
    pub(super) async fn admitted(
        &self,
        ns: &Namespace,
        filter: &Filter,
    ) -> Result<Vec<Located>, StoreError> {
        let db = self.db();
        let select = db.fluent().select();
        let documents = match &filter.thread {
            Some(thread) => select
                .by_id_in(THREADS)
                .parent(self.threads_path(ns))
                .one(thread.as_str())
                .await
                .inspect(|_| usage::read(1))
                .map_err(|e| unavailable("reading a thread failed", e))?
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

/// The documents a query answered, counted as Firestore bills them: a read each, and one for a
/// query that answered none.
pub(super) fn counted(documents: Vec<Document>) -> Vec<Document> {
    usage::read(documents.len().max(1) as u64);
    documents
}

/// The tries of a write that may lose a race to another writer: each after the first waits a
/// little longer, so that writers who collided spread out; they end, well within the store's
/// time limit, on a document that keeps changing.
#[derive(Default)]
pub(super) struct Tries(u32);

impl Tries {
    /// Waits for the next try; `false` when none is left.
    pub(super) async fn next(&mut self) -> bool {
        if self.0 >= ATTEMPTS {
            return false;
        }
        if self.0 > 0 {
            tokio::time::sleep(backoff(self.0)).await;
        }
        self.0 += 1;
        true
    }
}

/// How long to wait before try `attempt` (from 1) of a change that lost a race: a random
/// share of an exponentially growing ceiling ("full jitter"), so that writers who collided
/// spread out instead of colliding again.
fn backoff(attempt: u32) -> Duration {
    let ceiling = Duration::from_millis(5)
        .saturating_mul(1 << attempt.min(16))
        .min(MAX_BACKOFF);
    let share = f64::from(getrandom::u32().unwrap_or(u32::MAX / 2)) / f64::from(u32::MAX);
    ceiling.mul_f64(share)
}
