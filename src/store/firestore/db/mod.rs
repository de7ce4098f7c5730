//! The connection to Firestore every part of the store shares: a client per runtime, the time
//! limit each request is held to, where documents live, and the calls kioku makes (calls.rs),
//! the read-then-write loop among them (change.rs).

mod calls;
mod change;
mod clients;
mod failure;

use std::time::Duration;

use firestore::{FirestoreDb, FirestoreDbOptions};

use super::document::layout::{ROOT, THREADS};
use crate::domain::{Namespace, ThreadId};
use crate::store::StoreError;
pub use calls::counted;
pub use change::Tries;
use clients::Clients;
pub use failure::{commit_error, lost_race, unavailable};

#[derive(Clone)]
pub struct Db {
    clients: Clients,
    /// How long one request to Firestore may take, the crate's and kioku's own alike.
    request_timeout: Duration,
}

impl Db {
    /// Connects with `options`, within `request_timeout`.
    pub async fn connect(
        options: FirestoreDbOptions,
        request_timeout: Duration,
    ) -> Result<Self, StoreError> {
        let db = tokio::time::timeout(request_timeout, FirestoreDb::with_options(options.clone()))
            .await
            .map_err(|_| StoreError::Timeout(request_timeout.as_secs()))?
            .map_err(|e| unavailable("connecting to Firestore failed", e))?;
        Ok(Self {
            clients: Clients::new(db, options, request_timeout),
            request_timeout,
        })
    }

    /// The client for a call to Firestore (clients.rs).
    pub fn current(&self) -> FirestoreDb {
        self.clients.current()
    }

    /// `projects/{project}/databases/{database}/documents`, below which every document lives.
    fn documents_path(&self) -> &String {
        self.clients.shared().get_documents_path()
    }

    /// `memory/{namespace}`: the parent of a namespace's threads, vectors and profile versions.
    pub fn namespace_path(&self, ns: &Namespace) -> String {
        format!("{}/{ROOT}/{}", self.documents_path(), ns.name())
    }

    pub fn thread_path(&self, ns: &Namespace, thread: &ThreadId) -> String {
        format!("{}/{THREADS}/{}", self.namespace_path(ns), thread.as_str())
    }

    /// A document of a root collection of kioku's own (the OAuth server's records).
    pub fn record_path(&self, collection: &str, id: &str) -> String {
        format!("{}/{collection}/{id}", self.documents_path())
    }

    pub async fn ping(&self) -> Result<(), StoreError> {
        self.current()
            .ping()
            .await
            .map_err(|e| unavailable("the Firestore ping failed", e))
    }
}
