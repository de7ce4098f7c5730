//! The clients and grants as the operator's API and dynamic registration reach them, each a
//! call of the server under its one time limit, so that the HTTP layer applies none.

use super::client::{self, Registered, Registration};
use super::{AuthorizationServer, OAuthError};
use crate::domain::Namespace;
use crate::store::{Client, Grant, StoreError};

impl AuthorizationServer {
    /// Registers the client `registration` describes (RFC 7591, section 3).
    pub async fn register(&self, registration: Registration) -> Result<Registered, OAuthError> {
        (self.limit)
            .within(client::register(self.store.as_ref(), registration))
            .await
    }

    /// Adds a confidential client for an operator, such as a GPT Action.
    pub async fn add_client(
        &self,
        name: &str,
        redirect_uris: Vec<String>,
    ) -> Result<Registered, OAuthError> {
        (self.limit)
            .within(client::add(self.store.as_ref(), name, redirect_uris))
            .await
    }

    /// Adds a redirect URI to the client `client_id`.
    pub async fn add_redirect_uri(&self, client_id: &str, uri: &str) -> Result<Client, OAuthError> {
        (self.limit)
            .within(client::add_redirect_uri(
                self.store.as_ref(),
                client_id,
                uri,
            ))
            .await
    }

    /// Up to `limit` clients by id, from the first after `after`.
    pub async fn clients(
        &self,
        after: Option<&str>,
        limit: u32,
    ) -> Result<Vec<Client>, StoreError> {
        self.limit.within(self.store.clients(after, limit)).await
    }

    /// The grants that open `ns`.
    pub async fn grants_of(&self, ns: &Namespace) -> Result<Vec<Grant>, StoreError> {
        self.limit.within(self.store.grants(ns.name())).await
    }

    /// Revokes the grant `id` with every token issued under it; whether there was one.
    pub async fn revoke_grant(&self, id: &str) -> Result<bool, StoreError> {
        if !client::is_issued_id(id) {
            return Ok(false);
        }
        self.limit.within(self.store.revoke_grant(id)).await
    }
}
