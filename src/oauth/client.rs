//! Clients: how one registers itself (RFC 7591) or is added by the operator.

use chrono::{TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use super::error::{OAuthCode, OAuthError, refuse};
use super::redirect_uri;
use super::secret::{self, SecretKind};
use crate::domain::is_forbidden_in_a_name;
use crate::store::{Client, GrantStore, StoreError};

/// Most redirect URIs one client may have.
const MAX_REDIRECT_URIS: usize = 10;
/// Longest client name, in characters.
const MAX_NAME_CHARS: usize = 100;
/// How long a client that registered itself is kept if no person completes a grant for it:
/// anyone may register, so what nobody uses goes with the hourly purge.
const UNGRANTED_LIFETIME: TimeDelta = TimeDelta::hours(24);

/// A registration request (RFC 7591, section 2); other metadata is accepted and ignored
/// (section 3.1).
#[derive(Debug, Deserialize)]
pub struct Registration {
    #[serde(default)]
    redirect_uris: Vec<String>,
    client_name: Option<String>,
    token_endpoint_auth_method: Option<String>,
    grant_types: Option<Vec<String>>,
    response_types: Option<Vec<String>>,
}

/// The registration response (RFC 7591, section 3.2.1).
#[derive(Debug, Serialize)]
pub struct Registered {
    client_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    client_secret: Option<String>,
    client_id_issued_at: i64,
    /// 0: the secret does not expire (section 3.2.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    client_secret_expires_at: Option<i64>,
    client_name: String,
    redirect_uris: Vec<String>,
    token_endpoint_auth_method: &'static str,
    grant_types: [&'static str; 2],
    response_types: [&'static str; 1],
}

impl Registration {
    /// The client this registration describes, and its secret when it is confidential.
    pub fn validate(self) -> Result<(Client, Option<String>), OAuthError> {
        let confidential = match self.token_endpoint_auth_method.as_deref() {
            Some("none") => false,
            // The default of RFC 7591, section 2.
            None | Some("client_secret_basic" | "client_secret_post") => true,
            Some(other) => {
                return refuse(
                    OAuthCode::InvalidClientMetadata,
                    format!(
                        "token_endpoint_auth_method {other:?} is not supported: use none (with PKCE), client_secret_basic or client_secret_post"
                    ),
                );
            }
        };
        check_flows(self.grant_types.as_deref(), self.response_types.as_deref())?;
        new_client(
            self.client_name.as_deref().unwrap_or("an unnamed app"),
            self.redirect_uris,
            confidential,
            true,
        )
    }
}

impl Registered {
    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    pub fn new(client: &Client, secret: Option<String>) -> Self {
        let confidential = secret.is_some();
        Self {
            client_id: client.id.clone(),
            client_secret: secret,
            client_id_issued_at: client.created_at.timestamp(),
            client_secret_expires_at: confidential.then_some(0),
            client_name: client.name.clone(),
            redirect_uris: client.redirect_uris.clone(),
            token_endpoint_auth_method: if confidential {
                "client_secret_basic"
            } else {
                "none"
            },
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"],
        }
    }
}

/// Whether `id` has the shape of the ids this server gives clients and grants (128 random bits
/// in hex); any other is unknown without a store read, and never reaches the store as a key.
pub fn is_issued_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The client with `id`, if there is one.
pub async fn find(store: &dyn GrantStore, id: &str) -> Result<Option<Client>, StoreError> {
    if !is_issued_id(id) {
        return Ok(None);
    }
    store.client(id).await
}

/// Keeps `client` beyond its first day: a person completed a grant for it.
pub(super) async fn keep(store: &dyn GrantStore, client: &Client) -> Result<(), StoreError> {
    if client.expires_at.is_none() {
        return Ok(());
    }
    let kept = Client {
        expires_at: None,
        ..client.clone()
    };
    store.put_client(&kept).await
}

/// Registers the client `registration` describes (RFC 7591, section 3).
pub async fn register(
    store: &dyn GrantStore,
    registration: Registration,
) -> Result<Registered, OAuthError> {
    let (client, secret) = registration.validate()?;
    store.put_client(&client).await?;
    Ok(Registered::new(&client, secret))
}

/// Adds a confidential client for an operator, such as a GPT Action.
pub async fn add(
    store: &dyn GrantStore,
    name: &str,
    redirect_uris: Vec<String>,
) -> Result<Registered, OAuthError> {
    let (client, secret) = new_client(name, redirect_uris, true, false)?;
    store.put_client(&client).await?;
    Ok(Registered::new(&client, secret))
}

/// Adds a redirect URI to a client: the GPT editor shows its callback only once the action
/// is saved with the client's id.
pub async fn add_redirect_uri(
    store: &dyn GrantStore,
    client_id: &str,
    uri: &str,
) -> Result<Client, OAuthError> {
    let Some(mut client) = find(store, client_id).await? else {
        return refuse(
            OAuthCode::InvalidRequest,
            format!("no client {client_id:?}"),
        );
    };
    redirect_uri::check(uri)?;
    if !client.redirect_uris.iter().any(|known| known == uri) {
        if client.redirect_uris.len() >= MAX_REDIRECT_URIS {
            return refuse(
                OAuthCode::InvalidRedirectUri,
                format!("a client has at most {MAX_REDIRECT_URIS} redirect URIs"),
            );
        }
        client.redirect_uris.push(uri.to_owned());
        store.put_client(&client).await?;
    }
    Ok(client)
}

/// Whether a client's `grant_types` and `response_types` (RFC 7591, section 2) are ones this
/// server has.
pub(super) fn check_flows(
    grant_types: Option<&[String]>,
    response_types: Option<&[String]>,
) -> Result<(), OAuthError> {
    let known_grants = ["authorization_code", "refresh_token"];
    if let Some(grant) = grant_types
        .into_iter()
        .flatten()
        .find(|g| !known_grants.contains(&g.as_str()))
    {
        return refuse(
            OAuthCode::InvalidClientMetadata,
            format!(
                "grant type {grant:?} is not supported: use authorization_code and refresh_token"
            ),
        );
    }
    if response_types.into_iter().flatten().any(|r| r != "code") {
        return refuse(
            OAuthCode::InvalidClientMetadata,
            "only the response type \"code\" is supported",
        );
    }
    Ok(())
}

/// `name`, trimmed, if it can be shown as the app's name: one that reads as it is.
pub(super) fn check_name(name: &str) -> Result<&str, OAuthError> {
    let name = name.trim();
    if name.is_empty()
        || name.chars().count() > MAX_NAME_CHARS
        || name.chars().any(is_forbidden_in_a_name)
    {
        return refuse(
            OAuthCode::InvalidClientMetadata,
            format!(
                "the client name must be 1 to {MAX_NAME_CHARS} characters without control \
                 characters, bidirectional overrides or invisible ones"
            ),
        );
    }
    Ok(name)
}

/// A new client with a fresh id, and a secret when `confidential`.
fn new_client(
    name: &str,
    redirect_uris: Vec<String>,
    confidential: bool,
    registered: bool,
) -> Result<(Client, Option<String>), OAuthError> {
    let name = check_name(name)?;
    if redirect_uris.is_empty() || redirect_uris.len() > MAX_REDIRECT_URIS {
        return refuse(
            OAuthCode::InvalidRedirectUri,
            format!("give 1 to {MAX_REDIRECT_URIS} redirect_uris"),
        );
    }
    for uri in &redirect_uris {
        redirect_uri::check(uri)?;
    }
    let secret = confidential.then(|| secret::issue(SecretKind::ClientSecret));
    let now = Utc::now();
    let client = Client {
        id: uuid::Uuid::new_v4().simple().to_string(),
        name: name.to_owned(),
        secret_digest: secret.as_deref().map(secret::digest),
        redirect_uris,
        registered,
        created_at: now,
        expires_at: registered.then(|| now + UNGRANTED_LIFETIME),
    };
    Ok((client, secret))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registration_defaults_to_a_confidential_client() {
        let parse = |json: &str| {
            serde_json::from_str::<Registration>(json)
                .unwrap()
                .validate()
        };
        let (client, secret) =
            parse(r#"{"redirect_uris":["https://a.example/cb"],"client_name":"A"}"#).unwrap();
        assert!(secret.is_some() && client.secret_digest.is_some() && client.registered);
        let (public, none) = parse(
            r#"{"redirect_uris":["http://127.0.0.1:9/cb"],"token_endpoint_auth_method":"none"}"#,
        )
        .unwrap();
        assert!(none.is_none() && public.secret_digest.is_none());
        assert!(is_issued_id(&public.id) && !is_issued_id("../x") && !is_issued_id("a/b"));
        assert!(parse(r#"{"redirect_uris":[]}"#).is_err());
        assert!(
            parse(r#"{"redirect_uris":["https://a.example/cb"],"grant_types":["implicit"]}"#)
                .is_err()
        );
    }
}
