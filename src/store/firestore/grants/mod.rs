//! The Firestore store's OAuth records: a document each, in root collections of their own.
//! Redeeming is a read-then-write of the credential, issuing one commit conditional on the
//! grant; every query filters on one field, so none needs a composite index.

mod records;

use std::iter;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use firestore::gcloud_sdk::google::firestore::v1::{Document, Value, Write, value::ValueType};
use firestore::gcloud_sdk::tonic::Code;
use firestore::select_filter_builder::FirestoreQueryFilterBuilder;
use firestore::{FirestoreQueryCursor, FirestoreQueryFilter, FirestoreValue};

use crate::store::firestore::FirestoreStore;
use crate::store::firestore::db::counted;
use crate::store::firestore::db::{commit_error, lost_race, unavailable};
use crate::store::firestore::document::layout::{
    CLIENTS, CREDENTIALS, EXPIRES_AT, GRANT_ID, GRANTS, MAX_WRITES_PER_COMMIT, NAMESPACE, USED,
};
use crate::store::firestore::document::writes::{
    create_write, delete_write, exists, set_write, unchanged, update,
};
use crate::store::{Client, Credential, Grant, GrantStore, Redeemed, StoreError};
use records::{
    Fields, boolean, client, client_fields, credential, credential_fields, grant, grant_fields,
    time_value,
};

#[async_trait]
impl GrantStore for FirestoreStore {
    async fn put_client(&self, client: &Client) -> Result<(), StoreError> {
        let path = self.db.record_path(CLIENTS, &client.id);
        let write = set_write(&path, client_fields(client));
        self.db.commit(vec![write]).await.map_err(commit_error)
    }

    async fn client(&self, id: &str) -> Result<Option<Client>, StoreError> {
        let found = self.db.get(&self.db.record_path(CLIENTS, id)).await?;
        found.as_ref().map(client).transpose()
    }

    async fn clients(&self, after: Option<&str>, limit: u32) -> Result<Vec<Client>, StoreError> {
        let db = self.db.current();
        let select = db
            .fluent()
            .select()
            .from(CLIENTS)
            .order(|o| o.fields([o.field("__name__").ascending()]))
            .limit(limit);
        let select = match after {
            Some(after) => {
                let name = FirestoreValue::from(Value {
                    value_type: Some(ValueType::ReferenceValue(
                        self.db.record_path(CLIENTS, after),
                    )),
                });
                select.start_at(FirestoreQueryCursor::AfterValue(vec![name]))
            }
            None => select,
        };
        let documents = select
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable("listing the OAuth clients failed", e))?;
        documents.iter().map(client).collect()
    }

    async fn put_grant(&self, grant: &Grant) -> Result<(), StoreError> {
        let path = self.db.record_path(GRANTS, &grant.id);
        let write = set_write(&path, grant_fields(grant));
        self.db.commit(vec![write]).await.map_err(commit_error)
    }

    async fn grant(&self, id: &str) -> Result<Option<Grant>, StoreError> {
        let found = self.db.get(&self.db.record_path(GRANTS, id)).await?;
        found.as_ref().map(grant).transpose()
    }

    /// Sorted here: a query ordered by `created_at` within a namespace would need a composite
    /// index, and a namespace has few grants.
    async fn grants(&self, namespace: &str) -> Result<Vec<Grant>, StoreError> {
        let context = "listing a namespace's grants failed";
        let documents = self
            .records(GRANTS, context, |q| q.field(NAMESPACE).eq(namespace))
            .await?;
        let mut grants = documents.iter().map(grant).collect::<Result<Vec<_>, _>>()?;
        grants.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(grants)
    }

    /// One commit: the grant's new expiry, on condition that the grant exists, then the
    /// credentials, each on condition that its digest is new.
    async fn issue(
        &self,
        grant_id: &str,
        expires_at: DateTime<Utc>,
        credentials: &[Credential],
    ) -> Result<bool, StoreError> {
        let expiry = Fields::from([(EXPIRES_AT.into(), time_value(expires_at))]);
        let extend = Write {
            current_document: Some(exists(true)),
            ..update(&self.db.record_path(GRANTS, grant_id), expiry, Vec::new())
        };
        let creates = credentials
            .iter()
            .map(|issued| self.credential_create(issued, Some(grant_id)));
        match self
            .db
            .commit(iter::once(extend).chain(creates).collect())
            .await
        {
            Ok(()) => Ok(true),
            // The grant is gone: Firestore answers NOT_FOUND for an update of a missing
            // document, FAILED_PRECONDITION for a precondition not met.
            Err(status) if matches!(status.code(), Code::NotFound | Code::FailedPrecondition) => {
                Ok(false)
            }
            Err(status) => Err(commit_error(status)),
        }
    }

    /// The grant goes first: from then on no `issue` can add a credential under it, so the
    /// query after finds them all. A revoke that failed halfway is finished by the next.
    async fn revoke_grant(&self, id: &str) -> Result<bool, StoreError> {
        let delete = Write {
            current_document: Some(exists(true)),
            ..delete_write(&self.db.record_path(GRANTS, id))
        };
        let existed = match self.db.commit(vec![delete]).await {
            Ok(()) => true,
            Err(status) if status.code() == Code::NotFound => false,
            Err(status) => return Err(commit_error(status)),
        };
        let context = "finding a grant's credentials failed";
        let issued = self
            .records(CREDENTIALS, context, |q| q.field(GRANT_ID).eq(id))
            .await?;
        for chunk in issued.chunks(MAX_WRITES_PER_COMMIT) {
            let deletes = chunk.iter().map(|doc| delete_write(&doc.name)).collect();
            self.db.commit(deletes).await.map_err(commit_error)?;
        }
        Ok(existed)
    }

    async fn put_credential(&self, credential: &Credential) -> Result<(), StoreError> {
        let create = self.credential_create(credential, credential.grant_id.as_deref());
        self.db.commit(vec![create]).await.map_err(commit_error)
    }

    async fn credential(&self, digest: &str) -> Result<Option<Credential>, StoreError> {
        let found = self
            .db
            .get(&self.db.record_path(CREDENTIALS, digest))
            .await?;
        found.as_ref().map(credential).transpose()
    }

    /// Marks it used only if it is as read: of concurrent redeems, one commits and the others
    /// read again and find it used.
    async fn redeem(
        &self,
        digest: &str,
        keep_until: Option<DateTime<Utc>>,
    ) -> Result<Redeemed, StoreError> {
        let name = self.db.record_path(CREDENTIALS, digest);
        self.db
            .change(&name, |current| {
                let Some(doc) = current else {
                    return Ok((None, Redeemed::Unknown));
                };
                let mut found = credential(doc)?;
                if found.used {
                    return Ok((None, Redeemed::Again(found)));
                }
                found.used = true;
                let mut fields = Fields::from([(USED.into(), boolean(true))]);
                if let Some(until) = keep_until {
                    found.expires_at = until;
                    fields.insert(EXPIRES_AT.into(), time_value(until));
                }
                let mark = update(&name, fields, Vec::new());
                Ok((Some(mark), Redeemed::First(found)))
            })
            .await
    }

    async fn purge_expired(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let context = "finding expired OAuth records failed";
        let mut purged = 0;
        for collection in [CLIENTS, GRANTS, CREDENTIALS] {
            let expired = self
                .records(collection, context, |q| {
                    q.field(EXPIRES_AT)
                        .less_than(FirestoreValue::from(time_value(now)))
                })
                .await?;
            purged += self.delete_unchanged(&expired).await?;
        }
        Ok(purged)
    }
}

