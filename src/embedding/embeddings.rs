//! The model as the server uses it: shared by every request, run on the blocking pool (never
//! on an async worker), at most one text per core at a time. How long a caller waits is the
//! caller's to say (a request gives it part of its time limit; the backfill waits).

use std::sync::Arc;

use tokio::sync::Semaphore;

use super::{EmbeddingError, Model, Passage, measured};
use crate::domain::{Embedded, ModelId, Vector};

/// A summary's vector as kioku stores it, and whether the model reads all of the summary (see
/// [`Passage`]).
pub struct EmbeddedSummary {
    pub embedded: Embedded,
    pub read_whole: bool,
}

/// Cheap to clone: every clone shares the model and its cores.
#[derive(Clone)]
pub struct Embeddings {
    model: Arc<Model>,
    /// One per core: a text uses one core (`main` keeps candle to one thread per call), so more
    /// at once would only make each slower.
    cores: Arc<Semaphore>,
    similar_cosine: Option<f32>,
}

impl Embeddings {
    /// `model`, with the near-repeat threshold `similar_cosine` when set, else the one measured
    /// for it (none for a model kioku was not measured with: then no save is flagged).
    pub fn new(model: Model, similar_cosine: Option<f32>) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self {
            similar_cosine: similar_cosine.or_else(|| measured::similar_cosine(model.id())),
            model: Arc::new(model),
            cores: Arc::new(Semaphore::new(cores)),
        }
    }

    /// The cosine at or above which two of this model's vectors say nearly the same, if known.
    pub fn similar_cosine(&self) -> Option<f32> {
        self.similar_cosine
    }

    pub fn model(&self) -> &ModelId {
        self.model.id()
    }

    pub fn dimension(&self) -> usize {
        self.model.dimension()
    }

    /// A summary's vector, and whether the model reads all of it; `None` when the model
    /// failed: the save then stores its entry without one, and the backfill embeds it later.
    pub async fn embed(&self, text: &str) -> Option<EmbeddedSummary> {
        let passage = self.run(text, |model, text| model.embed(text).map(Some));
        passage
            .await
            .map(|Passage { vector, read_whole }| EmbeddedSummary {
                embedded: self.embedded(vector),
                read_whole,
            })
    }

    /// A question's vector, to rank by: `None` also when the model cannot read all of it
    /// ([`Model::embed_if_read_whole`]); the search then ranks by words alone, as it would
    /// without a model.
    pub async fn embed_question(&self, text: &str) -> Option<Embedded> {
        let vector = self.run(text, Model::embed_if_read_whole).await;
        vector.map(|vector| self.embedded(vector))
    }

    fn embedded(&self, vector: Vector) -> Embedded {
        Embedded {
            model: self.model.id().clone(),
            vector,
        }
    }

    /// `work`'s answer for the text, on the blocking pool. A failure is logged, never the text.
    async fn run<T: Send + 'static>(
        &self,
        text: &str,
        work: fn(&Model, &str) -> Result<Option<T>, EmbeddingError>,
    ) -> Option<T> {
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
                work(&model, &text)
            })
            .await
            .ok()
        };
        match work.await {
            Some(Ok(answer)) => answer,
            Some(Err(err)) => {
                let cause = std::error::Error::source(&err).map(ToString::to_string);
                tracing::warn!(error = %err, cause, "embedding failed");
                None
            }
            None => {
                tracing::warn!("embedding task ended without an answer");
                None
            }
        }
    }
}
