//! What the server does besides answering requests, every hour and at start: purge what has
//! expired, and embed what was stored without a vector.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use crate::config::Settings;
use crate::embedding::{Embeddings, backfill};
use crate::error_chain::ErrorChain;
use crate::oauth::AuthorizationServer;
use crate::store::{GrantStore, Maintenance, SqliteStore, StoreError};

/// How often the embedded store forgets entries past `KIOKU_RETENTION_DAYS`, how often expired
/// grants and credentials are deleted, and how often the vectors' backfill looks again.
const PURGE_EVERY: Duration = Duration::from_secs(3_600);

/// Deletes expired grants, credentials and page sessions every [`PURGE_EVERY`], on every
/// store, and lets the OAuth server forget its idle rate buckets; the first purge waits an
/// interval, so that starting stays fast.
pub fn keep_purging_grants(grants: Arc<dyn GrantStore>, oauth: Option<Arc<AuthorizationServer>>) {
    repeat_every(PURGE_EVERY, move || {
        let grants = Arc::clone(&grants);
        if let Some(oauth) = &oauth {
            oauth.forget_idle();
        }
        async move {
            match grants.purge_expired(chrono::Utc::now()).await {
                Ok(0) => {}
                Ok(records) => {
                    tracing::info!(records, "deleted expired grants, credentials and sessions")
                }
                Err(err) => tracing::error!(error = %ErrorChain(&err), "the grants' purge failed"),
            }
        }
    });
}

/// Forgets the embedded store's entries past their age now, then every [`PURGE_EVERY`], on a
/// connection of its own. (Firestore's TTL policy does this for Firestore: docs/deploy.md.)
pub async fn keep_purging(settings: &Settings) -> Result<(), StoreError> {
    let store = SqliteStore::open(&settings.sqlite_path(), settings.store_timeout())?;
    let retention = settings.retention();
    let purge = move || {
        let store = store.clone();
        async move {
            let Some(cutoff) = retention.cutoff() else {
                return;
            };
            match store.purge_before(cutoff).await {
                Ok(0) => {}
                Ok(entries) => tracing::info!(entries, "forgot entries past KIOKU_RETENTION_DAYS"),
                Err(err) => {
                    tracing::error!(error = %ErrorChain(&err), "the retention purge failed")
                }
            }
        }
    };
    purge().await;
    repeat_every(PURGE_EVERY, purge);
    Ok(())
}

/// Embeds the entries stored without a vector of the model: now, in the background (the server
/// listens meanwhile, and searches those entries by their words), then every [`PURGE_EVERY`],
/// for saves whose vector did not come in time.
pub fn keep_backfilling(store: Arc<dyn Maintenance>, embeddings: Embeddings) {
    let job = move || {
        let (store, embeddings) = (Arc::clone(&store), embeddings.clone());
        async move {
            match backfill(store.as_ref(), &embeddings, |_| {}).await {
                Ok(0) => {}
                Ok(entries) => tracing::info!(entries, "embedded entries stored without a vector"),
                Err(err) => {
                    tracing::error!(error = %ErrorChain(&err), "the vectors' backfill failed")
                }
            }
        }
    };
    tokio::spawn(job());
    repeat_every(PURGE_EVERY, job);
}

/// Runs `job` every `period`, the first time one period from now, for as long as the server
/// runs.
fn repeat_every<F, Fut>(period: Duration, job: F)
where
    F: Fn() -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send,
{
    tokio::spawn(async move {
        let mut every = tokio::time::interval(period);
        every.tick().await;
        loop {
            every.tick().await;
            job().await;
        }
    });
}
