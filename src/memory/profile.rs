//! The profile: read it (now, or an earlier version), rewrite it unless it changed since it
//! was read, and forget it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Memory, MemoryError, SaveStatus, sent};
use crate::domain::{
    Caller, Namespace, Profile, ProfileDraft, ProfileWrite, ValidationError, Writer, entry_micros,
    parse_version,
};

/// A read of the profile (the `load_profile` tool's schema).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ProfileReadRequest {
    /// An earlier version to read (the newest 20 are kept), to undo a bad rewrite; leave it
    /// out for the current profile.
    #[serde(default, deserialize_with = "sent::as_text")]
    #[schemars(with = "Option<u64>", range(min = 1))]
    pub version: Option<String>,
}

/// A rewrite of the profile (the `save_profile` tool's schema).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ProfileWriteRequest {
    /// The whole new profile, plain text, short (at most the server's limit, 2,000 characters
    /// unless set otherwise): the current one with what changed merged in; nothing dropped that
    /// the user did not take back.
    pub profile: String,
    /// The `version` of the profile you read (0 when it was empty). If another version is
    /// current, nothing is written and the error carries it in `current`: merge and retry.
    #[serde(default, deserialize_with = "sent::as_text")]
    #[schemars(with = "Option<u64>")]
    pub expected_version: Option<String>,
}

/// A profile request of the API's `mode=profile`, as sent: with `profile`, a rewrite; without,
/// a read.
#[derive(Debug, Clone, Default)]
pub struct ProfileRequest {
    pub profile: Option<String>,
    pub version: Option<String>,
    pub expected_version: Option<String>,
}

/// What a profile request answers.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
pub enum ProfileAnswer {
    Read(ProfileRead),
    Saved(ProfileSaved),
}

impl Memory {
    /// Reads the profile, or with `profile` rewrites it.
    pub async fn profile(
        &self,
        caller: &Caller,
        req: ProfileRequest,
    ) -> Result<ProfileAnswer, MemoryError> {
        let reads_version = req.version.as_deref().is_some_and(|v| !v.trim().is_empty());
        match req.profile {
            Some(_) if reads_version => Err(ValidationError::InvalidParameters(
                "Send `version` to read an earlier profile, or `profile` to rewrite it, not both.",
            ))?,
            Some(profile) => {
                let write = ProfileWriteRequest {
                    profile,
                    expected_version: req.expected_version,
                };
                Ok(ProfileAnswer::Saved(
                    self.write_profile(caller, &write).await?,
                ))
            }
            None => {
                let read = ProfileReadRequest {
                    version: req.version,
                };
                Ok(ProfileAnswer::Read(
                    self.read_profile(&caller.namespace, &read).await?,
                ))
            }
        }
    }

    /// The profile now, or the earlier version `req` names.
    pub async fn read_profile(
        &self,
        ns: &Namespace,
        req: &ProfileReadRequest,
    ) -> Result<ProfileRead, MemoryError> {
        self.limit
            .within(async {
                let version = parse_version(req.version.as_deref(), "version", 1)?;
                let found = self
                    .store
                    .profile(ns, version, self.rules.retention.cutoff())
                    .await?;
                match (found, version) {
                    (Some(profile), _) => Ok(ProfileRead::found(profile)),
                    (None, Some(version)) => Err(MemoryError::UnknownProfileVersion(version)),
                    (None, None) => Ok(ProfileRead::empty()),
                }
            })
            .await
    }

    /// Rewrites the profile, unless another version than the one it was based on is current.
    pub async fn write_profile(
        &self,
        caller: &Caller,
        req: &ProfileWriteRequest,
    ) -> Result<ProfileSaved, MemoryError> {
        self.limit.within(async {
            let ns = &caller.namespace;
            let text = &req.profile;
            let draft = ProfileDraft::parse(
                text,
                req.expected_version.as_deref(),
                self.rules.max_profile_chars,
                self.rules.timezone,
                caller.writer.clone(),
            )?;
            match self
                .store
                .write_profile(ns, &draft, &self.rules.retention)
                .await?
            {
                ProfileWrite::Written(profile) => {
                    tracing::info!(namespace = %ns, version = profile.version, chars = text.chars().count(), "profile saved");
                    Ok(ProfileSaved {
                        status: SaveStatus::Saved,
                        version: profile.version,
                        updated_at: profile.updated_at,
                    })
                }
                ProfileWrite::Conflict(current) => Err(MemoryError::ProfileConflict(current)),
            }
        })
        .await
    }

    /// The current profile, for a load's first page and the memory page.
    pub async fn current_profile(&self, ns: &Namespace) -> Result<Option<Profile>, MemoryError> {
        self.limit
            .within(async {
                Ok(self
                    .store
                    .profile(ns, None, self.rules.retention.cutoff())
                    .await?)
            })
            .await
    }

    /// Every version of the profile that may be read again, oldest first, the current one
    /// last: for the memory page, which names each by its time and writer.
    pub async fn profile_history(&self, ns: &Namespace) -> Result<Vec<Profile>, MemoryError> {
        self.limit
            .within(async {
                let cutoff = self.rules.retention.cutoff();
                let mut versions = self.store.profile_versions(ns).await?;
                // Past the age limit, as a read of one version finds it: gone.
                versions.retain(|p| cutoff.is_none_or(|c| entry_micros(&p.updated_at) >= c));
                Ok(versions)
            })
            .await
    }
}

#[derive(Serialize, ToSchema, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProfileStatus {
    Profile,
    Empty,
}

/// The profile (its text, version and time), or `empty` when none was written.
#[derive(Serialize, ToSchema, JsonSchema)]
// No other field, in the schema: an empty load answers `"status":"empty"` too.
#[serde(deny_unknown_fields)]
pub struct ProfileRead {
    status: ProfileStatus,
    /// What is known about the user: durable facts, preferences, goals, tone.
    #[serde(skip_serializing_if = "Option::is_none")]
    profile: Option<String>,
    /// Send it as `expected_version` with a rewrite based on this text.
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_at: Option<String>,
    /// Who wrote this version, when kioku recorded it.
    #[serde(skip_serializing_if = "Option::is_none")]
    writer: Option<Writer>,
}

impl ProfileRead {
    fn found(profile: Profile) -> Self {
        Self {
            status: ProfileStatus::Profile,
            profile: Some(profile.profile),
            version: Some(profile.version),
            updated_at: Some(profile.updated_at),
            writer: profile.writer,
        }
    }

    /// The text read, if there was a profile.
    pub fn into_text(self) -> Option<String> {
        self.profile
    }

    fn empty() -> Self {
        Self {
            status: ProfileStatus::Empty,
            profile: None,
            version: None,
            updated_at: None,
            writer: None,
        }
    }
}

/// The profile was rewritten.
#[derive(Serialize, ToSchema, JsonSchema)]
pub struct ProfileSaved {
    status: SaveStatus,
    /// The new version: send it as `expected_version` with the next rewrite.
    version: u64,
    updated_at: String,
}
