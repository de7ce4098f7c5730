//! Forgetting a thread, one summary of it, or the profile.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{Memory, MemoryError, sent};
use crate::domain::{Namespace, ThreadId, ValidationError, parse_timestamp};

/// What to forget, as every door sends it: `thread_id` (and `timestamp` for one summary of it),
/// or `profile` set to `true`. The `/forget` query string and the `forget_memory` tool's schema.
#[derive(Debug, Clone, Default, Deserialize, IntoParams, JsonSchema)]
#[into_params(parameter_in = Query)]
pub struct ForgetRequest {
    /// The thread to forget, as a load shows it.
    #[param(max_length = 256)]
    pub thread_id: Option<String>,
    /// Forget only the summary saved at this time: its `timestamp` exactly as a load shows it.
    /// Leave it out to forget the whole thread.
    pub timestamp: Option<String>,
    /// `true`, instead of `thread_id`: forget the user's profile, every kept version.
    #[param(value_type = Option<bool>)]
    #[serde(default, deserialize_with = "sent::as_text")]
    #[schemars(with = "Option<bool>")]
    pub profile: Option<String>,
}

impl ForgetRequest {
    /// Whether the profile is to be forgotten: `profile` is `true` (`false` or empty: no).
    fn forgets_profile(&self) -> Result<bool, ValidationError> {
        match self.profile.as_deref().map(str::trim) {
            None | Some("" | "false") => Ok(false),
            Some("true") => Ok(true),
            Some(_) => Err(ValidationError::InvalidFilter {
                name: "profile",
                expected: "`true`, to forget the profile",
            }),
        }
    }
}

/// What was forgotten: a thread or a summary of it, or the profile.
#[derive(Serialize, ToSchema, JsonSchema)]
#[serde(untagged)]
pub enum ForgetAnswer {
    Thread(Forgotten),
    Profile(ProfileForgotten),
}

impl Memory {
    /// Forgets what `req` names.
    pub async fn forget(
        &self,
        ns: &Namespace,
        req: &ForgetRequest,
    ) -> Result<ForgetAnswer, MemoryError> {
        self.limit.within(async {
            let thread_id = req.thread_id.as_deref().filter(|id| !id.is_empty());
            match (req.forgets_profile()?, thread_id) {
                (true, Some(_)) => Err(ValidationError::InvalidParameters(
                    "Send `thread_id` to forget a thread, or `profile=true` to forget the profile, not both.",
                ))?,
                (true, None) => Ok(ForgetAnswer::Profile(self.forget_profile(ns).await?)),
                (false, thread_id) => Ok(ForgetAnswer::Thread(
                    self.forget_thread(ns, thread_id, req.timestamp.as_deref())
                        .await?,
                )),
            }
        })
        .await
    }

    /// Forgets the thread `thread_id`, or only its summary saved at `timestamp` (as a load
    /// shows it).
    async fn forget_thread(
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
        tracing::info!(namespace = %ns, thread_id = %thread.for_log(), entries = removed.entries, "forgot");
        Ok(Forgotten {
            status: ForgetStatus::Forgotten,
            thread_id: thread.as_str().to_owned(),
            forgotten_entries: removed.entries,
            thread_removed: removed.threads > 0,
        })
    }

    /// Forgets the profile, every version of it.
    async fn forget_profile(&self, ns: &Namespace) -> Result<ProfileForgotten, MemoryError> {
        let versions = self.store.forget_profile(ns).await?;
        if versions == 0 {
            return Err(MemoryError::NothingToForget("no profile is saved"));
        }
        tracing::info!(namespace = %ns, versions, "forgot the profile");
        Ok(ProfileForgotten {
            status: ForgetStatus::Forgotten,
            forgotten_profile_versions: versions,
        })
    }
}

#[derive(Serialize, ToSchema, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ForgetStatus {
    Forgotten,
}

/// What was forgotten of a thread.
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

/// The profile was forgotten.
#[derive(Serialize, ToSchema, JsonSchema)]
pub struct ProfileForgotten {
    status: ForgetStatus,
    /// How many versions of it were deleted (every one kept).
    forgotten_profile_versions: u64,
}
