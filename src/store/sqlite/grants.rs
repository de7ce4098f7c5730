//! The SQLite store's OAuth records: each client, grant and credential a row of its table
//! (schema versions 4 and 9).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::types::Type;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::SqliteStore;
use crate::store::{Client, Credential, CredentialKind, Grant, GrantStore, Redeemed, StoreError};

/// The columns [`client`] reads, in its order.
const CLIENT_COLUMNS: &str =
    "id, name, secret_digest, redirect_uris, registered, created_at, expires_at";
/// The columns [`grant`] reads, in its order.
const GRANT_COLUMNS: &str = "id, client_id, namespace, namespace_label, signed_in_with, scope,
                             resource, created_at, expires_at, token_digest, client_name";
/// The columns [`credential`] reads, in its order.
const CREDENTIAL_COLUMNS: &str = "digest, kind, grant_id, expires_at, used, body";

#[async_trait]
impl GrantStore for SqliteStore {
    async fn put_client(&self, client: &Client) -> Result<(), StoreError> {
        let client = client.clone();
        self.with_conn(move |conn| {
            let uris = serde_json::to_string(&client.redirect_uris)
                .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
            conn.execute(
                &format!(
                    "INSERT OR REPLACE INTO oauth_clients ({CLIENT_COLUMNS})
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
                ),
                params![
                    client.id,
                    client.name,
                    client.secret_digest,
                    uris,
                    client.registered,
                    client.created_at.timestamp_micros(),
                    client.expires_at.map(|at| at.timestamp_micros())
                ],
            )?;
            Ok(())
        })
        .await
    }

    async fn client(&self, id: &str) -> Result<Option<Client>, StoreError> {
        let id = id.to_owned();
        self.with_conn(move |conn| {
            conn.query_row(
                &format!("SELECT {CLIENT_COLUMNS} FROM oauth_clients WHERE id = ?1"),
                [id],
                client,
            )
            .optional()
        })
        .await
    }

    async fn clients(&self, after: Option<&str>, limit: u32) -> Result<Vec<Client>, StoreError> {
        let after = after.unwrap_or_default().to_owned();
        self.with_conn(move |conn| {
            conn.prepare(&format!(
                "SELECT {CLIENT_COLUMNS} FROM oauth_clients WHERE id > ?1 ORDER BY id LIMIT ?2"
            ))?
            .query_map(params![after, limit], client)?
            .collect()
        })
        .await
    }

    async fn put_grant(&self, grant: &Grant) -> Result<(), StoreError> {
        let grant = grant.clone();
        self.with_conn(move |conn| {
            conn.execute(
                &format!(
                    "INSERT OR REPLACE INTO oauth_grants ({GRANT_COLUMNS})
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
                ),
                params![
                    grant.id,
                    grant.client_id,
                    grant.namespace,
                    grant.namespace_label,
                    grant.signed_in_with,
                    grant.scope,
                    grant.resource,
                    grant.created_at.timestamp_micros(),
                    grant.expires_at.timestamp_micros(),
                    grant.token_digest,
                    grant.client_name
                ],
            )?;
            Ok(())
        })
        .await
    }

    async fn grant(&self, id: &str) -> Result<Option<Grant>, StoreError> {
        let id = id.to_owned();
        self.with_conn(move |conn| {
            conn.query_row(
                &format!("SELECT {GRANT_COLUMNS} FROM oauth_grants WHERE id = ?1"),
                [id],
                grant,
            )
            .optional()
        })
        .await
    }

    async fn grants(&self, namespace: &str) -> Result<Vec<Grant>, StoreError> {
        let namespace = namespace.to_owned();
        self.with_conn(move |conn| {
            conn.prepare(&format!(
                "SELECT {GRANT_COLUMNS} FROM oauth_grants WHERE namespace = ?1
                 ORDER BY created_at, id"
            ))?
            .query_map([namespace], grant)?
            .collect()
        })
        .await
    }

