//! The model as the server uses it: shared by every request, run on the blocking pool (never
//! on an async worker), at most one text per core at a time, within a time limit.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

use super::Model;
use crate::domain::{Embedded, ModelId};

pub struct Embeddings {
    model: Arc<Model>,
    /// One per core: a text uses one core (`main` keeps candle to one thread per call), so more
    /// at once would only make each slower.
    cores: Arc<Semaphore>,
    limit: Duration,
}

impl Embeddings {
    /// `limit`: the longest a caller waits for a vector, queueing included.
    pub fn new(model: Model, limit: Duration) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self {
            model: Arc::new(model),
            cores: Arc::new(Semaphore::new(cores)),
            limit,
        }
    }

    pub fn model(&self) -> &ModelId {
        self.model.id()
    }

    pub fn dimension(&self) -> usize {
        self.model.dimension()
    }

    /// The text's vector, or `None` when the model failed or the time limit passed: a save then
    /// stores its entry without one (the backfill embeds it later), and a search ranks by its
    /// terms alone. The failure is logged, never the text.
    pub async fn embed(&self, text: &str) -> Option<Embedded> {
        let (model, cores, text) = (
            Arc::clone(&self.model),
            Arc::clone(&self.cores),
            text.to_owned(),
        );
        let work = async move {
            let core = cores.acquire_owned().await.ok()?;
            // The permit goes with the work: a call given up still holds its core until done.
            tokio::task::spawn_blocking(move || {
                let _core = core;
                model.embed(&text)
            })
            .await
            .ok()
        };
        match tokio::time::timeout(self.limit, work).await {
            Ok(Some(Ok(vector))) => Some(Embedded {
                model: self.model.id().clone(),
                vector,
            }),
            Ok(Some(Err(err))) => {
                let cause = std::error::Error::source(&err).map(ToString::to_string);
                tracing::warn!(error = %err, cause, "embedding failed");
                None
            }
            Ok(None) => {
                tracing::warn!("embedding task ended without an answer");
                None
            }
            Err(_) => {
                tracing::warn!(
                    limit_ms = self.limit.as_millis() as u64,
                    "embedding timed out"
                );
                None
            }
        }
    }
}
