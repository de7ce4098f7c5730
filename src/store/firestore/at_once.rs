//! A small namespace's threads and its profile in one call. Below `memory/{namespace}`, names
//! order as `profile_versions/{version}` < `threads/{id}` < `vectors/{id}` (references order by
//! path elements, https://firebase.google.com/docs/firestore/manage-data/data-types), and a
//! version's id is its number, zero-padded. So one query over every collection below the
//! namespace (a collection selector with no id: "When set, selects only collections with this
//! ID", google.firestore.v1.StructuredQuery.CollectionSelector), between the newest version this
//! instance saw and the end of the threads, answers that version, any newer one, then every
//! thread: the newest version and the whole namespace, when the query was not cut at its limit.

use std::sync::atomic::Ordering;

use firestore::FirestoreValue;
use firestore::errors::FirestoreError;
use firestore::gcloud_sdk::google::firestore::v1::{Document, Value, value::ValueType};

use super::FirestoreStore;
use super::calls::counted;
use super::failure::unavailable;
use super::layout::{LOADED, PROFILE, PROFILE_VERSIONS, THREADS, UPDATED_AT, VERSION, WRITER};
use super::merge::FIRST_READ;
use super::profile::profile_in;
use super::shapes::Shape;
use crate::domain::{Namespace, PageBuilder, Profile};
use crate::store::StoreError;

/// Documents the query reads at most: a small namespace's threads, one more to tell it is not
/// small, and its newest version.
const LIMIT: u32 = FIRST_READ + 2;
/// The least document id, after which every other sorts: `{collection}\0/{MIN_ID}` names the
/// end of `collection`, as Google's own clients bound a collection's descendants
/// (`REFERENCE_NAME_MIN_ID` in nodejs-firestore's recursive delete).
const MIN_ID: &str = "__id-9223372036854775808__";

/// What one call read of a small namespace.
pub(super) struct AtOnce {
    pub newest: Option<Profile>,
    pub threads: Vec<Document>,
}

impl FirestoreStore {
    /// Every thread of `ns` and its profile's newest version, in one query over the names from
    /// version `seen` (the newest this instance saw; `None`: from the first) to the last thread.
    /// `None` when that cannot tell them: the query was cut at its limit, as when the namespace
    /// grew; it found no version from `seen` on, as when the profile was forgotten or begun
    /// again below it; or Firestore refused the query, which this instance then stops asking.
    pub(super) async fn at_once(
        &self,
        ns: &Namespace,
        seen: Option<u64>,
    ) -> Result<Option<AtOnce>, StoreError> {
        if self.at_once_refused.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let parent = self.threads_path(ns);
        let reference = |name: String| {
            FirestoreValue::from(Value {
                value_type: Some(ValueType::ReferenceValue(name)),
            })
        };
        let from = reference(format!(
            "{parent}/{PROFILE_VERSIONS}/{:020}",
            seen.unwrap_or(0)
        ));
        let to = reference(format!("{parent}/{THREADS}\0/{MIN_ID}"));
        let read = self
            .db()
            .fluent()
            .select()
            .fields(
                LOADED
                    .into_iter()
                    .chain([PROFILE, VERSION, UPDATED_AT, WRITER]),
            )
            .from("")
            .parent(&parent)
            .all_descendants()
            .filter(|q| {
                q.for_all([
                    q.field("__name__").greater_than_or_equal(from.clone()),
                    q.field("__name__").less_than(to.clone()),
                ])
            })
            .limit(LIMIT)
            .query()
            .await;
        let documents = match read {
            Ok(documents) => counted(documents),
            Err(FirestoreError::DatabaseError(e)) if refused(&e.public.code) => {
                tracing::warn!(
                    code = %e.public.code,
                    "Firestore refused the one-call load; this instance goes back to two calls"
                );
                self.at_once_refused.store(true, Ordering::Relaxed);
                return Ok(None);
            }
            Err(e) => return Err(unavailable("reading a namespace and its profile failed", e)),
        };
        if documents.len() >= LIMIT as usize {
            return Ok(None);
        }
        let (versions_at, threads_at) = (
            format!("{parent}/{PROFILE_VERSIONS}/"),
            format!("{parent}/{THREADS}/"),
        );
        let (mut newest, mut threads) = (None::<Profile>, Vec::new());
        for doc in documents {
            if doc.name.starts_with(&threads_at) {
                threads.push(doc);
            } else if doc.name.starts_with(&versions_at) {
                let version = profile_in(&doc)?;
                if newest.as_ref().is_none_or(|n| n.version < version.version) {
                    newest = Some(version);
                }
            }
        }
        if newest.is_none() && seen.is_some() {
            return Ok(None);
        }
        Ok(Some(AtOnce { newest, threads }))
    }

    /// Remembers that `ns` is small, with `newest` its profile's newest version; the profile a
    /// first page carries of it, and the page the rest of the budget leaves.
    pub(super) fn seen_small(
        &self,
        ns: &Namespace,
        newest: Option<Profile>,
        not_before: Option<i64>,
        budget_chars: usize,
    ) -> (Option<Profile>, PageBuilder) {
        let newest_version = newest.as_ref().map(|p| p.version);
        self.shapes.saw(ns, Shape::Small { newest_version });
        PageBuilder::after_profile(newest.filter(|p| p.written_since(not_before)), budget_chars)
    }
}

/// Whether Firestore refused the query itself, rather than failed to answer it.
fn refused(code: &str) -> bool {
    matches!(
        code,
        "InvalidArgument" | "FailedPrecondition" | "Unimplemented"
    )
}
