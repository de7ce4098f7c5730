//! Firestore, for Cloud Run: any number of instances share one namespace. Memories live where
//! the original function kept them, so the two read each other's; the OAuth server's records
//! live in root collections of their own beside them.
//!
//! By what each part holds:
//! - `db/`: the connection every part shares, its time limit, and the calls (a read, a commit,
//!   the read-then-write loop);
//! - `document/`: a thread document as values (the original's layout, the fields kioku keeps in
//!   step with its entries, the size limit, the writes); nothing there calls Firestore;
//! - `threads/`: a namespace's threads read whole, counted, saved to, summed up;
//! - `load/`: a load's reads, one call for a small namespace, newest first for a large one;
//! - `index/`: the search index's reads, and the backfill that sets it;
//! - `vectors/`: a vector document per entry, found nearest, and their backfill;
//! - `profiles.rs`: the profile's versions; `grants/`: the OAuth server's records;
//! - `shapes.rs` and `backfills.rs`: what this instance keeps between requests: what it last
//!   saw of each namespace, and the backfills it runs;
//! - `store.rs` and `maintenance.rs`: the store traits' operations, each across the parts it
//!   touches.

mod backfills;
mod db;
mod document;
mod grants;
mod index;
mod load;
mod maintenance;
mod profiles;
mod shapes;
mod store;
mod threads;
mod vectors;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use firestore::FirestoreDbOptions;

use super::StoreError;
use backfills::Backfills;
use db::Db;
use shapes::Shapes;

/// Firestore, for Cloud Run: any number of instances share one namespace.
#[derive(Clone)]
pub struct FirestoreStore {
    db: Db,
    backfills: Backfills,
    shapes: Shapes,
    /// Set once Firestore refuses the one-call load (load/at_once.rs).
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
        Ok(Self {
            db: Db::connect(options, request_timeout).await?,
            backfills: Backfills::default(),
            shapes: Shapes::default(),
            at_once_refused: Arc::default(),
        })
    }
}
