//! Firestore's calls as kioku makes them: a read, a commit, a listing, each held to the time
//! limit and counted as Firestore bills it.

use firestore::gcloud_sdk::google::firestore::v1::{
    CommitRequest, Document, DocumentMask, GetDocumentRequest, ListDocumentsRequest,
    ListDocumentsResponse, Write,
};
use firestore::gcloud_sdk::tonic::{Code, Status};

use super::Db;
use super::failure::unavailable;
use crate::store::firestore::document::layout::ROOT;
use crate::store::{StoreError, usage};

/// Namespace names a listing asks for at once: a name each, so many are cheap.
const NAMES_PER_PAGE: i32 = 1_000;

impl Db {
    /// The name of every namespace: the documents of `memory`, a page of names at a time, with
    /// no field. The original never writes `memory/{namespace}` itself, only documents below
    /// it, so they are asked for as "missing" documents, which ListDocuments alone lists; no
    /// thread is read.
    pub async fn namespace_names(&self) -> Result<Vec<String>, StoreError> {
        let root = format!("{}/{ROOT}/", self.documents_path());
        let mut names = Vec::new();
        let mut page_token = String::new();
        loop {
            let request = ListDocumentsRequest {
                parent: self.documents_path().clone(),
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
    pub async fn list_below(
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
        let mut client = self.current().client().get();
        let mut page = self
            .within_time(client.list_documents(request))
            .await?
            .into_inner();
        page.documents = counted(page.documents);
        Ok(page)
    }

    pub async fn get(&self, name: &str) -> Result<Option<Document>, StoreError> {
        let request = GetDocumentRequest {
            name: name.to_owned(),
            ..GetDocumentRequest::default()
        };
        // Billed one read whether the document exists or not.
        usage::read(1);
        let mut client = self.current().client().get();
        match self.within_time(client.get_document(request)).await {
            Ok(response) => Ok(Some(response.into_inner())),
            Err(status) if status.code() == Code::NotFound => Ok(None),
            Err(status) => Err(unavailable("reading a document failed", status)),
        }
    }

    pub async fn commit(&self, writes: Vec<Write>) -> Result<(), Status> {
        let request = CommitRequest {
            database: self.clients.shared().get_database_path().clone(),
            writes,
            ..CommitRequest::default()
        };
        let writes = request.writes.len() as u64;
        let mut client = self.current().client().get();
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
}

/// The documents a query answered, counted as Firestore bills them: a read each, and one for a
/// query that answered none.
pub fn counted(documents: Vec<Document>) -> Vec<Document> {
    usage::read(documents.len().max(1) as u64);
    documents
}
