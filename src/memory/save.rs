//! Saving a summary: validate it and its thread, stamp it, store it, and say what the save
//! dropped to keep within the limits.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Memory, MemoryError};
use crate::domain::{
    Caller, Entry, Namespace, REPEAT_WINDOW_MICROS, Summary, ThreadId, entry_micros, nearly_repeats,
};
use crate::embedding::EmbeddedSummary;
use crate::error_chain::ErrorChain;
use crate::store::{Dropped, SaveOutcome};

/// A save's parameters, as every door sends them (this is the `save_memory` tool's schema).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct SaveRequest {
    /// What to remember: a summary of the conversation so far (what was decided, done and left
    /// open), plain text, at most the server's limit (5,000 characters unless set otherwise).
    #[schemars(required)]
    pub summary: Option<String>,
    /// The thread to save to. Leave it out on a conversation's first save and send the
    /// `thread_id` that save returned with every later one.
    pub thread_id: Option<String>,
}

impl Memory {
    /// Saves the summary to the thread `thread_id`, or to a new thread when it is absent or
    /// empty.
    pub async fn save(&self, caller: &Caller, req: SaveRequest) -> Result<Saved, MemoryError> {
        self.limit
            .within(async {
                let ns = &caller.namespace;
                let summary = Summary::parse(req.summary, self.rules.max_summary_chars)?;
                let named = req.thread_id.as_deref().is_some_and(|id| !id.is_empty());
                let thread = ThreadId::parse_or_new(req.thread_id.as_deref())?;
                let entry = Entry::now(summary, self.rules.timezone, caller.writer.clone());
                // The model holds a core for as long as it reads: a turn (turns.rs) for it.
                let _turn = match &self.embeddings {
                    Some(_) => self.turns.take(ns).await,
                    None => None,
                };
                let embedded = self.embed(&entry.summary).await;
                // A thread the save begins holds nothing to be near.
                let similar_to = match &embedded {
                    Some(summary) if named => self.similar_to(ns, &thread, &entry, summary).await,
                    _ => None,
                };
                let vector = embedded.map(|summary| summary.embedded);
                let SaveOutcome {
                    dropped,
                    thread_count,
                    new_thread,
                    repeat_of,
                } = self
                    .store
                    .save(ns, &thread, &entry, vector.as_ref(), &self.rules.retention)
                    .await?;
                tracing::info!(
                    namespace = %ns,
                    thread_id = %thread.for_log(),
                    chars = entry.summary.chars().count(),
                    dropped_entries = dropped.entries,
                    dropped_threads = dropped.threads,
                    duplicate = repeat_of.is_some(),
                    embedded = vector.is_some(),
                    similar = similar_to.is_some(),
                    "saved"
                );
                Ok(Saved {
                    status: SaveStatus::Saved,
                    count: thread_count,
                    thread_id: thread.as_str().to_owned(),
                    duplicate: repeat_of.is_some(),
                    // An exact repeat is answered as one; it is not also near one.
                    similar_to: similar_to.filter(|_| repeat_of.is_none()),
                    timestamp: repeat_of.map_or(entry.timestamp, |newest| newest.timestamp),
                    new_thread,
                    dropped_entries: dropped.entries,
                    dropped_threads: dropped.threads,
                    notice: notice(&dropped),
                })
            })
            .await
    }
}

impl Memory {
    /// The timestamp of the entry of `thread` saved within [`REPEAT_WINDOW_MICROS`] before
    /// `entry` that `vector` [nearly repeats](nearly_repeats), if any. Only a summary the model
    /// reads whole is compared (a vector of text it cannot read says little), only under a
    /// model whose threshold is known (a cosine means something for its model alone), and a
    /// store that fails to answer leaves the save unflagged: the flag is advice, the save is
    /// what counts.
    async fn similar_to(
        &self,
        ns: &Namespace,
        thread: &ThreadId,
        entry: &Entry,
        summary: &EmbeddedSummary,
    ) -> Option<String> {
        let threshold = self.embeddings.as_ref()?.similar_cosine()?;
        if !summary.read_whole {
            return None;
        }
        let vector = &summary.embedded;
        let since = entry_micros(&entry.timestamp).saturating_sub(REPEAT_WINDOW_MICROS);
        let recent = self
            .store
            .recent_vectors(ns, thread, &vector.model, since)
            .await
            .inspect_err(|err| {
                tracing::warn!(error = %ErrorChain(err), "the near-repeat check failed; saved unflagged");
            })
            .ok()?;
        nearly_repeats(&vector.vector, &recent, threshold).map(|entry| entry.timestamp.clone())
    }
}

#[derive(Serialize, ToSchema, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SaveStatus {
    Saved,
}

/// The summary was saved.
#[derive(Serialize, ToSchema, JsonSchema)]
pub struct Saved {
    status: SaveStatus,
    /// How many threads this memory holds now.
    count: u64,
    /// The thread saved to; send it with later saves of this conversation.
    thread_id: String,
    /// When the summary was saved.
    timestamp: String,
    /// `true`: this summary was already the thread's newest, saved within the last 10 minutes
    /// (a retry), so nothing was added; `timestamp` is that save's.
    #[serde(skip_serializing_if = "is_false")]
    duplicate: bool,
    /// The `timestamp` of a summary saved to this thread in the 10 minutes before that says
    /// nearly the same as this one, in other words. This one was saved too. If it repeats that
    /// one (a save sent again after a timeout), forget one of the two (by its
    /// `timestamp`).
    #[serde(skip_serializing_if = "Option::is_none")]
    similar_to: Option<String>,
    /// `true`: the thread did not exist before this save. If you sent a `thread_id` you
    /// expected to exist, it was not one a save returned.
    #[serde(skip_serializing_if = "is_false")]
    new_thread: bool,
    /// Summaries of this thread this save dropped, oldest first, to keep within the limits.
    #[serde(skip_serializing_if = "is_zero")]
    dropped_entries: u64,
    /// Least recently saved threads this save dropped, to keep within the thread limit.
    #[serde(skip_serializing_if = "is_zero")]
    dropped_threads: u64,
    /// What this save dropped, in a sentence to pass on to the user.
    #[serde(skip_serializing_if = "Option::is_none")]
    notice: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !b
}

/// Tells the user what a save dropped, if anything.
fn notice(dropped: &Dropped) -> Option<String> {
    let entries = match dropped.entries {
        0 => None,
        n if dropped.for_size => Some(format!(
            "This thread reached the store's size limit, so its {n} oldest summaries were forgotten."
        )),
        n => Some(format!(
            "This thread's {n} oldest summaries were forgotten to keep within this memory's limits."
        )),
    };
    let threads = (dropped.threads > 0).then(|| {
        format!(
            "The {} least recently saved threads were forgotten to keep within this memory's thread limit.",
            dropped.threads
        )
    });
    let sentences: Vec<String> = entries.into_iter().chain(threads).collect();
    (!sentences.is_empty()).then(|| sentences.join(" "))
}
