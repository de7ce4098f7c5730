//! The apps a person connected to their namespace, as the memory page shows them, and
//! disconnecting one: its grant revoked, so none of its tokens open the memory again.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::client;
use crate::domain::Namespace;
use crate::store::{GrantStore, StoreError, TimeLimit};

/// The apps connected to each namespace, each call under one time limit.
#[derive(Clone)]
pub struct ConnectedApps {
    store: Arc<dyn GrantStore>,
    limit: TimeLimit,
}

impl ConnectedApps {
    pub fn new(store: Arc<dyn GrantStore>, limit: TimeLimit) -> Self {
        Self { store, limit }
    }

    /// The namespace's current grants, oldest first.
    pub async fn of(&self, namespace: &Namespace) -> Result<Vec<ConnectedApp>, StoreError> {
        (self.limit)
            .within(connected_apps(self.store.as_ref(), namespace))
            .await
    }

    /// Revokes the grant `grant_id` if it opens `namespace`; whether it did. Another
    /// namespace's grant is left alone, as if unknown.
    pub async fn disconnect(
        &self,
        namespace: &Namespace,
        grant_id: &str,
    ) -> Result<bool, StoreError> {
        (self.limit)
            .within(disconnect(self.store.as_ref(), namespace, grant_id))
            .await
    }
}

/// A current grant of the namespace, with the name its client gave.
#[derive(Debug, Clone)]
pub struct ConnectedApp {
    pub grant_id: String,
    /// What its writes record (see [`Writer::App`](crate::domain::Writer::App)).
    pub client_id: String,
    pub client_name: String,
    /// `token`, or the OpenID Provider's issuer.
    pub signed_in_with: String,
    pub connected_at: DateTime<Utc>,
}

async fn connected_apps(
    store: &dyn GrantStore,
    namespace: &Namespace,
) -> Result<Vec<ConnectedApp>, StoreError> {
    let now = Utc::now();
    let mut apps = Vec::new();
    for grant in store.grants(namespace.name()).await? {
        if grant.expires_at <= now {
            continue;
        }
        // As the person saw it; a grant of an earlier kioku by its client's record, and one
        // whose client was deleted since by its id.
        let client_name = match grant.client_name {
            Some(name) => name,
            None => client::find(store, &grant.client_id)
                .await?
                .map_or_else(|| grant.client_id.clone(), |client| client.name),
        };
        apps.push(ConnectedApp {
            grant_id: grant.id,
            client_id: grant.client_id,
            client_name,
            signed_in_with: grant.signed_in_with,
            connected_at: grant.created_at,
        });
    }
    Ok(apps)
}

async fn disconnect(
    store: &dyn GrantStore,
    namespace: &Namespace,
    grant_id: &str,
) -> Result<bool, StoreError> {
    match store.grant(grant_id).await? {
        Some(grant) if grant.namespace == namespace.name() => store.revoke_grant(grant_id).await,
        _ => Ok(false),
    }
}
