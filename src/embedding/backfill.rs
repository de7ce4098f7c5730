//! Vectors for what was saved before the model was set, under another model, or when
//! embedding failed: found a batch at a time, newest first, embedded one by one (so requests
//! keep the other cores), and stored. Resumable: whatever it has not reached, a later run
//! finds again; until then, search ranks those entries by their words.

use super::Embeddings;
use crate::store::{Maintenance, StoreError};

/// Entries read, embedded and stored at a time.
const BATCH: u32 = 32;

/// Embeds every entry the store holds without a vector of the model, calling `progress` with
/// the count so far after each batch; answers how many it stored. An entry the model fails on
/// is passed over (and logged, without its text).
pub async fn backfill(
    store: &dyn Maintenance,
    embeddings: &Embeddings,
    progress: impl Fn(u64),
) -> Result<u64, StoreError> {
    let (mut after, mut stored) = (None, 0);
    loop {
        let batch = store
            .unembedded(embeddings.model(), after.as_ref(), BATCH)
            .await?;
        let Some(last) = batch.last() else {
            return Ok(stored);
        };
        after = Some(last.key.clone());
        let mut vectors = Vec::with_capacity(batch.len());
        for entry in batch {
            if let Some(summary) = embeddings.embed(&entry.summary).await {
                vectors.push((entry.key, summary.embedded));
            }
        }
        stored += store.put_vectors(&vectors).await?;
        progress(stored);
    }
}