impl FirestoreStore {
    /// The documents of the root `collection` that `filter` admits.
    async fn records(
        &self,
        collection: &str,
        context: &'static str,
        filter: impl Fn(FirestoreQueryFilterBuilder) -> Option<FirestoreQueryFilter> + Send + Sync,
    ) -> Result<Vec<Document>, StoreError> {
        self.db
            .current()
            .fluent()
            .select()
            .from(collection)
            .filter(filter)
            .query()
            .await
            .map(counted)
            .map_err(|e| unavailable(context, e))
    }

    /// Creates the credential's document under `grant_id`: a credential is never replaced.
    fn credential_create(&self, credential: &Credential, grant_id: Option<&str>) -> Write {
        let path = self.db.record_path(CREDENTIALS, &credential.digest);
        create_write(&path, credential_fields(credential, grant_id))
    }

    /// Deletes the documents still as read, 500 to a commit; returns how many went. One that
    /// changed since (a grant issued on anew) stays, and the rest of its commit go one by one.
    async fn delete_unchanged(&self, documents: &[Document]) -> Result<u64, StoreError> {
        let delete = |doc: &Document| Write {
            current_document: Some(unchanged(Some(doc))),
            ..delete_write(&doc.name)
        };
        let mut deleted = 0;
        for chunk in documents.chunks(MAX_WRITES_PER_COMMIT) {
            match self.db.commit(chunk.iter().map(delete).collect()).await {
                Ok(()) => deleted += chunk.len() as u64,
                Err(status) if lost_race(&status) => {
                    for doc in chunk {
                        match self.db.commit(vec![delete(doc)]).await {
                            Ok(()) => deleted += 1,
                            Err(status) if lost_race(&status) => {}
                            Err(status) => return Err(commit_error(status)),
                        }
                    }
                }
                Err(status) => return Err(commit_error(status)),
            }
        }
        Ok(deleted)
    }
}
