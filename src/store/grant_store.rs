//! The contract every backend keeps for the OAuth server's records.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use super::grants::{Client, Credential, Grant, Redeemed};

#[async_trait]
pub trait GrantStore: Send + Sync {
    /// Adds the client, or replaces the one with its id.
    async fn put_client(&self, client: &Client) -> Result<(), StoreError>;

    async fn client(&self, id: &str) -> Result<Option<Client>, StoreError>;

    /// Up to `limit` clients by id, from after the id `after`: a page of them.
    async fn clients(&self, after: Option<&str>, limit: u32) -> Result<Vec<Client>, StoreError>;

    /// Adds the grant, or replaces the one with its id.
    async fn put_grant(&self, grant: &Grant) -> Result<(), StoreError>;

    async fn grant(&self, id: &str) -> Result<Option<Grant>, StoreError>;

    /// The grants of the namespace named `namespace`, oldest first.
    async fn grants(&self, namespace: &str) -> Result<Vec<Grant>, StoreError>;

    /// Writes `credentials`, each under the grant `grant_id` whatever its own `grant_id` says,
    /// and moves the grant's expiry to `expires_at`, all at once and only if the grant still
    /// exists: a revoked grant issues nothing, however the calls interleave. Whether it did. A
    /// credential whose digest is already held fails the call, which then writes nothing.
    async fn issue(
        &self,
        grant_id: &str,
        expires_at: DateTime<Utc>,
        credentials: &[Credential],
    ) -> Result<bool, StoreError>;

    /// Deletes the grant and every credential issued under it. Whether it existed; either way no
    /// credential under it is left.
    async fn revoke_grant(&self, id: &str) -> Result<bool, StoreError>;

    /// Adds a credential that belongs to no grant (a sign-in under way). A credential is never
    /// replaced, so that a used one cannot be made unused: a digest already held fails the call.
    async fn put_credential(&self, credential: &Credential) -> Result<(), StoreError>;

    /// The credential with this digest, used or not, expired or not.
    async fn credential(&self, digest: &str) -> Result<Option<Credential>, StoreError>;

    /// Marks the credential used and says whether it already was, atomically: of two
    /// concurrent calls on one credential, exactly one finds it [`Redeemed::First`]. With
    /// `keep_until`, the call that marks it also moves its expiry there, so that the purge
    /// deletes it then (a rotated refresh token, whose replays its grant catches).
    async fn redeem(
        &self,
        digest: &str,
        keep_until: Option<DateTime<Utc>>,
    ) -> Result<Redeemed, StoreError>;

    /// Deletes the clients, grants and credentials that expired before `now`; returns how many
    /// records went. Each is judged by its own expiry; a client without one stays.
    async fn purge_expired(&self, now: DateTime<Utc>) -> Result<u64, StoreError>;
}
