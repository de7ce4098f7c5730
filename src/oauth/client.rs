//! Clients: how one registers itself (RFC 7591) or is added by the operator, and the rules
//! its redirect URIs keep.

use chrono::Utc;
use serde::{Deserialize, Serialize};
use url::Url;

use super::error::{ErrorCode, OAuthError, refuse};
use super::secret::{self, SecretKind};
use crate::domain::is_forbidden_in_a_name;
use crate::store::{Client, GrantStore, StoreError};

/// Most redirect URIs one client may have.
const MAX_REDIRECT_URIS: usize = 10;
/// Longest client name, in characters.
const MAX_NAME_CHARS: usize = 100;

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
                    ErrorCode::InvalidClientMetadata,
                    format!(
                        "token_endpoint_auth_method {other:?} is not supported: use none (with PKCE), client_secret_basic or client_secret_post"
                    ),
                );
            }
        };
        let known_grants = ["authorization_code", "refresh_token"];
        if let Some(grant) = self
            .grant_types
            .iter()
            .flatten()
            .find(|g| !known_grants.contains(&g.as_str()))
        {
            return refuse(
                ErrorCode::InvalidClientMetadata,
                format!(
                    "grant type {grant:?} is not supported: use authorization_code and refresh_token"
                ),
            );
        }
        if self.response_types.iter().flatten().any(|r| r != "code") {
            return refuse(
                ErrorCode::InvalidClientMetadata,
                "only the response type \"code\" is supported",
            );
        }
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
            ErrorCode::InvalidRequest,
            format!("no client {client_id:?}"),
        );
    };
    check_redirect_uri(uri)?;
    if !client.redirect_uris.iter().any(|known| known == uri) {
        if client.redirect_uris.len() >= MAX_REDIRECT_URIS {
            return refuse(
                ErrorCode::InvalidRedirectUri,
                format!("a client has at most {MAX_REDIRECT_URIS} redirect URIs"),
            );
        }
        client.redirect_uris.push(uri.to_owned());
        store.put_client(&client).await?;
    }
    Ok(client)
}

/// A new client with a fresh id, and a secret when `confidential`.
fn new_client(
    name: &str,
    redirect_uris: Vec<String>,
    confidential: bool,
    registered: bool,
) -> Result<(Client, Option<String>), OAuthError> {
    let name = name.trim();
    if name.is_empty()
        || name.chars().count() > MAX_NAME_CHARS
        || name.chars().any(is_forbidden_in_a_name)
    {
        return refuse(
            ErrorCode::InvalidClientMetadata,
            format!(
                "the client name must be 1 to {MAX_NAME_CHARS} characters without control \
                 characters, bidirectional overrides or invisible ones"
            ),
        );
    }
    if redirect_uris.is_empty() || redirect_uris.len() > MAX_REDIRECT_URIS {
        return refuse(
            ErrorCode::InvalidRedirectUri,
            format!("give 1 to {MAX_REDIRECT_URIS} redirect_uris"),
        );
    }
    for uri in &redirect_uris {
        check_redirect_uri(uri)?;
    }
    let secret = confidential.then(|| secret::issue(SecretKind::ClientSecret));
    let client = Client {
        id: uuid::Uuid::new_v4().simple().to_string(),
        name: name.to_owned(),
        secret_digest: secret.as_deref().map(secret::digest),
        redirect_uris,
        registered,
        created_at: Utc::now(),
    };
    Ok((client, secret))
}

/// Private-use schemes without a dot that MCP clients in wide use register (Cursor, VS Code):
/// named one by one, so that no scheme the browser itself handles gets in.
const APP_SCHEMES: [&str; 3] = ["cursor", "vscode", "vscode-insiders"];

/// A redirect URI is absolute with no fragment (RFC 6749, section 3.1.2). Allowed, and nothing
/// else: `https`; `http` on a loopback address written as RFC 8252 section 7.3 has it
/// (`127.0.0.1`, `[::1]`, or `localhost`, not `127.1` or `0x7f000001`); an app's private-use
/// scheme, which section 7.1 has in reverse domain order, so with a dot (`com.example.app:`),
/// or one of [`APP_SCHEMES`].
pub fn check_redirect_uri(uri: &str) -> Result<(), OAuthError> {
    let invalid = |why: &str| {
        refuse(
            ErrorCode::InvalidRedirectUri,
            format!("redirect URI {uri:?} {why}"),
        )
    };
    let Ok(url) = Url::parse(uri) else {
        return invalid("is not an absolute URI");
    };
    if url.fragment().is_some() {
        return invalid("has a fragment, which RFC 6749 section 3.1.2 forbids");
    }
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(&url, uri) => Ok(()),
        "http" => invalid(
            "uses http on a host other than a loopback address (127.0.0.1, [::1] or \
             localhost): register an https one",
        ),
        scheme if scheme.contains('.') || APP_SCHEMES.contains(&scheme) => Ok(()),
        _ => invalid(
            "uses a scheme that is not for redirects: register https, http on a loopback \
             address, or an app's own scheme in reverse domain order (com.example.app:/callback)",
        ),
    }
}

/// Whether the host is a loopback one, as `uri` writes it: the parser reads `127.1` and
/// `0x7f000001` as `127.0.0.1` too, but then the registered text is not that address.
fn is_loopback(url: &Url, uri: &str) -> bool {
    let loopback = match url.host() {
        Some(url::Host::Domain(host)) => host == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    loopback
        && url
            .host_str()
            .is_some_and(|host| uri.starts_with(&format!("http://{host}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris_are_https_loopback_or_an_apps_own_scheme() {
        for good in [
            "https://chat.openai.com/aip/g-1/oauth/callback",
            "http://127.0.0.1:33418/callback",
            "http://localhost:6274/oauth/callback",
            "http://[::1]/cb",
            "cursor://anysphere.cursor-mcp/oauth/callback",
            "vscode://vscode.github-authentication/did-authenticate",
            "com.example.app:/oauth2redirect",
        ] {
            assert!(check_redirect_uri(good).is_ok(), "{good}");
        }
        for bad in [
            "http://evil.example/cb",
            "https://a.example/cb#frag",
            "javascript:alert(1)",
            "data:text/html,x",
            "/relative",
            // What a deny-list let through: schemes the browser or the system handles, and
            // loopback addresses written otherwise than RFC 8252 has them.
            "view-source:https://a.example/",
            "jar:https://a.example/x.jar!/",
            "chrome://settings",
            "mailto:a@example.com",
            "ms-settings:privacy",
            "http://127.1/cb",
            "http://0x7f000001/cb",
            "http://2130706433/cb",
            "myapp://cb",
        ] {
            assert!(check_redirect_uri(bad).is_err(), "{bad}");
        }
    }

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
