//! A small namespace without a profile, seen so by this instance, in one call. Below
//! `memory/{namespace}`, names order as `profile_versions/{version}` < `threads/{id}` <
//! `vectors/{id}` (references order by path elements,
//! https://firebase.google.com/docs/firestore/manage-data/data-types). A listing with no
//! collection ("when not provided, Firestore will list documents from all collections under the
//! provided `parent`"; "When absent, documents are ordered based on `__name__ ASC`",
//! google.firestore.v1.ListDocumentsRequest) of the threads seen and one more answers any version
//! written since, then every thread: the whole namespace, when it reached past the threads or
//! to the end. One answer, not a message per document as a query's: about 40 % of a load's CPU
//! (BENCHMARKS.md). With a profile, the listing would read every kept version (up to 20) before
//! the threads; such a load lists the threads beside the newest version's query instead, two
//! calls in one round trip.

use std::sync::atomic::Ordering;

use firestore::gcloud_sdk::google::firestore::v1::Document;
use firestore::gcloud_sdk::tonic::Code;

use crate::domain::{Namespace, PageBuilder, Profile};
use crate::store::StoreError;
use crate::store::firestore::FirestoreStore;
use crate::store::firestore::db::unavailable;
use crate::store::firestore::document::layout::{
    LOADED, PROFILE, PROFILE_VERSIONS, THREADS, UPDATED_AT, VERSION, WRITER,
};
use crate::store::firestore::profiles::profile_in;
use crate::store::firestore::shapes::FIRST_READ;
use crate::store::firestore::shapes::Shape;

/// What one call read of a small namespace.
pub struct AtOnce {
    pub newest: Option<Profile>,
    pub threads: Vec<Document>,
}

impl FirestoreStore {
    /// Every thread of `ns` and its profile's newest version (`None`: still none), in one listing
    /// of `seen` documents and one more, `seen` the threads this instance last saw there without
    /// a profile. `None` when that cannot tell them: the listing stopped within the versions or
    /// the threads, as when the namespace grew or a profile was written; it found more threads
    /// than a small namespace holds; or Firestore refused it, which this instance then stops
    /// asking.
    pub(in crate::store::firestore) async fn at_once(
        &self,
        ns: &Namespace,
        seen: u32,
    ) -> Result<Option<AtOnce>, StoreError> {
        if self.at_once_refused.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let parent = self.db.namespace_path(ns);
        let fields: Vec<&str> = LOADED
            .into_iter()
            .chain([PROFILE, VERSION, UPDATED_AT, WRITER])
            .collect();
        let page = match self
            .db
            .list_below(
                parent.clone(),
                None,
                seen.saturating_add(1),
                &fields,
                String::new(),
            )
            .await
        {
            Ok(page) => page,
            Err(e) if refused(e.code()) => {
                tracing::warn!(
                    code = ?e.code(),
                    "Firestore refused the one-call load; this instance goes back to two calls"
                );
                self.at_once_refused.store(true, Ordering::Relaxed);
                return Ok(None);
            }
            Err(e) => return Err(unavailable("reading a namespace and its profile failed", e)),
        };
        let (versions_at, threads_at) = (
            format!("{parent}/{PROFILE_VERSIONS}/"),
            format!("{parent}/{THREADS}/"),
        );
        let versions_or_threads = |doc: &Document| {
            doc.name.starts_with(&versions_at) || doc.name.starts_with(&threads_at)
        };
        let whole = page.next_page_token.is_empty()
            || page
                .documents
                .last()
                .is_some_and(|doc| !versions_or_threads(doc));
        if !whole {
            return Ok(None);
        }
        let (mut newest, mut threads) = (None::<Profile>, Vec::new());
        for doc in page.documents {
            if doc.name.starts_with(&threads_at) {
                threads.push(doc);
            } else if doc.name.starts_with(&versions_at) {
                let version = profile_in(&doc)?;
                if newest.as_ref().is_none_or(|n| n.version < version.version) {
                    newest = Some(version);
                }
            }
        }
        if threads.len() > FIRST_READ as usize {
            return Ok(None);
        }
        Ok(Some(AtOnce { newest, threads }))
    }

    /// Remembers that `ns` is small, with `threads` threads and `newest` its profile's newest
    /// version; the profile a first page carries of it, and the page the rest of the budget
    /// leaves.
    pub(in crate::store::firestore) fn seen_small(
        &self,
        ns: &Namespace,
        newest: Option<Profile>,
        threads: usize,
        not_before: Option<i64>,
        budget_chars: usize,
    ) -> (Option<Profile>, PageBuilder) {
        let newest_version = newest.as_ref().map(|p| p.version);
        let threads = u32::try_from(threads).unwrap_or(u32::MAX);
        self.shapes.saw(
            ns,
            Shape::Small {
                newest_version,
                threads,
            },
        );
        PageBuilder::after_profile(newest.filter(|p| p.written_since(not_before)), budget_chars)
    }
}

/// Whether Firestore refused the listing itself, rather than failed to answer it.
fn refused(code: Code) -> bool {
    matches!(
        code,
        Code::InvalidArgument | Code::FailedPrecondition | Code::Unimplemented
    )
}
