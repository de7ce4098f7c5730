//! What can be done with a namespace's memory, for every door that leads to it (the HTTP API,
//! the MCP tools and the memory page): save, load (a page or a search), forget, the profile,
//! and what one app wrote (each save and rewrite records its [`Writer`](crate::domain::Writer)).
//! Each operation owns its request type, the one every door fills (and the MCP tool's schema);
//! it validates what was sent into domain types, calls the store and shapes the answer, so that
//! no rule is written twice. Each runs within one [`TimeLimit`]: the embedding, the reads and the
//! write share it. A search, and a save the model embeds, wait for one of their namespace's
//! turns (turns.rs), so that no namespace holds every reader and core.

mod error;
mod forget;
mod load;
mod namespaces;
mod profile;
mod save;
mod search;
pub mod sent;
mod turns;
mod written_by;

use std::sync::Arc;
use std::time::Duration;

use chrono_tz::Tz;

use crate::domain::{Embedded, Retention};
use crate::embedding::{EmbeddedSummary, Embeddings};
use crate::store::{MemoryStore, TimeLimit};
use turns::Turns;

pub use error::MemoryError;
pub use forget::{ForgetAnswer, ForgetRequest, ForgetStatus, Forgotten, ProfileForgotten};
pub use load::{LoadAnswer, LoadRequest, LoadStatus, Loaded, SearchStatus, Searched, Truncation};
pub use profile::{
    ProfileAnswer, ProfileRead, ProfileReadRequest, ProfileRequest, ProfileSaved,
    ProfileWriteRequest,
};
pub use save::{SaveRequest, SaveStatus, Saved};
pub use search::search;

/// The operator's rules for every namespace.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// Zone of saved timestamps, and of dates in filters.
    pub timezone: Tz,
    pub max_summary_chars: usize,
    pub max_profile_chars: usize,
    /// Most characters of JSON a load answers with.
    pub load_budget_chars: usize,
    pub retention: Retention,
}

/// The memories of every namespace, under the operator's rules.
pub struct Memory {
    store: Arc<dyn MemoryStore>,
    rules: Rules,
    /// The embedding model, if one is set: saves store a vector beside each entry, and
    /// searches rank by meaning as well as by words.
    embeddings: Option<Embeddings>,
    limit: TimeLimit,
    /// Each namespace's turns at the work that holds a reader or a core for long.
    turns: Turns,
}

impl Memory {
    pub fn new(
        store: Arc<dyn MemoryStore>,
        rules: Rules,
        embeddings: Option<Embeddings>,
        limit: TimeLimit,
    ) -> Self {
        Self {
            store,
            rules,
            embeddings,
            limit,
            turns: Turns::default(),
        }
    }

    /// A summary's vector, when a model is set and answers in time.
    async fn embed(&self, summary: &str) -> Option<EmbeddedSummary> {
        let embeddings = self.embeddings.as_ref()?;
        self.embedding_in_time(embeddings.embed(summary)).await
    }

    /// A question's vector to rank by, when a model is set, reads it whole and answers in time.
    async fn embed_question(&self, question: &str) -> Option<Embedded> {
        let embeddings = self.embeddings.as_ref()?;
        self.embedding_in_time(embeddings.embed_question(question))
            .await
    }

    /// `embedding`, given a quarter of the operation's time limit: the rest is kept for the
    /// store, so that a busy model costs a save its vector (the backfill embeds it later) or a
    /// search its ranking by meaning, never the answer.
    async fn embedding_in_time<T>(&self, embedding: impl Future<Output = Option<T>>) -> Option<T> {
        let share: Duration = self.limit.duration() / 4;
        let embedded = tokio::time::timeout(share, embedding).await;
        embedded.unwrap_or_else(|_| {
            tracing::warn!(limit_ms = share.as_millis() as u64, "embedding timed out");
            None
        })
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }
}
