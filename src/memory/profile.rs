//! The profile: read it (now, or an earlier version), rewrite it unless it changed since it
//! was read, and forget it.

use schemars::JsonSchema;
use serde::Serialize;
use utoipa::ToSchema;

use super::{Memory, MemoryError, SaveStatus};
use crate::domain::{
    Namespace, Profile, ProfileDraft, ProfileWrite, ValidationError, parse_version,
};

/// A profile request's parameters, as sent: with `profile`, a rewrite; without, a read.
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
        ns: &Namespace,
        req: &ProfileRequest,
    ) -> Result<ProfileAnswer, MemoryError> {
        let reads_version = req.version.as_deref().is_some_and(|v| !v.trim().is_empty());
        match req.profile.as_deref() {
            Some(_) if reads_version => Err(ValidationError::InvalidParameters(
                "Send `version` to read an earlier profile, or `profile` to rewrite it, not both.",
            ))?,
            Some(text) => Ok(ProfileAnswer::Saved(
                self.write_profile(ns, text, req.expected_version.as_deref())
                    .await?,
            )),
            None => Ok(ProfileAnswer::Read(
                self.read_profile(ns, req.version.as_deref()).await?,
            )),
        }
    }

    async fn read_profile(
        &self,
        ns: &Namespace,
        version: Option<&str>,
    ) -> Result<ProfileRead, MemoryError> {
        let version = parse_version(version, "version", 1)?;
        let found = self
            .store
            .profile(ns, version, self.rules.retention.cutoff())
            .await?;
        match (found, version) {
            (Some(profile), _) => Ok(ProfileRead::found(profile)),
            (None, Some(version)) => Err(MemoryError::UnknownProfileVersion(version)),
            (None, None) => Ok(ProfileRead::empty()),
        }
    }

    async fn write_profile(
        &self,
        ns: &Namespace,
        text: &str,
        expected_version: Option<&str>,
    ) -> Result<ProfileSaved, MemoryError> {
        let draft = ProfileDraft::parse(
            text,
            expected_version,
            self.rules.max_profile_chars,
            self.rules.timezone,
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
    }

    /// The current profile, for a load's first page and the memory page.
    pub async fn current_profile(&self, ns: &Namespace) -> Result<Option<Profile>, MemoryError> {
        Ok(self
            .store
            .profile(ns, None, self.rules.retention.cutoff())
            .await?)
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
}

impl ProfileRead {
    fn found(profile: Profile) -> Self {
        Self {
            status: ProfileStatus::Profile,
            profile: Some(profile.profile),
            version: Some(profile.version),
            updated_at: Some(profile.updated_at),
        }
    }

    fn empty() -> Self {
        Self {
            status: ProfileStatus::Empty,
            profile: None,
            version: None,
            updated_at: None,
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
