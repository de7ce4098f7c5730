//! Forgetting a thread, or one summary of it.

use schemars::JsonSchema;
use serde::Serialize;
use utoipa::ToSchema;

use super::{Memory, MemoryError};
use crate::domain::{Namespace, ThreadId, ValidationError, parse_timestamp};

impl Memory {
    /// Forgets the thread `thread_id`, or only its summary saved at `timestamp` (as a load
    /// shows it).
    pub async fn forget(
        &self,
        ns: &Namespace,
        thread_id: Option<&str>,
        timestamp: Option<&str>,
    ) -> Result<Forgotten, MemoryError> {
        let thread = ThreadId::parse_required(thread_id)?;
        let at = timestamp
            .filter(|raw| !raw.trim().is_empty())
            .map(|raw| {
                parse_timestamp(raw).ok_or(ValidationError::InvalidFilter {
                    name: "timestamp",
                    expected: "the timestamp of a saved summary, as a load shows it",
                })
            })
            .transpose()?;
        let removed = self.store.forget(ns, &thread, at).await?;
        if removed.entries == 0 && removed.threads == 0 {
            return Err(MemoryError::NothingToForget(match at {
                Some(_) => "this thread holds no summary saved at this timestamp",
                None => "no thread has this thread_id",
            }));
        }
        tracing::info!(namespace = %ns, thread_id = thread.as_str(), entries = removed.entries, "forgot");
        Ok(Forgotten {
            status: ForgetStatus::Forgotten,
            thread_id: thread.as_str().to_owned(),
            forgotten_entries: removed.entries,
            thread_removed: removed.threads > 0,
        })
    }
}

#[derive(Serialize, ToSchema, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ForgetStatus {
    Forgotten,
}

/// What was forgotten.
#[derive(Serialize, ToSchema, JsonSchema)]
pub struct Forgotten {
    status: ForgetStatus,
    /// The thread forgotten from.
    thread_id: String,
    /// How many summaries were deleted.
    forgotten_entries: u64,
    /// `true` when the thread is gone: it was forgotten whole, or its last summary was.
    thread_removed: bool,
}
