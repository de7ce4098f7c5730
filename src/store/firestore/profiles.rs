//! The profile on Firestore: `memory/{namespace}/profile_versions/{version}`, a document per
//! kept version beside the original's `threads` (which it never reads). A version is created,
//! never changed, so that of two writers of one version number the second fails and reads again.

use std::collections::HashMap;

use firestore::gcloud_sdk::google::firestore::v1::{Document, Value, value::ValueType};
use firestore::gcloud_sdk::prost_types::Timestamp;

use super::FirestoreStore;
use super::db::unavailable;
use super::db::{Tries, counted};
use super::document::entries::{expiry, integer, string_value, writer_field, writer_in};
use super::document::layout::{PROFILE, PROFILE_VERSIONS, UPDATED_AT, VERSION};
use super::document::writes::{create_write, delete_write, expire_at_field};
use crate::domain::{
    KEPT_PROFILE_VERSIONS, Namespace, Profile, ProfileDraft, ProfileWrite, Retention,
};
use crate::store::StoreError;

impl FirestoreStore {
    fn versions_path(&self, ns: &Namespace) -> String {
        format!("{}/{PROFILE_VERSIONS}", self.db.namespace_path(ns))
    }

    /// A version's document: its number, zero-padded so that ids sort as numbers.
    fn version_path(&self, ns: &Namespace, version: u64) -> String {
        format!("{}/{version:020}", self.versions_path(ns))
    }

    /// The newest version, or `version`, written at or after `not_before`: one read.
    pub(super) async fn read_profile(
        &self,
        ns: &Namespace,
        version: Option<u64>,
        not_before: Option<i64>,
    ) -> Result<Option<Profile>, StoreError> {
        let doc = match version {
            Some(version) => self.db.get(&self.version_path(ns, version)).await?,
            None => self.newest_version(ns).await?,
        };
        let profile = doc.as_ref().map(profile_in).transpose()?;
        Ok(profile.filter(|p| p.written_since(not_before)))
    }

    async fn newest_version(&self, ns: &Namespace) -> Result<Option<Document>, StoreError> {
        let newest: Vec<Document> = self
            .db
            .current()
            .fluent()
            .select()
            .from(PROFILE_VERSIONS)
            .parent(self.db.namespace_path(ns))
            .order(|o| o.fields([o.field(VERSION).desc()]))
            .limit(1)
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable("reading a profile failed", e))?;
        Ok(newest.into_iter().next())
    }

    /// Creates the next version unless the draft may not replace the current one; the same
    /// commit deletes the version that falls out of the kept ones. Reads again when another
    /// writer created that number first.
    pub(super) async fn write_profile_version(
        &self,
        ns: &Namespace,
        draft: &ProfileDraft,
        retention: &Retention,
    ) -> Result<ProfileWrite, StoreError> {
        let expire_at = expiry(retention);
        let mut tries = Tries::default();
        while tries.next().await {
            let newest = self.newest_version(ns).await?;
            let newest = newest.as_ref().map(profile_in).transpose()?;
            let written = match draft.after(newest, retention.cutoff()) {
                ProfileWrite::Written(written) => written,
                conflict => return Ok(conflict),
            };
            let path = self.version_path(ns, written.version);
            let mut writes = vec![create_write(&path, fields(&written, expire_at))];
            if let Some(gone) = written.version.checked_sub(KEPT_PROFILE_VERSIONS) {
                writes.push(delete_write(&self.version_path(ns, gone)));
            }
            let written = ProfileWrite::Written(written);
            if let Some(written) = self.db.commit_unless_lost(writes, written).await? {
                return Ok(written);
            }
        }
        Err(StoreError::Contended)
    }

    /// Every kept version, oldest first.
    pub(super) async fn profile_versions_of(
        &self,
        ns: &Namespace,
    ) -> Result<Vec<Profile>, StoreError> {
        let mut versions = self
            .version_documents(ns)
            .await?
            .iter()
            .map(profile_in)
            .collect::<Result<Vec<_>, _>>()?;
        versions.sort_by_key(|p| p.version);
        Ok(versions)
    }

    /// Creates the versions not held, then deletes those beyond the kept number.
    pub(super) async fn import_profile_versions(
        &self,
        ns: &Namespace,
        versions: &[Profile],
    ) -> Result<u64, StoreError> {
        let mut added = 0;
        for version in versions {
            let path = self.version_path(ns, version.version);
            let create = create_write(&path, fields(version, None));
            // A version held already is not created again.
            if self
                .db
                .commit_unless_lost(vec![create], ())
                .await?
                .is_some()
            {
                added += 1;
            }
        }
        let held = self.profile_versions_of(ns).await?;
        let newest = held.last().map_or(0, |p| p.version);
        let gone: Vec<String> = held
            .iter()
            .filter(|p| p.version + KEPT_PROFILE_VERSIONS <= newest)
            .map(|p| self.version_path(ns, p.version))
            .collect();
        self.db.delete_all(&gone).await?;
        Ok(added)
    }

    /// Deletes every version; returns how many there were.
    pub(super) async fn forget_profile_versions(&self, ns: &Namespace) -> Result<u64, StoreError> {
        let names: Vec<String> = self
            .version_documents(ns)
            .await?
            .into_iter()
            .map(|doc| doc.name)
            .collect();
        self.db.delete_all(&names).await?;
        Ok(names.len() as u64)
    }

    async fn version_documents(&self, ns: &Namespace) -> Result<Vec<Document>, StoreError> {
        self.db
            .current()
            .fluent()
            .select()
            .from(PROFILE_VERSIONS)
            .parent(self.db.namespace_path(ns))
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable("listing a profile's versions failed", e))
    }
}

/// A version's fields; `expire_at` for the TTL policy that forgets it at its age.
fn fields(version: &Profile, expire_at: Option<Timestamp>) -> HashMap<String, Value> {
    let mut fields = HashMap::from([
        (PROFILE.to_owned(), string_value(&version.profile)),
        (
            VERSION.to_owned(),
            integer(i64::try_from(version.version).unwrap_or(i64::MAX)),
        ),
        (UPDATED_AT.to_owned(), string_value(&version.updated_at)),
    ]);
    fields.extend(writer_field(version.writer.as_ref()));
    fields.extend(expire_at_field(expire_at));
    fields
}

/// The version `doc` holds.
pub(super) fn profile_in(doc: &Document) -> Result<Profile, StoreError> {
    let field = |name: &str| doc.fields.get(name).and_then(|v| v.value_type.as_ref());
    let malformed = || {
        StoreError::failed(
            "a stored profile could not be read",
            "a field is missing or not of the type kioku writes",
        )
    };
    let text = |name| match field(name) {
        Some(ValueType::StringValue(text)) => Ok(text.clone()),
        _ => Err(malformed()),
    };
    let version = match field(VERSION) {
        Some(ValueType::IntegerValue(n)) => u64::try_from(*n).map_err(|_| malformed())?,
        _ => return Err(malformed()),
    };
    Ok(Profile {
        profile: text(PROFILE)?,
        version,
        updated_at: text(UPDATED_AT)?,
        writer: writer_in(&doc.fields),
    })
}