    async fn issue(
        &self,
        grant_id: &str,
        expires_at: DateTime<Utc>,
        credentials: &[Credential],
    ) -> Result<bool, StoreError> {
        let grant_id = grant_id.to_owned();
        let credentials = credentials.to_vec();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let moved = tx.execute(
                "UPDATE oauth_grants SET expires_at = ?2 WHERE id = ?1",
                params![grant_id, expires_at.timestamp_micros()],
            )?;
            if moved == 0 {
                // Revoked: the transaction rolls back on drop, and has written nothing anyway.
                return Ok(false);
            }
            for credential in &credentials {
                insert_credential(&tx, credential, Some(&grant_id))?;
            }
            tx.commit()?;
            Ok(true)
        })
        .await
    }

    async fn revoke_grant(&self, id: &str) -> Result<bool, StoreError> {
        let id = id.to_owned();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            tx.execute("DELETE FROM oauth_credentials WHERE grant_id = ?1", [&id])?;
            let existed = tx.execute("DELETE FROM oauth_grants WHERE id = ?1", [&id])? > 0;
            tx.commit()?;
            Ok(existed)
        })
        .await
    }

    async fn put_credential(&self, credential: &Credential) -> Result<(), StoreError> {
        let credential = credential.clone();
        self.with_conn(move |conn| {
            insert_credential(conn, &credential, credential.grant_id.as_deref())
        })
        .await
    }

    async fn credential(&self, digest: &str) -> Result<Option<Credential>, StoreError> {
        let digest = digest.to_owned();
        self.with_conn(move |conn| find_credential(conn, &digest))
            .await
    }

    async fn redeem(
        &self,
        digest: &str,
        keep_until: Option<DateTime<Utc>>,
    ) -> Result<Redeemed, StoreError> {
        let digest = digest.to_owned();
        let keep_until = keep_until.map(|at| at.timestamp_micros());
        self.with_conn(move |conn| {
            // One statement marks it and says whether it was unused: atomic by itself.
            let marked = conn
                .query_row(
                    &format!(
                        "UPDATE oauth_credentials SET used = 1,
                             expires_at = COALESCE(?2, expires_at)
                         WHERE digest = ?1 AND NOT used
                         RETURNING {CREDENTIAL_COLUMNS}"
                    ),
                    params![&digest, keep_until],
                    credential,
                )
                .optional()?;
            if let Some(marked) = marked {
                return Ok(Redeemed::First(marked));
            }
            Ok(find_credential(conn, &digest)?.map_or(Redeemed::Unknown, Redeemed::Again))
        })
        .await
    }

    async fn purge_expired(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let now = now.timestamp_micros();
        self.with_conn(move |conn| {
            let tx = conn.transaction()?;
            let clients = tx.execute("DELETE FROM oauth_clients WHERE expires_at < ?1", [now])?;
            let grants = tx.execute("DELETE FROM oauth_grants WHERE expires_at < ?1", [now])?;
            let credentials =
                tx.execute("DELETE FROM oauth_credentials WHERE expires_at < ?1", [now])?;
            tx.commit()?;
            Ok((clients + grants + credentials) as u64)
        })
        .await
    }
}

/// Adds `credential` under `grant_id`; a digest already held is a constraint failure.
fn insert_credential(
    conn: &Connection,
    credential: &Credential,
    grant_id: Option<&str>,
) -> rusqlite::Result<()> {
    conn.execute(
        &format!(
            "INSERT INTO oauth_credentials ({CREDENTIAL_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
        ),
        params![
            credential.digest,
            credential.kind.as_str(),
            grant_id,
            credential.expires_at.timestamp_micros(),
            credential.used,
            credential.body
        ],
    )?;
    Ok(())
}

fn find_credential(conn: &Connection, digest: &str) -> rusqlite::Result<Option<Credential>> {
    conn.prepare_cached(&format!(
        "SELECT {CREDENTIAL_COLUMNS} FROM oauth_credentials WHERE digest = ?1"
    ))?
    .query_row([digest], credential)
    .optional()
}

fn client(row: &Row) -> rusqlite::Result<Client> {
    let uris: String = row.get(3)?;
    Ok(Client {
        id: row.get(0)?,
        name: row.get(1)?,
        secret_digest: row.get(2)?,
        redirect_uris: serde_json::from_str(&uris)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(3, Type::Text, Box::new(e)))?,
        registered: row.get(4)?,
        created_at: time(row, 5)?,
        expires_at: match row.get::<_, Option<i64>>(6)? {
            Some(_) => Some(time(row, 6)?),
            None => None,
        },
    })
}

fn grant(row: &Row) -> rusqlite::Result<Grant> {
    Ok(Grant {
        id: row.get(0)?,
        client_id: row.get(1)?,
        namespace: row.get(2)?,
        namespace_label: row.get(3)?,
        signed_in_with: row.get(4)?,
        scope: row.get(5)?,
        resource: row.get(6)?,
        created_at: time(row, 7)?,
        expires_at: time(row, 8)?,
        token_digest: row.get(9)?,
        client_name: row.get(10)?,
    })
}

fn credential(row: &Row) -> rusqlite::Result<Credential> {
    let kind: String = row.get(1)?;
    Ok(Credential {
        digest: row.get(0)?,
        kind: CredentialKind::from_name(&kind).ok_or_else(|| {
            let unknown = format!("unknown credential kind {kind:?}");
            rusqlite::Error::FromSqlConversionFailure(1, Type::Text, unknown.into())
        })?,
        grant_id: row.get(2)?,
        expires_at: time(row, 3)?,
        used: row.get(4)?,
        body: row.get(5)?,
    })
}

/// The time in column `index`, stored in microseconds since the epoch.
fn time(row: &Row, index: usize) -> rusqlite::Result<DateTime<Utc>> {
    let micros: i64 = row.get(index)?;
    DateTime::from_timestamp_micros(micros)
        .ok_or(rusqlite::Error::IntegralValueOutOfRange(index, micros))
}
