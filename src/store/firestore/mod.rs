//! Firestore, for Cloud Run: any number of instances share one namespace. Memories live where
//! the original function kept them, so the two read each other's; the OAuth server's records
//! live in root collections of their own beside them.

mod at_once;
mod backfill;
mod backfills;
mod calls;
mod clients;
mod failure;
mod grants;
mod index;
mod layout;
mod maintenance;
mod merge;
mod ordered;
mod profile;
mod records;
mod save;
mod search;
mod shapes;
mod size;
mod small;
mod stats;
mod store;
mod tracked;
mod unembedded;
mod values;
mod vectors;
mod writes;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use firestore::{FirestoreDb, FirestoreDbOptions};

use super::StoreError;
use crate::domain::{Namespace, ThreadId};
use backfills::Backfills;
use clients::Clients;
use failure::unavailable;
use layout::{ROOT, THREADS};

/// Firestore, for Cloud Run: any number of instances share one namespace.
#[derive(Clone)]
pub struct FirestoreStore {
    clients: Clients,
    /// How long one request to Firestore may take, the crate's and kioku's own alike.
    request_timeout: Duration,
    backfills: Backfills,
    shapes: shapes::Shapes,
    /// Set once Firestore refuses the one-call load (at_once.rs).
    at_once_refused: Arc<AtomicBool>,
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
            None => FirestoreDbOptions::for_default_project_id().await.ok_or(
                StoreError::Misconfigured(
                    "no Google Cloud project found: set GOOGLE_CLOUD_PROJECT",
                ),
            )?,
        }
        .with_database_id(database.to_owned())
        .with_request_timeout(request_timeout);
        let db = tokio::time::timeout(request_timeout, FirestoreDb::with_options(options.clone()))
            .await
            .map_err(|_| StoreError::Timeout(request_timeout.as_secs()))?
            .map_err(|e| unavailable("connecting to Firestore failed", e))?;
        Ok(Self {
            clients: Clients::new(db, options, request_timeout),
            request_timeout,
            backfills: Backfills::default(),
            shapes: shapes::Shapes::default(),
            at_once_refused: Arc::default(),
        })
    }

    /// The client for a call to Firestore (clients.rs).
    pub(super) fn db(&self) -> FirestoreDb {
        self.clients.current()
    }

    pub(super) fn threads_path(&self, ns: &Namespace) -> String {
        format!(
            "{}/{ROOT}/{}",
            self.clients.shared().get_documents_path(),
            ns.name()
        )
    }

    pub(super) fn thread_path(&self, ns: &Namespace, thread: &ThreadId) -> String {
        format!("{}/{THREADS}/{}", self.threads_path(ns), thread.as_str())
    }
}
